"""KV cache arithmetic: GQA/MQA, MLA, windows, states, tensor parallelism, blocks."""

from __future__ import annotations

from typing import Any

from dimlint.config.normalize import specs_for_document
from dimlint.config.spec import ModelSpec
from dimlint.memory import kv_bytes_per_token, kv_cache_bytes

LLAMA_3_70B = {
    "model_type": "llama",
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "vocab_size": 128256,
}


def spec(config: dict[str, Any]) -> ModelSpec:
    return specs_for_document("config.json", config)[0]


def test_gqa_per_token_and_the_article_formula_overestimate() -> None:
    llama = spec(LLAMA_3_70B)
    per_token = kv_bytes_per_token(llama, "bf16")
    assert per_token == 2 * 80 * 8 * 128 * 2 == 327_680
    article = 2 * 80 * 8192 * 2  # 2·layers·hidden·bytes: ignores GQA
    assert article / per_token == 8


def test_mla_latent_and_the_article_formula_overestimate() -> None:
    deepseek = spec({"model_type": "deepseek_v3"})
    assert kv_bytes_per_token(deepseek, "bf16") == 70_272
    article = 2 * 61 * 7168 * 2
    assert 24 < article / 70_272 < 26


def test_total_is_per_token_times_context_and_batch() -> None:
    llama = spec(LLAMA_3_70B)
    assert kv_cache_bytes(llama, context=8192, batch=4, kv_dtype="bf16") == 327_680 * 8192 * 4
    assert kv_cache_bytes(llama, context=8192, batch=1, kv_dtype="fp8") == 163_840 * 8192


def test_context_rounds_up_to_whole_blocks() -> None:
    llama = spec(LLAMA_3_70B)
    one = kv_cache_bytes(llama, context=1, batch=1, kv_dtype="bf16")
    assert one == 16 * 327_680
    assert kv_cache_bytes(llama, context=17, batch=1, kv_dtype="bf16") == 32 * 327_680
    assert kv_cache_bytes(llama, context=1, batch=1, kv_dtype="bf16", block_size=1) == 327_680


def test_tp_shards_kv_heads_until_they_are_replicated() -> None:
    llama = spec(LLAMA_3_70B)
    full = kv_cache_bytes(llama, context=4096, batch=1, kv_dtype="bf16")
    assert kv_cache_bytes(llama, context=4096, batch=1, kv_dtype="bf16", tp=8) == full // 8
    # past 8 GPUs each rank still holds one whole KV head
    assert kv_cache_bytes(llama, context=4096, batch=1, kv_dtype="bf16", tp=16) == full // 8


def test_mqa_cache_does_not_shrink_with_tp() -> None:
    falcon = spec({"model_type": "falcon", "multi_query": True})
    one = kv_cache_bytes(falcon, context=2048, batch=1, kv_dtype="bf16")
    assert one == 32 * 2 * 1 * 64 * 2048 * 2
    assert kv_cache_bytes(falcon, context=2048, batch=1, kv_dtype="bf16", tp=8) == one


def test_mla_latent_is_whole_on_every_rank() -> None:
    deepseek = spec({"model_type": "deepseek_v3"})
    one = kv_cache_bytes(deepseek, context=4096, batch=1, kv_dtype="bf16")
    assert kv_cache_bytes(deepseek, context=4096, batch=1, kv_dtype="bf16", tp=8) == one


def test_mistral_sliding_window_caps_every_layer() -> None:
    mistral = spec({"model_type": "mistral", "sliding_window": 4096})
    at_window = kv_cache_bytes(mistral, context=4096, batch=1, kv_dtype="bf16")
    assert kv_cache_bytes(mistral, context=32768, batch=1, kv_dtype="bf16") == at_window
    assert kv_bytes_per_token(mistral, "bf16") == 0


def test_gemma2_alternates_local_and_global_layers() -> None:
    gemma = spec({"model_type": "gemma2", "num_hidden_layers": 42, "sliding_window": 4096})
    per_layer_token = 2 * 4 * 256 * 2  # the default: 4 KV heads of 256
    long = kv_cache_bytes(gemma, context=65536, batch=1, kv_dtype="bf16")
    assert long == 21 * per_layer_token * 65536 + 21 * per_layer_token * 4096
    assert kv_bytes_per_token(gemma, "bf16") == 21 * per_layer_token


def test_gemma3_five_local_to_one_global() -> None:
    gemma = spec({"model_type": "gemma3_text", "num_hidden_layers": 26, "sliding_window": 512})
    # layers 6, 12, 18, 24 (1-based) are global: 4 of 26
    assert kv_bytes_per_token(gemma, "bf16") == 4 * 2 * 4 * 256 * 2


def test_layer_types_decide_per_layer() -> None:
    config = {
        **LLAMA_3_70B,
        "num_hidden_layers": 4,
        "sliding_window": 128,
        "layer_types": ["sliding_attention", "full_attention"] * 2,
    }
    assert kv_bytes_per_token(spec(config), "bf16") == 2 * 2 * 8 * 128 * 2


def test_state_space_layers_hold_a_constant_state() -> None:
    qwen_next = spec({"model_type": "qwen3_next"})
    short = kv_cache_bytes(qwen_next, context=1024, batch=1, kv_dtype="bf16")
    longer = kv_cache_bytes(qwen_next, context=2048, batch=1, kv_dtype="bf16")
    per_token = kv_bytes_per_token(qwen_next, "bf16")
    # only the 12 attention layers grow: 2 KV heads of 256 per layer
    assert per_token == 12 * 2 * 2 * 256 * 2
    assert longer - short == per_token * 1024
    mamba = spec({"model_type": "mamba"})
    assert kv_cache_bytes(mamba, context=16, batch=1, kv_dtype="fp32") == kv_cache_bytes(
        mamba, context=1 << 20, batch=1, kv_dtype="fp32"
    )
    assert kv_bytes_per_token(mamba, "fp32") == 0


def test_encoder_only_model_types_keep_no_cache() -> None:
    """None of their classes generates (transformers registers no causal-LM, conditional
    generation or seq2seq class for them): one pass over the input, nothing kept."""
    for model_type in ("vit", "wav2vec2", "hubert", "clip", "deberta-v2", "distilbert", "swin"):
        encoder = spec({"model_type": model_type})
        assert kv_bytes_per_token(encoder, "bf16") == 0, model_type
        assert kv_cache_bytes(encoder, context=512, batch=1, kv_dtype="bf16") == 0, model_type


def test_generating_types_keep_theirs() -> None:
    """A causal LM, seq2seq models and a remote-code decoder keep a cache."""
    for config in (
        LLAMA_3_70B,
        {"model_type": "t5"},
        {"model_type": "whisper"},
        {**LLAMA_3_70B, "model_type": "my_remote_decoder"},
    ):
        assert kv_bytes_per_token(spec(config), "bf16") > 0, config["model_type"]
