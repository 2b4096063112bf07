"""Flag variants and active parameters against models transformers builds on the meta device.

The ground-truth test counts each model type's *default* config; the switches a real config
flips (biases, untied heads, q/k norms, shared experts, dense first layers) and the active
parameter count of MoE models were never compared with a build. Here each variant is built on
the meta device (no memory) and counted; the active count of a MoE model is the build's total
minus the routed experts a token does not use: (E - k)/E of the parameters under ``.experts.``.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import model_parameters

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

SMALL = {
    "hidden_size": 64,
    "intermediate_size": 160,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "num_hidden_layers": 3,
    "vocab_size": 320,
}

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "llama": ("llama", SMALL),
    "llama-attention-bias": ("llama", {**SMALL, "attention_bias": True}),
    "llama-mlp-bias": ("llama", {**SMALL, "mlp_bias": True}),
    "llama-tied": ("llama", {**SMALL, "tie_word_embeddings": True}),
    "llama-head-dim": ("llama", {**SMALL, "head_dim": 32}),
    "qwen2-untied": ("qwen2", {**SMALL, "tie_word_embeddings": False}),
    "qwen2-tied": ("qwen2", {**SMALL, "tie_word_embeddings": True}),
    "qwen3-qk-norm": ("qwen3", {**SMALL, "head_dim": 32}),
    "qwen3-attention-bias": ("qwen3", {**SMALL, "head_dim": 32, "attention_bias": True}),
    "olmo2-proj-norm": ("olmo2", SMALL),
    "cohere-qk-norm": ("cohere", {**SMALL, "use_qk_norm": True}),
    "cohere-no-qk-norm": ("cohere", {**SMALL, "use_qk_norm": False}),
    "stablelm-qkv-bias": ("stablelm", {**SMALL, "use_qkv_bias": True}),
    "stablelm-no-bias": ("stablelm", {**SMALL, "use_qkv_bias": False}),
    "starcoder2-bias": ("starcoder2", {**SMALL, "use_bias": True}),
    "starcoder2-no-bias": ("starcoder2", {**SMALL, "use_bias": False}),
    "gemma2": ("gemma2", {**SMALL, "head_dim": 16}),
    "phi3-untied": (
        "phi3",
        {**SMALL, "num_key_value_heads": 4, "tie_word_embeddings": False, "pad_token_id": None},
    ),
}

MOE: dict[str, tuple[str, dict[str, Any], int, int]] = {
    # name: (model type, config, experts, top-k)
    "mixtral": (
        "mixtral",
        {**SMALL, "num_local_experts": 8, "num_experts_per_tok": 2},
        8,
        2,
    ),
    "qwen2_moe-shared": (
        "qwen2_moe",
        {
            **SMALL,
            "num_experts": 6,
            "num_experts_per_tok": 2,
            "moe_intermediate_size": 48,
            "shared_expert_intermediate_size": 96,
        },
        6,
        2,
    ),
    "qwen3_moe": (
        "qwen3_moe",
        {
            **SMALL,
            "head_dim": 16,
            "num_experts": 8,
            "num_experts_per_tok": 3,
            "moe_intermediate_size": 48,
        },
        8,
        3,
    ),
    "deepseek_v3-dense-first": (
        "deepseek_v3",
        {
            **SMALL,
            "n_routed_experts": 8,
            "num_experts_per_tok": 2,
            "n_shared_experts": 1,
            "moe_intermediate_size": 48,
            "first_k_dense_replace": 1,
            "n_group": 2,
            "topk_group": 1,
            "q_lora_rank": 32,
            "kv_lora_rank": 16,
            "qk_rope_head_dim": 8,
            "qk_nope_head_dim": 16,
            "v_head_dim": 16,
        },
        8,
        2,
    ),
}


def build(model_type: str, overrides: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    import json

    transformers.logging.set_verbosity_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.for_model(model_type, **overrides)
        with torch.device("meta"):
            model = transformers.AutoModelForCausalLM.from_config(config)
    document: dict[str, Any] = json.loads(config.to_json_string(use_diff=False))
    return model, document


def counted(document: dict[str, Any]) -> Any:
    return model_parameters(specs_for_document("config.json", document))


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_flag_variant_matches_the_build(name: str) -> None:
    model_type, overrides = VARIANTS[name]
    model, document = build(model_type, overrides)
    built = sum(p.numel() for p in model.parameters())
    ours = counted(document)
    assert ours.total == built
    assert ours.active == built  # dense


@pytest.mark.parametrize("name", sorted(MOE))
def test_active_parameters_match_the_build(name: str) -> None:
    model_type, overrides, experts, top_k = MOE[name]
    model, document = build(model_type, overrides)
    total = sum(p.numel() for p in model.parameters())
    routed = sum(p.numel() for n, p in model.named_parameters() if ".experts." in n)
    assert routed > 0
    active = total - routed * (experts - top_k) // experts
    ours = counted(document)
    assert ours.total == total
    assert ours.active == active
