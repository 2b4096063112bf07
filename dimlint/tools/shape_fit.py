"""Fit a tensor dimension as a small expression over config fields, from a few observations.

The shape generator (:mod:`dimlint.tools.generate_shapes`) builds each model once with its
default config and once per perturbed field; every parameter dimension is then a list of
observed values, one per build, beside the config values of that build. This module finds the
simplest expression that reproduces every observation: a sum of at most three terms, each an
exact rational coefficient times a product of fields raised to ±1 or 2 (``hidden_size``,
``num_attention_heads * head_dim``, ``hidden_size // num_attention_heads``,
``(num_attention_heads + 2 * num_key_value_heads) * head_dim``…), or a single term that may
divide by a square (a vision tower's ``(image_size / patch_size)²`` patch positions), alone or
plus a constant (CLIP's class token: ``(image_size / patch_size)² + 1``).

An expression is JSON: a list of terms ``[numerator, denominator, [[field, exponent], …]]``.
Pure Python, no torch: the fitting is unit-tested on its own.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from fractions import Fraction

Values = Mapping[str, int]
Term = tuple[Fraction, tuple[tuple[str, int], ...]]
#: The JSON form: ``[[numerator, denominator, [[field, exponent], ...]], ...]``.
Expression = list[list[object]]

_MAX_FIELDS = 6
#: How a floor quotient is spelled as one factor: ``image_size//patch_size``.
FLOOR = "//"
_MAX_COMBINATIONS = 1500


def _cost(factors: tuple[tuple[str, int], ...]) -> int:
    """How complex a monomial is: its factors, with squares and quotients costing more."""
    return sum(1 if exponent == 1 else 3 for _, exponent in factors)


def _monomial(values: Values, factors: tuple[tuple[str, int], ...]) -> Fraction | None:
    result = Fraction(1)
    for name, exponent in factors:
        value = _floor_value(values, name) if FLOOR in name else values.get(name)
        if not isinstance(value, int) or isinstance(value, bool) or value == 0:
            return None
        result *= Fraction(value) ** exponent
    return result


def _floor_value(values: Values, name: str) -> int | None:
    numerator, _, denominator = name.partition(FLOOR)
    a, b = values.get(numerator), values.get(denominator)
    if not isinstance(a, int) or not isinstance(b, int) or isinstance(a, bool) or not b:
        return None
    return a // b


def evaluate_terms(terms: Sequence[Term], values: Values) -> Fraction | None:
    """The value of ``terms`` for ``values``, or None when a field is missing or zero."""
    total = Fraction(0)
    for coefficient, factors in terms:
        monomial = _monomial(values, factors)
        if monomial is None:
            return None
        total += coefficient * monomial
    return total


def _candidates(observations: Sequence[tuple[Values, int]], preferred: frozenset[str]) -> list[str]:
    """Fields worth trying: those that vary in an observation where the target changed, closed
    over fields that vary together with them (a derived ``head_dim`` moves with
    ``hidden_size`` and with ``num_attention_heads``)."""
    base_values, base_target = observations[0]

    def varied(values: Values) -> set[str]:
        return {name for name, value in values.items() if base_values.get(name) != value}

    chosen: set[str] = set()
    for values, target in observations[1:]:
        if target != base_target:
            chosen |= varied(values)
    changed = True
    while changed and len(chosen) <= _MAX_FIELDS:
        changed = False
        for values, _ in observations[1:]:
            moved = varied(values)
            if moved & chosen and not moved <= chosen:
                chosen |= moved
                changed = True
    ordered = sorted(chosen, key=lambda name: (name not in preferred, name))
    return ordered[: _MAX_FIELDS + 2]


#: Exponents of the monomials sums are built from.
_EXPONENTS = (1, 2, -1)
#: Exponents a single-term expression may also use (after every other single term failed).
_SQUARE_QUOTIENT = (1, 2, -1, -2)


def _factor_sets(
    fields: Sequence[str], size: int, exponents_of: Sequence[int] = _EXPONENTS
) -> list[tuple[tuple[str, int], ...]]:
    sets: list[tuple[tuple[str, int], ...]] = []
    for names in itertools.combinations(fields, size):
        for exponents in itertools.product(exponents_of, repeat=size):
            if size and all(exponent < 0 for exponent in exponents):
                continue
            sets.append(tuple(zip(names, exponents, strict=True)))
    return sets


def _fits(terms: Sequence[Term], observations: Sequence[tuple[Values, int]]) -> bool:
    return all(evaluate_terms(terms, values) == target for values, target in observations)


def _solve(
    monomials: Sequence[tuple[tuple[str, int], ...]],
    observations: Sequence[tuple[Values, int]],
) -> list[Term] | None:
    """Coefficients making ``Σ c_i·m_i`` match every observation (Gaussian elimination on the
    first independent rows, then verification), or None."""
    rows: list[list[Fraction]] = []
    for values, target in observations:
        row: list[Fraction] = []
        for factors in monomials:
            monomial = _monomial(values, factors)
            if monomial is None:
                return None
            row.append(monomial)
        row.append(Fraction(target))
        rows.append(row)
    size = len(monomials)
    matrix = [list(row) for row in rows]
    for column in range(size):  # the pivot of column c ends in row c
        found = next((r for r in range(column, len(matrix)) if matrix[r][column] != 0), None)
        if found is None:
            return None
        matrix[column], matrix[found] = matrix[found], matrix[column]
        lead = matrix[column][column]
        matrix[column] = [value / lead for value in matrix[column]]
        for r in range(len(matrix)):
            if r != column and matrix[r][column] != 0:
                factor = matrix[r][column]
                matrix[r] = [a - factor * b for a, b in zip(matrix[r], matrix[column], strict=True)]
    coefficients = [matrix[i][size] for i in range(size)]
    if any(c == 0 or c.denominator > 64 for c in coefficients):
        return None
    terms = [(c, m) for c, m in zip(coefficients, monomials, strict=True)]
    return terms if _fits(terms, observations) else None


def fit(
    observations: Sequence[tuple[Values, int]], preferred: frozenset[str] = frozenset()
) -> list[Term] | None:
    """The simplest expression matching every ``(values, target)`` observation, or None.

    ``observations[0]`` is the default build. Simplest means fewest terms, then fewest
    fields, ``preferred`` fields (declared, not derived) first.
    """
    base_target = observations[0][1]
    if all(target == base_target for _, target in observations):
        return [(Fraction(base_target), ())] if base_target else [(Fraction(0), ())]
    fields = _candidates(observations, preferred)
    if not fields:
        return None
    monomials: list[tuple[tuple[str, int], ...]] = []
    for size in range(1, min(3, len(fields)) + 1):
        monomials.extend(_factor_sets(fields, size))
    base_values = observations[0][0]
    squares = [
        factors
        for size in range(2, min(3, len(fields)) + 1)
        for factors in _factor_sets(fields, size, _SQUARE_QUOTIENT)
        if any(exponent == -2 for _, exponent in factors)
    ]
    for factors in [*monomials, *squares]:
        monomial = _monomial(base_values, factors)
        if monomial is None:
            continue
        terms = [(Fraction(base_target) / monomial, factors)]
        if terms[0][0].denominator <= 64 and _fits(terms, observations):
            return terms
    # Sums: integer coefficients only, simplest combinations first (fewest factors, plain
    # exponents), from monomials of at most two factors. A sum with a negative coefficient is
    # kept only if no sum of positive terms, nor a width plus a product, fits: from fields
    # moved one at a time, a product (a fused QKV's ``hidden + 2·kv·hidden/heads``) is also
    # fitted by its tangent at the default (``7168 + 2·hidden - 3584·heads/kv``), which is
    # wrong as soon as two of its fields move; a true difference (MobileBERT's ``hidden_size
    # - embedding_size``) has no positive form.
    tangent: list[Term] | None = None
    pool: list[tuple[tuple[str, int], ...]] = [(), *(m for m in monomials if len(m) <= 2)]
    for count in (2, 3):
        if len(observations) < count + 1:
            break
        combinations = sorted(
            itertools.combinations(pool, count), key=lambda combo: sum(map(_cost, combo))
        )
        if count == 2:
            # A square quotient plus a positive constant (CLIP's ``(image_size /
            # patch_size)² + 1`` positions: the patches and the class token), before the
            # sums, one of which may be the quotient's tangent (``21·image/patch - 97``).
            # Also times a field (Mllama's tile positions: ``tiles · ((image / patch)² + 1) ·
            # hidden`` with the tiles fixed).
            scales = [(), *(m for m in monomials if len(m) == 1 and m[0][1] == 1)]
            for scale, factors in itertools.product(scales, squares):
                if any(name == scale_name for name, _ in factors for scale_name, _ in scale):
                    continue
                solved = _solve([scale, (*scale, *factors)], observations)
                if solved is not None and all(c.denominator == 1 and c > 0 for c, _ in solved):
                    return solved
        for combination in combinations[:_MAX_COMBINATIONS]:
            solved = _solve(combination, observations)
            if solved is not None and all(c.denominator == 1 for c, _ in solved):
                if any(c < 0 for c, _ in solved):
                    # maybe the tangent of a product at the default (see _with_a_product)
                    tangent = tangent or solved
                    continue
                return solved
    product = _with_a_product(observations, fields, pool)
    return product if product is not None else tangent


def _with_a_product(
    observations: Sequence[tuple[Values, int]],
    fields: Sequence[str],
    pool: Sequence[tuple[tuple[str, int], ...]],
) -> list[Term] | None:
    """Last, once nothing simpler fits, or only sums with a negative term: a sum of one plain
    monomial and one of three fields, one of them a quotient, with positive integer
    coefficients (DBRX's fused QKV, ``d_model + 2 · kv_n_heads · d_model / n_heads``: a width
    plus the key and value heads times a head width no field states). The coefficients must be
    positive, never a tangent's difference."""
    products = [
        factors
        for factors in _factor_sets(fields, 3)
        if sum(exponent == -1 for _, exponent in factors) == 1
        and all(exponent in (1, -1) for _, exponent in factors)
    ]
    plain = [factors for factors in pool if len(factors) == 1 and factors[0][1] == 1]
    tried = 0
    for product in products:
        for other in plain:
            if tried >= _MAX_COMBINATIONS:
                return None
            tried += 1
            solved = _solve([other, product], observations)
            if solved is not None and all(c.denominator == 1 and c > 0 for c, _ in solved):
                return solved
    return None


