"""Parameters of a Llama-like decoder-only model, switched by its family's traits.

Per layer: the mixer (GQA/MQA attention, multi-head latent attention when the config has a
``kv_lora_rank``, or the family's linear/state-space mixer on layers ``layer_types`` marks so),
the feed-forward block (dense, or routed experts + router + shared experts on the layers
:func:`dimlint.memory.parameters.layer_kinds.moe_layers` marks) and the layer's norms. Around them:
token embeddings, learned positions, the final norm and the LM head (absent when tied). Per-layer
overrides (``per_layer_config``) and KV-sharing layers (``num_kv_shared_layers``: Gemma-3n/4 layers
that reuse an earlier layer's keys and values and have no K/V projections) are honoured layer by
layer.
"""

from __future__ import annotations

from dimlint.memory.config_view import GLOBAL_LAYER_KWARGS, Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.decoder_traits import Decoder
from dimlint.memory.parameters.layer_kinds import layer_groups, mixer_rule, moe_rule
from dimlint.memory.parameters.mixer_params import MIXERS
from dimlint.memory.parameters.param_tally import Tally

#: Mixer kinds that are softmax attention (the rest are linear/state-space mixers).
ATTENTION_KINDS = frozenset({"full", "sliding", "chunked", "hybrid"})


def is_gated(cfg: Cfg, traits: Decoder) -> bool:
    if traits.gated is None:
        return bool(cfg.spec.gated_mlp)
    return cfg.flag(traits.gated)


def top_k(cfg: Cfg) -> int:
    return cfg.top_k or cfg.first_int("moe_topk", "top_k_experts", "num_experts_per_token")


def kv_shared(cfg: Cfg, index: int) -> bool:
    """Whether layer ``index`` reuses an earlier layer's K/V (the last
    ``num_kv_shared_layers`` layers of Gemma-3n/4)."""
    shared = cfg.int("num_kv_shared_layers")
    return shared > 0 and index >= cfg.layers - shared


def attention_params(cfg: Cfg, traits: Decoder, hidden: int, shares_kv: bool = False) -> int:
    """One layer's attention block (projections, q/k norms, sinks, output gate)."""
    spec = cfg.spec
    heads, head_dim = cfg.heads, cfg.head_dim
    if spec.is_mla:
        count = blocks.latent_attention(
            hidden,
            heads,
            q_lora_rank=cfg.int("q_lora_rank"),
            kv_lora_rank=cfg.int("kv_lora_rank"),
            qk_nope_head_dim=cfg.int("qk_nope_head_dim"),
            qk_rope_head_dim=cfg.int("qk_rope_head_dim"),
            v_head_dim=cfg.int("v_head_dim") or head_dim,
            bias=cfg.flag(traits.qkv_bias),
        )
    else:
        kv_heads = 0 if shares_kv else cfg.kv_heads
        v_head_dim = cfg.int("v_head_dim") or head_dim
        count = blocks.attention(
            hidden,
            heads,
            kv_heads,
            head_dim,
            qkv_bias=cfg.flag(traits.qkv_bias),
            o_bias=cfg.flag(traits.o_bias),
            v_head_dim=v_head_dim,
        )
        if traits.qk_norm and cfg.flag(traits.qk_norm_flag):
            norms = 1 if shares_kv else 2
            if traits.qk_norm == "proj":
                count += heads * head_dim + kv_heads * head_dim
            elif traits.qk_norm == "head_ln":
                count += 2 * norms * head_dim
            else:
                count += norms * head_dim
    if cfg.flag(traits.sinks):
        count += heads
    if traits.attn_gate == "proj":
        count += hidden * heads * head_dim
    elif traits.attn_gate == "heads":
        count += hidden * heads
    return count


def mixer_params(cfg: Cfg, traits: Decoder, kind: str, hidden: int, shares_kv: bool) -> int:
    """One layer's token mixer: attention, or the family's linear/state-space mixer."""
    if kind in ATTENTION_KINDS or not traits.linear:
        count = attention_params(cfg, traits, hidden, shares_kv)
        if kind == "full" and not shares_kv and keys_as_values(cfg):
            count -= blocks.linear(hidden, cfg.kv_heads * cfg.head_dim, cfg.flag(traits.qkv_bias))
        return count
    return MIXERS[traits.linear](cfg)


def keys_as_values(cfg: Cfg) -> bool:
    """Whether the global layers read their keys as values and build no ``v_proj``
    (Gemma-4's ``attention_k_eq_v``: the 31B and 26B-A4B global layers)."""
    return cfg.model_type in GLOBAL_LAYER_KWARGS and cfg.get("attention_k_eq_v") is True


