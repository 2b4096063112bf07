"""Width fields declared ``None`` that the code replaces by another field's value when unset.

TrOCR declares ``cross_attention_hidden_size = None``; its cross-attention keys and values
take it as their input width when stated, and ``d_model`` when not (``kdim if kdim is not None
else embed_dim`` in the attention module: a fallback :mod:`dimlint.tools.undeclared_reads`
cannot see, since no ``getattr`` holds it). The shape generator changes numbers, and never
moves a ``None``, so no template learned such a field: a released TrOCR decoder stating 768
for a 1024-wide model was refused.

:func:`found` finds each such field and the field it stands in for: stating it at that
field's value builds the default's model, and so does stating it at that field's changed
value beside the change (the default and a second point agree). The generator then states it
at that value, learns it as a field, and records the pair (a row's ``stand_ins``); a config
leaving it out has the other field's value (its derivation).

The stand-in may be a multiple of the other field: GPT-2 declares ``n_inner = None`` and sizes
its MLP ``4 * n_embd`` when unset, so a fine-tune stating ``n_inner = 1152`` for a 768-wide
model was refused. Each pair therefore records its factor, one of :data:`FACTORS`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping
from typing import Any

from dimlint.tools.undeclared_reads import SHAPE_NAME

#: Fields tried as what one stands in for, at most (each costs up to len(FACTORS) builds).
_MAX_TRIED = 8
#: Multiples of the other field a stand-in may take unset: the same width, and the MLP
#: expansions modeling code writes as a literal (``4 * hidden_size``).
FACTORS = (1, 2, 4)
#: Size-like names beside :data:`undeclared_reads.SHAPE_NAME`: GPT-2's ``n_inner``.
_INNER = re.compile(r"(?:^|_)inner(?:_|$)")


def _none_widths(holder: Any) -> list[str]:
    """Fields of ``holder``'s class declared ``None``, still ``None``, named like a size."""
    if not dataclasses.is_dataclass(type(holder)):
        return []
    return [
        field.name
        for field in dataclasses.fields(type(holder))
        if field.default is None
        and getattr(holder, field.name, None) is None
        and (SHAPE_NAME.search(field.name) or _INNER.search(field.name))
    ]


def found(
    config: Any,
    numbers: Mapping[str, int],
    sizes: set[int],
    builds_like_base: Callable[[Mapping[str, object]], bool],
    alike: Callable[[Mapping[str, object], Mapping[str, object]], bool],
    holds_flipped: Callable[[str, int], bool] | None = None,
) -> dict[str, list[object]]:
    """``{field declared None: [the field whose multiple it takes unset, the factor]}`` of
    ``config``'s top level. ``numbers`` are the config's integer fields; ``sizes`` the
    default's tensor sizes (only a multiple that sizes a tensor can be one stood in for);
    ``builds_like_base`` says whether stating some fields builds the default's tensors;
    ``alike`` whether two sets of stated changes build the same tensors; ``holds_flipped(field,
    value)`` whether stating the field at the value builds the same tensors with each of the
    config's flags flipped: wav2vec2's ``adapter_attn_dim`` changes nothing in the default
    encoder, but adds adapters to the stable-layer-norm one, where None adds none."""
    pairs: dict[str, list[object]] = {}
    for name in _none_widths(config):
        pair = _stood_in_for(name, numbers, sizes, builds_like_base, alike, holds_flipped)
        if pair is not None:
            pairs[name] = pair
    return pairs


def _stood_in_for(
    name: str,
    numbers: Mapping[str, int],
    sizes: set[int],
    builds_like_base: Callable[[Mapping[str, object]], bool],
    alike: Callable[[Mapping[str, object], Mapping[str, object]], bool],
    holds_flipped: Callable[[str, int], bool] | None,
) -> list[object] | None:
    """``[other field, factor]`` for the first multiple of a field that builds the default's
    model when ``name`` states it (the fallback), if a second point agrees: the other field
    moved, with ``name`` at the same multiple of it, builds what the move alone builds."""
    tried = 0
    for other, value in numbers.items():
        if "." in other or "[" in other or value <= 1:
            continue
        candidates = [factor for factor in FACTORS if value * factor in sizes]
        if not candidates:
            continue
        if tried >= _MAX_TRIED:
            return None
        tried += 1
        for factor in candidates:
            if not builds_like_base({name: value * factor}):
                continue
            moved = value * 2
            if alike({other: moved, name: moved * factor}, {other: moved}) and (
                holds_flipped is None or holds_flipped(name, value * factor)
            ):
                return [other, factor]
            return None  # the first multiple that builds the default's model is the fallback
    return None


def learnable(
    model_class: Any, config: Any, base: Any, stated: Mapping[str, object], shapes: Any
) -> dict[str, list[object]]:
    """:func:`found` for the builds of ``model_class`` from ``config`` with ``stated`` (the
    names learning states already) kept stated; ``base`` is the default's tensor groups;
    ``shapes`` the generator module, whose build helpers this uses (passed in, not imported:
    the generator imports this module)."""

    derived = shapes._derived(config)

    build = shapes._builder(model_class, config, derived, stated)

    def groups(changes: Mapping[str, object]) -> object:
        return build(changes)[1]

    def builds_like_base(changes: Mapping[str, object]) -> bool:
        try:
            return bool(groups(changes) == base)
        except Exception:  # the class rejects the value: not the fallback
            return False

    def alike(first: Mapping[str, object], second: Mapping[str, object]) -> bool:
        try:
            return bool(groups(first) == groups(second))
        except Exception:  # the class rejects the values: no second point
            return False

    sizes = {size for shape, count in base.values() for size in (*shape, count)}
    values = shapes._values(config)
    numbers = shapes._numbers(values)
    flags = {
        path: value
        for path, value in values.items()
        if isinstance(value, bool) and "." not in path and path not in stated
    }

    def holds_flipped(name: str, value: int) -> bool:
        for flag, on in flags.items():
            try:
                without = groups({flag: not on})
            except Exception:  # the flipped regime does not build: nothing learned there
                continue
            try:
                if groups({flag: not on, name: value}) != without:
                    return False
            except Exception:  # the class rejects the pair there: not a fallback
                return False
        return True

    return found(config, numbers, sizes, builds_like_base, alike, holds_flipped)


def values(config: Any, pairs: Mapping[str, list[object]]) -> dict[str, int]:
    """Each stand-in field at its multiple of the field it stands in for in ``config``."""
    return {
        name: getattr(config, str(other)) * int(str(factor))
        for name, (other, factor) in pairs.items()
    }


def derivations(pairs: Mapping[str, list[object]]) -> dict[str, object]:
    """Each stand-in field derived, when a config leaves it out, as its multiple of the field
    it stands in for (the expression form of :mod:`dimlint.tools.shape_fit`)."""
    return {name: [[factor, 1, [[other, 1]]]] for name, (other, factor) in pairs.items()}
