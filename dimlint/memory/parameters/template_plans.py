"""Per-layer plans a shape template never learned (issue 19: exact only inside the domain).

The generator learns a model type from its default config, changing one number or boolean at a
time; a list of layer kinds (``layer_types``, ``layers_block_type``…) is only rotated by one
place, which changes nothing when every default layer has one kind (LFM2's default layers are
all ``full_attention``; its released configs make 10 of 16 layers ``conv``). The learned count
expressions therefore hold for the plan the config class *derives from its numbers* (every
layer attention; Qwen3-Next's linear layers from ``full_attention_interval``) and for no
other. A stated plan, at the top level or inside a sub-config (``text_config``), is inside the
template's domain only when it has as many layers of each weight-bearing kind as that derived
plan: full, sliding and chunked attention share one set of weights, every other kind (conv,
linear attention, Mamba, compressed attention…) has its own tensors.

The derived plan is dimlint's reading of the class (:func:`~dimlint.memory.parameters.layer_kinds.
mixer_rule`), which falls back to "every layer attention" where it knows no rule. That fallback
is trusted only where the template agrees: a template whose fields include a state-space or
linear mixer's (``mamba_d_state``: Granite-4-hybrid's default layers are all Mamba) was not
learned on attention layers alone, so an all-attention plan stated for it is refused too.
"""

from __future__ import annotations

import re
from typing import Any

from dimlint.config import architectures
from dimlint.config.normalize import normalize
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.layer_kinds import MIXER_KINDS, mixer_counts

#: Mixer kinds whose layers hold the same attention weights (only the mask differs).
_ATTENTION = frozenset({"full", "sliding", "chunked"})


#: Field-name prefixes of mixers that are not attention: a template reading one learned them.
_OTHER_MIXER = re.compile(r"^(mamba|ssm|linear_|conv_|lru|recurrent|state_|time_step)")


def _weights(kind: str) -> str:
    return "attention" if kind in _ATTENTION else kind


def _is_plan(value: object) -> bool:
    """A list of layer kinds: strings that all name a mixer kind (not a list of stage names,
    languages or token ids)."""
    return (
        isinstance(value, list)
        and len(value) > 1
        and all(isinstance(item, str) and item.lower() in MIXER_KINDS for item in value)
    )


def _by_weights(obj: dict[str, Any], model_type: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for kind, count in mixer_counts(Cfg(normalize("", "", obj, model_type))).items():
        counts[_weights(kind)] = counts.get(_weights(kind), 0) + count
    return counts


def _describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{count} {kind}" for kind, count in sorted(counts.items()))


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


def unlearned_plan(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """Why a stated per-layer plan of ``raw`` (or of one of its sub-configs) lies outside what
    ``model_type``'s template learned, or None. Plans the generator guarded (the row's
    ``lists``, whose order it saw change the tensors) are compared value for value elsewhere."""
    guarded = learned.get("lists", {})
    for prefix, obj, obj_type in _objects(raw, model_type):
        plans = [key for key, value in obj.items() if _is_plan(value)]
        plans = [key for key in plans if f"{prefix}{key}" not in guarded]
        if not plans:
            continue
        stated = _by_weights(obj, obj_type)
        derived = _by_weights({k: v for k, v in obj.items() if k not in plans}, obj_type)
        if stated != derived:
            return (
                f"{prefix}{plans[0]} states {_describe(stated)} layers; {model_type}'s template"
                f" counts only the plan its numbers derive ({_describe(derived)})"
            )
        other = _other_mixer_field(learned, prefix)
        if set(stated) == {"attention"} and other is not None:
            return (
                f"{prefix}{plans[0]} states attention layers only; {model_type}'s template reads"
                f" {other}: it was learned with layers of another mixer"
            )
    return None


def _other_mixer_field(learned: dict[str, Any], prefix: str) -> str | None:
    """A field of the (sub-)config at ``prefix`` that the template reads and that only a
    mixer other than attention has, or None."""
    for path in learned.get("defaults", {}):
        name = path[len(prefix) :] if path.startswith(prefix) else "."
        if "." not in name and _OTHER_MIXER.search(name) is not None:
            return str(path)
    return None
