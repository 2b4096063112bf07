"""Why each value: the one-line ``why`` of every candidate and ``--explain`` for the winner.

Every number here comes from the verification the search already runs — ``mem``'s parameter
and KV counts, ``plan``'s accepted TP degrees, the linter's findings — applied to the winner's
neighbours: the next hidden size either way, one layer more or fewer, every KV head count that
divides the heads, the other head dims, the next FFN rounding, and the nearest power-of-two
hidden size. A neighbour either fails a rule (its finding is quoted) or loses on a ranking
criterion (both values are shown).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from dimlint.fix.suggest.families import Shape
from dimlint.fix.suggest.mechanisms import is_power_of_two, mechanism_lines
from dimlint.fix.suggest.plan import Plan
from dimlint.fix.suggest.ranking import alignment, serving_degrees, shard_alignment
from dimlint.fix.suggest.search import (
    BAND,
    Candidate,
    Outcome,
    excluded_by,
    in_tolerance,
    refit,
    verify,
)

#: Shapes of the enumeration verified for the power-of-two comparison (best preliminary first).
COMPARED = 8
#: The ranking key of :func:`dimlint.fix.suggest.search.verify`, criterion by criterion.
_CRITERIA = (
    "splitting over more than one GPU",
    "distance from the parameter target",
    "per-GPU width alignment",
    "grouping beyond the family's release nearest in size",
    "KV cache per GPU",
    "power-of-two TP degrees the engines accept",
    "distance from the family's depth/width ratio",
    "distance from the family's FFN/width ratio",
    "KV bytes per token per GPU",
    "distance from the parameter target",
)


def _kv_per_gpu(candidate: Candidate, tp: int) -> float:
    shape = candidate.shape
    if shape.mla:
        return candidate.kv_bytes_per_token
    return candidate.kv_bytes_per_token * -(-shape.kv_heads // tp) / shape.kv_heads


def _kv_heads_per_gpu(kv_heads: int, tp: int) -> str:
    if tp <= 1:
        return "all KV heads on one GPU"
    if kv_heads >= tp:
        return f"{kv_heads} KV heads split {kv_heads // tp} per GPU"
    return f"{kv_heads} KV heads replicated: each GPU holds 1 of them, {tp // kv_heads} copies"


def expert_parallel_line(plan: Plan, candidate: Candidate) -> str:
    """Expert-parallel layouts: the EP degrees every engine accepts (Megatron and SGLang split
    the routed experts evenly, DL406) with the routed-expert weights each GPU then holds."""
    from dimlint.config.normalize import specs_for_document
    from dimlint.deploy.engines import ENGINES, PLAN_ENGINES, valid_degrees
    from dimlint.memory import language_spec
    from dimlint.memory.dtypes import dtype_bytes

    shape = candidate.shape
    lm = language_spec(specs_for_document("config.json", candidate.config))
    accepted = set(range(1, shape.experts + 1))
    for name in PLAN_ENGINES:
        accepted &= set(valid_degrees(ENGINES[name], lm, "ep", shape.experts)[0])
    degrees = sorted(d for d in accepted if d > 1 and d & (d - 1) == 0)
    per_expert = 3 * shape.hidden * shape.expert_ffn * (shape.layers - shape.dense_layers)
    unit = dtype_bytes(plan.request.dtype or "bf16")
    layouts = ", ".join(
        f"EP {ep}: {shape.experts // ep} expert{'s' if shape.experts // ep > 1 else ''} and"
        f" {shape.experts // ep * per_expert * unit / 2**30:.1f} GiB of expert weights per GPU"
        for ep in degrees
    )
    return (
        f"expert parallel (every engine): {layouts}"
        if layouts
        else f"expert parallel: no power-of-two EP degree splits {shape.experts} experts evenly"
    )


def _largest_multiple(width: int, multiples: tuple[int, ...]) -> int:
    return max((m for m in multiples if width % m == 0), default=1)


def _pct(value: int, target: int) -> str:
    return f"{(value - target) / target:+.1%}"


def _degrees(engines: dict[str, list[int]]) -> str:
    return "; ".join(f"{name} tp {','.join(map(str, tps))}" for name, tps in engines.items())


def why_lines(plan: Plan, candidate: Candidate) -> list[str]:
    """One line per choice, for the JSON ``why`` and the table."""
    shape, request = candidate.shape, plan.request
    low, median, high = plan.aspect
    lines = [
        f"total {candidate.total:,} parameters ({_pct(candidate.total, request.params)} of the"
        " target, as `dimlint mem` counts them)"
    ]
    if request.active is not None:
        lines.append(
            f"active {candidate.active:,} ({_pct(candidate.active, request.active)} of the target)"
        )
    if shape.mla:
        lines.append(
            f"hidden {shape.hidden}: a multiple of {alignment(shape)}; {shape.heads} latent"
            f" attention heads ({shape.heads} × 128 = {shape.attention_width})"
        )
    else:
        lines.append(
            f"hidden {shape.hidden} = {shape.heads} heads × {shape.head_dim}"
            if shape.heads * shape.head_dim == shape.hidden
            else f"hidden {shape.hidden}, attention width {shape.heads} × {shape.head_dim} ="
            f" {shape.attention_width} ({plan.family.name} sets head_dim on its own)"
        )
        lines.append(
            f"{shape.kv_heads} KV heads (GQA {shape.heads // shape.kv_heads}):"
            f" {candidate.kv_bytes_per_token:,.0f} KV bytes per token at {plan.kv_dtype}; "
            + "; ".join(
                f"{_kv_per_gpu(candidate, tp):,.0f} per GPU at TP {tp}"
                f" ({_kv_heads_per_gpu(shape.kv_heads, tp)})"
                for tp in serving_degrees(plan, shape)
            )
            + (
                f"; the {plan.family.name} release nearest in size groups"
                f" {plan.gqa_reference:.3g} query heads per KV head"
                if plan.gqa_reference is not None
                else ""
            )
        )
    ratio = shape.hidden / shape.layers
    where = "inside" if low <= ratio <= high else "outside"
    given = " (--layers)" if request.layers is not None else ""
    lines.append(
        f"{shape.layers} layers{given}: hidden/layers {ratio:.0f}, {where} the"
        f" {low:.0f}–{high:.0f} of released models near this size (the family's {median:.0f})"
    )
    if shape.experts:
        lines.append(
            f"{shape.experts} experts × {shape.expert_ffn} (a multiple of 64), top-{shape.top_k}"
            + (f", {shape.shared} shared" if shape.shared else "")
            + (f", {shape.dense_layers} dense layers first" if shape.dense_layers else "")
        )
        lines.append(expert_parallel_line(plan, candidate))
    else:
        lines.append(
            f"ffn {shape.ffn} = {shape.ffn / shape.hidden:.2f} × hidden, a multiple of"
            f" {_largest_multiple(shape.ffn, plan.ffn_multiples)} (tried at multiples of"
            f" {', '.join(map(str, plan.ffn_multiples))}: the {plan.family.name} roundings and"
            " lcm(256, 64 × TP))"
        )
    vocab = request.vocab or plan.family.vocab
    padding = 128 * math.lcm(1, *plan.tp_degrees)
    padded = (
        f" padded from {vocab} to a multiple of {padding} (128 × TP, as Megatron pads)"
        if shape.vocab != vocab
        else ""
    )
    lines.append(f"vocab {shape.vocab}{padded}; embeddings {'tied' if shape.tie else 'untied'}")
    lines.append(f"accepted: {_degrees(candidate.engines)}")
    return lines


def _loses_on(winner: Candidate, other: Candidate) -> str:
    """The first ranking criterion on which ``other`` is behind, with both values."""
    for index, (mine, theirs) in enumerate(zip(winner.key, other.key, strict=False)):
        if mine == theirs:
            continue
        name = _CRITERIA[min(index, len(_CRITERIA) - 1)]
        if index == 0:
            return f"{name}: it runs at TP 1 only ({_degrees(other.engines)})"
        if index == 1:
            return f"{name}: band {theirs:g} vs {mine:g} (bands of {BAND:.0%})"
        if index == 2:
            return f"{name}: multiple of {-theirs:g} vs {-mine:g}"
        if index == 3:
            reference = _reference(other)
            return (
                f"{name}: GQA {other.shape.heads // other.shape.kv_heads} vs"
                f" {winner.shape.heads // winner.shape.kv_heads}{reference} (fewer KV heads"
                " than the family uses at this size cost quality a budget did not ask for)"
            )
        if index == 4:
            return (
                f"{name}: {theirs:.3g} vs {mine:.3g} KV heads per query head on one GPU (KV"
                " heads split over TP, replicated when TP exceeds them)"
            )
        if index == 5:
            return f"{name}: {-theirs:g} vs {-mine:g} ({_degrees(other.engines)})"
        if index in (6, 7):
            return f"{name}: {theirs:.3f} vs {mine:.3f} (|log| of the ratio to the family's)"
        if index == 8:
            return f"{name}: {theirs:,.0f} vs {mine:,.0f}"
        return f"distance from the parameter target: {theirs:.2%} vs {mine:.2%}"
    return ""


def _reference(other: Candidate) -> str:
    """``, released 4``: the family's grouping, from the key (its excess is log(ratio/ref))."""
    shape, excess = other.shape, other.key[3]
    if excess <= 0 or shape.mla:
        return ""
    return f", released {shape.heads / shape.kv_heads / math.exp(excess):.3g}"


