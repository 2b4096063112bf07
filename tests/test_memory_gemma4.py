"""Gemma 4 laid out layer by layer (:mod:`dimlint.memory.parameters.gemma4_layers`): the
released layouts (E2B/E4B shared KV layers and per-layer inputs, 26B-A4B experts, 31B's
keys-equal-values global layers), shrunk, against transformers on the meta device."""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.memory.parameters.gemma4_layers import gemma4_tensors
from dimlint.memory.parameters.templates import Refusal

#: A small Gemma 4 text model: 6 layers, five sliding to one full.
TEXT = {"model_type": "gemma4_text", "hidden_size": 64, "intermediate_size": 128,
        "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
        "head_dim": 16, "vocab_size": 300, "vocab_size_per_layer_input": 200,
        "hidden_size_per_layer_input": 8, "global_head_dim": 32}  # fmt: skip
#: The released variants' switches, on that model.
LAYOUTS = {
    "default": {},
    "e2b": {"num_hidden_layers": 8, "num_kv_shared_layers": 2, "use_double_wide_mlp": True},
    "e4b": {"num_hidden_layers": 7, "num_kv_shared_layers": 3,
            "layer_types": ["sliding_attention", "full_attention"] * 3 + ["sliding_attention"]},
    "26b-a4b": {"enable_moe_block": True, "num_experts": 4, "top_k_experts": 2,
                "moe_intermediate_size": 24, "hidden_size_per_layer_input": 0,
                "attention_k_eq_v": True, "num_global_key_value_heads": 1},
    "31b": {"attention_k_eq_v": True, "num_global_key_value_heads": 1,
            "hidden_size_per_layer_input": 0, "tie_word_embeddings": False},
    "stated plan": {"per_layer_config": {"5": {"head_dim": 24, "num_key_value_heads": 1}},
                    "attention_bias": True},
}  # fmt: skip
VISION = {"model_type": "gemma4_vision", "hidden_size": 48, "intermediate_size": 96,
          "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4,
          "head_dim": 12}  # fmt: skip
AUDIO = {"model_type": "gemma4_audio", "hidden_size": 32, "num_hidden_layers": 2,
         "num_attention_heads": 4, "output_proj_dims": 40}  # fmt: skip


def _counts(raw: dict[str, Any]) -> tuple[int, int | None, bool]:
    import released_ground_truth as truth

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    expected, why = truth.transformers_count(raw)
    assert expected is not None, why
    ours, exact, notes = truth.dimlint_count(raw)
    assert not exact or ours == expected, notes
    return expected, ours, exact


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("architecture", ["Gemma4ForCausalLM", "Gemma4TextModel"])
def test_text_layouts_are_exact(layout: str, architecture: str) -> None:
    raw = {**TEXT, **LAYOUTS[layout], "architectures": [architecture]}
    expected, ours, exact = _counts(raw)
    assert (ours, exact) == (expected, True)


@pytest.mark.parametrize("layout", ["e2b", "26b-a4b"])
@pytest.mark.parametrize("architecture", ["Gemma4ForConditionalGeneration", "Gemma4Model"])
@pytest.mark.parametrize("tied", [True, False])
def test_composites_with_their_towers_are_exact(layout: str, architecture: str, tied: bool) -> None:
    text = {**TEXT, **LAYOUTS[layout]}
    raw = {"model_type": "gemma4", "architectures": [architecture], "text_config": text,
           "vision_config": VISION, "audio_config": AUDIO,
           "tie_word_embeddings": tied}  # fmt: skip
    expected, ours, exact = _counts(raw)
    assert (ours, exact) == (expected, True)


def test_a_composite_without_towers_is_its_language_model_and_head() -> None:
    raw = {"model_type": "gemma4", "architectures": ["Gemma4ForConditionalGeneration"],
           "text_config": TEXT}  # fmt: skip
    expected, ours, exact = _counts(raw)
    assert (ours, exact) == (expected, True)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"num_kv_shared_layers": 9}, "between 0 and 6"),
        ({"num_kv_shared_layers": 2}, "no earlier layer to share"),
        ({"layer_types": ["sliding_attention"] * 5}, "5 entries for 6 layers"),
        ({"hidden_size": 1 << 40}, "not a positive integer"),
        ({"num_hidden_layers": 1 << 20, "layer_types": None}, "more than dimlint lays out"),
        ({"enable_moe_block": True}, "enable_moe_block with num_experts"),
        ({"per_layer_config": {"x": {}}}, "not layer numbers"),
    ],
)
def test_impossible_layouts_are_refused(change: dict[str, Any], why: str) -> None:
    counted = gemma4_tensors({**TEXT, **change}, "Gemma4ForCausalLM")
    assert isinstance(counted, Refusal)
    assert why in counted.reason
