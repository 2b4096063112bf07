"""Recipes for recurrent and state-space language models whose layers are not Llama blocks:
pure Mamba-1/2, RWKV, xLSTM, RecurrentGemma (Griffin), Zamba/Zamba2 (Mamba with a shared
attention block) and Nemotron-H (one mixer or MLP per layer).
"""

from __future__ import annotations

import math

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.layer_kinds import mixer_counts
from dimlint.memory.parameters.mixer_params import mamba1, mamba2
from dimlint.memory.parameters.param_tally import Tally


def _lm(cfg: Cfg, tally: Tally, *, head_bias: bool = False) -> None:
    """Token embedding, and the LM head unless tied."""
    tally.embed(cfg.vocab * cfg.hidden)
    if not cfg.tie:
        tally.embed(cfg.vocab * cfg.hidden)
    if head_bias:
        tally.add(cfg.vocab)


def count_mamba(cfg: Cfg) -> Tally:
    """Mamba-1 and Falcon-Mamba: a norm and a selective-scan mixer per layer."""
    tally = Tally()
    _lm(cfg, tally)
    tally.add((cfg.hidden + mamba1(cfg)) * cfg.layers + cfg.hidden)
    return tally


def count_mamba2(cfg: Cfg) -> Tally:
    tally = Tally()
    _lm(cfg, tally)
    tally.add((cfg.hidden + mamba2(cfg)) * cfg.layers + cfg.hidden)
    return tally


def count_rwkv(cfg: Cfg) -> Tally:
    """RWKV-4: time-mix (key, value, receptance, output + decay/first/mix vectors) and
    channel-mix blocks, two LayerNorms a layer, one more before the first."""
    tally = Tally()
    hidden = cfg.hidden
    attention = cfg.int("attention_hidden_size") or hidden
    ffn = cfg.ffn or 4 * hidden
    per_layer = 2 * blocks.norm("ln", hidden)
    per_layer += 2 * attention + 3 * hidden  # time_decay, time_first, three time_mix
    per_layer += 3 * hidden * attention + attention * hidden
    per_layer += 2 * hidden + hidden * ffn + hidden * hidden + ffn * hidden
    tally.add(per_layer * cfg.layers + blocks.norm("ln", hidden) * 2)  # pre_ln, ln_out
    _lm(cfg, tally)
    return tally


def count_xlstm(cfg: Cfg) -> Tally:
    """xLSTM-7B: mLSTM layers (q, k at ``qk_dim_factor``, v, output gate, per-head input and
    forget gates, head norm, output projection) and a gated feed-forward rounded up to 64."""
    tally = Tally()
    hidden = cfg.hidden
    heads = cfg.int("num_heads", 8)
    bias = cfg.flag("use_bias")
    qk = int(hidden * cfg.number("qk_dim_factor", 0.5))
    v = int(hidden * cfg.number("v_dim_factor", 1.0))
    multiple = cfg.int("ffn_round_up_to_multiple_of", 64)
    ffn = math.ceil(hidden * cfg.number("ffn_proj_factor", 2.667) / multiple) * multiple
    mlstm = 2 * blocks.linear(hidden, qk, bias) + blocks.linear(hidden, v, bias)
    mlstm += blocks.linear(hidden, v, bias)  # output gate
    mlstm += 2 * blocks.linear(hidden, heads, True)  # input and forget gates
    mlstm += v + blocks.linear(v, hidden, bias)
    per_layer = hidden + mlstm + hidden + blocks.mlp(hidden, ffn, True, bias)
    tally.add(per_layer * cfg.layers)
    if cfg.flag("add_out_norm", True):
        tally.add(hidden)
    _lm(cfg, tally)
    return tally


