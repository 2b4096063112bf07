"""Composites whose towers are of other model types than their template learned with.

A vision-language composite builds each tower from its sub-config with an auto class
(``modeling_llava.py``, transformers 5)::

    self.vision_tower = AutoModel.from_config(config.vision_config)
    self.multi_modal_projector = LlavaMultiModalProjector(config)
    self.language_model = AutoModel.from_config(config.text_config)

so a released LLaVA-NeXT with a Mistral text tower, or one with a SigLIP vision tower, builds
other towers than the default (Llama, CLIP) its template was learned with, and was an
estimate. Here each stated tower of another type is counted with its own type's template for
the class the auto mapping builds, placed where the composite holds it, and the rest of the
composite (projector, head) with the composite's template, the tower stated at its default
type with the stated tower's values of the fields the rest reads (its width, its vocabulary).

Nothing is assumed about where a tower sits or which auto class builds it: both are found by
evaluating the composite's template at its defaults and the default tower type's template at
the composite's default tower values. A role (``AutoModel`` or ``AutoModelForCausalLM``) and
a place qualify only where the composite's tensors there are exactly the tower's, name for
name and shape for shape; a composite that edits its tower after building it, or reads a tower
field its own template does not learn, is refused (an estimate).
"""

from __future__ import annotations

from typing import Any

from dimlint.config import architectures
from dimlint.config.model_classes import auto_class
from dimlint.memory.parameters.composed import COMPOSITES
from dimlint.memory.parameters.templates import (
    Refusal,
    Tensor,
    class_for,
    class_value,
    learned_tensors,
    outside_under,
    row,
)
from dimlint.memory.parameters.text_towers import TEXT_TOWERS

_ROLES = ("base", "causal_lm")
#: Composites whose config class completes a stated sub-config with its own default one
#: (``{**self.sub_configs_defaults[key].init_kwargs, **stated}``, transformers 5.24): a swapped
#: tower there is not built at its type's defaults, so none is counted here (the tests check the
#: list against transformers' source).
INJECTING = frozenset(
    {
        "cohere_asr",
        "glmasr",
        "pe_audio",
        "pe_audio_video",
        "pe_video",
        "voxtral",
        "voxtral_realtime",
    }
)


def swapped(raw: dict[str, Any]) -> list[str]:
    """The sub-config keys of ``raw`` whose stated model type is not the composite's default."""
    model_type = raw.get("model_type")
    if not isinstance(model_type, str) or model_type in (*COMPOSITES, *TEXT_TOWERS, *INJECTING):
        return []
    record = architectures.lookup(model_type)
    if record is None:
        return []
    keys = []
    for key, default in record.sub_configs.items():
        if key not in record.auto_sub_configs:
            continue  # the class builds its own sub-config class whatever type is stated
        sub = raw.get(key)
        stated = sub.get("model_type") if isinstance(sub, dict) else None
        if isinstance(stated, str) and stated and default is not None and stated != default:
            keys.append(key)
    return keys


def applies(raw: dict[str, Any], architecture: str) -> bool:
    """Whether ``raw`` is a composite with a swapped tower, built as a class its row learned."""
    learned = row(str(raw.get("model_type")))
    return (
        bool(swapped(raw)) and learned is not None and class_for(learned, architecture) is not None
    )


def swapped_tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    """The tensors of the composite ``raw`` describes (see the module doc), or why not."""
    model_type = str(raw["model_type"])
    learned = row(model_type) or {}
    class_name = class_for(learned, architecture)
    record = architectures.lookup(model_type)
    if class_name is None or record is None:
        return Refusal(f"{architecture} of {model_type} was not learned", True)
    composite = learned_tensors({"model_type": model_type}, class_name)
    if isinstance(composite, Refusal):
        return Refusal(f"{class_name} at its defaults: {composite.reason}", True)
    stand_ins: dict[str, Any] = {}
    towers: list[Tensor] = []
    places: list[str] = []
    for key in swapped(raw):
        default_type = str(record.sub_configs[key])
        found = _place(learned, class_name, composite, key, default_type)
        if isinstance(found, Refusal):
            return found
        tower_places, role = found
        sub = {**raw[key]}
        stated_type = str(sub["model_type"])
        tower_class = auto_class(stated_type, role)
        if tower_class is None:
            return Refusal(f"no single {role} class is built for the {key}'s {stated_type}", True)
        with outside_under(f"{key} ({tower_class})"):
            tower = learned_tensors(sub, tower_class)
        if isinstance(tower, Refusal):
            return Refusal(f"{key} ({tower_class}): {tower.reason}", True)
        stand_in = _stand_in(learned, class_name, key, tower_places, default_type, sub)
        if isinstance(stand_in, Refusal):
            return stand_in
        stand_ins[key] = stand_in
        places += tower_places
        towers += [
            Tensor(
                f"{place}{t.name}", t.repeats, t.shape, frozenset(f"{key}.{f}" for f in t.fields)
            )
            for place in tower_places
            for t in tower
        ]
    rest = learned_tensors({**raw, **stand_ins}, class_name)
    if isinstance(rest, Refusal):
        return rest
    kept = [t for t in rest if not t.name.startswith(tuple(places))]
    return kept + towers


