"""The mechanisms behind a suggestion, with the request's numbers (``--explain``).

What makes one width better than another on a GPU is not the width itself but how it splits:
the head dim the attention kernels are built for, heads that divide over the TP degree, shards
whose widths fill whole tensor-core tiles, and GEMMs whose tile count fills whole waves of the
GPU's streaming multiprocessors. Each line here states one of these for the winner, at the TP
degrees it is ranked at, and the released models quoted come from the released-shape table
(generated from the shared corpus), never from memory.
"""

from __future__ import annotations

import math

from dimlint.fix.suggest.families import Shape
from dimlint.fix.suggest.plan import Plan
from dimlint.fix.suggest.ranking import serving_degrees
from dimlint.fix.suggest.reference import Released, quotable, released

#: Output tile of a tensor-core GEMM (CUTLASS/cuBLAS's common 128 × 128).
TILE = 128
#: Streaming multiprocessors of an H100 SXM: one tile per SM per wave.
H100_SMS = 132
#: Tokens in the prefill batch the wave count is given for (vLLM's chunked-prefill budget is of
#: this order: 2,048–8,192).
WAVE_TOKENS = 4096
#: Released models within this factor of the request's size are quoted…
NEAR = 3.0
#: …at most this many distinct widths of them, nearest in size first.
NEAR_SHOWN = 5


def is_power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


def _tiles(width: int) -> tuple[int, float]:
    """(128-wide tiles, share of the last tile's columns in use)."""
    tiles = -(-width // TILE)
    return tiles, width / (tiles * TILE)


def head_dim_line(plan: Plan, shape: Shape) -> str:
    near = _near(plan, shape)
    same = [m for m in near if _head_dim(m) == shape.head_dim]
    head = f"head dim {shape.head_dim}"
    if shape.mla:
        return f"  {head}: MLA's 128 + 64 rotary query/key width (DeepSeek-V2/V3's)"
    return (
        f"  {head}: the FlashAttention and paged-attention kernels are built for head dims"
        f" 64, 128 and 256; {len(same)} of the {len(near)} released models within"
        f" {NEAR:g}× of this size use {shape.head_dim}"
        + (f" ({', '.join(_name(m) for m in _by_size(plan, same)[:4])})" if same else "")
    )


def heads_line(plan: Plan, shape: Shape) -> str:
    degrees = serving_degrees(plan, shape)
    split = "; ".join(
        f"TP {tp}: {shape.heads} % {tp} = {shape.heads % tp}, {shape.heads // tp} query heads"
        f" per GPU"
        for tp in degrees
    )
    if shape.mla or shape.heads * shape.head_dim != shape.hidden:
        return f"  {shape.heads} heads × {shape.head_dim} ({split})"
    return f"  hidden {shape.hidden} = {shape.heads} heads × {shape.head_dim} ({split})"


def tile_lines(plan: Plan, shape: Shape) -> list[str]:
    """Per-GPU shards in 128-wide tiles, and the waves of one prefill GEMM."""
    width = shape.expert_ffn if shape.experts else shape.ffn
    name = "expert width" if shape.experts else "ffn"
    lines = []
    for tp in serving_degrees(plan, shape):
        shard = width / tp
        if shard != int(shard):
            lines.append(f"  per-GPU tiles at TP {tp}: {name} {width} / {tp} is not whole")
            continue
        tiles, used = _tiles(int(shard))
        query = shape.attention_width // tp
        q_tiles, q_used = _tiles(query)
        lines.append(
            f"  per-GPU tiles at TP {tp}: {name} shard {width} / {tp} = {int(shard)} ="
            f" {tiles} tiles of {TILE} ({used:.0%} of the last one used), query shard"
            f" {shape.attention_width} / {tp} = {query} = {q_tiles} tiles ({q_used:.0%})"
        )
        row_tiles = -(-WAVE_TOKENS // TILE)
        total = row_tiles * tiles
        waves = total / H100_SMS
        last = total - (math.ceil(waves) - 1) * H100_SMS
        lines.append(
            f"  wave quantization at TP {tp}: a {WAVE_TOKENS}-token prefill through the"
            f" {name} GEMM is {row_tiles} × {tiles} = {total} output tiles, {waves:.2f} waves on"
            f" an H100's {H100_SMS} SMs (the last wave {last / H100_SMS:.0%} full)"
        )
    return lines


def released_widths(plan: Plan, shape: Shape) -> str:
    """Released hidden sizes near the request, powers of two or not (from the table)."""
    near = _near(plan, shape)
    if not near:
        return ""
    shown: dict[int, Released] = {}
    for model in _by_size(plan, near):
        if len(shown) < NEAR_SHOWN:
            shown.setdefault(model.hidden, model)
    # the widest released dense model: where the largest widths stop being "round"
    largest = max(filter(quotable, released()), key=lambda m: (not m.experts, m.hidden))
    shown.setdefault(largest.hidden, largest)
    parts = [
        f"{_name(m)} {m.hidden}"
        + (" (a power of two)" if is_power_of_two(m.hidden) else f" = {_factor(m)}")
        for m in shown.values()
    ]
    return (
        "  released widths (released-shape table): "
        + ", ".join(parts)
        + ": what a width must be is divisible (heads × head dim, heads % TP), not a power of two"
    )


def mechanism_lines(plan: Plan, shape: Shape) -> list[str]:
    lines = ["  mechanisms, with this request's numbers:"]
    lines.append("  " + head_dim_line(plan, shape))
    lines.append("  " + heads_line(plan, shape))
    lines.extend("  " + line for line in tile_lines(plan, shape))
    widths = released_widths(plan, shape)
    if widths:
        lines.append("  " + widths)
    return lines


def _near(plan: Plan, shape: Shape) -> list[Released]:
    moe = bool(shape.experts)
    params = plan.request.params
    return [
        m
        for m in released()
        if bool(m.experts) == moe
        and params / NEAR <= m.params <= params * NEAR
        and m.heads
        and quotable(m)
    ]


def _by_size(plan: Plan, models: list[Released]) -> list[Released]:
    """Nearest in size (log scale) first."""
    return sorted(models, key=lambda m: abs(math.log(m.params / plan.request.params)))


def _head_dim(model: Released) -> int:
    return model.head_dim or model.hidden // model.heads


def _factor(model: Released) -> str:
    head = _head_dim(model)
    if model.hidden == model.heads * head:
        return f"{model.heads} × {head}"
    return f"{model.hidden // 128} × 128" if model.hidden % 128 == 0 else "not a multiple of 128"


def _name(model: Released) -> str:
    return model.name
