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
3. the alignment of every width one GPU holds (FFN / TP, query width / TP, hidden);
4. grouping beyond the family's release nearest in size (query heads per KV head above its:
   Llama-3-8B's 4, Qwen2.5-0.5B's 7), unless ``--gqa-ratio``/``--kv-heads`` fix the grouping:
   fewer KV heads cost quality, and a budget that needs them admits only such shapes anyway;
5. KV heads one GPU stores per query head it computes (KV heads split over TP, replicated when
   TP exceeds them: 4 and 8 KV heads for 32 heads both cost one head per GPU at TP 8);
6. the power-of-two TP degrees the engines accept, up to the degrees the request serves at;
7. distance from the family's depth/width ratio at this size (log-interpolated between its
   releases: Gemma-2-9B's 85, Llama-3's 128 at 8B);
8. distance from the family's FFN/width ratio at this size (ties of 7: Gemma-2 at 9B);
9. the exact KV bytes per token per GPU, then the exact parameter distance.

Nothing in the key depends on the other candidates, so #1 is the same whatever ``--top`` is.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

from dimlint.diagnostics import Diagnostic, Severity
from dimlint.fix.suggest.budget_fit import memory_rows
from dimlint.fix.suggest.families import (
    MLA_NOPE,
    MLA_ROPE,
    Family,
    Shape,
    attention_parameters,
    closed_form,
    config_for,
    dense_ffn,
    round_up,
)
from dimlint.fix.suggest.plan import Plan, make_plan
from dimlint.fix.suggest.ranking import (
    closed_kv_elements,
    degree_cap,
    deployable_tier,
    ffn_curve_distance,
    gqa_excess,
    kv_share_per_gpu,
    kv_width_per_gpu,
    power_of_two_degrees,
    shard_alignment,
)
from dimlint.fix.suggest.request import Request
from dimlint.records import Record

#: Parameter distances within one band rank as equal; the next criteria decide.
BAND = 0.01
#: The closed form prunes with this much slack; the exact count then applies the tolerance.
PRUNE_SLACK = 0.03
#: Layers of margin on the depth bounds (DeepSeek's leading dense layers cost differently).
DEPTH_MARGIN = 4
#: Passing shapes kept per (hidden, heads, KV heads, head dim): the table shows different
#: geometries, not one geometry at five depths.
PER_GEOMETRY = 2
#: Below this size the 64-wide heads of small released models are the default.
SMALL_HEADS_BELOW = 1_500_000_000
#: Verification stops after this many configs have been linted…
VERIFY_LIMIT = 600
#: …or once this many have passed (as many as the largest ``--top``, whatever ``--top`` is).
PASSING_WANTED = 50


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


def _widths(shape: Shape) -> list[int]:
    return [shape.attention_width, shape.expert_ffn if shape.experts else shape.ffn, shape.vocab]


def preliminary_key(plan: Plan, shape: Shape, distance: float) -> tuple[float, ...]:
    """The ranking key by closed form: the order shapes are verified in (see :func:`verify`)."""
    return (
        deployable_tier(shape.heads, shape.kv_heads, _widths(shape)),
        math.floor(distance / BAND),
        -shard_alignment(plan, shape),
        gqa_excess(plan, shape),
        kv_share_per_gpu(plan, shape),
        _aspect_distance(plan, shape),
        ffn_curve_distance(plan, shape),
        distance,
    )


def _lint(plan: Plan, config: dict[str, Any]) -> list[Diagnostic]:
    from dimlint.lint.pipeline import lint_bytes
    from dimlint.lint.selection import Selection

    data = json.dumps(config, indent=2).encode()
    result = lint_bytes("config.json", data, Selection(deployment=plan.deployment))
    return result.diagnostics


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
    memory = memory_rows(plan, specs)
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
        -shard_alignment(plan, shape),
        gqa_excess(plan, shape),
        kv_share_per_gpu(plan, shape),
        -power_of_two_degrees(engines, degree_cap(plan)),
        _aspect_distance(plan, shape),
        ffn_curve_distance(plan, shape),
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
