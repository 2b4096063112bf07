"""Stage widths that build other tensors where they equal another number.

A ResNet stage adds a projection shortcut where its input width differs from its output width
(``in_channels != out_channels``): the first stage of ResNet-50 (64 in, 256 out) has one; the
first stage of ResNet-18 (``embedding_size`` 64, ``hidden_sizes[0]`` 64) has none. The code
compares two arguments, not two config fields, so :mod:`compared_strings` never sees the pair;
and the item trials (multiples and halves of 256) never reach 64. The basic-layer variant,
learned at the default widths, counted the first stage's shortcut in a released ResNet-18: a
false exact.

:func:`found` probes each list item at the value of each other number of the config (one build
per pair, within a CPU deadline): where the item at that value drops or adds a tensor, the two
must stay unequal for the row's tensors to hold. The run-time refuses a config stating them
equal (``unequal``, a row's key), which then counts as an estimate.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from dimlint.memory.parameters.list_items import split as item_of

#: ``changes -> tensor groups`` (``{(name, ordinal): (shape, count)}``) of one build.
Build = Callable[[Mapping[str, object]], Mapping[tuple[str, int], tuple[tuple[int, ...], int]]]


def _names(groups: Mapping[tuple[str, int], tuple[tuple[int, ...], int]]) -> set[str]:
    """The tensor names a build holds: a stage's depth moves their counts, not their names."""
    return {name for name, _ in groups}


def found(
    numbers: Mapping[str, int],
    base: Mapping[tuple[str, int], tuple[tuple[int, ...], int]],
    build: Build,
    skip: Callable[[str], bool],
    deadline: float,
) -> list[list[str]]:
    """``[item, other]`` pairs, unequal in ``numbers``, where the item stated at the other's
    value builds other tensor names than ``base`` (a tensor dropped or added, not only resized
    or repeated). ``numbers`` are the config's integer fields by path (items as ``depths[2]``);
    ``skip`` leaves out fields no tensor follows (ids, switches)."""
    names = _names(base)
    pairs: list[list[str]] = []
    for item, value in sorted(numbers.items()):
        if item_of(item) is None or skip(item):
            continue
        # by value: fields of one value are one build, and one answer
        moves: dict[int, bool] = {}
        for other, target in sorted(numbers.items()):
            if other == item or skip(other) or target <= 0 or target == value:
                continue
            if target not in moves:
                if time.process_time() > deadline:
                    return pairs
                try:
                    moves[target] = _names(build({item: target})) != names
                except Exception:  # the class refuses the value: no build to compare
                    moves[target] = False
            if moves[target]:
                pairs.append([item, other])
    return pairs
