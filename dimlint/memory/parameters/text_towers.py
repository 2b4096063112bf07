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
from dimlint.memory.parameters.composed import tower, width
from dimlint.memory.parameters.templates import Refusal, Tensor, learned_tensors, row

#: Composite model type → its class that builds the language model this way.
TEXT_TOWERS = {
    "blip-2": "Blip2ForConditionalGeneration",
    "instructblip": "InstructBlipForConditionalGeneration",
    "instructblipvideo": "InstructBlipVideoForConditionalGeneration",
}
#: The text sub-config's key, and the attribute holding the language model built from it.
_KEY = "text_config"
_ATTRIBUTE = "language_model"


def applies(raw: dict[str, Any], architecture: str) -> bool:
    """Whether ``raw`` is such a composite, built as that class, with a text tower of another
    model type than its template was learned with."""
    model_type = raw.get("model_type")
    class_name = TEXT_TOWERS.get(model_type) if isinstance(model_type, str) else None
    if class_name is None or architecture not in ("", class_name):
        return False
    record = architectures.lookup(str(model_type))
    sub = raw.get(_KEY)
    stated = sub.get("model_type") if isinstance(sub, dict) else None
    return record is not None and stated not in (None, record.sub_configs.get(_KEY))


def tower_tensors(raw: dict[str, Any]) -> list[Tensor] | Refusal:
    """The parameter tensors of the composite ``raw`` describes (see the module doc), or why
    they cannot be known exactly."""
    model_type = str(raw.get("model_type"))
    class_name = TEXT_TOWERS[model_type]
    text_type = str(raw[_KEY]["model_type"])
    role = "causal_lm" if auto_class(text_type, "causal_lm") else "seq2seq_lm"
    built = tower(raw, _KEY, role)
    if isinstance(built, Refusal):
        return built
    sub, language_model = built
    text_width = width(sub, _KEY)
    if isinstance(text_width, Refusal):
        return text_width
    read = _text_fields_outside(model_type, class_name)
    if read - {"hidden_size"}:
        why = f"{class_name} reads {_KEY}.{sorted(read)[0]} outside its language model"
        return Refusal(why, True)
    record = architectures.lookup(model_type)
    default_type = record.sub_configs.get(_KEY) if record is not None else None
    stand_in = {**raw, _KEY: {"model_type": default_type, "hidden_size": text_width}}
    rest = learned_tensors(stand_in, class_name)
    if isinstance(rest, Refusal):
        return rest
    outside = [tensor for tensor in rest if not tensor.name.startswith(f"{_ATTRIBUTE}.")]
    # named where the model holds them, shaped by the text sub-config (``mem``'s breakdown)
    return outside + [
        Tensor(
            f"{_ATTRIBUTE}.{tensor.name}",
            tensor.repeats,
            tensor.shape,
            frozenset(f"{_KEY}.{field}" for field in tensor.fields),
        )
        for tensor in language_model
    ]


def _text_fields_outside(model_type: str, class_name: str) -> set[str]:
    """The text fields the class's tensors outside the language model read (its learned row)."""
    learned = row(model_type) or {}
    entry = learned.get("classes", {}).get(class_name, {})
    fields: set[str] = set()
    for name, count, dims, *_ in entry.get("tensors", []) or []:
        if str(name).startswith(f"{_ATTRIBUTE}."):
            continue
        for expression in [count, *dims]:
            for _, _, factors in expression:
                for field, _ in factors:
                    if str(field).startswith(f"{_KEY}."):
                        fields.add(str(field)[len(_KEY) + 1 :])
    return fields
