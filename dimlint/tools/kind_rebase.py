"""Fields that add a layer kind the default config builds none of (issue 19: interleave steps).

Llama-4's ``interleave_moe_layer_step`` is 1 by default: every layer is a mixture of experts,
and the dense feed-forward that a step of 2 gives every other layer exists in no build of the
default config. Changing the field adds tensors no expression of the default explains, so it
was ``fixed`` and Llama-4-Maverick (step 2) fell back to a hand recipe 95% off. The same holds
for any number that selects which layers get which tensors.

Such a field is learned like DeepSeek-V2's ``first_k_dense_replace`` (the generator's
``rebased`` fields): from a config where the kind exists. A ``fixed`` field qualifies when the
builds at twice and four times its default keep every tensor of the default and add the same
layer tensors (a kind, in more or fewer layers); the type is then learned with the field at
twice its default, so the counts of both kinds are fitted as expressions of it (``L/step`` and
``L - L/step``). The rebased row is kept only when its tensors, evaluated at the default
config's values, are exactly the default build's (:func:`reproduces`): the expressions must
also say that the default has none of the new kind.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from dimlint.memory.parameters.templates import evaluate_expression

Groups = Mapping[tuple[str, int], tuple[tuple[int, ...], int]]


def switching(
    fixed: Iterable[str],
    values: Mapping[str, int],
    base: Groups,
    groups_at: Callable[[str, int], Groups],
) -> dict[str, int]:
    """The first ``fixed`` positive integer field whose builds at twice and four times its
    default add one set of layer tensors to the default's, at twice its default; ``groups_at``
    builds the class with one field changed (it may raise)."""
    for path in sorted(fixed):
        value = values.get(path)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            continue
        try:
            twice, four = groups_at(path, 2 * value), groups_at(path, 4 * value)
        except Exception:  # the class rejects the values: the field stays fixed
            continue
        added = set(twice) - set(base)
        if (
            added
            and set(base) <= set(twice)
            and set(twice) == set(four)
            and all("*" in name for name, _ in added)
        ):
            return {path: 2 * value}
    return {}


def reproduces(tensors: Iterable[Any], values: Mapping[str, Any], base: Groups) -> bool:
    """Whether a class's learned ``tensors`` (rows of the table), evaluated at ``values`` (the
    default config's), give exactly the ``base`` build's tensors."""
    expected: Counter[tuple[str, tuple[int, ...]]] = Counter()
    for (name, _), (shape, count) in base.items():
        expected[(name, tuple(shape))] += count
    found: Counter[tuple[str, tuple[int, ...]]] = Counter()
    values = _with_floors(values, tensors)
    for name, count_expression, dims, conditions, *_ in tensors:
        if any(values.get(path) != wanted for path, wanted in conditions):
            continue
        repeats = evaluate_expression(count_expression, values, zero=True)
        if repeats == 0:
            continue
        sizes = [evaluate_expression(dim, values) for dim in dims]
        if repeats is None or any(size is None for size in sizes):
            return False
        found[(str(name), tuple(int(size) for size in sizes if size is not None))] += repeats
    return found == expected


def _with_floors(values: Mapping[str, Any], tensors: Iterable[Any]) -> dict[str, Any]:
    """``values`` with each floor quotient ``a//b`` the expressions read (the generator's
    ``floor_quotients``: ``num_hidden_layers//interleave_moe_layer_step``) evaluated."""
    found = dict(values)
    for _, count_expression, dims, *_ in tensors:
        for expression in (count_expression, *dims):
            for _, _, factors in expression:
                for name, _ in factors:
                    numerator, floor, denominator = str(name).partition("//")
                    a, b = values.get(numerator), values.get(denominator)
                    if floor and isinstance(a, int) and isinstance(b, int) and b:
                        found[str(name)] = a // b
    return found