def shared_expert_ffn(cfg: Cfg, expert_ffn: int, traits: Decoder) -> int:
    """Width of the always-active shared expert MLP (DeepSeek: n_shared × expert width)."""
    if traits.shared_key:
        return cfg.int(traits.shared_key)
    width = cfg.first_int(
        "shared_expert_intermediate_size",
        "shared_experts_intermediate_size",
        "moe_shared_expert_intermediate_size",
        "shared_intermediate_size",
    )
    if width:
        return width
    shared = cfg.first_int(
        "n_shared_experts", "num_shared_experts", "moe_num_shared_experts", "shared_experts"
    )
    return shared * expert_ffn


def moe_params(cfg: Cfg, traits: Decoder, tally: Tally, hidden: int, gated: bool) -> None:
    """Routed experts (only top-k active), router, and shared experts."""
    experts = cfg.experts
    expert_ffn = cfg.expert_ffn
    per_expert = blocks.mlp(hidden, expert_ffn, gated, cfg.flag(traits.expert_bias))
    tally.routed(per_expert, experts, top_k(cfg))
    tally.add(blocks.linear(hidden, experts, cfg.flag(traits.router_bias)))
    if cfg.flag(traits.score_bias):
        tally.add(experts)
    shared_ffn = shared_expert_ffn(cfg, expert_ffn, traits)
    if shared_ffn:
        tally.add(blocks.mlp(hidden, shared_ffn, gated))
        if cfg.flag(traits.shared_gate):
            tally.add(hidden)


def moe_block_extras(cfg: Cfg, hidden: int, gated: bool, width: int, bias: bool) -> int:
    """What a Gemma-4 layer with ``enable_moe_block`` has beyond its experts and router: the
    dense MLP it keeps beside them, the router's input scale and per-expert scales, and the
    three norms of the second feed-forward branch."""
    return blocks.mlp(hidden, width, gated, bias) + hidden + cfg.experts + 3 * hidden


def dense_ffn(cfg: Cfg, traits: Decoder) -> int:
    """The dense MLP width (GPT-2 style configs leave it out: 4 × hidden)."""
    ffn = (cfg.int(traits.ffn_key) if traits.ffn_key else 0) or cfg.ffn
    return ffn or 4 * cfg.hidden


def norm_kind(cfg: Cfg, traits: Decoder, kind: str) -> str:
    """``kind`` as counted: a LayerNorm without its bias holds one vector, as an RMSNorm."""
    return "rms" if kind == "ln" and not cfg.flag(traits.norm_bias, True) else kind


def count_decoder(cfg: Cfg, traits: Decoder, ffn: int | None = None) -> Tally:
    tally = Tally()
    hidden, vocab = cfg.hidden, cfg.vocab
    gated = is_gated(cfg, traits)
    tally.embed(vocab * hidden)
    if traits.positions is not None:
        tally.embed((cfg.max_positions + traits.positions) * hidden)
    if traits.embed_norm:
        tally.add(blocks.norm(traits.embed_norm, hidden))
    norm_per_layer = traits.norms * blocks.norm(norm_kind(cfg, traits, traits.norm), hidden)
    mlp_bias = cfg.flag(traits.mlp_bias)
    width = dense_ffn(cfg, traits) if ffn is None else ffn
    mixer, moe = mixer_rule(cfg), moe_rule(cfg)
    for index, count in layer_groups(cfg):  # each group: `count` layers alike, counted once
        layer = cfg.at_layer(index)
        shares_kv = kv_shared(cfg, index)
        own = Tally()
        own.add(mixer_params(layer, traits, mixer.at(index), hidden, shares_kv) + norm_per_layer)
        if moe.at(index):
            moe_params(layer, traits, own, hidden, gated)
            if cfg.get("enable_moe_block") is True:  # Gemma-4: experts beside the dense MLP
                own.add(moe_block_extras(layer, hidden, gated, width, mlp_bias))
        else:
            layer_ffn = layer.ffn_at(index) if ffn is None else width
            if shares_kv and cfg.flag("use_double_wide_mlp"):
                layer_ffn *= 2
            own.add(blocks.mlp(hidden, layer_ffn or width, gated, mlp_bias))
        tally.merge(own, count)
    final = traits.norm if traits.final_norm == "same" else traits.final_norm
    if final:
        tally.add(blocks.norm(norm_kind(cfg, traits, final), hidden))
    if not cfg.tie:
        tally.embed(vocab * hidden)
    if cfg.flag(traits.head_bias):
        tally.add(vocab)
    return tally