def _verdict(plan: Plan, winner: Candidate, other: Candidate) -> str:
    size = f"{other.total / 1e9:.3g}B ({_pct(other.total, plan.request.params)})"
    if plan.request.active is not None:
        size += f", {other.active / 1e9:.3g}B active ({_pct(other.active, plan.request.active)})"
    if other.over_budget:
        return f"{size}: does not fit the budget ({_memory(other)})"
    if other.blocking:
        first = other.blocking[0]
        return f"{size}: refused, {first.code} {first.message.split('. ')[0]}"
    if not in_tolerance(plan, other):
        return f"{size}: outside ±{plan.request.tolerance:.0%} of the target"
    excluded = excluded_by(plan, other.shape)
    if excluded is not None:
        return f"{size}: valid, but {excluded}"
    loses = _loses_on(winner, other)
    if not loses:
        return f"{size}: valid, ties with the winner on every criterion (search order decides)"
    return f"{size}: valid, ranks lower on {loses}"


def _constraints(plan: Plan) -> str:
    """The constraints every enumerated shape meets, in words."""
    request = plan.request
    parts = [
        f"±{request.tolerance:.0%} of the target",
        f"hidden/layers {plan.aspect[0]:.0f}–{plan.aspect[2]:.0f}",
    ]
    if plan.head_divisors:
        parts.append(f"heads divisible by {', '.join(map(str, plan.head_divisors))}")
    if request.kv_heads is not None:
        parts.append(f"{request.kv_heads} KV heads")
    elif plan.family.name != "deepseek_v3":
        low, high = request.gqa or plan.family.gqa
        parts.append(f"GQA {low}..{high}")
    return ", ".join(parts)


