"""Number fields a config may state as a per-layer list that sizes no tensor.

Longformer and LED declare ``attention_window: list[int] | int = 512``: a released config
states it per layer (``[512, 512, …]``), a list no build of the default config ever saw, so the
run-time refused it (:func:`~dimlint.memory.parameters.template_plans.unlearned_list`) though
a sliding-attention window holds no parameter. A field the config class annotates as taking a
list and declares as a number is stated here as a list of one item per layer, at the default,
at another value and mixed; where every such build has the default build's tensors, name for
name and shape for shape, the list is inert and the row says so (``inert_lists``): the same
proof by meta builds at two values that a legacy key's inertness rests on
(:mod:`dimlint.tools.legacy_keys`).

A field declared as a tuple of floats (Mamba-2's and Nemotron-H's ``time_step_limit``, ``(0.0,
inf)``) is probed likewise (:func:`inert_floats`): each item moved, and one item more; a
released config writes its own bound (``[0.0, 1e+308]``). So is a list of integers declared
empty (:func:`inert_index_lists`): EfficientNet's ``depthwise_padding`` names the blocks whose
depthwise convolution pads "valid", which no weight sees; a released EfficientNet-B7 states
``[18]``. Stated ``[0]`` and ``[0, 1]``, it is inert where both build the default's tensors
(Qwen2-MoE's ``mlp_only_layers`` is not: it swaps experts for a dense MLP).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

#: ``(changes) → tensors`` of the primary class built with those fields changed (raises where
#: the class rejects the config).
Tensors = Callable[[Mapping[str, object]], object]

#: Token ids, and an image's or patch's size (a ``[height, width]`` pair, read elsewhere:
#: :func:`~dimlint.memory.parameters.list_items.read_as_pair`).
_NOT_PER_LAYER = re.compile(r"(^|_)(ids?|token_ids?|index)$|^(image|patch)_size$")


def candidates(config_class: Any) -> list[tuple[str, int]]:
    """``(field, default)``: the fields ``config_class`` annotates as accepting a list and
    declares as a number."""
    if not dataclasses.is_dataclass(config_class):
        return []
    found: list[tuple[str, int]] = []
    for field in dataclasses.fields(config_class):
        default = field.default
        if not isinstance(default, int) or isinstance(default, bool):
            continue
        if "list" not in str(field.type) or _NOT_PER_LAYER.search(field.name):
            continue
        found.append((field.name, default))
    return found


def float_candidates(config_class: Any) -> list[tuple[str, list[float]]]:
    """``(field, default)``: the fields ``config_class`` declares as a tuple or list of floats."""
    if not dataclasses.is_dataclass(config_class):
        return []
    found: list[tuple[str, list[float]]] = []
    for field in dataclasses.fields(config_class):
        default = field.default
        if not isinstance(default, tuple | list) or not default:
            continue
        if all(isinstance(item, float) for item in default):
            found.append((field.name, [float(item) for item in default]))
    return found


def index_candidates(config_class: Any) -> list[str]:
    """The fields ``config_class`` declares as an empty list or tuple of integers."""
    if not dataclasses.is_dataclass(config_class):
        return []
    return [
        field.name
        for field in dataclasses.fields(config_class)
        if isinstance(field.default, tuple | list)
        and not field.default
        and "int" in str(field.type)
        and not _NOT_PER_LAYER.search(field.name)
    ]


def inert_index_lists(config_class: Any, tensors: Tensors) -> list[str]:
    """The empty-by-default integer lists that, stated ``[0]`` and ``[0, 1]``, build the
    default's tensors."""
    trials = ((name, ([0], [0, 1])) for name in index_candidates(config_class))
    return [name for name, alike in builds_alike(tensors, trials).items() if alike]


def _moved(item: float) -> float:
    return 1e308 if item == float("inf") else item * 2 + 1


def builds_alike(
    tensors: Tensors, trials: Iterable[tuple[str, Sequence[object]]]
) -> dict[str, bool | None]:
    """Per ``(field, values)`` of ``trials``: whether stating the field at each value builds
    the default's tensors (True), other tensors at one of them (False), or the class rejects
    one (None). Empty where the default itself does not build: nothing to compare."""
    try:
        base = tensors({})
    except Exception:  # the default config does not build here
        return {}
    found: dict[str, bool | None] = {}
    for name, values in trials:
        try:
            found[name] = all(tensors({name: value}) == base for value in values)
        except Exception:  # the class refuses a value there: not one this row accepts
            found[name] = None
    return found


def inert_floats(config_class: Any, tensors: Tensors) -> list[str]:
    """The float-tuple fields whose lists with every item moved, and with one item more, build
    the default's tensors (a count of items the model reads, TimesFM's ``quantiles``, is not)."""
    trials = (
        (name, ([_moved(item) for item in default], [*default, default[-1]]))
        for name, default in float_candidates(config_class)
    )
    return [name for name, alike in builds_alike(tensors, trials).items() if alike]


def inert(config_class: Any, layers: int | None, tensors: Tensors) -> list[str]:
    """The candidate fields whose per-layer lists (``layers`` items: at the default, at twice
    it, and alternating the two) build the default's tensors; none without a layer count."""
    if not isinstance(layers, int) or isinstance(layers, bool) or layers < 2:
        return []

    def per_layer(default: int) -> list[list[int]]:
        other = default * 2 if default else 1
        return [
            [default] * layers,
            [other] * layers,
            [default if index % 2 else other for index in range(layers)],
        ]

    trials = ((name, per_layer(default)) for name, default in candidates(config_class))
    return [name for name, alike in builds_alike(tensors, trials).items() if alike]
