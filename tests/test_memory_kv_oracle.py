"""KV cache bytes against the cache tensors transformers really allocates (hf extra).

Scaled-down copies of each architecture (same structure: GQA, MQA, sliding windows, local:global
patterns, hybrids with linear-attention or Mamba layers; few layers, small widths) run one CPU
forward pass with ``use_cache=True``; the bytes of ``past_key_values`` are compared with
:func:`dimlint.memory.kv_cache_bytes` at ``context`` = input length and ``block_size=1``.

dimlint sizes the cache as vLLM allocates it, which differs from transformers' dynamic cache in
three documented places, converted here from the tensors themselves: a sliding-window layer
that has seen ``window`` tokens or more keeps ``window - 1`` in transformers between steps but
``window`` in the engine (the step's own token), a convolution state keeps the full kernel
in transformers but ``kernel - 1`` columns in vLLM, and a layer whose keys are its values
(DeepSeek-V4's shared-KV MQA: one tensor read as both, which transformers' sliding layers copy
into two) is stored once.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import kv_bytes_per_token, kv_cache_bytes

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.kv_oracle_support import engine_bytes  # noqa: E402  (needs torch)

SMALL = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 2,
    "vocab_size": 128,
}

CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "llama-gqa": ("llama", SMALL),
    "qwen2-gqa-bias": ("qwen2", SMALL),
    "falcon-mqa": ("falcon", {**SMALL, "num_key_value_heads": None, "multi_query": True}),
    "gpt_bigcode-mqa": (
        "gpt_bigcode",
        {"n_embd": 64, "n_head": 4, "n_layer": 2, "vocab_size": 128, "multi_query": True},
    ),
    "mistral-sliding": ("mistral", {**SMALL, "sliding_window": 8}),
    "gemma2-alternating": ("gemma2", {**SMALL, "sliding_window": 8, "head_dim": 16}),
    "gemma3-5-to-1": (
        "gemma3_text",
        {**SMALL, "num_hidden_layers": 6, "sliding_window": 8, "head_dim": 16},
    ),
    "qwen3_next-gated-deltanet": (
        "qwen3_next",
        {
            **SMALL,
            "num_hidden_layers": 4,
            "head_dim": 16,
            "linear_num_key_heads": 2,
            "linear_num_value_heads": 4,
            "linear_key_head_dim": 16,
            "linear_value_head_dim": 16,
            "num_experts": 4,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 32,
            "shared_expert_intermediate_size": 32,
        },
    ),
    "jamba-mamba1": (
        "jamba",
        {
            **SMALL,
            "num_hidden_layers": 4,
            "attn_layer_period": 2,
            "attn_layer_offset": 1,
            "expert_layer_period": 2,
            "expert_layer_offset": 1,
            "num_experts": 2,
            "mamba_d_state": 8,
            "mamba_dt_rank": 8,
            "use_mamba_kernels": False,
        },
    ),
    "bamba-mamba2": (
        "bamba",
        {
            **SMALL,
            "mamba_n_heads": 4,
            "mamba_d_head": 32,
            "mamba_d_state": 16,
            "attn_layer_indices": [1],
        },
    ),
    "falcon_h1-parallel": (
        "falcon_h1",
        {
            **SMALL,
            "head_dim": 16,
            "mamba_d_ssm": 64,
            "mamba_n_heads": 4,
            "mamba_d_head": 16,
            "mamba_d_state": 16,
        },
    ),
    "zamba2-shared-attention": (
        "zamba2",
        {
            **SMALL,
            "num_key_value_heads": 4,
            "num_hidden_layers": 4,
            "mamba_d_state": 16,
            "n_mamba_heads": 2,
            "mamba_headdim": 64,
            "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid"],
            "use_mamba_kernels": False,
        },
    ),
    "lfm2-short-conv": (
        "lfm2",
        {**SMALL, "num_hidden_layers": 4, "layer_types": ["conv", "full_attention"] * 2},
    ),
}


def _run(
    model_type: str, overrides: dict[str, Any], length: int, batch: int
) -> tuple[int, dict[str, Any]]:
    from transformers import AutoConfig, AutoModelForCausalLM
    from transformers.utils import logging

    logging.set_verbosity_error()
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = AutoConfig.for_model(model_type, **overrides)
        model = AutoModelForCausalLM.from_config(config).eval()
        ids = torch.randint(0, 128, (batch, length))
        with torch.no_grad():
            cache = model(ids, use_cache=True).past_key_values
    document: dict[str, Any] = json.loads(config.to_json_string(use_diff=False))
    return engine_bytes(cache, length), document


@pytest.mark.parametrize("length", [6, 12])
@pytest.mark.parametrize("case", sorted(CASES))
def test_cache_bytes_match_transformers(case: str, length: int) -> None:
    model_type, overrides = CASES[case]
    batch = 2
    measured, document = _run(model_type, overrides, length, batch)
    spec = specs_for_document("config.json", document)[0]
    ours = kv_cache_bytes(spec, context=length, batch=batch, kv_dtype="fp32", block_size=1)
    assert measured > 0
    assert ours == measured


def test_mla_latent_follows_vllm_formula() -> None:
    """vLLM caches DeepSeek's latent, ``kv_lora_rank + qk_rope_head_dim`` per token and layer
    (DeepSeek-V3: (512 + 64) × 61 layers × 2 bytes = 70,272 B/token in bf16), whole on every
    tensor-parallel rank."""
    spec = specs_for_document("config.json", {"model_type": "deepseek_v3"})[0]
    assert kv_bytes_per_token(spec, "bf16") == (512 + 64) * 61 * 2 == 70_272
    for tp in (1, 8):
        assert kv_cache_bytes(spec, context=4096, batch=3, kv_dtype="bf16", tp=tp) == (
            70_272 * 4096 * 3
        )
