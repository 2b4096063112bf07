"""Parameter counts of released models (DOMAIN.md's table), without transformers.

The expected totals are what transformers builds on the meta device for these configs
(checked once with the hf extra; ``tests/test_memory_ground_truth.py`` checks every model type
of the installed transformers the same way).
"""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import count_parameters, model_parameters

LLAMA_3_8B = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
}

#: name → (config, total parameters, active parameters per token)
KNOWN: dict[str, tuple[dict[str, Any], int, int]] = {
    "Llama-2-7B": (
        {**LLAMA_3_8B, "num_key_value_heads": 32, "intermediate_size": 11008, "vocab_size": 32000},
        6_738_415_616,
        6_738_415_616,
    ),
    "Llama-3-8B": (LLAMA_3_8B, 8_030_261_248, 8_030_261_248),
    "Llama-3-70B": (
        {
            **LLAMA_3_8B,
            "hidden_size": 8192,
            "num_attention_heads": 64,
            "intermediate_size": 28672,
            "num_hidden_layers": 80,
        },
        70_553_706_496,
        70_553_706_496,
    ),
    "Llama-3.1-405B": (
        {
            **LLAMA_3_8B,
            "hidden_size": 16384,
            "num_attention_heads": 128,
            "intermediate_size": 53248,
            "num_hidden_layers": 126,
        },
        405_853_388_800,
        405_853_388_800,
    ),
    "Llama-3.2-3B (tied)": (
        {
            **LLAMA_3_8B,
            "hidden_size": 3072,
            "num_attention_heads": 24,
            "intermediate_size": 8192,
            "num_hidden_layers": 28,
            "tie_word_embeddings": True,
        },
        3_212_749_824,
        3_212_749_824,
    ),
    "Mistral-7B-v0.1": (
        {**LLAMA_3_8B, "model_type": "mistral", "vocab_size": 32000, "sliding_window": 4096},
        7_241_732_096,
        7_241_732_096,
    ),
    "Mixtral-8x7B": (
        {
            **LLAMA_3_8B,
            "model_type": "mixtral",
            "vocab_size": 32000,
            "num_local_experts": 8,
            "num_experts_per_tok": 2,
        },
        46_702_792_704,
        12_879_925_248,
    ),
    "Qwen2-7B (QKV bias)": (
        {
            "model_type": "qwen2",
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "num_key_value_heads": 4,
            "intermediate_size": 18944,
            "num_hidden_layers": 28,
            "vocab_size": 152064,
        },
        7_615_616_512,
        7_615_616_512,
    ),
    "Qwen2.5-0.5B (tied)": (
        {
            "model_type": "qwen2",
            "hidden_size": 896,
            "num_attention_heads": 14,
            "num_key_value_heads": 2,
            "intermediate_size": 4864,
            "num_hidden_layers": 24,
            "vocab_size": 151936,
            "tie_word_embeddings": True,
        },
        494_032_768,
        494_032_768,
    ),
    "Gemma-2-9B (four norms, head_dim 256)": (
        {
            "model_type": "gemma2",
            "hidden_size": 3584,
            "num_attention_heads": 16,
            "num_key_value_heads": 8,
            "head_dim": 256,
            "intermediate_size": 14336,
            "num_hidden_layers": 42,
            "vocab_size": 256000,
        },
        9_241_705_984,
        9_241_705_984,
    ),
    "Gemma-2-27B": (
        {
            "model_type": "gemma2",
            "hidden_size": 4608,
            "num_attention_heads": 32,
            "num_key_value_heads": 16,
            "head_dim": 128,
            "intermediate_size": 36864,
            "num_hidden_layers": 46,
            "vocab_size": 256000,
        },
        27_227_128_320,
        27_227_128_320,
    ),
    "Gemma-3-1B (q/k norms)": (
        {
            "model_type": "gemma3_text",
            "hidden_size": 1152,
            "num_attention_heads": 4,
            "num_key_value_heads": 1,
            "head_dim": 256,
            "intermediate_size": 6912,
            "num_hidden_layers": 26,
            "vocab_size": 262144,
        },
        999_885_952,
        999_885_952,
    ),
    "Phi-3-mini": (
        {
            "model_type": "phi3",
            "hidden_size": 3072,
            "num_attention_heads": 32,
            "num_key_value_heads": 32,
            "intermediate_size": 8192,
            "num_hidden_layers": 32,
            "vocab_size": 32064,
        },
        3_821_079_552,
        3_821_079_552,
    ),
    "Falcon-7B (MQA, parallel block)": (
        {
            "model_type": "falcon",
            "hidden_size": 4544,
            "num_attention_heads": 71,
            "multi_query": True,
            "num_hidden_layers": 32,
            "vocab_size": 65024,
        },
        6_921_720_704,
        6_921_720_704,
    ),
    "Falcon-7B as released (RefinedWebModel)": (
        {
            "model_type": "RefinedWebModel",
            "hidden_size": 4544,
            "n_head": 71,
            "n_layer": 32,
            "multi_query": True,
            "parallel_attn": True,
            "bias": False,
            "vocab_size": 65024,
        },
        6_921_720_704,
        6_921_720_704,
    ),
    "GPT-2 (LayerNorm, learned positions, biases)": (
        {"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "vocab_size": 50257},
        124_439_808,
        124_439_808,
    ),
    "SmolLM-135M": (
        {
            **LLAMA_3_8B,
            "hidden_size": 576,
            "num_attention_heads": 9,
            "num_key_value_heads": 3,
            "intermediate_size": 1536,
            "num_hidden_layers": 30,
            "vocab_size": 49152,
            "tie_word_embeddings": True,
        },
        134_515_008,
        134_515_008,
    ),
    "DeepSeek-V3 (MLA, 256+1 experts, 3 dense layers)": (
        {
            "model_type": "deepseek_v3",
            "hidden_size": 7168,
            "num_attention_heads": 128,
            "intermediate_size": 18432,
            "moe_intermediate_size": 2048,
            "num_hidden_layers": 61,
            "vocab_size": 129280,
            "n_routed_experts": 256,
            "n_shared_experts": 1,
            "num_experts_per_tok": 8,
            "first_k_dense_replace": 3,
            "q_lora_rank": 1536,
            "kv_lora_rank": 512,
            "qk_rope_head_dim": 64,
            "qk_nope_head_dim": 128,
            "v_head_dim": 128,
        },
        671_026_404_352,
        37_552_282_624,
    ),
    "Qwen3-30B-A3B (128 experts, q/k norms)": (
        {
            "model_type": "qwen3_moe",
            "hidden_size": 2048,
            "num_attention_heads": 32,
            "num_key_value_heads": 4,
            "head_dim": 128,
            "intermediate_size": 6144,
            "moe_intermediate_size": 768,
            "num_hidden_layers": 48,
            "vocab_size": 151936,
            "num_experts": 128,
            "num_experts_per_tok": 8,
        },
        30_532_122_624,
        3_353_032_704,
    ),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_released_model_counts(name: str) -> None:
    config, total, active = KNOWN[name]
    params = model_parameters(specs_for_document("config.json", config))
    assert (params.total, params.active) == (total, active)


def test_embedding_counts_input_table_untied_head_and_positions() -> None:
    llama = model_parameters(specs_for_document("c.json", LLAMA_3_8B))
    assert llama.embedding == 2 * 128256 * 4096
    tied = model_parameters(
        specs_for_document("c.json", {**LLAMA_3_8B, "tie_word_embeddings": True})
    )
    assert tied.embedding == 128256 * 4096
    assert llama.total - tied.total == 128256 * 4096
    gpt2 = model_parameters(
        specs_for_document("c.json", KNOWN["GPT-2 (LayerNorm, learned positions, biases)"][0])
    )
    assert gpt2.embedding == 50257 * 768 + 1024 * 768


def test_plain_config_has_one_component() -> None:
    params = model_parameters(specs_for_document("c.json", LLAMA_3_8B))
    assert params.components == (("model", params.total),)
    assert count_parameters(specs_for_document("c.json", LLAMA_3_8B)[0]) == params


def test_multimodal_components_add_up() -> None:
    config = {
        "model_type": "gemma3",
        "architectures": ["Gemma3ForConditionalGeneration"],
        "text_config": {
            "model_type": "gemma3_text",
            "hidden_size": 2560,
            "num_attention_heads": 8,
            "num_key_value_heads": 4,
            "head_dim": 256,
            "intermediate_size": 10240,
            "num_hidden_layers": 34,
            "vocab_size": 262208,
        },
        "vision_config": {
            "model_type": "siglip_vision_model",
            "hidden_size": 1152,
            "intermediate_size": 4304,
            "num_attention_heads": 16,
            "num_hidden_layers": 27,
            "image_size": 896,
            "patch_size": 14,
            "vision_use_head": False,
        },
    }
    params = model_parameters(specs_for_document("c.json", config))
    # the towers and the projector each once, in whatever order the count walks them (the
    # learned template follows the modules as transformers builds them)
    names = sorted(name for name, _ in params.components)
    assert names == ["projector", "text_config", "vision_config"]
    assert sum(count for _, count in params.components) == params.total
    # Gemma-3-4B: 4,300,079,472 parameters as transformers builds it
    assert params.total == 4_300_079_472


def test_causal_lm_class_of_a_multimodal_config_counts_the_language_model() -> None:
    config = {
        "model_type": "llama4",
        "architectures": ["Llama4ForCausalLM"],
        "text_config": {"model_type": "llama4_text", "num_hidden_layers": 2},
        "vision_config": {"model_type": "llama4_vision_model"},
    }
    params = model_parameters(specs_for_document("c.json", config))
    assert [name for name, _ in params.components] == ["text_config"]


def test_encoder_decoder_full_model_and_decoder_only_class() -> None:
    bart = {"model_type": "bart", "architectures": ["BartForConditionalGeneration"]}
    full = model_parameters(specs_for_document("c.json", bart))
    decoder = model_parameters(
        specs_for_document("c.json", {**bart, "architectures": ["BartForCausalLM"]})
    )
    # facebook/bart-large: 406,291,456 parameters (shared embedding, tied head)
    assert full.total == 406_291_456
    assert [name for name, _ in full.components] == ["embeddings", "encoder", "decoder"]
    assert sum(count for _, count in full.components) == full.total
    assert decoder.total == 254_084_096
    assert decoder.components == (("model", decoder.total),)


def test_sparse_config_uses_the_type_defaults() -> None:
    """An old config.json leaves defaults out; counts must not change."""
    sparse = model_parameters(specs_for_document("c.json", {"model_type": "qwen2_moe"}))
    assert sparse.total == 14_315_784_192
    assert sparse.active < sparse.total


def test_unknown_model_type_is_counted_from_its_dimensions_with_a_note() -> None:
    config = {**LLAMA_3_8B, "model_type": "my_remote_llama", "auto_map": {}}
    params = model_parameters(specs_for_document("c.json", config))
    assert params.total == 8_030_261_248
    assert any("not a model type of transformers" in note for note in params.notes)


def test_bias_and_norm_switches() -> None:
    base = model_parameters(specs_for_document("c.json", LLAMA_3_8B)).total
    biased = model_parameters(
        specs_for_document("c.json", {**LLAMA_3_8B, "attention_bias": True, "mlp_bias": True})
    ).total
    # q, k, v, o biases + gate, up, down biases, per layer
    per_layer = (4096 + 2 * 1024 + 4096) + (2 * 14336 + 4096)
    assert biased - base == 32 * per_layer
