"""Why a request has no answer, and the nearest relaxations that have one.

Three ways to fail, checked in this order:

* **shape** — no shape of the family with the fixed dimensions comes within the tolerance of
  the parameter target by closed form (``--layers 4 --params 70B``; an ``--active`` below what
  top-k of the experts alone weigh). The closest shape is shown with its count.
* **budget** — shapes exist, but none fits the budget by ``mem``'s numbers (DL501). The message is
  DL501's own, for the closest shape.
* **rules** — shapes fit but the linter refuses every one under the targets (DL401–DL407…).

Each relaxation offered (narrower weights, an fp8 KV cache, a shorter context, more GPUs, a
dropped constraint) is a request of its own that was searched and answered: none is a guess.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import Any

from dimlint.fix.suggest.families import Shape, closed_form
from dimlint.fix.suggest.request import MoE, Request
from dimlint.fix.suggest.search import (
    Candidate,
    Outcome,
    enumerate_shapes,
    kv_fits_targets,
    search,
    verify,
)
from dimlint.records import Record

#: Configs verified per relaxation: enough to find one that passes, bounded in time.
RELAX_LIMIT = 12
#: Weight formats tried, narrowest last (the nearest relaxation is the first that works).
NARROWER = ("fp8", "int4")
_BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4}
MAX_GPUS = 64


class Relaxation(Record):
    change: str
    request: Request
    #: The best candidate of the relaxed request.
    best: Candidate


class Impossible(Record):
    constraint: str
    message: str
    relaxations: list[Relaxation]


def _billions(count: float) -> str:
    """``8B``, ``0.5B``, ``135M``, ``10T``: sizes as the request writes them."""
    if count >= 1e12:
        return f"{count / 1e12:.3g}T"
    return f"{count / 1e9:.3g}B" if count >= 1e9 else f"{count / 1e6:.3g}M"


def _answer(change: str, request: Request, shapes: list[Shape] | None = None) -> Relaxation | None:
    outcome = search(request._replace(top=1), limit=RELAX_LIMIT, shapes=shapes)
    return Relaxation(change, request, outcome.candidates[0]) if outcome.candidates else None


def diagnose(outcome: Outcome) -> Impossible:
    """The constraint that cannot be met, and verified relaxations."""
    uneven = _uneven_experts(outcome.plan.request)
    if uneven is not None:
        return uneven
    if not outcome.enumerated:
        return _shape(outcome)
    over = [c for c in outcome.refused if c.over_budget]
    if over and len(over) >= len(outcome.refused) / 2:
        return _budget(outcome, over[0])
    return _rules(outcome)


def _active_range(outcome: Outcome) -> tuple[int, int] | None:
    """With an unreachable ``--active``: the (lowest, highest) active count the total can
    carry with these experts (None without ``--active`` or when no shape meets the total)."""
    plan = outcome.plan
    if plan.request.active is None:
        return None
    free = plan._replace(request=plan.request._replace(active=None))
    actives = [closed_form(plan.family, shape)[1] for shape, _ in enumerate_shapes(free)]
    return (min(actives), max(actives)) if actives else None


def _closest(outcome: Outcome) -> tuple[str, float] | None:
    plan = outcome.plan
    best = None
    for shape, distance in enumerate_shapes(plan, slack=4.0):
        if best is None or distance < best[1]:
            total, active = closed_form(plan.family, shape)
            size = _billions(total)
            if plan.request.active is not None:
                size += f" total, {_billions(active)} active"
            best = (f"{shape.describe()} ({size} by closed form)", distance)
    return best


def _moe_relaxations(
    request: Request, moe: MoE, reach: tuple[int, int] | None
) -> Iterator[tuple[str, Request]]:
    """Changes to the experts that move the active share the way the request needs: an
    ``--active`` below what top-k of the experts weigh needs more experts or a smaller top-k;
    one above what they can carry needs a larger top-k or fewer experts (never the reverse)."""
    e, k, s = moe.experts, moe.top_k, moe.shared
    assert request.active is not None
    share = (k + s) / (e + s)
    too_high = reach is not None and request.active > reach[1]
    if not too_high:
        yield f"--moe experts={e * 2},top_k={k},shared={s}", request._replace(moe=MoE(e * 2, k, s))
        if k > 1:
            yield (
                f"--moe experts={e},top_k={k // 2},shared={s}",
                request._replace(moe=MoE(e, k // 2, s)),
            )
        active = reach[0] if reach is not None else request.params * share
        active = math.ceil(active * 1.02 / 1e8) * 1e8
        yield f"--active {_billions(active)}", request._replace(active=round(active))
        return
    # the share of the expert weights each token runs must rise towards active / total
    wanted = request.active / request.params
    raised = next((t for t in range(k + 1, e) if (t + s) / (e + s) >= wanted), e - 1)
    for top_k in dict.fromkeys((min(2 * k, e - 1), raised)):
        if top_k > k:
            yield (
                f"--moe experts={e},top_k={top_k},shared={s}",
                request._replace(moe=MoE(e, top_k, s)),
            )
    if e // 2 > k:
        yield (
            f"--moe experts={e // 2},top_k={k},shared={s}",
            request._replace(moe=MoE(e // 2, k, s)),
        )
    highest = math.floor(reach[1] * 0.98 / 1e8) * 1e8 if reach is not None else 0
    if highest > 0:
        yield f"--active {_billions(highest)}", request._replace(active=round(highest))


def _shape_relaxations(
    request: Request, lowest: int | None = None, reach: tuple[int, int] | None = None
) -> Iterator[tuple[str, Request]]:
    for index, target in enumerate(request.targets):
        others = request.targets[:index] + request.targets[index + 1 :]
        yield f"without --target {target}", request._replace(targets=others)
    if request.layers is not None:
        yield "without --layers", request._replace(layers=None)
    if request.head_dim is not None:
        yield "without --head-dim", request._replace(head_dim=None)
    if request.hidden is not None:
        yield "without --hidden", request._replace(hidden=None)
    if request.heads is not None:
        yield "without --heads", request._replace(heads=None)
    if request.kv_heads is not None:
        yield "without --kv-heads", request._replace(kv_heads=None)
    if request.gqa is not None:
        yield "without --gqa-ratio", request._replace(gqa=None)
    moe = request.moe
    if moe is not None and request.active is not None:
        if reach is None and lowest is not None:
            reach = (lowest, lowest)
        yield from _moe_relaxations(request, moe, reach)
    if request.vocab is not None:
        yield "without --vocab", request._replace(vocab=None)


def _uneven_experts(request: Request) -> Impossible | None:
    """DL406 before any shape: the experts are the request's, so an EP degree that does not
    divide them refuses every shape alike."""
    if request.moe is None:
        return None
    from dimlint.deploy.engines import ENGINES

    experts = request.moe.experts
    uneven = [
        t
        for t in _parallel(request)
        if t.ep > 1 and experts % t.ep and t.engine in ENGINES and ENGINES[t.engine].even_ep
    ]
    if not uneven:
        return None
    message = f"DL406: {experts} experts do not split evenly over " + ", ".join(
        f"ep {t.ep} ({t.text}: {experts} % {t.ep} = {experts % t.ep})" for t in uneven
    )
    message += "; every expert-parallel rank must hold the same number of experts"
    found = [a for c, r in _shape_relaxations(request) if (a := _answer(c, r)) is not None]
    return Impossible("rules", message + ".", found)


def _parallel(request: Request) -> list[Any]:
    from dimlint.deploy.targets import parse_target

    return [t for t in map(parse_target, request.targets) if t.is_parallel]


def _shape(outcome: Outcome) -> Impossible:
    request = outcome.plan.request
    target = _billions(request.params)
    if request.active is not None:
        target += f" total with {_billions(request.active)} active"
    closest = _closest(outcome)
    message = (
        f"no {request.family} shape within ±{request.tolerance:.0%} of {target} under the"
        " fixed dimensions and the depth/width range released models use"
        f" (hidden/layers {outcome.plan.aspect[0]:.0f}–{outcome.plan.aspect[2]:.0f})"
    )
    reach = _active_range(outcome)
    too_high = reach is not None and request.active is not None and request.active > reach[1]
    if request.moe is not None and request.active is not None:
        moe = request.moe
        share = (moe.top_k + moe.shared) / (moe.experts + moe.shared)
        runs = (
            f"; with {moe.experts} experts, top-{moe.top_k} and {moe.shared} shared, every token"
            f" runs {moe.top_k + moe.shared} of {moe.experts + moe.shared} expert MLPs"
        )
        message += runs + (
            f", so the active count cannot rise far above {share:.0%} of the expert weights:"
            " raise top_k or use fewer experts"
            if too_high
            else f", so the active count cannot fall much below {share:.0%} of the expert weights"
        )
    kv = request.kv_heads or 0
    blocked = kv_fits_targets(outcome.plan, kv) if kv else []
    if blocked:
        tp = ", ".join(str(degree) for degree, _ in blocked)
        message = (
            f"DL402: --kv-heads {kv} neither splits over nor is replicated onto tp {tp}"
            " (each rank holds kv / tp KV heads when tp divides them, or a copy when kv divides"
            " tp; "
            + ", ".join(f"{kv} % {d} = {kv % d}, {d} % {kv} = {d % kv}" for d, _ in blocked)
            + "), so no shape with these KV heads runs on the targets"
        )
    elif outcome.plan.head_divisors:
        divisors = ", ".join(map(str, outcome.plan.head_divisors))
        message += f"; the targets need heads divisible by {divisors} (DL401)"
    lowest = reach[0] if reach is not None and not too_high else None
    if too_high and reach is not None:
        message += f"; the highest active count a {_billions(request.params)} shape reaches is"
        message += f" {_billions(reach[1])}"
    elif lowest is not None:
        message += f"; the lowest active count a {_billions(request.params)} shape reaches is"
        message += f" {_billions(lowest)}"
    elif closest is not None:
        message += f". Closest: {closest[0]}, {closest[1]:.1%} off"
    relaxations = _shape_relaxations(request, lowest, reach)
    found = [a for c, r in relaxations if (a := _answer(c, r)) is not None]
    return Impossible("shape", message + ".", found)


def _budget_relaxations(request: Request, context: int) -> Iterator[tuple[str, Request]]:
    """Single changes first (narrower weights, fp8 KV cache, shorter context, batch 1), then
    more GPUs at each weight format: the smallest count that works is the one shown."""
    current = request.dtype or "bf16"
    formats = [current] + [d for d in NARROWER if _BITS[d] < _BITS[current]]
    for dtype in formats[1:]:
        yield f"--dtype {dtype}", request._replace(dtype=dtype)
    if (request.kv_dtype or "bf16") in ("bf16", "fp16", "fp32"):
        yield "--kv-dtype fp8", request._replace(kv_dtype="fp8")
    if context and request.context and context < request.context:
        yield f"--context {context}", request._replace(context=context)
    if request.batch and request.batch > 1:
        yield "--batch 1", request._replace(batch=1)
    if request.budget is not None and request.targets:
        from dimlint.deploy.targets import parse_budget_text, parse_target

        count, gpu = parse_budget_text(request.budget)
        layouts = [parse_target(t) for t in request.targets]
        need = max(t.gpus for t in layouts)
        if need > count:
            yield f"--budget {need}x{gpu}", request._replace(budget=f"{need}x{gpu}")
            kept = tuple(t.text for t in layouts if t.gpus <= count)
            dropped = " ".join(t.text for t in layouts if t.gpus > count)
            yield (
                f"without the targets that need more than {count} GPUs ({dropped})",
                (request._replace(targets=kept)),
            )
    if request.budget is not None and not request.targets:
        from dimlint.deploy.targets import parse_budget_text

        count, gpu = parse_budget_text(request.budget)
        for dtype in formats:
            more = count * 2
            change = "" if dtype == current else f"--dtype {dtype} "
            while more <= MAX_GPUS:
                relaxed = request._replace(budget=f"{more}x{gpu}", dtype=dtype)
                yield f"{change}--budget {more}x{gpu}", relaxed
                more *= 2


def _longest_context(outcome: Outcome, candidate: Candidate) -> int:
    """The longest context (a multiple of 1024) at which the closest shape fits every layout."""
    from dimlint.config.normalize import specs_for_document
    from dimlint.deploy.fit import layouts_for, longest_context

    plan = outcome.plan
    if plan.deployment is None:
        return 0
    spec = specs_for_document("config.json", candidate.config)[0]
    found = [longest_context(layout) for layout in layouts_for(spec, plan.deployment)]
    longest = min(found) if found else 0
    return longest // 1024 * 1024


def _budget(outcome: Outcome, closest: Candidate) -> Impossible:
    plan = outcome.plan
    linted = verify(plan, closest.shape, lint_over_budget=True)
    messages = [d.message for d in linted.findings if d.code == "DL501"]
    messages += [
        f"{row['layout']}: {row['per_gpu_bytes'] / 2**30:.1f} GiB per GPU of"
        f" {row['usable_bytes'] / 2**30:.1f}."
        for row in linted.memory
        if not row["fits"] and "training" in row["layout"]
    ]
    message = (
        f"the budget {plan.request.budget}: no shape of {_billions(plan.request.params)} fits."
        f" The closest, {closest.shape.describe()} ({_billions(linted.total)}): "
        + " ".join(messages)
    )
    found: list[Relaxation] = []
    solved: set[str] = set()  # weight formats that already have their smallest budget
    for change, relaxed in _budget_relaxations(plan.request, _longest_context(outcome, closest)):
        if "--budget" in change and (relaxed.dtype or "") in solved:
            continue
        answer = _answer(change, relaxed, outcome.shapes)
        if answer is not None:
            found.append(answer)
            if "--budget" in change:
                solved.add(relaxed.dtype or "")
    return Impossible("budget", message, found)


def _rules(outcome: Outcome) -> Impossible:
    request = outcome.plan.request
    codes = Counter(d.code for c in outcome.refused for d in c.blocking)
    first = next((c for c in outcome.refused if c.blocking), None)
    if first is None:
        return Impossible(
            "tolerance",
            f"shapes near {_billions(request.params)} exist by the closed form, but none is"
            f" within ±{request.tolerance:.0%} by the exact count",
            [],
        )
    common = ", ".join(f"{code} ×{count}" for code, count in codes.most_common(4))
    message = (
        f"every shape near {_billions(request.params)} is refused by the rules under the"
        f" targets ({common} over {len(outcome.refused)} shapes). The closest,"
        f" {first.shape.describe()}: "
        + " ".join(f"{d.code}: {d.message}" for d in first.blocking[:3])
    )
    found: list[Relaxation] = []
    for change, relaxed in _shape_relaxations(request):
        answer = _answer(change, relaxed)
        if answer is not None:
            found.append(answer)
    return Impossible("rules", message, found)
