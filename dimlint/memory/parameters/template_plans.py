"""Lists a shape template never learned (issue 19: exact only inside the learned domain).

The generator learns a model type from its default config, changing one number or boolean at a
time; a list is only rotated by one place (the row's ``lists`` keeps those whose rotation
changed the tensors). That tells nothing when every default layer has one kind: LFM2's default
layers are all ``full_attention``, its released configs make 10 of 16 layers ``conv``, and the
learned count expressions (every layer attention) count another model. So a stated list, at the
top level or inside a sub-config (``text_config``), is judged here against what the template
itself shows it learned:

- a per-layer plan of kinds (``layer_types``, ``layers_block_type``, ``mlp_layer_types``…)
  mixing layers of different weights (full, sliding and chunked attention share one set;
  conv, linear attention, Mamba, dense and sparse feed-forwards each have their own) is inside
  only when the template repeats some layer tensor as many times as the plan has layers of
  each kind: a template learned on uniform layers repeats every tensor once per layer;
- an all-attention plan is outside a template that reads a state-space, linear or conv mixer's
  fields (``mamba_d_state``: Granite-4-hybrid's default layers are all Mamba);
- any other top-level list the config class declares with a non-empty list default (per-stage
  widths, layer index lists) was learned at that default only (a sub-config's lists are built
  by the composite class, whose values the table does not record, so they are not judged this
  way): a stated list is inside when it equals it, or, for
  a list of layer indices, selects as many layers (Qwen3-VL-2B's ``deepstack_visual_indexes``
  [5, 11, 17] against the default [8, 16, 24]: one merger per entry).

A list the class derives in ``__post_init__`` (declared ``None`` or empty) other than a plan has no
learned value the run time can compare with; it is not judged here (the table does not record
derived list defaults).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from dimlint.config import architectures
from dimlint.memory.parameters.layer_kinds import MIXER_KINDS

#: Mixer kinds whose layers hold the same attention weights (only the mask differs).
_ATTENTION = frozenset({"full", "sliding", "chunked"})
#: Kinds that are no mixer of their own, or attention.
_NOT_MIXERS = frozenset({"attention", "mlp", "moe"})
#: Feed-forward kinds of ``mlp_layer_types`` (DeepSeek-like dense layers before sparse ones).
_FFN_KINDS = {"dense": "mlp", "sparse": "moe"}
#: Field names of mixers that are not attention: a template reading one learned such layers.
_OTHER_MIXER = re.compile(r"^(mamba|ssm|linear_|conv_|lru|recurrent|state_|time_step)")
#: Names of lists of layer indices (entries select layers; their count is what shapes).
_INDEX_LIST = re.compile(r"(layers|idx|idxs|indexes|indices)$")
#: Names that never shape a tensor: token ids, and which stages a backbone returns.
_INERT_LIST = re.compile(r"(^|_)(ids?|token_ids?|tokens|index)$|^out_(indices|features)$")


class _Repeated(Protocol):
    """What this module reads of a template tensor (``templates.Tensor``)."""

    @property
    def name(self) -> str: ...

    @property
    def repeats(self) -> int: ...

    @property
    def fields(self) -> frozenset[str]: ...


def _kind(item: str) -> str | None:
    kind = MIXER_KINDS.get(item.lower()) or _FFN_KINDS.get(item.lower())
    if kind is None:
        return None
    return "attention" if kind in _ATTENTION else kind


def is_plan(value: object) -> bool:
    """A list of layer kinds: strings that all name one (not stage names or languages)."""
    return (
        isinstance(value, list)
        and len(value) > 1
        and all(isinstance(item, str) and _kind(item) is not None for item in value)
    )


def _is_list(value: object) -> bool:
    """A non-empty list of numbers or strings (a list of dicts is a sub-structure)."""
    if not isinstance(value, list) or not value:
        return False
    return all(isinstance(item, int | float | str) and not isinstance(item, bool) for item in value)


def _objects(raw: dict[str, Any], model_type: str) -> list[tuple[str, dict[str, Any], str]]:
    """``(prefix, config object, model type)`` of the config and of its sub-configs."""
    found = [("", raw, model_type)]
    record = architectures.lookup(model_type)
    for key, default_type in (record.sub_configs if record is not None else {}).items():
        sub = raw.get(key)
        if isinstance(sub, dict):
            stated = sub.get("model_type")
            sub_type = stated if isinstance(stated, str) else default_type
            if sub_type:
                found.append((f"{key}.", sub, sub_type))
    return found


def _own(field: str, prefix: str) -> bool:
    """Whether ``field`` (a template path) is a field of the object at ``prefix``."""
    return field.startswith(prefix) and "." not in field[len(prefix) :]


def _repeats(tensors: Iterable[_Repeated]) -> set[int]:
    """How many times the template repeats each of its layer tensors (a template learned with
    its layer count fixed has constant counts and no fields, so every tower's are taken)."""
    return {tensor.repeats for tensor in tensors if "*" in tensor.name}


def _other_mixer_field(learned: dict[str, Any], prefix: str) -> str | None:
    """A field of the object at ``prefix`` that the template reads and that only a mixer
    other than attention has, or None."""
    for path in learned.get("defaults", {}):
        if _own(path, prefix) and _OTHER_MIXER.search(path[len(prefix) :]) is not None:
            return str(path)
    return None


def _plan_outside(
    path: str, value: list[str], repeats: set[int], other_mixer: str | None
) -> str | None:
    counts: dict[str, int] = {}
    for item in value:
        kind = _kind(item) or item
        counts[kind] = counts.get(kind, 0) + 1
    described = ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))
    if len(counts) > 1:
        unseen = [kind for kind, count in sorted(counts.items()) if count not in repeats]
        if unseen:
            seen = ", ".join(str(count) for count in sorted(repeats)) or "none"
            return (
                f"{path} states {described} layers: the template repeats no layer tensor"
                f" {counts[unseen[0]]} times (it learned layer groups of {seen}), so it was"
                " learned on another plan"
            )
        return None
    if set(counts) == {"attention"} and other_mixer is not None:
        return (
            f"{path} states attention layers only; the template reads {other_mixer}: it was"
            " learned on layers of another mixer"
        )
    return None


