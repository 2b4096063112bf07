"""BLIP-2-style composites with a text tower of another model type than their template learned
(:mod:`dimlint.memory.parameters.text_towers`), each against transformers on the meta device."""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.memory.parameters import templates

pytestmark = pytest.mark.skipif(not templates.row("blip-2"), reason="no shapes table")

T5_TOWER = {"model_type": "t5", "d_model": 64, "d_ff": 160, "d_kv": 16, "num_heads": 4,
            "num_layers": 2, "num_decoder_layers": 2, "vocab_size": 320,
            "feed_forward_proj": "gated-gelu", "tie_word_embeddings": False}  # fmt: skip
VISION = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
          "num_attention_heads": 4, "image_size": 32, "patch_size": 8}  # fmt: skip
SMALL = {"vision_config": VISION,
         "qformer_config": {"hidden_size": 32, "intermediate_size": 64,
                            "num_hidden_layers": 2, "num_attention_heads": 4,
                            "encoder_hidden_size": 32, "vocab_size": 100},
         "num_query_tokens": 4}  # fmt: skip


def _counts(raw: dict[str, Any]) -> tuple[int, int | None, bool]:
    from released_ground_truth import compared

    return compared(raw)


@pytest.mark.parametrize(
    ("model_type", "architecture"),
    [
        ("blip-2", "Blip2ForConditionalGeneration"),
        ("instructblip", "InstructBlipForConditionalGeneration"),
    ],
)
@pytest.mark.parametrize("tied", [False, True])
def test_t5_text_tower_counted_by_its_own_template(
    model_type: str, architecture: str, tied: bool
) -> None:
    raw = {"model_type": model_type, "architectures": [architecture], **SMALL,
           "text_config": {**T5_TOWER, "tie_word_embeddings": tied}}  # fmt: skip
    expected, ours, exact = _counts(raw)
    assert exact
    assert ours == expected


def test_default_text_tower_still_uses_the_composite_template() -> None:
    raw = {"model_type": "blip-2", "architectures": ["Blip2ForConditionalGeneration"], **SMALL,
           "text_config": {"model_type": "opt", "hidden_size": 64, "ffn_dim": 128,
                           "num_hidden_layers": 2, "num_attention_heads": 4,
                           "vocab_size": 320, "word_embed_proj_dim": 64}}  # fmt: skip
    expected, ours, exact = _counts(raw)
    assert exact
    assert ours == expected


def test_a_text_tower_outside_its_template_is_an_estimate() -> None:
    # a T5 tower with an activation its template never learned: the composite is an
    # estimate that says why, naming the tower
    raw = {"model_type": "blip-2", "architectures": ["Blip2ForConditionalGeneration"], **SMALL,
           "text_config": {**T5_TOWER, "feed_forward_proj": "gated-silu"}}  # fmt: skip
    import released_ground_truth as truth

    _, exact, notes = truth.dimlint_count(raw)
    assert not exact
    assert "text_config (T5ForConditionalGeneration): feed_forward_proj = 'gated-silu'" in notes


def test_breakdown_names_each_tower() -> None:
    # the vision tower's width is read through qformer_config.encoder_hidden_size, which the
    # class copies from vision_config.hidden_size: its tensors belong to vision_config, and
    # the swapped text tower's to text_config
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters

    raw = {"model_type": "blip-2", "architectures": ["Blip2ForConditionalGeneration"], **SMALL,
           "text_config": T5_TOWER}  # fmt: skip
    params = model_parameters(specs_for_document("c.json", raw))
    parts = dict(params.components)
    assert set(parts) >= {"vision_config", "qformer_config", "text_config"}
    assert sum(parts.values()) == params.total
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    with torch.device("meta"):
        vision = transformers.Blip2VisionModel(transformers.Blip2VisionConfig(**VISION))
    assert parts["vision_config"] == sum(p.numel() for p in vision.parameters())
