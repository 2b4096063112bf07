"""How wide one layer's cache is per token, on one tensor-parallel rank.

Attention keeps keys and values for each KV head (``max(1, kv_heads / tp)`` heads per rank:
past ``tp = kv_heads`` they are replicated), latent attention one latent for all heads, and a
few families store their cache in a layout of their own (module constants). The widths are
per token; :mod:`~dimlint.memory.kvcache.cache_size` multiplies them by the tokens a layer
holds.
"""

from __future__ import annotations

import math

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.layer_kinds import CacheLayer

#: Families whose every attention layer is local (Griffin's MQA blocks).
LOCAL_ATTENTION = frozenset({"recurrent_gemma"})

#: Self-attention blocks per decoder layer where there is more than one: LongCat-Flash runs two
#: MLA blocks in every layer (its config derives ``num_hidden_layers = 2 * num_layers``).
ATTENTION_BLOCKS = {"longcat_flash": 2}

#: KV-head multipliers of sliding-window layers: MiMo-V2-Flash's sliding layers have twice
#: ``num_key_value_heads`` (``MiMoV2FlashAttention``), a rule of the code, not of the config.
SLIDING_KV_HEADS = {"mimo_v2_flash": 2}

#: Families whose single KV tensor is read as both keys and values (DeepSeek-V4's shared-KV
#: MQA, one head): an engine stores it once, on every rank.
SHARED_KV = frozenset({"deepseek_v4"})


def kv_heads_per_gpu(kv_heads: int, tp: int) -> int:
    """KV heads one rank holds: ``max(1, kv/tp)``, replicated once ``tp`` exceeds them."""
    return max(1, math.ceil(kv_heads / max(1, tp)))


def kv_width(cfg: Cfg, tp: int, sliding: bool = False) -> int:
    """Elements per token per layer for keys + values on one rank (sliding layers with their
    own ``swa_*`` head counts use those: Inkling)."""
    head_dim = cfg.head_dim
    v_head_dim = cfg.int("v_head_dim") or head_dim
    kv_heads = cfg.kv_heads
    if sliding and cfg.model_type in SLIDING_KV_HEADS:
        # the code's own rule; the swa_* keys MiMo-V2's released configs carry are read by no
        # code of transformers' (double counting them put its sliding layers at 16 KV heads)
        kv_heads *= SLIDING_KV_HEADS[cfg.model_type]
    elif sliding:
        head_dim = cfg.int("swa_head_dim") or head_dim
        v_head_dim = cfg.int("swa_v_head_dim") or (cfg.int("swa_head_dim") or v_head_dim)
        kv_heads = cfg.int("swa_num_key_value_heads") or kv_heads
    if cfg.model_type in SHARED_KV:
        # one shared KV head whatever num_key_value_heads says (DeepSeek-V4's kv_proj projects
        # to head_dim alone; its class declares the field, its code never reads it)
        return head_dim
    return kv_heads_per_gpu(kv_heads, tp) * (head_dim + v_head_dim)


def compressed_elements(cfg: Cfg, layer: CacheLayer, context: int, block_size: int) -> int:
    """What a DeepSeek-V4 compressed layer keeps beyond its sliding window, per sequence, as
    transformers' ``DeepseekV4HCACache`` / ``DeepseekV4CSACache`` hold it after ``context``
    tokens (``m`` = ``layer.compress``):

    * one compressed entry (``head_dim``) per whole window of ``m`` source tokens;
    * the tokens of the open window (``context mod m``), projected and gated, waiting for it
      to close: ``head_dim`` each for keys and gate (HCA), twice that under CSA's two
      overlapping series;
    * CSA only: the previous window's first series (keys and gate, ``m × head_dim`` each)
      once a window has closed, and the Lightning Indexer's own compressed keys, open window
      and overlap at ``index_head_dim``.
    """
    rate = layer.compress
    entries = held_tokens(context // rate, None, block_size)
    head_dim, index_dim = cfg.head_dim, cfg.int("index_head_dim")
    open_tokens = context % rate
    closed = context >= rate
    if not layer.overlap:
        return entries * head_dim + open_tokens * 2 * head_dim
    per_width = entries + open_tokens * 4 + (2 * rate if closed else 0)
    return per_width * (head_dim + index_dim)


def special_width(cfg: Cfg, tp: int) -> tuple[int, int | None] | None:
    """(elements per token, window) of the families whose cache is not one entry per decoder
    layer: XLNet's memories and encoder-decoder models (the decoder's self-attention); None
    for the others."""
    if cfg.model_type == "xlnet":
        return cfg.layers * cfg.hidden, cfg.int("mem_len") or None
    if cfg.get("is_encoder_decoder") is not True:
        return None
    layers = cfg.first_int("decoder_layers", "num_decoder_layers", default=cfg.layers)
    heads = cfg.first_int(
        "decoder_attention_heads", "num_decoder_attention_heads", default=cfg.heads
    )
    head_dim = cfg.int("d_kv") or (cfg.hidden // heads if heads else 0)
    return layers * kv_heads_per_gpu(heads, tp) * 2 * head_dim, None


def latent_width(cfg: Cfg) -> int:
    return cfg.int("kv_lora_rank") + cfg.int("qk_rope_head_dim")


def held_tokens(context: int, window: int | None, block_size: int) -> int:
    held = context if window is None else min(context, window)
    block = max(1, block_size)
    return math.ceil(held / block) * block
