"""Encoder-decoder composites counted by composition, whatever their towers.

``vision-encoder-decoder``, ``encoder-decoder`` and ``speech-encoder-decoder`` configs hold
two whole configs of other model types (ViT + GPT-2, Donut-Swin + mBART, wav2vec2 + BART…).
Their template was learned on the class's default towers only (ViT + BERT), so it cannot count
any other pair. What their classes build is read from transformers' source
(``modeling_{vision,speech}_encoder_decoder.py``, ``modeling_encoder_decoder.py``):

- ``encoder = AutoModel.from_config(config.encoder)``: the encoder type's base model;
- ``decoder = AutoModelForCausalLM.from_config(config.decoder)``: its causal-LM class, with the
  ``is_decoder`` / ``add_cross_attention`` the stated decoder dict sets (the composite's
  ``init_kwargs`` set them only when no decoder is stated);
- ``enc_to_dec_proj = nn.Linear(encoder.hidden_size, decoder.hidden_size)`` (with bias) when
  the encoder's output width differs from the decoder's hidden size and the decoder's
  ``cross_attention_hidden_size`` is None (the speech composite compares the encoder's
  ``output_hidden_size`` where it has one, yet sizes the projection from ``hidden_size``);
- nothing else: no module reads a top-level field (``vocab_size``, ``hidden_size``, stated
  beside the towers by older checkpoints, shape nothing), and no weight is shared across the
  towers (the vision and speech classes force the top-level ``tie_word_embeddings`` off; each
  tower ties its own weights as its own config says).

So each tower is counted with its own type's template for the class the auto mapping builds,
inside that template's own learned domain, and the count is exact only when both towers are.
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
)

#: Composite model type → its class (what ``architectures`` names, or nothing).
COMPOSITES = {
    "vision-encoder-decoder": "VisionEncoderDecoderModel",
    "encoder-decoder": "EncoderDecoderModel",
    "speech-encoder-decoder": "SpeechEncoderDecoderModel",
}
#: transformers' speech composite reads the encoder's ``output_hidden_size`` (the width after
#: wav2vec2's adapter); every config class that declares it derives ``output_hidden_size or
#: hidden_size`` in ``__post_init__``.
_SPEECH = "speech-encoder-decoder"


def is_composite(raw: dict[str, Any], architecture: str) -> bool:
    """Whether ``raw`` is a composite this module counts, built as its own class."""
    model_type = raw.get("model_type")
    composite = COMPOSITES.get(model_type) if isinstance(model_type, str) else None
    return composite is not None and architecture in ("", composite)


def default_towers(raw: dict[str, Any]) -> bool:
    """Whether both towers are of the types the composite's template was learned with."""
    record = architectures.lookup(str(raw.get("model_type")))
    if record is None:
        return False
    for key, default in record.sub_configs.items():
        sub = raw.get(key)
        stated = sub.get("model_type") if isinstance(sub, dict) else None
        if stated not in (None, "", default):  # older saves wrote a tower's type as ""
            return False
    return True


#: The auto class that builds a tower, by its role in the ``auto`` table of ``classes.json``.
AUTO_CLASSES = {
    "base": "AutoModel",
    "causal_lm": "AutoModelForCausalLM",
    "seq2seq_lm": "AutoModelForSeq2SeqLM",
}


def tower(
    raw: dict[str, Any], key: str, role: str
) -> tuple[dict[str, Any], list[Tensor]] | Refusal:
    """The stated sub-config ``key`` (its model type filled in from the composite's default)
    and the tensors of the class the auto mapping ``role`` builds from it."""
    record = architectures.lookup(str(raw.get("model_type")))
    sub = raw.get(key)
    if record is None or not isinstance(sub, dict):
        return Refusal(f"no {key} config is stated", True)
    model_type = sub.get("model_type") or record.sub_configs.get(key)
    if not isinstance(model_type, str):
        return Refusal(f"{key} states no model_type", True)
    sub = {**sub, "model_type": model_type}
    class_name = auto_class(model_type, role)
    if class_name is None:
        why = f"{AUTO_CLASSES[role]} builds no single class for the {key}'s {model_type}"
        return Refusal(why, True)
    with outside_under(f"{key} ({class_name})"):
        tensors = learned_tensors(sub, class_name)
    if isinstance(tensors, Refusal):
        return Refusal(f"{key} ({class_name}): {tensors.reason}", True)
    return sub, tensors


def _attribute(sub: dict[str, Any], name: str) -> tuple[bool, object]:
    """(whether the built config has attribute ``name``, its value): a stated key becomes an
    attribute whether or not the class declares it; an unstated one is the class default."""
    if name in sub:
        return True, sub[name]
    record = architectures.lookup(str(sub.get("model_type")))
    if record is not None and name in record.fields:
        return True, record.defaults.get(name)
    return False, None


def width(sub: dict[str, Any], key: str) -> int | Refusal:
    """The hidden size of the tower stated at ``key``, as its config class reads it."""
    value = class_value(sub, "hidden_size")
    if value is None:
        return Refusal(f"the {key}'s hidden size is not known from its config", True)
    return value


def _output_width(raw: dict[str, Any], encoder: dict[str, Any], hidden: int) -> int | Refusal:
    """The width the composite compares with the decoder's: the speech composite's
    ``getattr(config.encoder, "output_hidden_size", config.encoder.hidden_size)``."""
    if raw.get("model_type") != _SPEECH:
        return hidden
    present, value = _attribute(encoder, "output_hidden_size")
    if not present:
        return hidden
    record = architectures.lookup(str(encoder.get("model_type")))
    if record is not None and "output_hidden_size" in record.fields:
        return value if isinstance(value, int) and value else hidden
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return Refusal(f"encoder.output_hidden_size = {value!r} is not a width", True)


def composed_tensors(raw: dict[str, Any]) -> list[Tensor] | Refusal:
    """The parameter tensors of the composite ``raw`` describes, or why they cannot be known
    exactly (a tower outside its template's domain, a width no row resolves)."""
    encoder_part = tower(raw, "encoder", "base")
    if isinstance(encoder_part, Refusal):
        return encoder_part
    decoder_part = tower(raw, "decoder", "causal_lm")
    if isinstance(decoder_part, Refusal):
        return decoder_part
    (encoder, encoder_tensors), (decoder, decoder_tensors) = encoder_part, decoder_part
    encoder_hidden = width(encoder, "encoder")
    decoder_hidden = width(decoder, "decoder")
    if isinstance(encoder_hidden, Refusal):
        return encoder_hidden
    if isinstance(decoder_hidden, Refusal):
        return decoder_hidden
    output = _output_width(raw, encoder, encoder_hidden)
    if isinstance(output, Refusal):
        return output
    _, cross = _attribute(decoder, "cross_attention_hidden_size")
    if cross is not None and cross != encoder_hidden:
        why = f"decoder.cross_attention_hidden_size = {cross!r} is not the encoder's width"
        return Refusal(f"{why} {encoder_hidden} (transformers refuses the config)", True)
    tensors = prefixed(encoder_tensors, "encoder") + prefixed(decoder_tensors, "decoder")
    if output != decoder_hidden and cross is None:
        fields = frozenset({"encoder.hidden_size", "decoder.hidden_size"})
        shape = (decoder_hidden, encoder_hidden)
        tensors.append(Tensor("enc_to_dec_proj.weight", 1, shape, fields))
        tensors.append(Tensor("enc_to_dec_proj.bias", 1, (decoder_hidden,), fields))
    return tensors
