"""KV cache of attention kinds as released configs state them (issue 19, item 4): shrunk
released configs, keys as their config.json states them (no derived ``layer_types``), one CPU
forward with ``use_cache=True``, the cache tensors transformers keeps against ``mem``'s bytes."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from kv_oracle_support import engine_bytes  # noqa: E402

from dimlint.config.normalize import specs_for_document  # noqa: E402
from dimlint.memory import kv_cache_bytes  # noqa: E402
from dimlint.memory.estimates import language_spec  # noqa: E402

LENGTH, BATCH = 12, 2

#: Llama-4-Scout's text config (meta-llama/Llama-4-Scout-17B-16E, text_config) shrunk: its
#: no_rope_layers pattern (every 4th layer NoPE, full attention) over 8 layers, chunked
#: attention with chunks shorter than the sequence.
SCOUT: dict[str, Any] = {
    "model_type": "llama4_text",
    "architectures": ["Llama4ForCausalLM"],
    "hidden_size": 128,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "intermediate_size": 64,
    "intermediate_size_mlp": 256,
    "num_hidden_layers": 8,
    "num_local_experts": 2,
    "num_experts_per_tok": 1,
    "interleave_moe_layer_step": 1,
    "vocab_size": 512,
    "attention_chunk_size": 4,
    "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0],
    "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "use_qk_norm": True,
}  # fmt: skip

_FIVE_TO_ONE = ["sliding_attention"] * 5 + ["full_attention"]

#: XiaomiMiMo/MiMo-V2-Flash shrunk with its keys as released: no ``layer_types`` (the class makes
#: the first and every sixth layer full), ``swa_*`` keys no code of transformers reads (its
#: sliding layers have twice ``num_key_value_heads``), ``sliding_window_size`` (the class attends
#: one token more), a ``v_head_dim`` below ``head_dim``, a legacy ``hybrid_layer_pattern``.
MIMO_V2_FLASH: dict[str, Any] = {
    "model_type": "mimo_v2_flash",
    "architectures": ["MiMoV2FlashForCausalLM"],
    "num_hidden_layers": 7,
    "hidden_size": 128,
    "num_attention_heads": 8,
    "num_key_value_heads": 1,
    "head_dim": 24,
    "v_head_dim": 16,
    "intermediate_size": 256,
    "vocab_size": 512,
    "sliding_window": 4,
    "sliding_window_size": 4,
    "attention_chunk_size": 4,
    "swa_num_attention_heads": 8,
    "swa_num_key_value_heads": 2,
    "swa_head_dim": 24,
    "swa_v_head_dim": 16,
    "hybrid_layer_pattern": [0, 1, 1, 1, 1, 0, 1],
    "moe_layer_freq": [0, 1, 1, 1, 1, 1, 1],
    "moe_intermediate_size": 64,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "n_group": 1,
    "topk_group": 1,
    "add_swa_attention_sink_bias": True,
}

#: Gemma-4-31B's text config (google/gemma-4-31B, text_config) shrunk with its ratios: 32 query
#: heads, 16 KV heads of 256 on sliding layers and ``num_global_key_value_heads`` 4 of
#: ``global_head_dim`` 512 on the global ones (``attention_k_eq_v``: keys double as values'
#: projection, both cached), 5:1 sliding:global, a window shorter than the sequence.
GEMMA4_31B: dict[str, Any] = {
    "model_type": "gemma4_text",
    "architectures": ["Gemma4ForCausalLM"],
    "hidden_size": 128,
    "intermediate_size": 256,
    "num_hidden_layers": 6,
    "num_attention_heads": 8,
    "num_key_value_heads": 4,
    "num_global_key_value_heads": 1,
    "head_dim": 16,
    "global_head_dim": 32,
    "attention_k_eq_v": True,
    "sliding_window": 4,
    "layer_types": _FIVE_TO_ONE,
    "final_logit_softcapping": 30.0,
    "vocab_size": 512,
    "hidden_size_per_layer_input": 0,
    "num_kv_shared_layers": 0,
    "tie_word_embeddings": True,
}

#: DeepSeek-V4-Flash (deepseek-ai/DeepSeek-V4-Flash, as maxtext's conversion utilities copy its
#: config.json: tests/data/released_configs) shrunk: shared-KV MQA (one head read as keys and
#: values), its legacy per-layer ``compress_ratios`` (0: sliding window only, 4: compressed
#: sparse attention with a Lightning Indexer, 128: heavily compressed) and ``num_hash_layers``,
#: ``qk_rope_head_dim`` and a YaRN ``rope_scaling`` as the file states them.
DEEPSEEK_V4_FLASH: dict[str, Any] = {
    "model_type": "deepseek_v4",
    "architectures": ["DeepseekV4ForCausalLM"],
    "hidden_size": 128,
    "num_attention_heads": 8,
    "num_key_value_heads": 1,
    "head_dim": 32,
    "qk_rope_head_dim": 8,
    "q_lora_rank": 32,
    "o_groups": 2,
    "o_lora_rank": 16,
    "index_n_heads": 2,
    "index_head_dim": 16,
    "index_topk": 4,
    "n_routed_experts": 4,
    "n_shared_experts": 1,
    "num_experts_per_tok": 2,
    "moe_intermediate_size": 32,
    "num_hidden_layers": 8,
    "num_hash_layers": 3,
    "compress_ratios": [0, 0, 4, 128, 4, 128, 4, 128],
    "sliding_window": 4,
    "vocab_size": 512,
    "rope_theta": 10000,
    "compress_rope_theta": 160000,
    "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 16,
                     "original_max_position_embeddings": 65536, "type": "yarn"},
    "tie_word_embeddings": False,
}  # fmt: skip

#: Kimi-Linear (moonshotai/Kimi-Linear-48B-A3B's layout) shrunk: its checkpoint states the
#: layer plan and the KDA sizes in a ``linear_attn_config`` dict of 1-indexed layer lists,
#: which the config class folds into ``layer_types``: full MLA attention at layers 3 and 6 here
#: (not the class's every 4th), KDA recurrent and convolution states elsewhere.
KIMI_LINEAR: dict[str, Any] = {
    "model_type": "kimi_linear", "architectures": ["KimiLinearForCausalLM"],
    "hidden_size": 64, "intermediate_size": 128, "moe_intermediate_size": 32,
    "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 4,
    "kv_lora_rank": 16, "q_lora_rank": None, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8,
    "v_head_dim": 16, "num_experts": 4, "num_experts_per_token": 2, "num_shared_experts": 1,
    "first_k_dense_replace": 1, "vocab_size": 512, "pad_token_id": 0, "bos_token_id": 1,
    "eos_token_id": 2, "mla_use_nope": True,
    "linear_attn_config": {"full_attn_layers": [3, 6], "kda_layers": [1, 2, 4, 5],
                           "head_dim": 16, "num_heads": 4, "short_conv_kernel_size": 4},
}  # fmt: skip

CASES = {
    "kimi-linear-attn-config": KIMI_LINEAR,
    "deepseek-v4-flash-compress-ratios": DEEPSEEK_V4_FLASH,
    # rates under which both compressors close windows within the sequence and leave tokens
    # of an open window (12 tokens: CSA 2 entries + 2 open, HCA 1 entry + 4 open)
    "deepseek-v4-windows-close": {
        **DEEPSEEK_V4_FLASH,
        "compress_rates": {"compressed_sparse_attention": 5, "heavily_compressed_attention": 8},
    },
    "deepseek-v4-legacy-rates": {
        **DEEPSEEK_V4_FLASH,
        "compress_rate_csa": 3,
        "compress_rate_hca": 6,
    },
    # no per-layer list: two heavily compressed layers, then CSA and HCA alternating
    "deepseek-v4-default-pattern": {
        **{k: v for k, v in DEEPSEEK_V4_FLASH.items() if k != "compress_ratios"},
        "compress_rates": {"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
    },
    "gemma4-31b-global-layers": GEMMA4_31B,
    "gemma4-31b-pattern-derived": {k: v for k, v in GEMMA4_31B.items() if k != "layer_types"},
    "gemma4-last-layer-forced-global": {
        **GEMMA4_31B,
        "num_hidden_layers": 8,
        "layer_types": _FIVE_TO_ONE + ["sliding_attention"] * 2,
    },
    # google/gemma-4-26B-A4B: the same global layers (2 KV heads of 512 against 8 of 256) over
    # a mixture-of-experts block
    "gemma4-26b-a4b-moe": {
        **GEMMA4_31B,
        "enable_moe_block": True,
        "num_experts": 4,
        "top_k_experts": 2,
        "moe_intermediate_size": 32,
    },
    # without attention_k_eq_v the class ignores num_global_key_value_heads: only the width
    "gemma4-global-kv-heads-gated": {**GEMMA4_31B, "attention_k_eq_v": False},
    # google/gemma-4-E2B: no global KV-head count, the last layers reuse earlier layers' KV,
    # per-layer inputs and a double-wide MLP on the shared layers
    "gemma4-e2b-kv-shared": {
        **{k: v for k, v in GEMMA4_31B.items() if k != "num_global_key_value_heads"},
        "attention_k_eq_v": False,
        "num_hidden_layers": 12,
        "layer_types": _FIVE_TO_ONE * 2,
        "num_kv_shared_layers": 6,
        "hidden_size_per_layer_input": 16,
        "vocab_size_per_layer_input": 512,
        "use_double_wide_mlp": True,
    },
    "mimo-v2-flash": MIMO_V2_FLASH,
    "mimo-v2-flash-other-swa-keys": {
        **MIMO_V2_FLASH,
        "swa_num_key_value_heads": 3,
        "swa_head_dim": 8,
        "swa_v_head_dim": 40,
    },
    "mimo-v2-flash-no-swa-keys": {
        k: v
        for k, v in MIMO_V2_FLASH.items()
        if not k.startswith("swa_") and k != "hybrid_layer_pattern"
    },
    # keys the class declares but its code never reads (DeepSeek-V4: one shared KV head), or
    # does not declare at all (GPT-BigCode: multi_query decides)
    "deepseek-v4-kv-heads-stated": {**DEEPSEEK_V4_FLASH, "num_key_value_heads": 2},
    "gpt-bigcode-stray-kv-heads": {
        "model_type": "gpt_bigcode",
        "architectures": ["GPTBigCodeForCausalLM"],
        "n_embd": 128,
        "n_head": 8,
        "n_layer": 2,
        "vocab_size": 512,
        "num_key_value_heads": 4,
    },
    "llama4-scout-chunked": SCOUT,
    "llama4-no-rope-interval": {
        **{k: v for k, v in SCOUT.items() if k != "no_rope_layers"},
        "no_rope_layer_interval": 2,
    },
    "llama4-chunk-off": {**SCOUT, "attention_chunk_size": None},
}


def _measure(document: dict[str, Any]) -> tuple[int, int]:
    import transformers

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kwargs = {k: v for k, v in document.items() if k != "model_type"}
        config = transformers.AutoConfig.for_model(document["model_type"], **kwargs)
        model = getattr(transformers, document["architectures"][0])(config).eval()
        ids = torch.randint(3, 500, (BATCH, LENGTH))
        with torch.no_grad():
            output = model(ids, use_cache=True)
    measured = engine_bytes(output.past_key_values, LENGTH)
    spec = language_spec(specs_for_document("config.json", json.loads(json.dumps(document))))
    ours = kv_cache_bytes(spec, context=LENGTH, batch=BATCH, kv_dtype="fp32", block_size=1)
    return measured, ours


@pytest.mark.parametrize("name", sorted(CASES))
def test_released_attention_kinds_match_transformers(name: str) -> None:
    measured, ours = _measure(CASES[name])
    assert measured > 0
    assert ours == measured
