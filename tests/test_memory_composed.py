"""Encoder-decoder composites counted by composition (dimlint.memory.parameters.composed).

Each config is built by transformers on the meta device as ``released_ground_truth`` builds the
released population; mem's count must equal it wherever mem says exact. The configs of
``tests/data/composites`` were written for this test: towers of other types than the
composites' defaults (GPT-2, TrOCR, DeiT decoders and encoders), widths that do and do not call
for ``enc_to_dec_proj``, the speech composite's ``output_hidden_size``, an untied top level.
Those whose towers lie inside their own templates' learned domains must be exact; the others
must say why not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from dimlint.config.model_classes import auto_class
from dimlint.memory.parameters.composed import composed_tensors
from dimlint.memory.parameters.templates import Refusal

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from released_ground_truth import dimlint_count, transformers_count  # noqa: E402

COMPOSITES = HERE / "data" / "composites"
RELEASED = HERE / "data" / "released_configs" / "tune"

#: Towers inside their templates' domains (default-width GPT-2 with cross-attention, ViT,
#: BERT and wav2vec2 encoders of other widths, TrOCR whose cross-attention width is its own or
#: the encoder's).
INSIDE = [
    COMPOSITES / "vit384_gpt2.json",
    COMPOSITES / "vit768_gpt2.json",
    COMPOSITES / "bert256_gpt2.json",
    COMPOSITES / "bert256_gpt2_tie_encoder_decoder.json",  # no weight is shared across towers
    COMPOSITES / "w2v512_gpt2.json",
    COMPOSITES / "w2v512_out768_gpt2.json",
    COMPOSITES / "vit_trocr_same.json",
    # GPT-2 relearned whole (stop 30) learned its cross-attention at other widths
    COMPOSITES / "vit_gpt2_proj.json",
    RELEASED / "Asunaro-k__Learning-English-VQA__config.json",
    RELEASED / "Bagi4-source__imageCaptioning__model__config.json",
    RELEASED / "agarwaldisha7616__OCr_Model__model__config.json",
    # TrOCR's cross_attention_hidden_size is learned as a stand-in for d_model (stop 31)
    COMPOSITES / "vit_trocr_narrow.json",
    RELEASED / "driftywinds__TeXPen__inktex__public__models__OleehyO__TexTeller__config.json",
    # BERT's cross-attention is learned beside is_decoder (companion_flags, stop 35)
    COMPOSITES / "deit_bert.json",
    COMPOSITES / "bert_bert_default_types.json",
]
#: A tower outside its template's domain, with the reason mem must give.
OUTSIDE = {
    # the adapter's projection exists only while output_hidden_size != hidden_size, which no
    # template learned (relations): the encoder, not the decoder, is outside
    COMPOSITES / "w2v_adapter_bart.json": "encoder (Wav2Vec2Model): output_hidden_size",
    # six feature-extractor layers: the template learned seven and no build moved the count
    COMPOSITES / "w2v_feat6_bart.json": "encoder (Wav2Vec2Model): num_feat_extract_layers",
}


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        pytest.skip(f"{path.name} is absent")
    with open(path, encoding="utf-8") as handle:
        raw: dict[str, Any] = json.load(handle)
    return raw


def _truth(raw: dict[str, Any]) -> int:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    truth, why = transformers_count(raw)
    assert truth is not None, why
    return truth


@pytest.mark.parametrize("path", INSIDE, ids=lambda path: path.stem[:40])
def test_composed_exact_inside_the_towers_domains(path: Path) -> None:
    raw = _load(path)
    ours, exact, notes = dimlint_count(raw)
    assert exact, notes
    assert ours == _truth(raw)


@pytest.mark.parametrize("path", list(OUTSIDE), ids=lambda path: path.stem[:40])
def test_composed_estimate_outside_says_why(path: Path) -> None:
    raw = _load(path)
    ours, exact, notes = dimlint_count(raw)
    truth = _truth(raw)
    assert not exact, f"{ours} labelled exact (transformers: {truth})"
    assert OUTSIDE[path] in notes


def test_projection_follows_the_compared_widths() -> None:
    """The speech composite compares the encoder's ``output_hidden_size``: stated equal to the
    decoder's width, no projection is built, though ``hidden_size`` differs."""
    with_projection = composed_tensors(_load(COMPOSITES / "w2v512_gpt2.json"))
    without = composed_tensors(_load(COMPOSITES / "w2v512_out768_gpt2.json"))
    assert not isinstance(with_projection, Refusal)
    assert not isinstance(without, Refusal)
    names = {tensor.name: tensor.shape for tensor in with_projection}
    assert names["enc_to_dec_proj.weight"] == (768, 512)
    assert not any(tensor.name.startswith("enc_to_dec_proj") for tensor in without)


def test_auto_classes() -> None:
    assert auto_class("vit", "base") == "ViTModel"
    assert auto_class("vit", "causal_lm") is None
    assert auto_class("mbart", "causal_lm") == "MBartForCausalLM"
    assert auto_class("gpt2", "causal_lm") == "GPT2LMHeadModel"
    assert auto_class("funnel", "base") is None  # two base classes, chosen by architectures
    assert auto_class("no-such-type", "base") is None
