"""Find the nearest valid dimensions for a coupled-dimension finding.

A config with ``hidden_size`` 4100 and 32 heads can be repaired by changing the hidden size, the
head count, or (if it states one) the head dim — and each choice may break something else: 41
heads give a head dim of 100, which no FlashAttention kernel likes. So instead of a per-rule
"round to the nearest multiple", one search enumerates small candidate sets for every dimension
the file states, scores each combination with :func:`dimlint.config.geometry.evaluate` and keeps
those
that clear the finding without introducing any new one, preferring fewer changed keys and then
the smallest parameter change.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterable

from dimlint.config.geometry import Dims, Field, Problem, approximate_parameters, evaluate
from dimlint.diagnostics import Severity
from dimlint.records import Record

#: Dimensions searched together: they feed one another's predicates.
GROUPS: tuple[tuple[Field, ...], ...] = (
    ("hidden", "heads", "kv_heads", "head_dim", "rotary"),
    ("ffn",),
    ("expert_ffn",),
    ("vocab",),
)
_WINDOW = 0.25  # never suggest a value more than 25% away from the current one


class Change(Record):
    """One key's new value."""

    field: Field
    old: int | float
    new: int | float


class Suggestion(Record):
    """A combination of changes that clears the finding, with its cost."""

    changes: tuple[Change, ...]
    #: Relative, e.g. -0.002 for -0.2%; None when the size is unknown (no hidden size read).
    parameter_change: float | None

    def describe(self, names: dict[Field, str]) -> str:
        parts = [
            f"{names[c.field]} {format_value(c.old)} → {format_value(c.new)}" for c in self.changes
        ]
        change = self.parameter_change
        if change is None:
            return ", ".join(parts)
        if abs(change) < 5e-5:
            return f"{', '.join(parts)} (parameters unchanged)"
        percent = f"{change:+.2%}" if abs(change) < 0.01 else f"{change:+.1%}"
        return f"{', '.join(parts)} ({percent} parameters)"


def format_value(value: int | float) -> str:
    """Integers as digits; fractions as the shortest float text (0.25, 0.375)."""
    if isinstance(value, int):
        return str(value)
    return repr(value)  # candidates are short decimals already (see _fraction_for)


def suggest(
    dims: Dims,
    target: Problem,
    mutable: Iterable[Field],
    *,
    layers: int,
    gated: bool,
    experts: int = 0,
    limit: int = 3,
) -> list[Suggestion]:
    """Up to ``limit`` best repairs of ``target``, best first (empty when none exists)."""
    group = next(g for g in GROUPS if target.field in g)
    free = [name for name in group if name in set(mutable)]
    if not free:
        return []
    before = evaluate(dims)
    base_params = approximate_parameters(dims, layers, gated, experts)
    alternatives = {name: _candidates(dims, name)[1:] for name in free}
    scored: list[_Scored] = []
    # Fewer changed keys first: once a level yields enough clean repairs, more changes can only
    # rank lower, so the search stops there.
    for count in range(1, len(free) + 1):
        if sum(1 for key, _, _ in scored if key[0] == 0) >= limit:
            break
        for names in itertools.combinations(free, count):
            for values in itertools.product(*(alternatives[name] for name in names)):
                _score(
                    dims,
                    dict(zip(names, values, strict=True)),
                    target,
                    before,
                    base_params,
                    (layers, gated, experts),
                    scored,
                )
    scored.sort(key=lambda item: item[0])  # stable: ties keep the order they were tried in
    return [
        Suggestion(
            tuple(
                Change(name, _current(dims, name) or 0, value) for name, value in changed.items()
            ),
            delta,
        )
        for _, changed, delta in scored[:limit]
    ]


#: A clean repair as the search ranks it: (rank key, the changes, relative parameter change).
_Scored = tuple[tuple[int, int, int, int, int, float], dict[Field, int | float], float | None]


def _score(
    dims: Dims,
    changed: dict[Field, int | float],
    target: Problem,
    before: frozenset[Problem],
    base_params: int,
    shape: tuple[int, bool, int],
    scored: list[_Scored],
) -> None:
    """Evaluate one combination of changes and keep it if it repairs ``target`` cleanly (only
    the few best become :class:`Suggestion` values)."""
    layers, gated, experts = shape
    candidate = _apply(dims, changed)
    after = evaluate(candidate)
    code, field = target.code, target.field
    if any(p.code == code and p.field == field for p in after):
        return
    new = after - before
    if any(p.severity is Severity.ERROR for p in new):
        return
    params = approximate_parameters(candidate, layers, gated, experts)
    # Without a hidden size there is no parameter count to compare: no percentage is claimed
    # (a "-100%" from a count of zero would be nonsense).
    delta = (params - base_params) / base_params if base_params > 0 and params > 0 else None
    # Prefer, in order: no new finding, fewer changed keys, fewer remaining findings, a
    # parameter change within the same 1% band, changing the finding's own key, the smallest
    # change. (A free head-count change beats an 8% narrower hidden size, though the finding
    # is on the hidden size.)
    cost = abs(delta) if delta is not None else 0.0
    band = int(cost * 100)
    key = (len(new), len(changed), len(after), band, int(target.field not in changed), cost)
    scored.append((key, changed, delta))