def to_json(terms: Sequence[Term]) -> Expression:
    """The JSON form of ``terms``."""
    return [
        [c.numerator, c.denominator, [[name, exponent] for name, exponent in factors]]
        for c, factors in terms
    ]


def from_json(expression: object) -> list[Term] | None:
    """Parse the JSON form, or None when it is malformed."""
    if not isinstance(expression, list):
        return None
    terms: list[Term] = []
    for term in expression:
        if not (isinstance(term, list) and len(term) == 3):
            return None
        numerator, denominator, factors = term
        if not (isinstance(numerator, int) and isinstance(denominator, int) and denominator):
            return None
        if not isinstance(factors, list):
            return None
        parsed: list[tuple[str, int]] = []
        for factor in factors:
            if not (
                isinstance(factor, list)
                and len(factor) == 2
                and isinstance(factor[0], str)
                and factor[1] in _SQUARE_QUOTIENT
            ):
                return None
            parsed.append((factor[0], factor[1]))
        terms.append((Fraction(numerator, denominator), tuple(parsed)))
    return terms


def fields_of(terms: Sequence[Term]) -> set[str]:
    """The fields an expression reads (both of a floor quotient's)."""
    return {part for _, factors in terms for name, _ in factors for part in name.split(FLOOR)}


def quotient_pairs(expression: object) -> list[tuple[str, str]]:
    """The ``(numerator, denominator)`` field pairs of an expression's terms that divide one
    field by another at the same power (``image_size² / patch_size²``), one per term."""
    terms = from_json(expression)
    pairs: list[tuple[str, str]] = []
    for _, factors in terms or []:
        up = [(name, e) for name, e in factors if e > 0 and FLOOR not in name]
        down = [(name, -e) for name, e in factors if e < 0 and FLOOR not in name]
        if len(down) == 1 and any(e == down[0][1] for _, e in up):
            numerator = next(name for name, e in up if e == down[0][1])
            pairs.append((numerator, down[0][0]))
    return pairs


