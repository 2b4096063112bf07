"""Parameters of the non-attention mixers of state-space and hybrid models.

Each function counts one layer's mixer from the config keys its family uses (the Mamba
families spell the same quantity ``state_size``, ``mamba_d_state`` or ``ssm_state_size``, so
the readers try each spelling). The same shapes give the constant per-sequence state these
layers keep instead of a KV cache (see :mod:`dimlint.memory.kvcache`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks


def mamba_inner(cfg: Cfg) -> int:
    """Width of the Mamba inner stream (``expand × hidden`` unless stated)."""
    stated = cfg.first_int("mamba_d_ssm", "mamba_intermediate_size")
    if stated:
        return stated
    if cfg.model_type in ("mamba", "falcon_mamba") and cfg.ffn:
        return cfg.ffn
    heads = cfg.first_int("mamba_num_heads")
    head_dim = cfg.first_int("mamba_head_dim")
    if heads and head_dim:
        return heads * head_dim
    return cfg.first_int("mamba_expand", "expand", default=2) * cfg.hidden


def mamba_state(cfg: Cfg) -> int:
    return cfg.first_int("mamba_d_state", "ssm_state_size", "state_size", default=16)


def mamba_conv(cfg: Cfg) -> int:
    return cfg.first_int("mamba_d_conv", "conv_kernel", "mamba_conv_kernel", default=4)


def _mamba_bias(cfg: Cfg) -> bool:
    for key in ("mamba_proj_bias", "add_bias_linear", "use_bias"):
        if cfg.has(key) and isinstance(cfg.get(key), bool):
            return bool(cfg.get(key))
    return False


def _conv_bias(cfg: Cfg) -> bool:
    for key in ("mamba_conv_bias", "use_conv_bias"):
        if cfg.has(key) and isinstance(cfg.get(key), bool):
            return bool(cfg.get(key))
    return True


def dt_rank(cfg: Cfg) -> int:
    stated = cfg.first_int("mamba_dt_rank", "time_step_rank")
    return stated or math.ceil(cfg.hidden / 16)


def mamba1(cfg: Cfg) -> int:
    """Mamba-1 (selective scan): in/out projections, depthwise conv, x/dt projections, A, D.

    Jamba adds RMSNorms on dt, B and C.
    """
    hidden, inner, state, rank = cfg.hidden, mamba_inner(cfg), mamba_state(cfg), dt_rank(cfg)
    bias = _mamba_bias(cfg)
    count = blocks.linear(hidden, 2 * inner, bias) + blocks.linear(inner, hidden, bias)
    count += inner * mamba_conv(cfg) + (inner if _conv_bias(cfg) else 0)
    count += inner * (rank + 2 * state)  # x_proj
    count += rank * inner + inner  # dt_proj with bias
    count += inner * state + inner  # A_log, D
    if cfg.model_type == "jamba":
        count += rank + 2 * state
    return count


def mamba2_heads(cfg: Cfg) -> int:
    return cfg.first_int("mamba_n_heads", "n_mamba_heads", "mamba_num_heads", "num_heads")


def mamba2_groups(cfg: Cfg) -> int:
    return cfg.first_int("mamba_n_groups", "mamba_ngroups", "n_groups", default=1)


def mamba2(cfg: Cfg) -> int:
    """Mamba-2 (SSD): one input projection to x, z, B, C and dt; conv over x, B, C; per-head
    dt bias, A and D; a gated RMSNorm; the output projection."""
    hidden, inner, state = cfg.hidden, mamba_inner(cfg), mamba_state(cfg)
    heads, groups = mamba2_heads(cfg), mamba2_groups(cfg)
    bias = _mamba_bias(cfg)
    conv_dim = inner + 2 * groups * state
    count = blocks.linear(hidden, inner + conv_dim + heads, bias)
    count += conv_dim * mamba_conv(cfg) + (conv_dim if _conv_bias(cfg) else 0)
    count += 3 * heads
    if cfg.flag("mamba_rms_norm", True):
        count += inner
    count += blocks.linear(inner, hidden, bias)
    return count


def delta_dims(cfg: Cfg) -> tuple[int, int, int, int]:
    key_heads = cfg.int("linear_num_key_heads")
    value_heads = cfg.int("linear_num_value_heads", key_heads)
    return (
        key_heads,
        cfg.int("linear_key_head_dim"),
        value_heads,
        cfg.int("linear_value_head_dim"),
    )


def gated_deltanet(cfg: Cfg) -> int:
    """Gated DeltaNet (Qwen3-Next, Qwen3.5, OLMo-hybrid): q, k, v, z projections, per-head
    a/b gates, a causal conv over q·k·v, dt bias and A per value head, a head-wise norm."""
    hidden = cfg.hidden
    key_heads, key_dim, value_heads, value_dim = delta_dims(cfg)
    keys, values = key_heads * key_dim, value_heads * value_dim
    count = hidden * (2 * keys + 2 * values) + hidden * 2 * value_heads
    count += (2 * keys + values) * cfg.int("linear_conv_kernel_dim", 4)
    count += 2 * value_heads + value_dim
    count += values * hidden
    return count


def kda_dims(cfg: Cfg) -> tuple[int, int]:
    return cfg.int("linear_num_heads"), cfg.int("linear_head_dim")


def kimi_delta_attention(cfg: Cfg) -> int:
    """Kimi Delta Attention (Kimi-Linear): q, k, v, a conv over them, a low-rank forget gate
    and output gate, per-head beta, a head-wise norm and the output projection."""
    hidden = cfg.hidden
    heads, head_dim = kda_dims(cfg)
    width = heads * head_dim
    count = 3 * hidden * width + 3 * width * cfg.int("linear_conv_kernel_dim", 4)
    count += width + heads  # dt_bias, A_log
    count += hidden * head_dim + head_dim * width  # f_a, f_b
    count += hidden * heads  # b_proj
    count += hidden * head_dim + head_dim * width  # g_a, g_b
    count += head_dim + width * hidden
    return count


def bailing_delta_attention(cfg: Cfg) -> int:
    """Bailing-hybrid's KDA variant: full-rank forget and output gates."""
    hidden = cfg.hidden
    heads, head_dim = kda_dims(cfg)
    width = heads * head_dim
    count = 3 * hidden * width + 3 * width * cfg.int("linear_conv_kernel_dim", 4)
    count += heads + width + hidden * width  # A_log, dt_bias, f_proj
    count += hidden * heads + head_dim + width * hidden + hidden * width  # b, o_norm, o, g
    return count


def lightning_attention(cfg: Cfg) -> int:
    """MiniMax lightning (linear) attention: fused QKV, norm, output and output gate."""
    hidden, width = cfg.hidden, cfg.heads * cfg.head_dim
    return width + hidden * 3 * width + width * hidden + hidden * width


def short_conv(cfg: Cfg) -> int:
    """LFM2's gated short convolution: in (3 × hidden), depthwise conv, out."""
    hidden, bias = cfg.hidden, cfg.flag("conv_bias")
    kernel = cfg.int("conv_L_cache", 3)
    return (
        blocks.linear(hidden, 3 * hidden, bias)
        + hidden * kernel
        + (hidden if bias else 0)
        + blocks.linear(hidden, hidden, bias)
    )


MIXERS: dict[str, Callable[[Cfg], int]] = {
    "mamba1": mamba1,
    "mamba2": mamba2,
    "gated_deltanet": gated_deltanet,
    "kda": kimi_delta_attention,
    "kda_bailing": bailing_delta_attention,
    "lightning": lightning_attention,
    "short_conv": short_conv,
}