def _list_outside(path: str, key: str, value: list[Any], default: object) -> str | None:
    # An empty declared list, like None, is one the class fills in ``__post_init__``.
    if not isinstance(default, list) or not default or value == default:
        return None
    if _INDEX_LIST.search(key) is not None and len(default) == len(value):
        return None
    return f"{path} = {_short(value)} differs from the only value learned ({_short(default)})"


def unlearned_list(
    raw: dict[str, Any], model_type: str, learned: dict[str, Any], tensors: Sequence[_Repeated]
) -> str | None:
    """Why a stated list of ``raw`` or of one of its sub-configs lies outside what
    ``model_type``'s template learned (see the module doc), or None. ``tensors`` are the
    template's tensors for ``raw``; the row's guarded ``lists`` are compared elsewhere."""
    guarded = learned.get("lists", {})
    base = architectures.base_fields()
    repeats = _repeats(tensors)
    for prefix, obj, obj_type in _objects(raw, model_type):
        # Only the kinds' own plan says attention only (not an indexer plan beside it).
        other_mixer = _other_mixer_field(learned, prefix)
        if other_mixer is not None and any(
            is_plan(value) and any(_kind(item) not in _NOT_MIXERS for item in value)
            for value in obj.values()
        ):
            other_mixer = None
        # A composite class builds its sub-configs with its own values, not the sub-config
        # class's declared ones: only the top level's declared lists are the learned values.
        record = architectures.lookup(obj_type) if not prefix else None
        for key, value in obj.items():
            path = f"{prefix}{key}"
            if path in guarded or key in base or _INERT_LIST.search(key) is not None:
                continue
            if is_plan(value):
                why = _plan_outside(path, value, repeats, other_mixer)
            elif _is_list(value) and record is not None and key in record.fields:
                why = _list_outside(path, key, value, record.defaults.get(key))
            else:
                continue
            if why is not None:
                return why
    return None


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."
