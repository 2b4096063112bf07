"""The constant state a recurrent or linear-attention layer keeps per sequence.

Unlike attention, these layers do not grow with the context: a convolution window plus a
recurrent state (Mamba, Gated DeltaNet, RWKV, xLSTM, Griffin's RG-LRU), sharded over
tensor-parallel ranks by heads.
"""

from __future__ import annotations

import math

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.decoder_families import traits_for
from dimlint.memory.parameters.mixer_params import (
    delta_dims,
    kda_dims,
    mamba2_groups,
    mamba_conv,
    mamba_inner,
    mamba_state,
)


def _state_kind(cfg: Cfg) -> str:
    linear = traits_for(cfg).linear
    if linear:
        return linear
    return {
        "mamba": "mamba1",
        "falcon_mamba": "mamba1",
        "zamba": "mamba1",
        "mamba2": "mamba2",
        "zamba2": "mamba2",
        "nemotron_h": "mamba2",
        "falcon_h1": "mamba2",
        "rwkv": "rwkv",
        "xlstm": "xlstm",
        "recurrent_gemma": "rg_lru",
        "lfm2_moe": "short_conv",  # LFM2's convolution blocks with MoE feed-forwards
    }.get(cfg.model_type, "")


def state_elements(cfg: Cfg, tp: int = 1) -> int:
    """Elements of one layer's recurrent + convolution state for one sequence, on one rank.

    Convolution states keep ``kernel - 1`` columns (vLLM's layout; transformers pads its
    copy to the full kernel).
    """
    kind = _state_kind(cfg)
    tp = max(1, tp)
    if kind == "mamba1":
        inner = mamba_inner(cfg)
        elements = inner * (mamba_conv(cfg) - 1) + inner * mamba_state(cfg)
    elif kind == "mamba2":
        inner, state = mamba_inner(cfg), mamba_state(cfg)
        conv_dim = inner + 2 * mamba2_groups(cfg) * state
        elements = conv_dim * (mamba_conv(cfg) - 1) + inner * state
    elif kind == "gated_deltanet":
        key_heads, key_dim, value_heads, value_dim = delta_dims(cfg)
        conv_dim = 2 * key_heads * key_dim + value_heads * value_dim
        kernel = cfg.int("linear_conv_kernel_dim", 4)
        elements = conv_dim * (kernel - 1) + value_heads * key_dim * value_dim
    elif kind in ("kda", "kda_bailing"):
        heads, head_dim = kda_dims(cfg)
        kernel = cfg.int("linear_conv_kernel_dim", 4)
        elements = 3 * heads * head_dim * (kernel - 1) + heads * head_dim * head_dim
    elif kind == "lightning":
        elements = cfg.heads * cfg.head_dim * cfg.head_dim
    elif kind == "short_conv":
        elements = cfg.hidden * (cfg.int("conv_L_cache", 3) - 1)
    elif kind == "rwkv":
        elements = 5 * cfg.hidden
    elif kind == "xlstm":
        heads = cfg.int("num_heads", 8)
        qk = int(cfg.hidden * cfg.number("qk_dim_factor", 0.5))
        v = int(cfg.hidden * cfg.number("v_dim_factor", 1.0))
        elements = qk * v // heads + qk + heads
    elif kind == "rg_lru":
        lru = cfg.int("lru_width") or cfg.hidden
        elements = lru + lru * (cfg.int("conv1d_width", 4) - 1)
    else:
        elements = 0
    return math.ceil(elements / tp)
