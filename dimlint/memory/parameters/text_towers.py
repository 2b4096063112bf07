"""BLIP-2-style composites counted with a text tower of any model type.

``Blip2ForConditionalGeneration``, ``InstructBlipForConditionalGeneration`` and
``InstructBlipVideoForConditionalGeneration`` build their language model from ``text_config``
as transformers' source says (``modeling_blip_2.py``, ``modeling_instructblip.py``,
``modeling_instructblipvideo.py``)::

    self.language_projection = nn.Linear(config.qformer_config.hidden_size,
                                         config.text_config.hidden_size)
    if config.use_decoder_only_language_model:   # text type has a causal-LM class
        language_model = AutoModelForCausalLM.from_config(config.text_config)
    else:
        language_model = AutoModelForSeq2SeqLM.from_config(config.text_config)

Their templates were learned with the default text tower (OPT) only, so a released
BLIP-2-Flan-T5 lay outside (counted 68% low, as an estimate). Here the language model is counted
with its own type's template for the class the auto mapping builds, under ``language_model.``,
and the rest of the composite (vision tower, Q-Former, query tokens, projection) with the
composite's template, its text tower stated at the default type with the stated tower's
width — the only text field those tensors read (checked: any other makes this refuse). The
count is exact when both parts are.
"""

from __future__ import annotations

from typing import Any

from dimlint.config import architectures
from dimlint.config.model_classes import auto_class
from dimlint.memory.parameters.templates import (
    Refusal,
    Tensor,
    class_value,
    learned_tensors,
    outside_under,
    prefixed,
    row,
)

#: Composite model type → (its class that builds the language model this way, the text
#: sub-config's key, the language model's attribute).
TEXT_TOWERS = {
    "blip-2": ("Blip2ForConditionalGeneration", "text_config", "language_model"),
    "instructblip": ("InstructBlipForConditionalGeneration", "text_config", "language_model"),
    "instructblipvideo": (
        "InstructBlipVideoForConditionalGeneration",
        "text_config",
        "language_model",
    ),
}


def applies(raw: dict[str, Any], architecture: str) -> bool:
    """Whether ``raw`` is such a composite, built as that class, with a text tower of another
    model type than its template was learned with."""
    model_type = raw.get("model_type")
    tower = TEXT_TOWERS.get(model_type) if isinstance(model_type, str) else None
    if tower is None or architecture not in ("", tower[0]):
        return False
    record = architectures.lookup(str(model_type))
    sub = raw.get(tower[1])
    stated = sub.get("model_type") if isinstance(sub, dict) else None
    return record is not None and stated not in (None, record.sub_configs.get(tower[1]))


def tower_tensors(raw: dict[str, Any]) -> list[Tensor] | Refusal:
    """The parameter tensors of the composite ``raw`` describes (see the module doc), or why
    they cannot be known exactly."""
    model_type = str(raw.get("model_type"))
    class_name, key, attribute = TEXT_TOWERS[model_type]
    sub = dict(raw[key])
    text_type = str(sub["model_type"])
    causal = auto_class(text_type, "causal_lm")
    tower_class = causal or auto_class(text_type, "seq2seq_lm")
    if tower_class is None:
        return Refusal(f"transformers builds no language model for a {text_type} {key}", True)
    with outside_under(f"{key} ({tower_class})"):
        tower = learned_tensors(sub, tower_class)
    if isinstance(tower, Refusal):
        return Refusal(f"{key} ({tower_class}): {tower.reason}", True)
    width = class_value(sub, "hidden_size")
    if width is None:
        return Refusal(f"the {key}'s hidden size is not known from its config", True)
    read = _text_fields_outside(model_type, class_name, key, attribute)
    if read - {"hidden_size"}:
        return Refusal(
            f"{class_name} reads {key}.{sorted(read)[0]} outside its language model", True
        )
    record = architectures.lookup(model_type)
    default_type = record.sub_configs.get(key) if record is not None else None
    stand_in = {**raw, key: {"model_type": default_type, "hidden_size": width}}
    rest = learned_tensors(stand_in, class_name)
    if isinstance(rest, Refusal):
        return rest
    outside = [tensor for tensor in rest if not tensor.name.startswith(f"{attribute}.")]
    # named where the model holds them, shaped by the text sub-config (``mem``'s breakdown)
    return outside + [
        tensor._replace(name=f"{attribute}.{tensor.name[len(key) + 1 :]}")
        for tensor in prefixed(tower, key)
    ]


def _text_fields_outside(model_type: str, class_name: str, key: str, attribute: str) -> set[str]:
    """The ``key`` fields the class's tensors outside ``attribute`` read (its learned row)."""
    learned = row(model_type) or {}
    entry = learned.get("classes", {}).get(class_name, {})
    fields: set[str] = set()
    for name, count, dims, *_ in entry.get("tensors", []) or []:
        if str(name).startswith(f"{attribute}."):
            continue
        for expression in [count, *dims]:
            for _, _, factors in expression:
                for field, _ in factors:
                    if str(field).startswith(f"{key}."):
                        fields.add(str(field)[len(key) + 1 :])
    return fields
