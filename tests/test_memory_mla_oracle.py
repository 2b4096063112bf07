"""DeepSeek's MLA cache against what transformers computes (issue 9, item 8).

dimlint sizes the cache as vLLM allocates it for multi-head latent attention: per layer and
token, the compressed KV (``kv_lora_rank``) plus the decoupled rotary key (``qk_rope_head_dim``)
— the output of each layer's ``kv_a_proj_with_mqa``. Rather than restating that formula, a tiny
DeepSeek-V3 runs one CPU forward: the widths that projection really produces are summed over the
layers, and transformers 5's own cache is measured — it keeps the same latent (the compressed KV
as "keys", the rotary key as "values", one shared head), not keys and values decompressed per
head, which would be ``heads × (qk_head_dim + v_head_dim)`` a layer, several times more.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import kv_bytes_per_token, kv_cache_bytes

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

TINY = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "moe_intermediate_size": 32,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "num_hidden_layers": 3,
    "first_k_dense_replace": 1,
    "n_routed_experts": 4,
    "num_experts_per_tok": 2,
    "n_shared_experts": 1,
    "n_group": 2,
    "topk_group": 1,
    "q_lora_rank": 24,
    "kv_lora_rank": 16,
    "qk_rope_head_dim": 8,
    "qk_nope_head_dim": 16,
    "v_head_dim": 12,
    "vocab_size": 128,
}


def run(length: int) -> tuple[int, int, dict[str, Any]]:
    """(latent bytes per token from the projections, cache bytes, config document)."""
    import json

    transformers.logging.set_verbosity_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.for_model("deepseek_v3", **TINY)
        model = transformers.AutoModelForCausalLM.from_config(config).eval()
    widths: list[int] = []
    hooks = [
        module.register_forward_hook(lambda _m, _i, out: widths.append(out.shape[-1]))
        for name, module in model.named_modules()
        if name.endswith("kv_a_proj_with_mqa")
    ]
    ids = torch.randint(0, 128, (1, length))
    with torch.no_grad():
        cache = model(ids, use_cache=True).past_key_values
    for hook in hooks:
        hook.remove()
    element = next(model.parameters()).element_size()
    cached = sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers)
    document: dict[str, Any] = json.loads(config.to_json_string(use_diff=False))
    return sum(widths) * element, cached, document


def test_latent_per_token_is_what_the_projections_produce() -> None:
    latent, _, document = run(length=5)
    assert latent == 3 * (16 + 8) * 4  # 3 layers, float32: sanity of the harness
    spec = specs_for_document("config.json", document)[0]
    assert kv_bytes_per_token(spec, "fp32") == latent
    assert kv_cache_bytes(spec, context=5, batch=1, kv_dtype="fp32", block_size=1) == 5 * latent


def test_cache_bytes_match_transformers_cache() -> None:
    length = 7
    latent, cached, document = run(length)
    spec = specs_for_document("config.json", document)[0]
    ours = kv_cache_bytes(spec, context=length, batch=1, kv_dtype="fp32", block_size=1)
    assert ours == cached == length * latent
    heads, qk, v = 4, 16 + 8, 12
    assert cached < 3 * length * heads * (qk + v) * 4  # not decompressed per head
