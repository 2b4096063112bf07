"""Layer tensors counted from a stated per-layer plan (issue 19: per-layer structure).

A template repeats the tensors of one layer kind as many times as the default config has
layers of that kind. Where the generator proved which kinds hold each layer tensor
(:mod:`dimlint.tools.layer_kind_tags`: a class record's ``layer_kinds``, the row's ``plans``),
a config that states its own plan (``layer_types``, also inside ``text_config``) is counted from
it: a tagged tensor repeats once per stated layer of its kinds (Kimi-Linear's 7 full-attention
layers where the default has 6). The plan is inside only when every kind it states is one the
template learned, its length is the config's layer count, the positions the class rewrites
whatever is stated (Gemma-4's last layer) are rewritten as the class does, and every other field
seen to move a kind's count (``kind_counts_at``: Gemma-4's ``num_kv_shared_layers``) keeps its
default; otherwise the plan is left to
:func:`~dimlint.memory.parameters.template_plans.unlearned_list`, which refuses it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

from dimlint.memory.parameters.layer_kinds import MIXER_KINDS
from dimlint.memory.parameters.stated import stated_at


def normalized(item: object) -> str:
    """A plan entry as the run-time counts it (``full_attention`` and ``full`` alike); the
    generator tags layer tensors with the same names (:mod:`dimlint.tools.layer_kind_tags`)."""
    text = str(item).lower()
    return MIXER_KINDS.get(text, text)


def names_mixer_kinds(value: object) -> TypeGuard[list[str]]:
    """Whether ``value`` is a non-empty list of strings that each name a layer kind."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(item, str) and item.lower() in MIXER_KINDS for item in value)
    )


def stated_plans(
    raw: Mapping[str, Any],
    learned: Mapping[str, Any],
    record: Mapping[str, Any],
    value_of: Callable[[str], int | None],
) -> dict[str, Counter[str]]:
    """``plan path → layers of each kind`` of the plans ``raw`` states that the class record
    can count (see the module doc); ``value_of`` gives a field's value as the template reads
    it (the layer count)."""
    plans: Mapping[str, Any] = learned.get("plans", {}) or {}
    tagged: Mapping[str, Any] = record.get("layer_kinds", {}) or {}
    found: dict[str, Counter[str]] = {}
    for path, info in plans.items():
        value = stated_at(raw, path)
        if path not in tagged or not names_mixer_kinds(value):
            continue
        kinds = [normalized(item) for item in value]
        for position, kind in (info.get("rewritten") or {}).items():
            kinds[int(position)] = str(kind)
        if not set(kinds) <= set(info.get("kinds", ())):
            continue  # a kind no build had: refused by unlearned_list
        if value_of(str(info.get("layers"))) != len(kinds):
            continue
        moved = record.get("kind_counts_at")
        if not isinstance(moved, dict):
            continue  # no build said which other fields move a kind's count
        if any(
            value_of(field) != default
            for field, default in moved.items()
            if field != info.get("layers")
        ):
            continue  # another field moved a kind's count: the plan alone does not say it
        found[path] = Counter(kinds)
    return found


def recount(index: int, record: Mapping[str, Any], plans: Mapping[str, Counter[str]]) -> int | None:
    """The count of tensor row ``index`` under the stated ``plans``, or None when no plan tags
    it (its learned expression counts it)."""
    tagged: Mapping[str, Any] = record.get("layer_kinds", {}) or {}
    for path, counts in plans.items():
        kinds = (tagged.get(path) or {}).get(str(index))
        if kinds is not None:
            return sum(counts[str(kind)] for kind in kinds)
    return None


def lengths(plans: Mapping[str, Counter[str]]) -> set[int]:
    """The layer counts of the stated plans (a tensor in every layer repeats that often)."""
    return {sum(counts.values()) for counts in plans.values()}