def _width(shape: Shape) -> str:
    return f"experts × {shape.expert_ffn}" if shape.experts else f"ffn {shape.ffn}"


def _memory(candidate: Candidate) -> str:
    rows = [r for r in candidate.memory if not r["fits"]]
    return "; ".join(
        f"{r['layout']}: {r['per_gpu_bytes'] / 2**30:.1f} GiB per GPU of"
        f" {r['usable_bytes'] / 2**30:.1f}"
        for r in rows[:1]
    )


def _best(plan: Plan, shapes: list[Shape]) -> Shape | None:
    return shapes[0] if shapes else None


def _alternatives(outcome: Outcome, winner: Candidate) -> Iterator[tuple[str, Shape | None]]:
    """The next hidden size either way that the search could choose (the same head dim: with
    heads % TP = 0 at TP 8 the next is ±1024, not ±256), and one layer more or fewer."""
    shape = winner.shape
    pool = outcome.shapes
    same = [s for s in pool if s.head_dim == shape.head_dim and s.experts == shape.experts]
    below = max((s.hidden for s in same if s.hidden < shape.hidden), default=None)
    above = min((s.hidden for s in same if s.hidden > shape.hidden), default=None)
    for hidden, side in ((below, "smaller"), (above, "larger")):
        if hidden is None:
            yield f"no {side} hidden size", None
            continue
        found = [s for s in same if s.hidden == hidden]
        yield f"next {side} hidden {hidden}", _best(outcome.plan, found)
    for layers in (shape.layers - 1, shape.layers + 1):
        found = [
            s
            for s in pool
            if s.layers == layers and (s.hidden, s.heads, s.kv_heads) == _attention(shape)
        ]
        yield f"{layers} layers", _best(outcome.plan, found)


def _attention(shape: Shape) -> tuple[int, int, int]:
    return shape.hidden, shape.heads, shape.kv_heads


def _kv_alternatives(shape: Shape) -> Iterator[Shape]:
    for kv in range(1, shape.heads + 1):
        if shape.heads % kv == 0 and kv != shape.kv_heads and shape.heads // kv <= 16:
            yield shape._replace(kv_heads=kv)