def count_recurrent_gemma(cfg: Cfg) -> Tally:
    """RecurrentGemma (Griffin): RG-LRU recurrent blocks and local MQA blocks in a repeating
    pattern, each followed by a gated MLP of half the stated width, with biases."""
    tally = Tally()
    hidden, heads = cfg.hidden, cfg.heads
    lru = cfg.int("lru_width") or hidden
    block = lru // heads if heads else lru
    conv = cfg.int("conv1d_width", 4)
    recurrent = 2 * blocks.linear(hidden, lru, True) + blocks.linear(lru, hidden, True)
    recurrent += lru * conv + lru + lru + 2 * (heads * block * block + heads * block)
    bias = cfg.flag("attention_bias")
    attention = blocks.attention(hidden, heads, cfg.kv_heads, cfg.head_dim, qkv_bias=bias)
    attention += hidden  # o_proj always has a bias
    mlp = blocks.mlp(hidden, cfg.ffn // 2, True, True)
    for kind, count in mixer_counts(cfg).items():
        mixer = recurrent if kind == "recurrent" else attention
        tally.add((2 * hidden + mixer + mlp) * count)
    tally.add(hidden)
    _lm(cfg, tally)
    return tally


def _shared_block(cfg: Cfg, ffn_gated: bool = True) -> int:
    """Zamba's shared attention block: attention over [hidden; embeddings] (twice the width)
    and a gated MLP, with its two norms."""
    hidden = cfg.hidden
    width = cfg.int("attention_hidden_size") or 2 * hidden
    heads = cfg.heads
    head_dim = cfg.int("attention_head_dim") or width // max(1, heads)
    kv_heads = cfg.kv_heads
    count = width * heads * head_dim + 2 * width * kv_heads * head_dim
    count += heads * head_dim * hidden
    count += blocks.mlp(hidden, cfg.ffn, ffn_gated, cfg.flag("add_bias_linear"))
    return count + width + hidden


def count_zamba(cfg: Cfg) -> Tally:
    """Zamba/Zamba2: Mamba layers; hybrid layers add a linear map and reuse shared
    transformer blocks (``num_mem_blocks`` of them; parameters counted once) with per-layer
    LoRA adapters in Zamba2."""
    tally = Tally()
    hidden = cfg.hidden
    mixer = mamba2(cfg) if cfg.model_type == "zamba2" else mamba1(cfg)
    counts = mixer_counts(cfg)
    hybrid = counts.get("hybrid", 0)
    tally.add(sum(counts.values()) * (mixer + hidden) + hybrid * hidden * hidden + hidden)
    blocks_used = min(hybrid, max(1, cfg.int("num_mem_blocks", 1)))
    tally.add(blocks_used * _shared_block(cfg))
    if cfg.model_type == "zamba2":
        rank = cfg.int("adapter_rank", 128)
        tally.add(hybrid * (hidden * rank + rank * 2 * cfg.ffn))
        if cfg.flag("use_shared_attention_adapter"):
            width = cfg.int("attention_hidden_size") or 2 * hidden
            tally.add(hybrid * 3 * 2 * width * rank)
    _lm(cfg, tally)
    return tally


def count_nemotron_h(cfg: Cfg) -> Tally:
    """Nemotron-H: each layer is one block — Mamba-2, attention, a ReLU² MLP or a ReLU² MoE
    (routed + shared experts) — behind one RMSNorm."""
    tally = Tally()
    hidden = cfg.hidden
    experts, expert_ffn = cfg.experts, cfg.expert_ffn
    shared = cfg.int("moe_shared_expert_intermediate_size")
    latent = cfg.int("moe_latent_size")
    expert_width = latent or hidden
    for kind, count in mixer_counts(cfg).items():
        layer = Tally()
        layer.add(hidden)
        if kind == "moe":
            layer.routed(blocks.mlp(expert_width, expert_ffn, False), experts, cfg.top_k or 1)
            layer.add(hidden * experts)
            if shared:
                layer.add(blocks.mlp(hidden, shared, False))
            if latent:
                layer.add(2 * hidden * latent)
        elif kind == "mlp":
            layer.add(blocks.mlp(hidden, cfg.ffn, False, cfg.flag("mlp_bias")))
        elif kind in ("full", "sliding"):
            bias = cfg.flag("attention_bias")
            layer.add(
                blocks.attention(
                    hidden, cfg.heads, cfg.kv_heads, cfg.head_dim, qkv_bias=bias, o_bias=bias
                )
            )
        else:
            layer.add(mamba2(cfg))
        tally.merge(layer, count)
    tally.add(hidden)
    _lm(cfg, tally)
    return tally
