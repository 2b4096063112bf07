"""Booleans flipped in every class the shape generator learns, not only in the primary.

The generator (:mod:`dimlint.tools.generate_shapes`) flips each boolean field in the primary
class and learns the tensors a flip adds or drops there; another class of the type follows the
primary's rows. A flag that changes nothing in the primary was never built in the other
classes, though a head may be the only module that reads it: wav2vec2's
``use_weighted_layer_sum`` adds ``layer_weights`` (``num_hidden_layers + 1`` weights) to the
sequence classifier only, and the run-time had to refuse every config stating such a flag in a
head (``templates._flag_unchecked_for_class``). Here each such flag is flipped in the class
itself: a flip that keeps the class's tensors is recorded as checked; one that adds tensors gets
rows conditioned on the flipped value, each fitted from builds of the class with the flag
flipped and each learned field changed (as the primary's flipped tensors are refitted), and the
rows it drops are conditioned on the default. A flip that does not build, or whose tensors no
expression explains, stays unchecked, so the run-time still refuses it. CPU time is bounded by a
deadline the caller passes: flags left when it passes stay unchecked.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: ``(collapsed name, ordinal) → (shape, count)``, as :func:`generate_shapes._groups` returns.
Groups = dict[tuple[str, int], tuple[tuple[int, ...], int]]
#: ``[(changed field, values, groups)]``: the primary's observations (default first).
Observations = list[tuple[str, dict[str, int], Groups]]


def _shape_set(groups: Groups) -> set[tuple[str, tuple[int, ...]]]:
    return {(name, shape) for (name, _), (shape, _) in groups.items()}


def learn_class_flags(
    build: Callable[[Mapping[str, object]], tuple[dict[str, int], Groups]],
    groups: Groups,
    observations: Observations,
    skip: set[str],
    rows: list[list[Any]],
    fit_group: Callable[[tuple[str, int], Observations], list[object] | None],
    deadline: float,
) -> tuple[list[str], list[str]]:
    """``(checked, unlearned)`` flags of one class, appending the rows a learned flip adds.

    ``build(changes)`` builds the class with ``changes`` stated (it raises where the class
    rejects them) and returns the config's values and the tensors; ``groups`` is the class's
    default build; ``observations`` the primary's (their fields are moved again in the flipped
    regime); ``skip`` the flags not to flip (those the primary learned, runtime switches);
    ``rows`` the class's rows ``[name, count, dims, conditions, shape, count, toggled_only,
    pinned, refit]``; ``fit_group(key, observations)`` fits one group or returns None."""
    base_values = observations[0][1]
    checked: list[str] = []
    unlearned: list[str] = []
    for path, value in sorted(base_values.items()):
        if not isinstance(value, bool) or path in skip:
            continue
        if time.process_time() > deadline:
            break  # unchecked: the run-time refuses a config flipping it in this class
        flipped_value = not value
        try:
            values0, flipped = build({path: flipped_value})
        except Exception:  # the class does not build with the flag flipped
            unlearned.append(path)
            continue
        if values0.get(path) != flipped_value:
            checked.append(path)  # the class keeps its value: the flag is not its to flip
            continue
        if flipped == groups:
            checked.append(path)
            continue
        added_rows = _flipped_rows(
            build, path, flipped_value, flipped, groups, observations, fit_group
        )
        if added_rows is None:
            unlearned.append(path)
            continue
        dropped = _shape_set(groups) - _shape_set(flipped)
        for row in rows:
            if (str(row[0]), tuple(row[4])) in dropped:
                row[3] = [*row[3], [path, value]]
        rows.extend(added_rows)
        checked.append(path)
    return checked, unlearned


def _flipped_rows(
    build: Callable[[Mapping[str, object]], tuple[dict[str, int], Groups]],
    path: str,
    flipped_value: bool,
    flipped: Groups,
    groups: Groups,
    observations: Observations,
    fit_group: Callable[[tuple[str, int], Observations], list[object] | None],
) -> list[list[Any]] | None:
    """The rows of the tensors the flip adds, fitted in the flipped regime; None when a tensor
    it adds keeps no name and shape of the default's (a relayout) or no expression explains it."""
    base = _shape_set(groups)
    added = [key for key, (shape, _) in flipped.items() if (key[0], shape) not in base]
    if not added:
        return []
    if len({key[0] for key in added}) != len(added):
        return None  # one name in two new shapes: which is which across builds is unknown
    regime: Observations = [("", build({path: flipped_value})[0], flipped)]
    for field, values, _ in observations[1:]:
        try:
            moved, observed = build({path: flipped_value, field: values[field]})
        except Exception:  # this field does not build in the regime: nothing fits then
            return None
        regime.append((field, moved, observed))
    found: list[list[Any]] = []
    for key in added:
        shape, count = flipped[key]
        if not all(_single(observed, key[0]) for _, _, observed in regime):
            return None
        fitted = fit_group(key, regime)
        if fitted is None:
            return None
        found.append(
            [key[0], fitted[0], fitted[1], [[path, flipped_value]], list(shape), count, True, [],
             True]
        )  # fmt: skip
    return found


def _single(groups: Groups, name: str) -> bool:
    """Whether ``groups`` hold exactly one shape under ``name`` (ordinal 0)."""
    return [key for key in groups if key[0] == name] == [(name, 0)]


def skipped(base_values: Mapping[str, int], toggled: Sequence[str], inert: set[str]) -> set[str]:
    """The flags :func:`learn_class_flags` leaves alone: those the primary's flips learned
    (its rows carry them to the class) and runtime switches that shape nothing."""
    return set(toggled) | {path for path in base_values if path.rsplit(".", 1)[-1] in inert}
