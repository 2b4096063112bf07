"""Findings stay true on released configs: what transformers accepts is not an error, a head
dim a released model chose with its own kernel is not a warning, and messages say what each
framework really does (issue 19, item 5)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import codes, lint_text

from dimlint.config import behaviour
from dimlint.deploy.targets import Deployment, parse_target
from dimlint.diagnostics import Severity

LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
}

#: The attention geometry of DeepSeek-V4 (maxtext's deepseek4_284b entry): 64 heads of 512
#: sharing one KV head.
DEEPSEEK_V4: dict[str, Any] = {
    "model_type": "deepseek_v4",
    "architectures": ["DeepseekV4ForCausalLM"],
    "hidden_size": 4096,
    "head_dim": 512,
    "num_attention_heads": 64,
    "num_key_value_heads": 1,
    "q_lora_rank": 1024,
    "o_lora_rank": 1024,
    "o_groups": 8,
    "qk_rope_head_dim": 64,
    "num_hidden_layers": 43,
    "moe_intermediate_size": 2048,
    "n_routed_experts": 256,
    "num_experts_per_tok": 6,
    "vocab_size": 129280,
}


def _wav2vec2(architecture: str) -> str:
    return json.dumps(
        {
            "model_type": "wav2vec2",
            "architectures": [architecture],
            "hidden_size": 1024,
            "num_attention_heads": 16,
            "num_hidden_layers": 24,
            "intermediate_size": 4096,
            "vocab_size": None,
            "id2label": {str(i): f"emotion{i}" for i in range(8)},
        }
    )


def test_null_vocab_that_transformers_accepts_is_not_dl003() -> None:
    """An emotion classifier without a CTC head states vocab_size null; transformers builds it."""
    assert behaviour.accepts_null("wav2vec2", "vocab_size")
    found = lint_text(_wav2vec2("Wav2Vec2ForSequenceClassification"), select=("DL003",))
    assert codes(found) == []


def test_null_vocab_under_a_ctc_head_is_dl003() -> None:
    """Wav2Vec2ForCTC refuses a config without vocab_size: still an error there."""
    found = lint_text(_wav2vec2("Wav2Vec2ForCTC"), select=("DL003",))
    assert codes(found) == ["DL003"]


def test_null_vocab_of_a_class_that_refuses_null_is_dl003() -> None:
    """LlamaConfig types vocab_size as int: null stays an error."""
    assert not behaviour.accepts_null("llama", "vocab_size")
    found = lint_text(json.dumps({**LLAMA, "vocab_size": None}), select=("DL003",))
    assert codes(found) == ["DL003"]


def test_deepseek_v4_head_dim_512_is_not_dl104() -> None:
    assert codes(lint_text(json.dumps(DEEPSEEK_V4), select=("DL104",))) == []


def test_multi_query_512_under_vllm_is_fine_but_flashattention_refuses() -> None:
    vllm = Deployment((parse_target("vllm:tp=1"),))
    assert codes(lint_text(json.dumps(DEEPSEEK_V4), select=("DL104",), deployment=vllm)) == []
    fa2 = Deployment((parse_target("fa2"),))
    found = lint_text(json.dumps(DEEPSEEK_V4), select=("DL104",), deployment=fa2)
    assert [(d.code, d.severity) for d in found] == [("DL104", Severity.ERROR)]


def test_512_wide_heads_with_several_kv_heads_still_warn() -> None:
    """No kernel runs 512-wide grouped-query heads: the exemption is for one KV head only."""
    grouped = {**DEEPSEEK_V4, "num_key_value_heads": 8}
    assert codes(lint_text(json.dumps(grouped), select=("DL104",))) == ["DL104"]


def _rope(rope: dict[str, Any]) -> list[str]:
    found = lint_text(json.dumps({**LLAMA, "rope_scaling": rope}), select=("DL604",))
    return [d.message for d in found]


def test_equal_llama3_frequency_factors_are_legal() -> None:
    """Llama-4-Scout: low_freq_factor == high_freq_factor == 1.0 (a hard cut-off)."""
    scout = {
        "rope_type": "llama3",
        "factor": 16.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 1.0,
        "original_max_position_embeddings": 8192,
    }
    assert _rope(scout) == []
    swapped = {**scout, "low_freq_factor": 4.0}
    assert len(_rope(swapped)) == 1
    assert "swapped" in _rope(swapped)[0]


def test_stray_rope_key_names_the_type_meant() -> None:
    messages = _rope({"rope_type": "linear", "factor": 4.0, "beta_fast": 32})
    assert len(messages) == 1
    assert "did you mean rope_type yarn?" in messages[0]
    messages = _rope({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192,
                      "low_freq_factor": 1.0})  # fmt: skip
    assert ["did you mean rope_type llama3?" in m for m in messages] == [True]


@pytest.mark.parametrize(
    "rope",
    [
        # keys several types read, or no standard type reads: nothing to point at
        {"rope_type": "dynamic", "factor": 2.0, "original_max_position_embeddings": 4096},
        {"rope_type": "default", "mrope_section": [16, 24, 24]},
        {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
         "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
    ],
)  # fmt: skip
def test_released_rope_blocks_are_quiet(rope: dict[str, Any]) -> None:
    assert _rope(rope) == []


def test_interleaved_mrope_needs_no_section_sum() -> None:
    """Qwen3-VL's interleaved layout takes every third rotary frequency for the height and width
    sections and leaves the rest to time, so its sections need not sum to the half-width (trl's
    tiny Qwen3-VL states [2, 2, 2] and runs); the consecutive split still must."""
    split = {"rope_type": "default", "mrope_section": [2, 2, 2]}
    assert [m.startswith("mrope_section sums to 6") for m in _rope(split)] == [True]
    assert _rope({**split, "mrope_interleaved": True}) == []


def test_dl101_says_what_transformers_does_per_model_type() -> None:
    refused = lint_text(json.dumps({**LLAMA, "hidden_size": 4100}), select=("DL101",))
    assert "refuses the config (llama's validate_architecture)" in refused[0].message
    glm = {
        "model_type": "glm4_moe",
        "hidden_size": 4096,
        "num_attention_heads": 96,
        "num_key_value_heads": 8,
        "num_hidden_layers": 46,
        "vocab_size": 151552,
    }
    found = lint_text(json.dumps(glm), select=("DL101",))
    assert [(d.code, d.severity) for d in found] == [("DL101", Severity.ERROR)]
    assert "runs the glm4_moe model silently with head dim 42" in found[0].message
    assert "megatron-core" in found[0].message


def test_behaviour_table_matches_the_installed_transformers() -> None:
    """The generated facts are what transformers does (a sample: refused config, refused
    build, floor division that runs; nullable fields)."""
    pytest.importorskip("transformers")
    pytest.importorskip("torch")
    import transformers

    from dimlint.tools import generate_behaviour

    if transformers.__version__ != behaviour.transformers_version():
        pytest.skip("behaviour.json was generated with another transformers")
    for model_type in ("llama", "bert", "glm4_moe"):
        assert generate_behaviour._outcome(model_type) == behaviour.head_divisibility(model_type)
    with open(behaviour.DATA_FILE, encoding="utf-8") as handle:
        stored = json.load(handle)["nullable"]["wav2vec2"]
    assert generate_behaviour._nullable("wav2vec2") == stored


def test_switched_off_nested_stack_is_not_dl003() -> None:
    # Cohere's transcription model (NeMo Canary layout): no transformer encoder layers between
    # the conformer and the decoder. The model's own layer count of 0 is still an error.
    stacks = {"hidden_size": 1024, "num_attention_heads": 8, "inner_size": 4096}
    nemo = {"transf_encoder": {**stacks, "num_layers": 0},
            "transf_decoder": {**stacks, "num_layers": 8}}  # fmt: skip
    assert "DL003" not in codes(lint_text(json.dumps(nemo)))
    top = {**LLAMA, "num_hidden_layers": 0}
    assert "DL003" in codes(lint_text(json.dumps(top)))