def _head_dim_alternatives(plan: Plan, shape: Shape) -> Iterator[Shape]:
    for head_dim in (64, 128, 256):
        if head_dim == shape.head_dim:
            continue
        if plan.family.free_attention_width:
            heads = shape.heads * shape.head_dim // head_dim
        elif shape.hidden % head_dim == 0:
            heads = shape.hidden // head_dim
        else:
            continue
        ratio = shape.heads // shape.kv_heads
        if heads < 1 or heads % ratio:
            continue
        yield shape._replace(head_dim=head_dim, heads=heads, kv_heads=heads // ratio)


def explain(outcome: Outcome) -> list[str]:
    """The ``--explain`` text for the winner (lines, without trailing newlines)."""
    plan = outcome.plan
    winner = outcome.candidates[0]
    shape = winner.shape
    lines = [f"Why {shape.describe()}:"]
    for label, alternative in _alternatives(outcome, winner):
        if alternative is None:
            lines.append(f"  {label}: no shape meets {_constraints(plan)}")
            continue
        other = verify(plan, alternative)
        lines.append(f"  {label} ({alternative.describe()}): {_verdict(plan, winner, other)}")
    if not shape.mla:
        tokens = (plan.request.context or 4096) * (plan.request.batch or 1)
        lines.append(
            f"  KV heads {shape.kv_heads}: {_kv_text(plan, winner, tokens)};"
            f" {_degrees(winner.engines)}"
        )
        for option in _kv_alternatives(shape):
            alternative = refit(plan, option)
            other = verify(plan, alternative)
            lines.append(
                f"    {alternative.kv_heads} KV heads ({_width(alternative)}):"
                f" {_kv_text(plan, other, tokens)}; {_degrees(other.engines)};"
                f" {_verdict(plan, winner, other)}"
            )
        for option in _head_dim_alternatives(plan, shape):
            alternative = refit(plan, option)
            other = verify(plan, alternative)
            lines.append(
                f"  head dim {alternative.head_dim} ({alternative.heads}/{alternative.kv_heads}"
                f" heads, {_width(alternative)}): {_verdict(plan, winner, other)}"
            )
    width = "expert_ffn" if shape.experts else "ffn"
    step = 64 if shape.experts else plan.family.ffn_multiple
    for delta in (-step, step):
        value = getattr(shape, width) + delta
        other = verify(plan, shape._replace(**{width: value}))
        lines.append(f"  {width} {value}: {_verdict(plan, winner, other)}")
    lines.extend(power_of_two(outcome, winner))
    lines.extend(mechanism_lines(plan, shape))
    return lines


def _kv_text(plan: Plan, candidate: Candidate, tokens: int) -> str:
    """KV bytes per token in all and per GPU at the degrees the shape is ranked at."""
    per_gpu = [(tp, _kv_per_gpu(candidate, tp)) for tp in serving_degrees(plan, candidate.shape)]
    return f"{candidate.kv_bytes_per_token:,.0f} B/token in all; " + ", ".join(
        f"{value:,.0f} B/token and {value * tokens / 2**30:.2f} GiB for {tokens} tokens per GPU"
        f" at TP {tp}"
        for tp, value in per_gpu
    )


def _best_of(plan: Plan, shapes: list[Shape]) -> Candidate | None:
    """The best by the ranking key among the first few of ``shapes`` (preliminary order) that
    pass: what the search itself would have chosen among them."""
    found = [verify(plan, s) for s in shapes[:COMPARED]]
    passing = [c for c in found if c.passes and in_tolerance(plan, c)]
    return min(passing, key=lambda c: c.key) if passing else None


def power_of_two(outcome: Outcome, winner: Candidate) -> list[str]:
    """Does a power-of-two hidden size win for these targets, and by how much?

    The comparison is with the best shape on the other side — the best in-range shape whose
    hidden size is the nearest power of two, or, when the winner is one, the best shape whose
    hidden size is not — chosen from the enumeration (same constraints, same depth/width range)
    by the same ranking, never from the candidates shown, so ``--top`` does not change it.
    """
    plan = outcome.plan
    shape = winner.shape
    if is_power_of_two(shape.hidden):
        pool = [s for s in outcome.shapes if not is_power_of_two(s.hidden)]
        other = _best_of(plan, pool)
        if other is None:
            return [
                f"  power of two: hidden {shape.hidden} is one, and no shape with another hidden"
                " size passes within the constraints"
            ]
        head = (
            f"  power of two: hidden {shape.hidden} is one; the best shape that is not is"
            f" {other.shape.describe()}"
        )
    else:
        low = 1 << (shape.hidden.bit_length() - 1)
        powers = (low, 2 * low)
        pool = [s for s in outcome.shapes if s.hidden in powers]
        other = _best_of(plan, pool)
        if other is None:
            return [
                f"  power of two: no shape with hidden {powers[0]} or {powers[1]} passes within"
                f" ±{plan.request.tolerance:.0%} of the target and the depth/width range"
                f" {plan.aspect[0]:.0f}–{plan.aspect[2]:.0f}"
            ]
        head = (
            f"  power of two: the best shape with hidden {powers[0]} or {powers[1]} is"
            f" {other.shape.describe()}"
        )
    ratio = other.shape.hidden / other.shape.layers
    return [
        f"{head} (hidden/layers {ratio:.0f}); {_verdict(plan, winner, other)}",
        f"    parameters {other.total:,} vs {winner.total:,}; KV"
        f" {other.kv_bytes_per_token:,.0f} vs {winner.kv_bytes_per_token:,.0f} B/token;"
        f" per-GPU alignment: multiple of {shard_alignment(plan, other.shape)} vs"
        f" {shard_alignment(plan, shape)}; {_degrees(other.engines)} vs"
        f" {_degrees(winner.engines)}",
    ]
