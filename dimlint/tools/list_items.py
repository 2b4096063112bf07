"""List items as fields of the shape generator (see :mod:`dimlint.memory.parameters.list_items`).

:mod:`dimlint.tools.generate_shapes` learns integer fields by changing each alone and fitting
the tensors on the values. A list of integers the config class declares (Swin's ``depths``,
ResNet's ``hidden_sizes``) gets one field per item, ``depths[2]``: :func:`item_values` adds
them to a config's values and :func:`as_lists` turns a change of items back into the whole
list the config class takes. Lists the class derives (declared ``None``, filled in
``__post_init__``) are left whole: their unstated value follows other fields, which an item
learned at its default would not. Only the first :data:`MAX_ITEMS` places are split, to bound
the builds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from dimlint.config.trainingkeys import VIT_HEAD_KEYS
from dimlint.memory.parameters.list_items import is_item_list, item_path, split

#: Longer lists stay whole (a 32-layer pattern would cost 32 builds).
MAX_ITEMS = 16


def _declared_lists(config: Any) -> set[str]:
    """Names the class of ``config`` declares with a list (tuple) default."""
    config_class = type(config)
    if not dataclasses.is_dataclass(config_class):
        return set()
    return {
        field.name
        for field in dataclasses.fields(config_class)
        if isinstance(field.default, list | tuple) and field.default
    }


def _holders(config: Any) -> list[tuple[str, Any]]:
    """``config`` and its direct sub-configs, each with the prefix of its paths."""
    from transformers import PreTrainedConfig

    found: list[tuple[str, Any]] = [("", config)]
    for key in getattr(config, "sub_configs", {}) or {}:
        value = getattr(config, key, None)
        if isinstance(value, PreTrainedConfig):
            found.append((f"{key}.", value))
    return found


def item_lists(config: Any) -> dict[str, list[int]]:
    """The lists of ``config`` (and its direct sub-configs) learned item by item, by path."""
    lists: dict[str, list[int]] = {}
    for prefix, holder in _holders(config):
        declared = _declared_lists(holder)
        for name, value in holder.to_dict().items():
            if name in declared and is_item_list(value) and len(value) <= MAX_ITEMS:
                lists[prefix + name] = list(value)
    return lists


def item_values(config: Any) -> dict[str, int]:
    """Every item of :func:`item_lists` as a field: ``{"depths[0]": 2, …}``."""
    return {
        item_path(path, index): item
        for path, value in item_lists(config).items()
        for index, item in enumerate(value)
    }


def _current(config: Any, list_path: str) -> list[object]:
    key, _, name = list_path.rpartition(".")
    holder = getattr(config, key) if key else config
    return list(getattr(holder, name))


def as_lists(config: Any, changes: Mapping[str, object]) -> dict[str, object]:
    """``changes`` with each item change folded into its whole list (the other items as
    ``config`` holds them), which is what the config class accepts."""
    folded: dict[str, object] = {}
    for path, value in changes.items():
        found = split(path)
        if found is None:
            folded[path] = value
            continue
        list_path, index = found
        current = folded.get(list_path)
        items = list(current) if isinstance(current, list) else _current(config, list_path)
        items[index] = value
        folded[list_path] = items
    return folded


def lengths(values: Mapping[str, object]) -> dict[str, int]:
    """Per list whose items ``values`` holds as fields, its length (a row's ``items``)."""
    found: dict[str, int] = {}
    for path in values:
        item = split(path)
        if item is not None:
            found[item[0]] = max(found.get(item[0], 0), item[1] + 1)
    return dict(sorted(found.items()))


def stage_lists(model: Any) -> frozenset[str]:
    """Module lists of ``model`` indexed by stage, whose indices stay in tensor names.

    Tensor names fold layer indices (``layers.*``), and tensors of one name split by shape.
    Stages of a vision backbone differ in width, so folding their index leaves each stage's
    tensors to be told apart by shape alone: where two stages share a width (ResNet's
    bottleneck of stage 3 is as wide as stage 1's output) their tensors merge and no item of
    a list explains the merged count. A module list is a list of stages when it has as many
    children as a list learned item by item has items and its children hold differently
    shaped parameters (repeated layers hold alike ones); lists inside a stage are its layers."""
    import torch

    config = getattr(model, "config", None)
    lengths = {len(value) for value in item_lists(config).values()} if config else set()
    if not lengths:
        return frozenset()
    found: set[str] = set()
    for name, module in model.named_modules():
        if not isinstance(module, torch.nn.ModuleList | torch.nn.Sequential):
            continue
        if len(module) not in lengths:
            continue
        shapes = {
            tuple(tuple(parameter.shape) for parameter in child.parameters()) for child in module
        }
        if len(shapes) > 1:
            found.add(name)
    return frozenset(
        name for name in found if not any(name.startswith(other + ".") for other in found)
    )


def collapse(name: str, stages: frozenset[str]) -> str:
    """``name`` with every layer index folded to ``*`` but the indices of ``stages``."""
    parts = name.split(".")
    for position, part in enumerate(parts):
        if part.isdigit() and ".".join(parts[:position]) not in stages:
            parts[position] = "*"
    return ".".join(parts)


def second_trial(
    model_class: Any,
    config: Any,
    path: str,
    tried: int,
    learned: Any,
    derived: set[str],
    shapes: Any,
) -> bool:
    """Build an item changed to another value than the first trial (``tried``) and add the
    build to ``learned``'s observations when it keeps the tensors' layout.

    A stage's width may be divided by a constant the config does not hold (ResNet's
    bottleneck is a quarter of its stage's width, floored): a trial at ``width + 1`` would
    keep the floored quarter and fit it as a constant, so items move by factors only
    (:func:`trials`), and a second factor checks the first fit at another point.
    Whether a second build was added (the caller fixes the item otherwise). ``shapes`` is
    the generator module, whose build helpers this uses (passed in, not imported: the
    generator imports this module)."""

    base_values, base_groups = learned.observations[0][1], learned.observations[0][2]
    for trial in item_trials(config, path, base_values[path]):
        if trial == tried:
            continue
        try:
            changed = shapes._perturbed(config, path, trial, derived, learned.extras)
            groups = shapes._groups(shapes._build(model_class, changed))
        except Exception:  # a value the class rejects: try the next one
            continue
        values = shapes._values(changed)
        if values.get(path) == trial and set(groups) == set(base_groups):
            learned.observations.append((path, values, groups))
            return True
    return False


def trials(value: int) -> list[int]:
    """Values an item is changed to: multiples and halves only. A stage's sizes divide its
    width by constants the config does not hold (a bottleneck's quarter, a head's width), and
    ``width + 1`` leaves such a floored quotient where it was: fitted as a constant, it would
    be wrong at any other width. Scaling keeps the quotients whole where the default's are."""
    if value <= 0:
        return [1, 2]
    halves = [value // 2] if value % 2 == 0 else []
    return list(dict.fromkeys([value * 2, *halves, value * 3, value * 4]))


def item_trials(config: Any, path: str, value: int) -> list[int]:
    """:func:`trials` of item ``path`` that keep every division of :func:`divisions` (a
    stage's heads moved to 3 on a 32-wide stage floors its head width: a build outside the
    domain the row keeps, whose floor no expression fits)."""
    found = split(path)
    if found is None:
        return trials(value)
    lists = item_lists(config)
    pairs = divisions(lists)
    list_path, index = found
    if list_path not in lists:
        return trials(value)
    kept: list[int] = []
    for trial in trials(value):
        moved = list(lists[list_path])
        moved[index] = trial
        if not breaks(pairs, {**lists, list_path: moved}):
            kept.append(trial)
    return kept


#: Lists and dicts of a config that no item derives.
_LABELS = frozenset({"id2label", "label2id"})
#: Seeded whole-list mixes each list is checked with (see :func:`checks`).
MIXES = 3


def checks(value: list[int], seed: str) -> list[list[int]]:
    """Moves of a list that check its items' fits: each item doubled, tripled, halved, plus
    one and at one (a stage's reduction ratio at 1 drops its reduction layer), the whole list
    doubled, and a few seeded mixes of items scaled by 1 to 4, as released configs mix them."""
    import random

    moved: list[list[int]] = []
    for index, item in enumerate(value):
        for other in (item * 2, item * 3, item // 2, item + 1, 1):
            if other >= 1 and other != item:
                moved.append([*value[:index], other, *value[index + 1 :]])
    moved.append([item * 2 for item in value])
    rng = random.Random(seed)
    for _ in range(MIXES):
        moved.append([item * rng.choice((1, 2, 3, 4)) for item in value])
    return [list(entry) for entry in dict.fromkeys(tuple(entry) for entry in moved)]


def predicted_total(
    rows: list[list[Any]], values: Mapping[str, int], defaults: Mapping[str, int]
) -> int | None:
    """The parameter count the fitted ``rows`` give for ``values``, or None where the run-time
    would refuse them (a pinned field moved, a size that is not whole): a count it may answer
    with is what a check must confirm."""
    import math

    from dimlint.tools.shape_fit import evaluate_terms, from_json

    total = 0
    for row in rows:
        count_expression, dims, conditions, pinned = row[1], row[2], row[3], row[7]
        if any(values.get(path) != wanted for path, wanted in conditions):
            continue
        if any(values.get(path) != defaults.get(path) for path in pinned):
            return None
        sizes: list[int] = []
        for expression in (count_expression, *dims):
            terms = from_json(expression)
            if terms is None:
                return None
            # a tangent (a negative term) is evaluated too: the run-time trusts one checked
            # with its fields moved together (``joint``), so a check must confirm it
            size = evaluate_terms(terms, values)
            if size is None or size.denominator != 1:
                return None
            sizes.append(int(size))
        if sizes[0]:
            total += sizes[0] * math.prod(sizes[1:])
    return total


def divisions(lists: Mapping[str, list[int]]) -> list[list[str]]:
    """``[a, b]``: a list of widths ``a`` and a list of head counts ``b`` of one length, each
    width a multiple of its stage's heads at the default (SegFormer's ``hidden_sizes`` over its
    ``num_attention_heads``). Attention floors the head width where a stage's heads do not
    divide its width: a fit made where they do holds only there, so the checks leave such
    moves out and the run-time refuses a config making one. Other lists that happen to divide
    (``depths`` of 2) are no such pair: their moves stay checked; nor is a list of zeros."""
    found: list[list[str]] = []
    for a, items in sorted(lists.items()):
        for b, by in sorted(lists.items()):
            if a == b or len(items) != len(by) or all(item == 1 for item in by):
                continue
            if not _heads(b) or _heads(a):
                continue
            pairs = zip(items, by, strict=True)
            # zeros (Swinv2's unset ``pretrained_window_sizes``) divide by anything: no widths
            if all(divisor > 0 and item > 0 and item % divisor == 0 for item, divisor in pairs):
                found.append([a, b])
    return found


def _heads(path: str) -> bool:
    """Whether the list at ``path`` holds head counts, one per stage: its name is one of the
    head-count keys the readers know (``num_attention_heads``, ``num_heads``, ``heads``…)."""
    return path.rsplit(".", 1)[-1] in VIT_HEAD_KEYS


def breaks(pairs: list[list[str]], lists: Mapping[str, list[int]]) -> bool:
    """Whether ``lists`` make an item of some pair's ``a`` no multiple of ``b``'s."""
    return any(
        divisor <= 0 or item % divisor != 0
        for a, b in pairs
        for item, divisor in zip(lists[a], lists[b], strict=True)
    )


def unsound_lists(
    model_class: Any,
    config: Any,
    rows: list[list[Any]],
    learned: Any,
    derived: set[str],
    shapes: Any,
) -> list[str]:
    """The lists whose items the fitted ``rows`` mispredict in a build of :func:`checks`:
    learned one item at a time, a fit may hold where the item moved and fail where a stage
    meets another's width or a ratio reaches 1 (GLPN's last reduction, LeViT's first stage at
    the second's width). Such a list is not read item by item (the row keeps no ``items``
    entry for it): a config stating another value of it is refused. ``shapes``: the
    generator module, as in :func:`second_trial`."""

    defaults = {**learned.observations[0][1], "num_labels": config.num_labels}
    lists = item_lists(config)
    base = shapes._groups(shapes._build(model_class, config))
    if predicted_total(rows, defaults, defaults) != _total(base):
        return sorted(lists)  # the rows answer nothing checkable: no list is read by item
    # lists the class derives from others (LeViT's ``down_ops`` from ``hidden_sizes``): a
    # config states them as saved, at the value its own items derived, which no build with
    # one item moved had; a list whose items feed one is not read item by item
    followers = _followers(config.to_dict(), lists)
    unsound: list[str] = []
    pairs = divisions(lists)
    # an item a regime states (``hidden_sizes[0]`` at the stem's width) stays where it is: a
    # move of it leaves the regime, whose row the run-time then does not read
    held = {found: value for p, value in learned.extras.items() if (found := split(p))}
    for path, value in lists.items():
        for moved in checks(value, path):
            if breaks(pairs, {**lists, path: moved}):
                continue  # outside the domain the row keeps (``item_divisions``)
            if any(moved[index] != item for (at, index), item in held.items() if at == path):
                continue
            try:
                changed = shapes._perturbed(config, path, moved, derived, learned.extras)
                groups = shapes._groups(shapes._build(model_class, changed))
            except Exception:  # a value the class rejects: nothing to check
                continue
            saved = _followers(changed.to_dict(), lists)
            if any(saved.get(name) != held for name, held in followers.items()):
                unsound.append(path)
                break
            values = {**shapes._values(changed), "num_labels": changed.num_labels}
            predicted = predicted_total(rows, values, defaults)
            if predicted is not None and predicted != _total(groups):
                unsound.append(path)
                break
    return unsound


def _followers(saved: Mapping[str, Any], lists: Mapping[str, object]) -> dict[str, object]:
    """The lists and mappings of a saved config other than the ``lists`` read item by item,
    by path: a sub-config holding such a list (DETR's ResNet ``backbone_config``) is looked
    into, its other lists and mappings compared one by one (the whole of it moves with the
    item itself)."""
    found: dict[str, object] = {}
    for name, held in saved.items():
        if name in lists or name in _LABELS:
            continue
        if isinstance(held, dict) and any(path.startswith(f"{name}.") for path in lists):
            for inner, value in held.items():
                path = f"{name}.{inner}"
                if (
                    isinstance(value, list | tuple | dict)
                    and path not in lists
                    and inner not in _LABELS
                ):
                    found[path] = value
        elif isinstance(held, list | tuple | dict):
            found[name] = held
    return found


def _product(shape: tuple[int, ...]) -> int:
    result = 1
    for size in shape:
        result *= size
    return result


def _total(groups: Mapping[tuple[str, int], tuple[tuple[int, ...], int]]) -> int:
    return sum(count * _product(shape) for shape, count in groups.values())
