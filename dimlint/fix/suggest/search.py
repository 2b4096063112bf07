"""The search: enumerate shapes by closed form, verify the best with dimlint's own rules.

Enumeration walks head dim → hidden → heads → KV heads → layers and solves the FFN (or expert)
width that brings the closed-form count (:func:`dimlint.fix.suggest.families.closed_form`) to the
target, rounded to the family's multiple. Shapes whose hidden/layers ratio leaves the range
released models of that size use (:mod:`dimlint.fix.suggest.reference`) are dropped, as are shapes
whose heads no target's TP degree divides (DL401 holds for every engine). What remains is
ordered by a preliminary key and verified in that order until enough pass:

* the config is linted exactly as ``dimlint check --target … --budget …`` lints it
  (:func:`dimlint.linter.lint_bytes`); any finding at warning level or above rejects it;
* parameters are recounted by :func:`dimlint.memory.model_parameters` (what ``mem`` prints) and
  must be within the tolerance of the request; the KV bytes per token are ``mem``'s;
* the accepted TP degrees per engine are ``plan``'s (:func:`dimlint.engines.valid_degrees`).

Survivors are ranked by what a deployment pays (issue 23), at the TP degrees the targets
name (without targets: TP 1 below 4B, else the largest power of two up to one node of 8 the
shape splits over, see :func:`serving_degrees`):

1. whether it splits over more than one GPU at all (a TP-1-only shape never ranks above one
   that scales);
2. parameter distance, in bands of :data:`BAND` (shapes within 1% count as equally close);
3. KV values per token and layer on one GPU (KV heads split over TP, replicated when TP exceeds
   them: 4 and 8 KV heads both cost one head per GPU at TP 8);
4. the alignment of every width one GPU holds (FFN / TP, query width / TP, hidden);
5. the power-of-two TP degrees the engines accept;
6. distance from the median depth/width ratio of the family's released models near this size;
7. the exact KV bytes per token per GPU, then the exact parameter distance.

Nothing in the key depends on the other candidates, so #1 is the same whatever ``--top`` is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

from dimlint.deploy.targets import Deployment, Target, deployment
from dimlint.diagnostics import Diagnostic, Severity
from dimlint.fix.suggest.families import (
    FAMILIES,
    MLA_KV_RANK,
    MLA_NOPE,
    MLA_ROPE,
    TIE_BELOW,
    Family,
    Shape,
    attention_parameters,
    closed_form,
    config_for,
    dense_ffn,
    round_up,
)
from dimlint.fix.suggest.reference import aspect_range, expert_ratio_range, ffn_ratio_range
from dimlint.fix.suggest.request import Request
from dimlint.records import Record

#: Parameter distances within one band rank as equal; the next criteria decide.
BAND = 0.01
#: The closed form prunes with this much slack; the exact count then applies the tolerance.
PRUNE_SLACK = 0.03
#: Expert widths are multiples of this (DeepSeek 2048, Qwen3 768, Qwen1.5-MoE 1408).
EXPERT_MULTIPLE = 64
#: Expert width / hidden when the released-shape table gives none (DeepSeek-V3 0.29 … Mixtral
#: 3.5; :func:`dimlint.fix.suggest.reference.expert_ratio_range` reads the table).
EXPERT_RATIO = (0.1, 4.0)
#: Layers of margin on the depth bounds (DeepSeek's leading dense layers cost differently).
DEPTH_MARGIN = 4
#: Passing shapes kept per (hidden, heads, KV heads, head dim): the table shows different
#: geometries, not one geometry at five depths.
PER_GEOMETRY = 2
#: Below this size the 64-wide heads of small released models are the default.
SMALL_HEADS_BELOW = 1_500_000_000
#: Largest power of two that counts towards the alignment margin (beyond: no further gain):
#: tensor-core tiles are 64–128 wide in most kernels (Hopper's wgmma reaches 256), and the
#: shards of released models are 128-aligned or more (Llama-3, Mistral, Mixtral and Gemma-2 at
#: TP 8: 256; Qwen2.5-0.5B's 896: 128), where a shard of 14592 / 8 = 1824 is 32-aligned.
ALIGN_CAP = 128
#: Below this size a model is served on one GPU (bf16 weights under 8 GB): without targets
#: its KV and widths are compared at TP 1, where fewer KV heads do save memory.
ONE_GPU_BELOW = 4_000_000_000
#: FFN widths are also tried at multiples of lcm(TP_WIDTH, 64 · TP) for every requested TP
#: degree, so that a shape whose FFN splits evenly over the ranks is found (issue 23).
TP_WIDTH = 256
#: GPUs of one node: without targets, shapes are compared served at up to this TP degree.
NODE = 8
#: Sequence length of a training step without ``--context`` (``mem --training``'s default).
TRAINING_SEQ = 4096
#: The vocabulary is padded to this × the TP degrees, as Megatron's
#: ``make_vocab_size_divisible_by`` (128) does: every rank's slice stays 128-aligned.
VOCAB_PADDING = 128
#: Verification stops after this many configs have been linted…
VERIFY_LIMIT = 600
#: …or once this many have passed (as many as the largest ``--top``, whatever ``--top`` is).
PASSING_WANTED = 50


class Plan(Record):
    """A request resolved: the family, deployment and ranges the search uses."""

    request: Request
    family: Family
    deployment: Deployment | None
    kv_dtype: str
    max_positions: int
    aspect: tuple[float, float, float]
    #: Engines whose accepted TP degrees are reported (the targets', else plan's four).
    engines: tuple[str, ...]
    max_tp: int
    #: TP degrees every shape's heads must divide (from the targets).
    head_divisors: tuple[int, ...]
    #: Pipeline degrees the layers must divide (targets of engines that split evenly).
    layer_divisors: tuple[int, ...]
    vocab: int
    tie: bool
    #: Tensor-parallel degrees the targets name (empty without targets). KV bytes and widths
    #: are ranked per GPU at each of them (see :func:`serving_degrees`).
    tp_degrees: tuple[int, ...] = ()
    #: Without targets: the largest TP degree a shape is assumed to be served at (the budget's
    #: GPU count, else one node of 8), as ``plan`` and ``mem --budget`` choose it.
    serving_cap: int = NODE
    #: (TP degree, replicates KV heads) of every parallel target, for the DL402 pruning.
    kv_rules: tuple[tuple[int, bool], ...] = ()
    #: Multiples the dense FFN width is tried at: the family's roundings and lcm(256, 64·TP).
    ffn_multiples: tuple[int, ...] = (256,)
    #: Multiples the expert width is tried at.
    expert_multiples: tuple[int, ...] = (64,)
    #: ffn / hidden of the family's released dense models (from the released-shape table).
    ffn_ratio: tuple[float, float] = (2.6, 3.6)
    #: expert width / hidden of released mixture-of-experts models (from the table).
    expert_ratio: tuple[float, float] = (0.1, 4.0)
    #: Position, rope and router keys as the family releases them (:mod:`.positions`).
    context_keys: dict[str, Any] | None = None


class Candidate(Record):
    """One verified shape."""

    shape: Shape
    config: dict[str, Any]
    total: int
    active: int
    kv_bytes_per_token: float
    #: engine → accepted TP degrees, 1 … max_tp (``plan``'s ``engines.<engine>.tp``).
    engines: dict[str, list[int]]
    #: Every finding of the linter under the request's targets and budget.
    findings: list[Diagnostic]
    #: Per-GPU serving memory of each layout of the budget (empty without one).
    memory: list[dict[str, Any]]
    key: tuple[float, ...]
    #: Not linted: a layout of the budget does not fit by ``mem``'s numbers (DL501 would fire;
    #: its message, with the longest context and largest batch that fit, costs a search).
    over_budget: bool = False

    @property
    def blocking(self) -> list[Diagnostic]:
        return [d for d in self.findings if d.severity >= Severity.WARNING]

    @property
    def passes(self) -> bool:
        return not self.blocking and not self.over_budget


class Outcome(Record):
    plan: Plan
    candidates: list[Candidate]
    #: Shapes verified and refused (for explanations and for the diagnosis of failures).
    refused: list[Candidate]
    #: Shapes that met the closed-form target, in preliminary order (one per skeleton).
    shapes: list[Shape]

    @property
    def enumerated(self) -> int:
        return len(self.shapes)


def make_plan(request: Request) -> Plan:
    """Resolve the request's defaults (family values, deployment, ranges)."""
    from dimlint.deploy.engines import ENGINES, PLAN_ENGINES
    from dimlint.memory.dtypes import dtype_bytes

    family = FAMILIES[request.family]
    expanded: list[str] = list(request.targets)
    chosen = deployment(
        {},
        targets=expanded,
        budget=request.budget,
        context=request.context,
        batch=request.batch,
        dtype=request.dtype,
        kv_dtype=request.kv_dtype,
    )
    parallel: tuple[Target, ...] = chosen.parallel if chosen else ()
    engines = tuple(dict.fromkeys(t.engine for t in parallel if t.engine != "deepspeed"))
    dtype = request.dtype or "bf16"
    kv_dtype = request.kv_dtype or (dtype if dtype_bytes(dtype) >= 2 else "bf16")
    positions = max(family.max_positions, request.context or 0)
    vocab = request.vocab or family.vocab
    tp_degrees = tuple(sorted({t.tp for t in parallel}))
    cap = NODE if request.params >= ONE_GPU_BELOW else 1
    if chosen is not None and chosen.budget is not None and not tp_degrees:
        from dimlint.deploy.targets import parse_budget_text

        cap = min(NODE, parse_budget_text(chosen.budget)[0])
    per_tp = [math.lcm(TP_WIDTH, 64 * tp) for tp in tp_degrees or (cap,) if tp > 1]
    ffn_multiples = tuple(sorted({family.ffn_multiple, *family.ffn_roundings, *per_tp}))
    expert_multiples = tuple(sorted({EXPERT_MULTIPLE, *per_tp}))
    return Plan(
        request,
        family,
        chosen,
        kv_dtype,
        1 << (positions - 1).bit_length(),
        aspect_range(
            request.params,
            request.moe is not None,
            (family.moe[0] if request.moe and family.moe else family.model_type,),
        ),
        engines or PLAN_ENGINES,
        max([8, *(t.tp for t in parallel)]),
        tuple(sorted({t.tp for t in parallel if t.tp > 1} | {t.sp for t in parallel if t.sp > 1})),
        tuple(sorted({t.pp for t in parallel if t.pp > 1 and ENGINES[t.engine].even_pp})),
        round_up(vocab, VOCAB_PADDING * math.lcm(1, *tp_degrees)),
        family.tie == "always" or (family.tie == "small" and request.params < TIE_BELOW),
        tp_degrees,
        cap,
        tuple(sorted({(t.tp, ENGINES[t.engine].replicate_kv) for t in parallel if t.tp > 1})),
        ffn_multiples,
        expert_multiples,
        ffn_ratio_range(family.model_type) or family.ffn_ratio,
        expert_ratio_range() or EXPERT_RATIO,
        _context_keys(request, family),
    )


