"""What one GPU holds of a shape: the measures the ranking compares (issue 23).

A deployment pays per GPU: the KV heads one rank stores (split over TP, replicated when TP
exceeds them), the widths of its shards (FFN / TP, query width / TP), and whether the shape
splits over a power-of-two number of GPUs at all. :func:`serving_degrees` says at which TP
degrees a shape is compared: the targets', else the largest power of two it splits over up to
one node (TP 1 below 4B parameters, or on a one-GPU budget).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from dimlint.fix.suggest.families import MLA_KV_RANK, MLA_ROPE, Shape
from dimlint.fix.suggest.plan import Plan

#: Largest power of two that counts towards the alignment margin (beyond: no further gain):
#: tensor-core tiles are 64–128 wide in most kernels (Hopper's wgmma reaches 256), and the
#: shards of released models are 128-aligned or more (Llama-3, Mistral, Mixtral and Gemma-2 at
#: TP 8: 256; Qwen2.5-0.5B's 896: 128), where a shard of 14592 / 8 = 1824 is 32-aligned.
ALIGN_CAP = 128


def _power_of_two_part(value: int) -> int:
    return min(value & -value, ALIGN_CAP) if value > 0 else 1


def alignment(shape: Shape) -> int:
    """The smallest power of two (≤ 256) dividing every GEMM width of the shape."""
    widths = [shape.hidden, shape.attention_width]
    widths.append(shape.expert_ffn if shape.experts else shape.ffn)
    if not shape.mla:
        widths.append(shape.kv_heads * shape.head_dim)
    return min(_power_of_two_part(w) for w in widths)


def shard_alignment(plan: Plan, shape: Shape) -> int:
    """The smallest power of two (≤ 128) dividing every width one GPU holds, at every requested
    TP degree: the query heads' width / TP, the FFN (or expert) width / TP, and the hidden
    size (which no rank splits). A shard that is only 32-aligned
    (14592 / 8 = 1824) wastes tensor-core tiles on every GEMM of the layer. The vocab is left
    out: it is padded to 128 × TP (:data:`VOCAB_PADDING`), so each slice is 128-aligned."""
    ffn = shape.expert_ffn if shape.experts else shape.ffn
    found = ALIGN_CAP
    for tp in serving_degrees(plan, shape):
        widths = [shape.hidden, shape.attention_width / tp, ffn / tp]
        for width in widths:
            found = min(found, _power_of_two_part(int(width)) if width == int(width) else 1)
    return found


def kv_width_per_gpu(plan: Plan, shape: Shape) -> int:
    """KV elements one GPU stores per token and layer, at the worst requested TP degree.

    KV heads split over the ranks when TP divides them and are replicated when TP exceeds
    them (vLLM, SGLang, Megatron): 4 KV heads at TP 8 cost each GPU one head, as 8 do. MLA's
    latent is the same on every rank."""
    if shape.mla:
        return MLA_KV_RANK + MLA_ROPE
    per_gpu = max(-(-shape.kv_heads // tp) for tp in serving_degrees(plan, shape))
    return 2 * per_gpu * shape.head_dim


def kv_share_per_gpu(plan: Plan, shape: Shape) -> float:
    """KV heads one GPU stores per query head it computes, at the worst requested TP degree
    (KV heads split over TP, replicated when TP exceeds them; 0 for MLA's shared latent).

    This is the KV cache a shape pays for its attention, per GPU: 32/4 heads at TP 8 store one
    KV head for 4 query heads, as 32/8 do. It does not depend on the depth or the width, which
    the family's depth/width ratio decides: KV bytes per token and layer would rank a narrow
    3072-wide shape of 53 layers (24/6 heads) above 4096 × 32 (32/8) at 8B, although its cache
    per token is larger (162,816 vs 131,072 bytes)."""
    if shape.mla:
        return 0.0
    return max(-(-shape.kv_heads // tp) * tp / shape.heads for tp in serving_degrees(plan, shape))


def gqa_excess(plan: Plan, shape: Shape) -> float:
    """How far the shape groups more query heads per KV head than the family's release nearest
    in size (:attr:`Plan.gqa_reference`): ``log(ratio / released)``, 0 at or below it.

    Fewer KV heads save cache but cost quality (GQA trades one for the other; the labs chose
    their grouping per size: Llama-3-8B 32/8, Qwen2.5-0.5B 14/2). A request that fixes no
    grouping keeps the family's quality: grouping beyond it is never preferred to save KV a
    budget does not need (a budget that does need it admits only those shapes); ``--gqa-ratio``
    or ``--kv-heads`` make the choice the designer's, with no prior."""
    if shape.mla or plan.gqa_reference is None:
        return 0.0
    return max(0.0, math.log(shape.heads / shape.kv_heads / plan.gqa_reference))


def serving_degrees(plan: Plan, shape: Shape) -> tuple[int, ...]:
    """The TP degrees ``shape`` is compared at: the targets', else the largest power of two up
    to :attr:`Plan.serving_cap` it splits over (heads, KV heads split or replicated, FFN), as a
    deployment that scales it would run it. With 32 heads, 4 and 8 KV heads both cost one
    head per GPU at TP 8: the KV heads that fewer would save are replicated anyway."""
    if plan.tp_degrees:
        return plan.tp_degrees
    ffn = shape.expert_ffn if shape.experts else shape.ffn
    degree = 1
    while degree * 2 <= plan.serving_cap:
        tp = degree * 2
        kv_ok = shape.mla or shape.kv_heads % tp == 0 or tp % shape.kv_heads == 0
        if shape.heads % tp or not kv_ok or ffn % tp:
            break
        degree = tp
    return (degree,)


def deployable_tier(heads: int, kv_heads: int, widths: Iterable[int]) -> int:
    """0 when the shape splits over 2 GPUs at all (heads, KV heads and every width even), 1
    when it runs at TP 1 only: such a shape never ranks above one that scales."""
    even = heads % 2 == 0 and (kv_heads % 2 == 0 or kv_heads == 1)
    return 0 if even and all(w % 2 == 0 for w in widths) else 1


def closed_kv_elements(shape: Shape) -> int:
    """KV elements per token (pruning order only; the printed value is ``mem``'s)."""
    if shape.mla:
        return shape.layers * (MLA_KV_RANK + MLA_ROPE)
    return 2 * shape.layers * shape.kv_heads * shape.head_dim


def power_of_two_degrees(engines: dict[str, list[int]], cap: int | None = None) -> int:
    """(engine, power-of-two TP degree) pairs accepted, up to ``cap``: TP 8 on transformers'
    native TP for 32/8 heads counts, a TP 3 nobody deploys does not. The ranking counts only
    the degrees the request would serve at (:func:`degree_cap`): that 16 heads also split over
    TP 4 and 8 is no gain for a 0.5B model served on one GPU."""
    return sum(
        1
        for degrees in engines.values()
        for d in degrees
        if d > 1 and d & (d - 1) == 0 and (cap is None or d <= cap)
    )


def degree_cap(plan: Plan) -> int:
    """The largest TP degree the request serves at: its targets', else the serving cap (TP 1
    below 4B or on one GPU, else up to the budget's GPUs or one node)."""
    return max(plan.tp_degrees) if plan.tp_degrees else plan.serving_cap


def ffn_curve_distance(plan: Plan, shape: Shape) -> float:
    """|log| of the shape's FFN (or expert) width / hidden over the family's at this size
    (:attr:`Plan.ffn_curve`): where two shapes have the same depth/width ratio (Gemma-2 at 9B:
    3072 × 36, 3328 × 39 and 3584 × 42 are all 85.3), the MLP as wide as the family's
    (Gemma-2-9B's 4 × hidden) is the family's recipe; 7 × hidden is not."""
    if plan.ffn_curve is None:
        return 0.0
    width = shape.expert_ffn if shape.experts else shape.ffn
    return abs(math.log(width / shape.hidden / plan.ffn_curve)) if width > 0 else math.inf