def _default_values(learned: dict[str, Any], key: str) -> dict[str, Any]:
    """The composite's default values of the tower ``key``'s fields, as its row recorded them."""
    values: dict[str, Any] = {}
    for source in ("declared", "defaults"):
        for path, value in learned.get(source, {}).items():
            head, _, field = path.partition(".")
            if head == key and field and "." not in field:
                values[field] = value
    return values


def _place(
    learned: dict[str, Any], class_name: str, composite: list[Tensor], key: str, default_type: str
) -> tuple[list[str], str] | Refusal:
    """Where ``class_name`` holds the tower ``key`` and the role of the class that builds it:
    the prefixes and role under which the composite's tensors at its defaults are exactly the
    default tower's, evaluated at the composite's default tower values (Video-LLaVA builds its
    image and its video tower from one config: every place must hold the tower as built)."""
    tower_raw = {**_default_values(learned, key), "model_type": default_type}
    by_name = {t.name: (t.repeats, t.shape) for t in composite}
    for role in _ROLES:
        tower_class = auto_class(default_type, role)
        if tower_class is None:
            continue
        tower = learned_tensors(tower_raw, tower_class)
        if isinstance(tower, Refusal) or not tower:
            continue
        first = tower[0].name
        candidates = {name[: -len(first)] for name in by_name if name.endswith(first)}
        built = [
            place
            for place in sorted(candidates)
            if place.endswith(".")
            and {n: v for n, v in by_name.items() if n.startswith(place)}
            == {f"{place}{t.name}": (t.repeats, t.shape) for t in tower}
        ]
        if built and len(built) == len(candidates):
            return built, role
    return Refusal(f"the {key}'s place in {class_name} is not its default tower as built", True)


def _stand_in(
    learned: dict[str, Any],
    class_name: str,
    key: str,
    places: list[str],
    default_type: str,
    stated: dict[str, Any],
) -> dict[str, Any] | Refusal:
    """The tower ``key`` as the rest of the composite reads it: the default type at the
    composite's default tower values, with the stated tower's value of each of its fields that
    a tensor outside the tower reads."""
    unlearned = sorted(path for path in learned.get("fixed", []) if path.startswith(f"{key}."))
    if unlearned:
        # never moved while learning: whether the rest reads it is unknown (Mistral-Large-4's
        # projector is as wide as its vision tower, a constant in its template)
        return Refusal(f"{unlearned[0]} was never moved when {class_name} was learned", True)
    numbers: set[str] = set()
    flags: set[str] = set()
    others: set[str] = set()  # fields of other sub-configs the rest reads
    entry = learned.get("classes", {}).get(class_name, {})
    for name, count, dims, conditions, *rest in entry.get("tensors", []) or []:
        if str(name).startswith(tuple(places)):
            continue
        flags |= _under(key, {str(condition[0]) for condition in conditions})
        # a size seen only at the tower's default (Mistral-Large-4's projector: 2048 wide)
        pinned = rest[0] if rest and isinstance(rest[0], list) else []
        numbers |= _under(key, {str(path) for path in pinned})
        for expression in [count, *dims]:
            fields = {str(field) for _, _, factors in expression for field, _ in factors}
            parts = {part for path in fields for part in path.split("//")}
            numbers |= _under(key, parts)
            others |= {path for path in parts if "." in path and not path.startswith(f"{key}.")}
    # a field the class copies from the tower into another sub-config (Idefics2's perceiver
    # takes ``text_config.hidden_size``) is read wherever the copy is
    copied: dict[str, Any] = learned.get("overwritten", {})
    numbers |= _under(key, {str(source) for source in copied.values()})
    stated_type = str(stated["model_type"])
    record = architectures.lookup(stated_type)
    # the tower's own tensors, dropped afterwards, are evaluated at the composite's defaults
    stand_in: dict[str, Any] = {**_default_values(learned, key), "model_type": default_type}
    for field in sorted(flags | numbers):
        if "." in field:
            return Refusal(f"the rest of {class_name} reads {key}.{field}, inside the tower", True)
        if field in flags:
            value = stated.get(field, record.defaults.get(field) if record is not None else None)
        else:
            value = class_value(stated, field)
            if value is None and record is not None:
                # a field the stated type's row learned only inside a quotient (SigLIP's
                # ``patch_size``): its value as stated, else the class default
                found = stated.get(field, record.defaults.get(field))
                value = found if isinstance(found, int) and not isinstance(found, bool) else None
        if value is None:
            why = f"the rest of {class_name} reads {key}.{field}, which {stated_type} does not say"
            return Refusal(why, True)
        stand_in[field] = value
    defaults = {**learned.get("declared", {}), **learned.get("defaults", {})}
    for path in sorted(others):
        field = path.split(".", 1)[1]
        mine = defaults.get(f"{key}.{field}")
        if mine is not None and defaults.get(path) == mine and class_value(stated, field) != mine:
            # the template may have fitted the tower's field under another sub-config's name,
            # equal to it at every default (MOSS's head read as ``audio_config.hidden_size``)
            why = f"the rest of {class_name} reads {path}, equal to {key}.{field} at the defaults"
            return Refusal(why, True)
    return stand_in


def _under(key: str, paths: set[str]) -> set[str]:
    """The fields of the sub-config ``key`` among dotted ``paths``."""
    return {path[len(key) + 1 :] for path in paths if path.startswith(f"{key}.")}
