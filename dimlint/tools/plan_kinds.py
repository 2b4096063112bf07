"""Layer kinds a default plan lacks, learned as a regime of their own (issue 19).

The layer-kind tags (:mod:`dimlint.tools.layer_kind_tags`) say which tensors each kind of the
default plan holds; a kind the default plan lacks was never built. A plan whose default holds
one kind only (LFM2's 32 ``full_attention`` layers, Granite-4's Mamba layers) tags nothing at
all, and one of several kinds lacks others (DeepSeek-V4's default has compressed layers only;
the released model opens with two sliding-window layers): a released config stating them lay
outside the template.

Here each kind the config class accepts (transformers' ``ALLOWED_LAYER_TYPES``, as far as the
run-time names it a layer kind) and the default plan lacks is stated at its first layer: a kind
whose build holds other tensors than the default's is one the class builds differently. With
every such kind found, a *seed* plan states them at the first layers and the default plan at
the rest (every kind it had kept); the type is then learned again from the seed (a variant
stating it), where the default model holds every kind and the tags say which tensors each kind
holds. The variant's key names the kinds it learned (``layer_types~["conv","full"]``); the
run-time enters it for a stated plan whose kinds are all among them and not all among the
default's (:func:`dimlint.memory.parameters.templates._matching`). While the variant is
learned, a change of the layer count resizes the held seed (:func:`resized`), as the class
itself would derive a plan of that length.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from dimlint.memory.parameters.plan_counts import names_mixer_kinds, normalized

#: A build of the class with some fields changed: ``(values, tensor groups)``; raises where
#: the class rejects them.
Build = Callable[[Mapping[str, object]], tuple[dict[str, Any], Any]]
#: The field that counts a plan's layers, beside the plan in its (sub-)config.
LAYERS = "num_hidden_layers"


def allowed_kinds() -> tuple[str, ...]:
    """The layer kinds transformers validates a plan against, that the run-time can count."""
    from transformers import configuration_utils

    kinds: tuple[str, ...] = getattr(configuration_utils, "ALLOWED_LAYER_TYPES", ())
    return tuple(kind for kind in kinds if names_mixer_kinds([kind]))


def plans(lists: Mapping[str, list[object]]) -> dict[str, list[str]]:
    """The per-layer plans among ``lists`` (path → default value)."""
    return {
        path: [str(item) for item in value]
        for path, value in lists.items()
        if names_mixer_kinds(value)
    }


def regime(
    path: str,
    plan: list[str],
    base_groups: object,
    build: Build,
    read_back: Callable[[Mapping[str, object]], object],
    candidates: tuple[str, ...],
) -> tuple[list[str], list[str]] | None:
    """``(kinds, seed plan)`` of the default ``plan`` at ``path``: the kinds (normalized, the
    default's among them) whose statement builds other tensors, and a plan stating each kind it
    lacks once at the first layers; None when no other kind changes a tensor, the seed would
    drop a kind of the default, or the class rewrites a stated kind."""
    present = {normalized(item) for item in plan}
    found: dict[str, str] = {}  # normalized kind → the spelling stated
    for kind in candidates:
        if normalized(kind) in present or normalized(kind) in found:
            continue
        stated = {path: [kind, *plan[1:]]}
        try:
            _, groups = build(stated)
            back = read_back(stated)
        except Exception:  # the class rejects the kind (or this plan): not one it builds
            continue
        if groups != base_groups and isinstance(back, list) and back[:1] == [kind]:
            found[normalized(kind)] = kind
    seed = [*found.values(), *plan[len(found) :]]
    if not found or not present <= {normalized(item) for item in seed}:
        return None
    try:
        back = read_back({path: seed})
        build({path: seed})
    except Exception:  # the kinds build one at a time only
        return None
    if back != seed:
        return None
    return sorted(present | set(found)), seed


def resized(kwargs: dict[str, Any], changes: Mapping[str, object], held: set[str]) -> None:
    """Resize in ``kwargs`` (a config's keyword arguments) each held plan whose layer count
    ``changes`` moves: cut to the new count, or continued with its last kind (the default's,
    as a seed places the learned kinds first), as a class would derive a plan of that length."""
    for path in held:
        prefix, _, name = path.rpartition(".")
        scope = kwargs.get(prefix) if prefix else kwargs
        count_path = f"{prefix}.{LAYERS}" if prefix else LAYERS
        layers = changes.get(count_path)
        if not isinstance(scope, dict) or path in changes:
            continue
        plan = scope.get(name)
        if (
            not isinstance(layers, int)
            or isinstance(layers, bool)
            or layers < 1
            or not names_mixer_kinds(plan)
        ):
            continue
        scope[name] = plan[:layers] + [plan[-1]] * (layers - len(plan))