def unfloored(expression: object) -> Expression | None:
    """``expression`` with every floor quotient ``(a // b)^e`` read back as ``a^e / b^e``."""
    terms = from_json(expression)
    if terms is None:
        return None
    rewritten: list[Term] = []
    for coefficient, factors in terms:
        parts: list[tuple[str, int]] = []
        for name, e in factors:
            if FLOOR in name:
                numerator, denominator = name.split(FLOOR, 1)
                parts.extend([(numerator, e), (denominator, -e)])
            else:
                parts.append((name, e))
        rewritten.append((coefficient, tuple(parts)))
    return to_json(rewritten)


def floored(expression: object, pair: tuple[str, str]) -> Expression | None:
    """``expression`` with ``a^e / b^e`` read as ``(a // b)^e`` in every term that has it (a
    patch grid: transformers' convolution drops the remainder of an image that is no whole
    number of patches: SigLIP at 384 / 14 has 27² positions)."""
    terms = from_json(expression)
    if terms is None:
        return None
    numerator, denominator = pair
    rewritten: list[Term] = []
    for coefficient, factors in terms:
        powers = dict(factors)
        e = powers.get(numerator, 0)
        if e > 0 and powers.get(denominator) == -e:
            rest = tuple((n, x) for n, x in factors if n not in (numerator, denominator))
            rewritten.append((coefficient, (*rest, (f"{numerator}{FLOOR}{denominator}", e))))
        else:
            rewritten.append((coefficient, factors))
    return to_json(rewritten)


def fit_floor(
    observations: Sequence[tuple[Values, int]], preferred: frozenset[str]
) -> Expression | None:
    """``a // b`` of two fields, when that and no other such quotient gives every observation
    and both fields moved in some observation (Glm4-MoE's ``head_dim`` fallback
    ``hidden_size // num_attention_heads`` is 4096 // 96 = 42, which no rational expression
    fits): the floor a fallback takes where the width is no whole number of heads."""

    def number(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and value > 0

    if not observations:
        return None
    first = observations[0][0]
    names = sorted(name for name in preferred if number(first.get(name)))
    moved = {name for name in names if any(v.get(name) != first.get(name) for v, _ in observations)}
    found: list[tuple[str, str]] = []
    for a, b in itertools.permutations(sorted(moved), 2):
        if all(
            number(values.get(a)) and number(values.get(b)) and values[a] // values[b] == value
            for values, value in observations
        ):
            found.append((a, b))
    if len(found) != 1:
        return None  # none, or several quotients alike: which one the code takes is unknown
    a, b = found[0]
    return [[1, 1, [[f"{a}{FLOOR}{b}", 1]]]]
