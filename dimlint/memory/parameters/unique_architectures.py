"""Recipes for decoder families whose layers are not one attention + one MLP: JetMoE (experts
in attention too), LongCat-Flash (two attentions and MLPs per layer plus zero-compute
experts), HRM-Text (two recurrent stacks) and Dory (nGPT-style normalised layers)."""

from __future__ import annotations

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.decoder_params import top_k
from dimlint.memory.parameters.param_tally import Tally


def _embed_and_head(cfg: Cfg, tally: Tally) -> None:
    tally.embed(cfg.vocab * cfg.hidden)
    if not cfg.tie:
        tally.embed(cfg.vocab * cfg.hidden)


def count_jetmoe(cfg: Cfg) -> Tally:
    """JetMoE: mixture-of-attention (experts for the query/output projections, one shared KV
    projection) and a gated mixture-of-MLP, each with a router and an output bias."""
    tally = Tally()
    hidden, experts, active = cfg.hidden, cfg.experts, top_k(cfg)
    kv_width = (cfg.int("kv_channels") or cfg.head_dim) * cfg.kv_heads
    layer = Tally()
    layer.routed(2 * hidden * kv_width, experts, active)
    layer.add(hidden + hidden * experts + hidden * 2 * kv_width)
    layer.routed(blocks.mlp(hidden, cfg.ffn, True), experts, active)
    layer.add(hidden + hidden * experts + 2 * hidden)
    tally.merge(layer, max(0, cfg.layers))
    tally.add(hidden)
    _embed_and_head(cfg, tally)
    return tally


def count_longcat_flash(cfg: Cfg) -> Tally:
    """LongCat-Flash: per layer two MLA blocks and two dense MLPs (shortcut-connected MoE), a
    router over the routed plus zero-compute (identity) experts, and the routed experts."""
    tally = Tally()
    hidden, heads = cfg.hidden, cfg.heads
    experts = cfg.experts
    zero = cfg.int("zero_expert_num")
    expert_ffn = cfg.int("expert_ffn_hidden_size") or cfg.expert_ffn
    dense = cfg.int("ffn_hidden_size") or cfg.ffn
    mla = blocks.latent_attention(
        hidden,
        heads,
        q_lora_rank=cfg.int("q_lora_rank"),
        kv_lora_rank=cfg.int("kv_lora_rank"),
        qk_nope_head_dim=cfg.int("qk_nope_head_dim"),
        qk_rope_head_dim=cfg.int("qk_rope_head_dim"),
        v_head_dim=cfg.int("v_head_dim"),
        bias=cfg.flag("attention_bias"),
    )
    per_layer = 2 * mla + 2 * blocks.mlp(hidden, dense, True) + 4 * hidden
    per_layer += hidden * (experts + zero)
    # the fused gate/up tensor also has rows for the zero experts, which compute nothing
    per_layer += zero * 2 * expert_ffn * hidden
    layers = cfg.int("num_layers") or cfg.layers
    tally.add(per_layer * layers + hidden)
    routed = Tally()
    routed.routed(blocks.mlp(hidden, expert_ffn, True), experts, top_k(cfg))
    tally.merge(routed, max(0, layers))
    _embed_and_head(cfg, tally)
    tally.note(
        "LongCat-Flash activates a variable number of experts per token; active assumes top-k"
    )
    return tally


def count_hrm_text(cfg: Cfg) -> Tally:
    """HRM-Text: a low-level and a high-level stack of ``num_layers_per_stack`` gated-attention
    layers with weightless norms, iterated in cycles (the cycles reuse the weights)."""
    tally = Tally()
    hidden, heads, head_dim = cfg.hidden, cfg.heads, cfg.head_dim
    bias = cfg.flag("attention_bias")
    attention = blocks.attention(hidden, heads, cfg.kv_heads, head_dim, qkv_bias=bias, o_bias=bias)
    attention += hidden * heads * head_dim  # output gate
    per_layer = attention + blocks.mlp(hidden, cfg.ffn, True, cfg.flag("mlp_bias"))
    stacks = 2 * (cfg.int("num_layers_per_stack") or cfg.layers)
    tally.add(per_layer * stacks + hidden)
    _embed_and_head(cfg, tally)
    return tally


def count_dory(cfg: Cfg) -> Tally:
    """Dory (nGPT-style): L2-normalised layers with learned scales instead of norm weights,
    gated attention, and a per-token logit scale on the head."""
    tally = Tally()
    hidden, heads, head_dim = cfg.hidden, cfg.heads, cfg.head_dim
    width = heads * head_dim
    types = cfg.list("layer_types") or []
    layers = cfg.layers // 2 if "mlp" in types else cfg.layers
    attention = blocks.attention(hidden, heads, cfg.kv_heads, head_dim)
    attention += hidden * width + 2 * width  # gate, s_qk, s_gate
    mlp = blocks.mlp(hidden, cfg.ffn, True) + 2 * cfg.ffn
    tally.add(layers * (2 * hidden + attention + mlp))
    _embed_and_head(cfg, tally)
    tally.add(cfg.vocab)
    return tally


def _llama_layers(cfg: Cfg) -> int:
    hidden = cfg.hidden
    per_layer = blocks.attention(hidden, cfg.heads, cfg.kv_heads, cfg.head_dim)
    per_layer += blocks.mlp(hidden, cfg.ffn, True) + 2 * hidden
    return per_layer * cfg.layers


def _blt_cross_attention(cfg: Cfg, layers: int) -> int:
    """Byte ↔ patch cross-attention: square q/k/v/o projections with q/k norms."""
    hidden = cfg.hidden
    return layers * (4 * hidden * hidden + 2 * hidden)


def count_blt_local_encoder(cfg: Cfg) -> Tally:
    """BLT's byte encoder: byte embeddings, Llama layers, the projection to patch space and
    cross-attention (first layer only unless ``cross_attn_all_layers``)."""
    tally = Tally()
    hidden = cfg.hidden
    tally.embed(cfg.vocab * hidden)
    tally.add(_llama_layers(cfg) + hidden * hidden * cfg.int("cross_attn_k", 2))
    cross = cfg.layers if cfg.flag("cross_attn_all_layers") else 1
    tally.add(_blt_cross_attention(cfg, cross))
    return tally


def count_blt_local_decoder(cfg: Cfg) -> Tally:
    """BLT's byte decoder: Llama layers, a final norm, the projection from the global width
    and cross-attention on every layer (by default)."""
    tally = Tally()
    hidden = cfg.hidden
    global_width = cfg.int("hidden_size_global") or hidden
    tally.add(_llama_layers(cfg) + hidden + global_width * hidden * cfg.int("cross_attn_k", 2))
    cross = cfg.layers if cfg.flag("cross_attn_all_layers", True) else 1
    tally.add(_blt_cross_attention(cfg, cross))
    return tally


def count_blt_global(cfg: Cfg) -> Tally:
    """BLT's global (patch-level) transformer: Llama layers only."""
    tally = Tally()
    tally.add(_llama_layers(cfg))
    return tally


def count_blt_patcher(cfg: Cfg) -> Tally:
    """BLT's entropy patcher: a small byte LM with its own embedding, norm and head."""
    tally = Tally()
    tally.embed(2 * cfg.vocab * cfg.hidden)
    tally.add(_llama_layers(cfg) + cfg.hidden)
    return tally