def _current(dims: Dims, name: Field) -> int | float | None:
    if name == "rotary":
        return dims.rotary_dim if dims.rotary_dim is not None else dims.rotary_fraction
    return getattr(dims, name)  # type: ignore[no-any-return]


#: Position of each field in a :class:`Dims` tuple.
_POSITION = {name: index for index, name in enumerate(Dims._fields)}


def _apply(dims: Dims, changed: dict[Field, int | float]) -> Dims:
    """``dims`` with ``changed`` (built as a tuple: the search makes thousands of these)."""
    values: list[object] = list(dims)
    for name, value in changed.items():
        if name == "rotary":
            name_in_dims = "rotary_dim" if dims.rotary_dim is not None else "rotary_fraction"
            values[_POSITION[name_in_dims]] = value
        else:
            values[_POSITION[name]] = value
    return Dims._make(values)


def _near_multiples(value: int, multiples: Iterable[int]) -> set[int]:
    found: set[int] = set()
    for multiple in multiples:
        if multiple <= 0:
            continue
        below = value // multiple * multiple
        for candidate in (below, below + multiple):
            if candidate > 0 and abs(candidate - value) <= _WINDOW * value:
                found.add(candidate)
    return found


@functools.lru_cache(maxsize=4096)
def _near_divisors(total: int, around: int, count: int = 3) -> frozenset[int]:
    """Up to ``count`` divisors of ``total`` on each side of ``around``, within a factor of 2
    (cached: configs share their head counts, and the KV-head search asks for several)."""
    divisors = _divisors(total) if total <= 1 << 20 else ()
    lower = sorted((d for d in divisors if d < around), reverse=True)[:count]
    upper = sorted(d for d in divisors if d > around)[:count]
    return frozenset(d for d in lower + upper if around / 2 <= d <= around * 2)


@functools.lru_cache(maxsize=256)
def _divisors(total: int) -> tuple[int, ...]:
    """Every divisor of ``total``, pairing each one up to its square root with its cofactor
    (a few dozen steps for a hidden size of 8192, instead of 8192)."""
    found: set[int] = set()
    for low in range(1, math.isqrt(total) + 1):
        if total % low == 0:
            found.add(low)
            found.add(total // low)
    return tuple(sorted(found))


def _candidates(dims: Dims, name: Field) -> list[int | float]:
    """The current value first, then nearby values worth trying for one dimension."""
    current = _current(dims, name)
    found: set[int | float] = set()
    if name == "hidden" and dims.hidden:
        steps = [8, 64, 128, 256]
        if dims.heads:
            steps += [dims.heads * 8, dims.heads * 64]
        found |= _near_multiples(dims.hidden, steps)
    elif name == "heads" and dims.heads and dims.hidden:
        found |= _near_divisors(dims.hidden, dims.heads)
    elif name == "kv_heads" and dims.kv_heads and dims.heads:
        found |= _near_divisors(dims.heads, dims.kv_heads)
        for heads in _near_divisors(dims.hidden or 0, dims.heads) if dims.hidden else ():
            found |= {d for d in _near_divisors(heads, dims.kv_heads) if d <= heads}
    elif name == "head_dim" and dims.head_dim:
        found |= _near_multiples(dims.head_dim, [8, 64])
    elif name in ("ffn", "expert_ffn"):
        value = dims.ffn if name == "ffn" else dims.expert_ffn
        if value:
            found |= _near_multiples(value, [64, 128, 256])
    elif name == "vocab" and dims.vocab:
        found |= {math.ceil(dims.vocab / m) * m for m in (64, 128)}
    elif name == "rotary":
        found |= _rotary_candidates(dims)
    if current is not None:
        found.discard(current)
    ordered = sorted(found, key=lambda v: abs(v - (current or 0)))
    return [current, *ordered[:6]] if current is not None else ordered[:6]


def _rotary_candidates(dims: Dims) -> set[int | float]:
    if dims.rotary_dim is not None:
        even = dims.rotary_dim // 2 * 2
        return {v for v in (even, even + 2) if v > 0}
    width = dims.head_width
    if width is None or dims.rotary_fraction is None:
        return set()
    centre = int(width * dims.rotary_fraction)
    evens = {centre // 2 * 2 + step for step in (-2, 0, 2, 4)}
    return {_fraction_for(even, width) for even in evens if 0 < even <= width}


def _fraction_for(rotated: int, width: int) -> float:
    """A short decimal fraction f with int(width × f) == rotated (what the engines compute)."""
    for digits in range(2, 10):
        scale = 10**digits
        for candidate in (
            round(rotated / width, digits),
            math.ceil(rotated / width * scale) / scale,
        ):
            if int(width * candidate) == rotated:
                return candidate
    return rotated / width
