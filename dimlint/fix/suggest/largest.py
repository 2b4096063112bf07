"""``--params largest``: the largest model of the family that fits the budget and targets.

The bound to start from is what the budget holds in weights alone (usable bytes of the GPUs one
layout occupies over bytes per parameter); the KV cache, activations and overheads only lower
it. The size is lowered by :data:`STEP_DOWN` until a search finds a shape that passes, then
raised by :data:`STEP_UP` while one still does, so the answer is within 3% of the largest size
the search can meet. Each probe is a short search (:data:`PROBE_LIMIT` configs verified), the
same as the relaxations of an impossible request.
"""

from __future__ import annotations

from dimlint.errors import UsageError
from dimlint.fix.suggest.request import Request

#: Factor applied while no shape fits, then while one still fits at the next size up.
STEP_DOWN = 0.85
STEP_UP = 1.03
#: Probes at most (each a short search): 30 steps down reach 1/130 of the bound.
MAX_PROBES = 40
#: Configs verified per probe.
PROBE_LIMIT = 24
#: Smallest size tried.
SMALLEST = 50_000_000


def _fits(request: Request, params: int) -> bool:
    from dimlint.fix.suggest.search import search

    probe = request._replace(params=params, top=1)
    return bool(search(probe, limit=PROBE_LIMIT).candidates)


def upper_bound(request: Request) -> int:
    """Parameters whose weights alone fill the GPUs of the smallest requested layout; with
    ``--training``, also those whose model states alone (weights, gradients and optimizer, 16
    bytes a parameter with Adam in bf16) fill the whole budget, the most any ZeRO stage and
    layout can spread them over (``training_plan`` divides each by at most every GPU)."""
    from dimlint.deploy.targets import parse_target
    from dimlint.memory import parse_budget
    from dimlint.memory.dtypes import dtype_bytes
    from dimlint.memory.estimates import OPTIMIZER_BYTES

    if request.budget is None:
        raise UsageError("--params largest needs --budget: the largest model that fits what")
    count, gpu = parse_budget(request.budget)
    layouts = [parse_target(t) for t in request.targets]
    gpus = min([t.gpus for t in layouts if t.is_parallel] or [count])
    unit = dtype_bytes(request.dtype or "bf16")
    bound = int(gpu.usable_bytes() * min(gpus, count) / unit)
    if request.training:
        trained = max(2, int(unit))  # quantized weights train in 16 bits, as training_plan says
        states = 2 * trained + OPTIMIZER_BYTES[(request.optimizer, trained < 4)]
        bound = min(bound, int(gpu.memory_bytes * count / states))
    return bound


def largest(request: Request) -> int:
    """The largest parameter count (within 3%) at which a shape passes the request."""
    size = upper_bound(request)
    probes = 0
    while not _fits(request, size):
        probes += 1
        size = int(size * STEP_DOWN)
        if size < SMALLEST or probes >= MAX_PROBES:
            raise UsageError(
                f"--params largest: no {request.family} shape of {SMALLEST / 1e6:.0f}M or more"
                f" fits {request.budget} under the targets"
            )
    while probes < MAX_PROBES and _fits(request, int(size * STEP_UP)):
        probes += 1
        size = int(size * STEP_UP)
    return size
