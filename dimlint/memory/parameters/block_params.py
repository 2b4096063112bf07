"""Parameter counts of the building blocks every family is made of.

Pure arithmetic on integers, so that each family module reads as a list of its blocks. A
``Linear(i, o)`` holds ``i·o`` weights plus ``o`` when it has a bias; a RMSNorm holds one
vector of its width, a LayerNorm two (weight and bias) unless built without bias, and a
non-parametric norm (OLMo-1) none.
"""

from __future__ import annotations


def linear(fan_in: int, fan_out: int, bias: bool = False) -> int:
    return fan_in * fan_out + (fan_out if bias else 0)


def norm(kind: str, width: int) -> int:
    """``rms`` (or a bias-free LayerNorm): the width; ``ln``: weight and bias; ``none``: 0."""
    if kind == "ln":
        return 2 * width
    if kind == "none":
        return 0
    return width


def mlp(hidden: int, ffn: int, gated: bool, bias: bool = False) -> int:
    """Gated (SwiGLU/GeGLU: gate, up, down) or plain (up, down) feed-forward block."""
    inputs = 2 if gated else 1
    return inputs * linear(hidden, ffn, bias) + linear(ffn, hidden, bias)


def attention(
    hidden: int,
    heads: int,
    kv_heads: int,
    head_dim: int,
    *,
    qkv_bias: bool = False,
    o_bias: bool = False,
    v_head_dim: int | None = None,
) -> int:
    """Q, K, V and output projections: ``h·nq·hd + 2·h·nkv·hd + nq·hd·h`` (+ biases).

    Never assumes ``nq·hd == h`` (Gemma, Qwen3 and Mistral-Nemo differ); ``v_head_dim`` covers
    models whose values are narrower than their keys (MiMo-V2-Flash).
    """
    v_dim = head_dim if v_head_dim is None else v_head_dim
    q = linear(hidden, heads * head_dim, qkv_bias)
    k = linear(hidden, kv_heads * head_dim, qkv_bias)
    v = linear(hidden, kv_heads * v_dim, qkv_bias)
    o = linear(heads * v_dim, hidden, o_bias)
    return q + k + v + o


def latent_attention(
    hidden: int,
    heads: int,
    *,
    q_lora_rank: int,
    kv_lora_rank: int,
    qk_nope_head_dim: int,
    qk_rope_head_dim: int,
    v_head_dim: int,
    norm_kind: str = "rms",
    bias: bool = False,
) -> int:
    """Multi-head latent attention (DeepSeek-V2/V3): queries and keys/values through low-rank
    latents.

    ``h·q_r + q_r + q_r·nh·(nope+rope) + h·(kv_r+rope) + kv_r + kv_r·nh·(nope+v) + nh·v·h``;
    without a query rank (DeepSeek-V2-Lite) the query is one ``h × nh·(nope+rope)`` projection.
    """
    qk_head_dim = qk_nope_head_dim + qk_rope_head_dim
    if q_lora_rank:
        q = linear(hidden, q_lora_rank, bias) + norm(norm_kind, q_lora_rank)
        q += linear(q_lora_rank, heads * qk_head_dim)
    else:
        q = linear(hidden, heads * qk_head_dim)
    kv = linear(hidden, kv_lora_rank + qk_rope_head_dim, bias) + norm(norm_kind, kv_lora_rank)
    kv += linear(kv_lora_rank, heads * (qk_nope_head_dim + v_head_dim))
    o = linear(heads * v_head_dim, hidden, bias)
    return q + kv + o