def _context_keys(request: Request, family: Family) -> dict[str, Any]:
    """The family's released positions, rope scaling and routing for this request."""
    from dimlint.fix.suggest.positions import position_keys, routing_keys

    model_type = family.moe[0] if request.moe and family.moe else family.model_type
    keys = position_keys(
        model_type, request.params, request.context, family.max_positions, family.rope_theta
    )
    if request.moe is not None:
        keys.update(routing_keys(model_type, request.moe.experts, request.moe.top_k))
    return keys


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


def _error(value: int, target: int) -> float:
    return (value - target) / target


def _distance(plan: Plan, total: int, active: int) -> float:
    error = abs(_error(total, plan.request.params))
    if plan.request.active is not None:
        error = max(error, abs(_error(active, plan.request.active)))
    return error


def _aspect_distance(plan: Plan, shape: Shape) -> float:
    return abs(math.log(shape.hidden / shape.layers / plan.aspect[1]))


def _hidden_options(plan: Plan, head_dim: int) -> Iterator[tuple[int, int]]:
    """(hidden, heads) pairs; heads × head_dim = hidden unless the family frees the width."""
    for hidden, heads in _all_hidden_options(plan, head_dim):
        if plan.request.hidden not in (None, hidden) or plan.request.heads not in (None, heads):
            continue
        yield hidden, heads


def _all_hidden_options(plan: Plan, head_dim: int) -> Iterator[tuple[int, int]]:
    family = plan.family
    if not family.free_attention_width:
        for heads in range(1, 513):
            hidden = heads * head_dim
            if hidden % (128 if hidden >= 1024 else 64) == 0:
                yield hidden, heads
        return
    width = MLA_NOPE if family.name == "deepseek_v3" else head_dim
    low, high = (1.0, 3.2) if family.name == "deepseek_v3" else (0.85, 1.5)
    for hidden in range(512, 32769, 256):
        step = 8 if hidden >= 2048 else 4
        first = max(step, round_up(low * hidden / width, step))
        for heads in range(first, min(512, int(high * hidden / width)) + 1, step):
            if hidden % heads == 0:  # transformers 5 validates it even with a head_dim
                yield hidden, heads


def default_head_dims(family: Family, params: int) -> tuple[int, ...]:
    """The family's head dims at this size: Llama-3.2-1B, SmolLM and Qwen2.5-0.5B use 64,
    Llama-3 3B–405B and Qwen2.5 1.5B+ use 128; Gemma-2 uses both 128 and 256."""
    if family.head_dims == (64, 128):
        return (64,) if params < SMALL_HEADS_BELOW else (128,)
    # where two shapes tie, the head dim of the family's release nearest in size comes first
    # (Gemma-2-9B: 256; Gemma-2-27B: 128)
    from dimlint.fix.suggest.reference import released

    own = [m for m in released() if m.model_type == family.model_type and m.head_dim]
    if not own:
        return family.head_dims
    nearest = min(own, key=lambda m: abs(math.log(m.params / params))).head_dim
    return tuple(sorted(family.head_dims, key=lambda d: d != nearest))


def kv_fits_targets(plan: Plan, kv_heads: int) -> list[tuple[int, bool]]:
    """The (TP degree, replicates) targets ``kv_heads`` fails (DL402): each rank holds kv / tp
    heads when TP divides them, or a copy when an engine replicates and kv divides TP."""
    return [
        (tp, replicate)
        for tp, replicate in plan.kv_rules
        if kv_heads % tp and not (replicate and tp % kv_heads == 0)
    ]


def _kv_options(plan: Plan, heads: int) -> list[int]:
    request = plan.request
    if plan.family.name == "deepseek_v3":
        return [heads]
    if request.kv_heads is not None:
        options = [request.kv_heads] if heads % request.kv_heads == 0 else []
    else:
        low, high = request.gqa or plan.family.gqa
        options = [heads // r for r in range(low, min(high, heads) + 1) if heads % r == 0]
    return [kv for kv in options if not kv_fits_targets(plan, kv)]


def _layer_range(plan: Plan, hidden: int) -> range:
    """Layer counts the depth/width range (or ``--layers``) allows at this hidden size."""
    if plan.request.layers is not None:
        return range(plan.request.layers, plan.request.layers + 1)
    low, _, high = plan.aspect
    return range(max(2, math.ceil(hidden / high)), max(2, math.floor(hidden / low)) + 1)


def _layer_options(
    plan: Plan, hidden: int, within: tuple[float, float] = (0.0, math.inf)
) -> Iterator[int]:
    """…that every even-split pipeline target also divides, within ``within`` (the depths
    the parameter target allows at the widest and narrowest MLP)."""
    allowed = _layer_range(plan, hidden)
    first = max(allowed.start, math.floor(within[0]))
    last = min(allowed.stop - 1, math.ceil(within[1]) if within[1] < math.inf else allowed.stop)
    for layers in range(first, last + 1):
        if not any(layers % pp for pp in plan.layer_divisors):
            yield layers


def _depths(
    plan: Plan, fixed: float, per_layer: tuple[float, float], limit: float
) -> tuple[float, float]:
    """Layer counts for which ``fixed + L · per_layer`` can reach the target: the fewest with
    the widest MLP, the most with the narrowest (a few layers of margin for dense layers)."""
    request = plan.request
    narrow, wide = per_layer
    fewest = (request.params * (1 - limit) - fixed) / wide - DEPTH_MARGIN
    most = (
        (request.params * (1 + limit) - fixed) / narrow + DEPTH_MARGIN if narrow > 0 else math.inf
    )
    return fewest, most


def _width_options(
    exact: float, multiples: Iterable[int], low: float, high: float, tp: Iterable[int] = (1,)
) -> list[int]:
    """The multiples of each of ``multiples`` either side of ``exact`` within [low, high] that
    every TP degree divides: a family's own rounding (Llama-3's 1024) and the TP-friendly
    lcm(256, 64·TP) both get their nearest widths, not only the finest multiple."""
    found: set[int] = set()
    for multiple in multiples:
        above = round_up(exact, multiple)
        found.update(w for w in (above - multiple, above) if low <= w <= high and w > 0)
    degrees = tuple(tp)
    return sorted(w for w in found if not any(w % d for d in degrees))


class _Geometry(Record):
    """What one (hidden, heads, KV heads, head dim) costs, per layer and once."""

    embedding: int
    #: Attention + norms of one layer.
    layer: int
    #: Router (+ shared-expert gate) of one MoE layer.
    router: int


def _geometry(plan: Plan, base: Shape) -> _Geometry:
    family, h = plan.family, base.hidden
    embedding = base.vocab * h * (1 if base.tie else 2) + h
    layer = attention_parameters(family, base) + family.norms_per_layer * h
    router = base.experts * h + (h if base.experts and family.name == "qwen2" else 0)
    return _Geometry(embedding, layer, router)


def _dense_shapes(plan: Plan, base: Shape, geometry: _Geometry, limit: float) -> Iterator[Shape]:
    request, h = plan.request, base.hidden
    low, high = plan.ffn_ratio[0] * h, plan.ffn_ratio[1] * h
    per_layer = (geometry.layer + 3 * h * low, geometry.layer + 3 * h * high)
    within = _depths(plan, geometry.embedding, per_layer, limit)
    for layers in _layer_options(plan, h, within):
        fixed = geometry.embedding + layers * geometry.layer
        if fixed + layers * 3 * h * low > request.params * (1 + limit):
            return  # deeper is only larger
        exact = ((request.params - fixed) / layers) / (3 * h)
        for ffn in _width_options(exact, plan.ffn_multiples, low, high, plan.tp_degrees):
            total = fixed + layers * 3 * h * ffn
            if abs(_error(total, request.params)) <= limit:
                yield base._replace(layers=layers, ffn=ffn)


def _moe_layers(plan: Plan, base: Shape, geometry: _Geometry) -> Iterable[int]:
    """Layer counts to try; with an active target they follow from the two equations."""
    request, h = plan.request, base.hidden
    if request.active is None or request.layers is not None:
        low, high = plan.expert_ratio[0] * h, plan.expert_ratio[1] * h
        expert_weights = (base.experts + base.shared) * 3 * h
        common = geometry.layer + geometry.router
        per_layer = (common + expert_weights * low, common + expert_weights * high)
        return _layer_options(plan, h, _depths(plan, geometry.embedding, per_layer, 0.1))
    options = _layer_range(plan, h)
    e, k, s = base.experts, base.top_k, base.shared
    routed = (request.params - request.active) * (k + s) / (e - k)
    found: set[int] = set()
    for dense in {0, 1, 3} if base.mla else {0}:
        extra = dense * (3 * h * base.ffn - geometry.router)
        layers = (request.active - geometry.embedding - extra - routed) / (
            geometry.layer + geometry.router
        )
        if layers > 0:
            found |= {math.floor(layers) + d for d in (-1, 0, 1, 2)}
    return sorted(
        n for n in found if n in options and not any(n % pp for pp in plan.layer_divisors)
    )


def _moe_shapes(plan: Plan, base: Shape, geometry: _Geometry, limit: float) -> Iterator[Shape]:
    request, h = plan.request, base.hidden
    e, k, s = base.experts, base.top_k, base.shared
    low, high = plan.expert_ratio[0] * h, plan.expert_ratio[1] * h
    for layers in _moe_layers(plan, base, geometry):
        dense = min((1 if layers < 40 else 3) if base.mla else 0, layers - 1)
        moe = layers - dense
        fixed = geometry.embedding + layers * geometry.layer + dense * 3 * h * base.ffn
        fixed += moe * geometry.router
        if fixed > request.params * (1 + limit):
            return  # deeper is only larger
        if request.active is not None:
            exact = (request.params - request.active) / (moe * (e - k) * 3 * h)
        else:
            exact = (request.params - fixed) / (moe * (e + s) * 3 * h)
        for width in _width_options(exact, plan.expert_multiples, low, high, plan.tp_degrees):
            total = fixed + moe * (e + s) * 3 * h * width
            active = fixed + moe * (k + s) * 3 * h * width
            if _distance(plan, total, active) <= limit:
                yield base._replace(layers=layers, expert_ffn=width, dense_layers=dense)


def enumerate_shapes(plan: Plan, slack: float = PRUNE_SLACK) -> Iterator[tuple[Shape, float]]:
    """Shapes within tolerance + ``slack`` of the target by closed form, with that distance."""
    request, family = plan.request, plan.family
    moe = request.moe
    limit = request.tolerance + slack
    mla = family.name == "deepseek_v3"
    head_dims = (
        (MLA_NOPE + MLA_ROPE,)
        if mla
        else (request.head_dim,)
        if request.head_dim
        else default_head_dims(family, request.params)
    )
    for head_dim in head_dims:
        for hidden, heads in _hidden_options(plan, head_dim):
            if any(heads % tp for tp in plan.head_divisors):
                continue
            ffn = dense_ffn(hidden, family.ffn_multiple) if moe else 0
            for kv in _kv_options(plan, heads):
                base = Shape(hidden, 0, heads, kv, head_dim, ffn, plan.vocab, plan.tie, mla=mla)
                if moe is not None:
                    base = base._replace(experts=moe.experts, top_k=moe.top_k, shared=moe.shared)
                geometry = _geometry(plan, base)
                if geometry.embedding > request.params * (1 + limit):
                    continue
                shapes = (
                    _moe_shapes(plan, base, geometry, limit)
                    if moe
                    else _dense_shapes(plan, base, geometry, limit)
                )
                for shape in shapes:
                    total, active = closed_form(family, shape)
                    yield shape, _distance(plan, total, active)


def refit(plan: Plan, shape: Shape) -> Shape:
    """``shape`` with its FFN (or expert) width re-solved for the target, depth kept.

    Used for the neighbours ``--explain`` compares: another KV head count changes the attention
    weights, and the width that brings the total back to the target changes with it.
    """
    fixed = plan._replace(
        request=plan.request._replace(layers=shape.layers), aspect=(1.0, plan.aspect[1], 1e9)
    )
    base = shape._replace(layers=0)
    geometry = _geometry(fixed, base)
    shapes = (
        _moe_shapes(fixed, base, geometry, 1.0)
        if shape.experts
        else _dense_shapes(fixed, base, geometry, 1.0)
    )
    scored = [(_distance(plan, *closed_form(plan.family, s)), s) for s in shapes]
    return min(scored, key=lambda item: item[0])[1] if scored else shape


def excluded_by(plan: Plan, shape: Shape) -> str | None:
    """The search constraint ``shape`` is outside of (None: the search could choose it)."""
    request = plan.request
    if request.hidden is not None and shape.hidden != request.hidden:
        return f"--hidden {request.hidden}"
    if request.heads is not None and shape.heads != request.heads:
        return f"--heads {request.heads}"
    if not shape.mla:
        ratio = shape.heads // shape.kv_heads
        if request.kv_heads is not None and shape.kv_heads != request.kv_heads:
            return f"--kv-heads {request.kv_heads}"
        low, high = request.gqa or plan.family.gqa
        if request.kv_heads is None and not low <= ratio <= high:
            source = "--gqa-ratio" if request.gqa else f"the {plan.family.name} default GQA range"
            return f"GQA {ratio} is outside {source} {low}..{high}"
        dims = (
            (request.head_dim,)
            if request.head_dim
            else default_head_dims(plan.family, request.params)
        )
        if shape.head_dim not in dims:
            source = "--head-dim" if request.head_dim else f"the {plan.family.name} default"
            return f"head dim {shape.head_dim} is not {source} ({', '.join(map(str, dims))})"
    aspect = shape.hidden / shape.layers
    if request.layers is None and not plan.aspect[0] <= aspect <= plan.aspect[2]:
        return (
            f"hidden/layers {aspect:.0f} is outside the {plan.aspect[0]:.0f}–{plan.aspect[2]:.0f}"
            " released models use"
        )
    return None


def ranked(candidate: Candidate, floor: float = 0.0) -> tuple[float, ...]:
    """The candidate's key (kept for callers that passed a KV floor: the key no longer
    depends on the other candidates, so the order is the same whatever ``--top`` is)."""
    return candidate.key


def _widths(shape: Shape) -> list[int]:
    return [shape.attention_width, shape.expert_ffn if shape.experts else shape.ffn, shape.vocab]


def preliminary_key(plan: Plan, shape: Shape, distance: float) -> tuple[float, ...]:
    """The ranking key by closed form: the order shapes are verified in (see :func:`verify`)."""
    return (
        deployable_tier(shape.heads, shape.kv_heads, _widths(shape)),
        math.floor(distance / BAND),
        kv_width_per_gpu(plan, shape),
        -shard_alignment(plan, shape),
        _aspect_distance(plan, shape),
        distance,
    )


def power_of_two_degrees(engines: dict[str, list[int]]) -> int:
    """(engine, power-of-two TP degree) pairs accepted: TP 8 on transformers' native TP for
    32/8 heads counts, a TP 3 nobody deploys does not."""
    return sum(1 for degrees in engines.values() for d in degrees if d > 1 and d & (d - 1) == 0)


def _lint(plan: Plan, config: dict[str, Any]) -> list[Diagnostic]:
    from dimlint.lint.pipeline import lint_bytes
    from dimlint.lint.selection import Selection

    data = json.dumps(config, indent=2).encode()
    result = lint_bytes("config.json", data, Selection(deployment=plan.deployment))
    return result.diagnostics


def _memory(plan: Plan, specs: list[Any]) -> list[dict[str, Any]]:
    from dimlint.deploy.fit import estimate, layouts_for, usable_bytes

    if plan.deployment is None or plan.deployment.budget is None:
        return []
    rows = []
    for layout in layouts_for(specs[0], plan.deployment):
        used = estimate(layout)
        rows.append(
            {
                "layout": layout.label,
                "engine": layout.engine,
                "tp": layout.tp,
                "pp": layout.pp,
                "per_gpu_bytes": used.total,
                "usable_bytes": usable_bytes(layout.gpu),
                "fits": used.total <= usable_bytes(layout.gpu)
                and layout.tp * layout.pp <= layout.budget_gpus,
            }
        )
        if plan.request.training:
            rows.append(_training_row(plan, layout, specs))
    return rows


def _training_row(plan: Plan, layout: Any, specs: list[Any]) -> dict[str, Any]:
    """One training step on ``layout`` as ``mem --training`` computes it: the budget's other
    GPUs are data-parallel ranks (what ZeRO shards over), the micro-batch is ``--batch`` (1)
    and the sequence ``--context`` (4096); a training step may fill the whole device."""
    from dimlint.memory import training_memory

    request = plan.request
    gpus = layout.tp * layout.pp
    dp = max(1, layout.budget_gpus // gpus)
    used = training_memory(
        specs,
        dtype=request.dtype or "bf16",
        optimizer=request.optimizer,
        zero=request.zero,
        dp=dp,
        tp=layout.tp,
        pp=layout.pp,
        batch=request.batch or 1,
        seq=request.context or TRAINING_SEQ,
        recompute=request.recompute,
    )
    return {
        "layout": f"{layout.label} training (dp {dp}, ZeRO-{request.zero}, {request.optimizer})",
        "engine": layout.engine,
        "tp": layout.tp,
        "pp": layout.pp,
        "per_gpu_bytes": used.total,
        "usable_bytes": layout.gpu.memory_bytes,
        "fits": used.total <= layout.gpu.memory_bytes and gpus <= layout.budget_gpus,
    }


def verify(plan: Plan, shape: Shape, lint_over_budget: bool = False) -> Candidate:
    """Lint, count and plan one shape with dimlint's own code.

    A shape that does not fit the budget is linted only when ``lint_over_budget`` is set: DL501
    would refuse it anyway, and its message is worth computing only for the one shape a
    diagnosis shows.
    """
    from dimlint.config.normalize import specs_for_document
    from dimlint.deploy.engines import ENGINES, valid_degrees
    from dimlint.memory import kv_bytes_per_token, language_spec, model_parameters

    config = config_for(plan.family, shape, plan.max_positions, plan.context_keys)
    specs = specs_for_document("config.json", config)
    memory = _memory(plan, specs)
    over_budget = not all(row["fits"] for row in memory)
    if over_budget and not lint_over_budget:
        total, active = closed_form(plan.family, shape)  # never printed: refused, not counted
        refused_key: tuple[float, ...] = (math.inf,)
        return Candidate(
            shape, config, total, active, 0.0, {}, [], memory, refused_key, over_budget
        )
    findings = _lint(plan, config)
    params = model_parameters(specs)
    lm = language_spec(specs)
    kv = kv_bytes_per_token(lm, plan.kv_dtype)
    engines = {
        name: valid_degrees(ENGINES[name], lm, "tp", plan.max_tp)[0] for name in plan.engines
    }
    distance = _distance(plan, params.total, params.active)
    # outside the tolerance by the exact count: never printed
    band = math.inf if distance > plan.request.tolerance else math.floor(distance / BAND)
    # splitting at TP 3 or 6 only is not scaling: deployments grow in powers of two
    scales = power_of_two_degrees(engines) > 0
    key: tuple[float, ...] = (
        0 if scales else 1,
        band,
        kv_width_per_gpu(plan, shape),
        -shard_alignment(plan, shape),
        -power_of_two_degrees(engines),
        _aspect_distance(plan, shape),
        kv * kv_width_per_gpu(plan, shape) / max(1, closed_kv_elements(shape) // shape.layers),
        distance,
    )
    return Candidate(
        shape, config, params.total, params.active, kv, engines, findings, memory, key, over_budget
    )


def in_tolerance(plan: Plan, candidate: Candidate) -> bool:
    return _distance(plan, candidate.total, candidate.active) <= plan.request.tolerance


def _skeleton(shape: Shape) -> tuple[int, ...]:
    return (shape.hidden, shape.layers, shape.heads, shape.kv_heads, shape.head_dim)


def pool(plan: Plan) -> list[tuple[tuple[float, ...], Shape]]:
    """Enumerated shapes, one per skeleton (its best width), best preliminary key first."""
    best: dict[tuple[int, ...], tuple[tuple[float, ...], Shape]] = {}
    for shape, distance in enumerate_shapes(plan):
        key = preliminary_key(plan, shape, distance)
        skeleton = _skeleton(shape)
        if skeleton not in best or key < best[skeleton][0]:
            best[skeleton] = (key, shape)
    return sorted(best.values(), key=lambda item: item[0])


def search(
    request: Request, limit: int = VERIFY_LIMIT, shapes: list[Shape] | None = None
) -> Outcome:
    """Candidates for ``request``, best first (empty: see :mod:`dimlint.fix.suggest.relax`).

    ``shapes`` reuses an earlier enumeration: budget, context and number formats do not change
    which shapes meet the parameter target, only which of them pass.
    """
    plan = make_plan(request)
    ordered = shapes if shapes is not None else [shape for _, shape in pool(plan)]
    wanted = PASSING_WANTED  # not from --top: #1 and its explanation never depend on it
    passing: list[Candidate] = []
    refused: list[Candidate] = []
    per_geometry: dict[tuple[int, ...], int] = {}
    for shape in ordered[:limit]:
        geometry = _geometry_key(shape)
        if per_geometry.get(geometry, 0) >= PER_GEOMETRY:
            continue  # depth variants of one attention geometry: enough of those
        candidate = verify(plan, shape)
        if candidate.passes and in_tolerance(plan, candidate):
            passing.append(candidate)
            per_geometry[geometry] = per_geometry.get(geometry, 0) + 1
            if len(passing) >= wanted:
                break
        else:
            refused.append(candidate)
    passing.sort(key=lambda c: c.key)
    return Outcome(plan, passing[: request.top], refused, ordered)


def _geometry_key(shape: Shape) -> tuple[int, ...]:
    return (shape.hidden, shape.heads, shape.kv_heads, shape.head_dim)
