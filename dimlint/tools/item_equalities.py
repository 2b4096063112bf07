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
    unprobed: list[list[str]] | None = None,
) -> list[list[str]]:
    """``[item, other]`` pairs, unequal in ``numbers``, where the item stated at the other's
    value builds other tensor names than ``base`` (a tensor dropped or added, not only resized
    or repeated). ``numbers`` are the config's integer fields by path (items as ``depths[2]``);
    ``skip`` leaves out fields no tensor follows (ids, switches). The cheapest probes go first
    (an item moved least above its own value: a ResNet stage's depth at a width of 2048 builds
    2048 blocks); past the ``deadline`` the pairs not probed are added to ``unprobed``, whose
    equality the run-time refuses too (a partial answer must not read as "none")."""
    names = _names(base)
    probes = _probes(numbers, skip)
    pairs: list[list[str]] = []
    for item, target in sorted(probes, key=lambda key: (_growth(numbers[key[0]], key[1]), key)):
        others = probes[item, target]
        if time.process_time() > deadline:
            if unprobed is not None:
                unprobed.extend([item, other] for other in others)
            continue
        try:
            moved = _names(build({item: target})) != names
        except Exception:  # the class refuses the value: no build to compare
            moved = False
        if moved:
            pairs.extend([item, other] for other in others)
    if unprobed is not None:
        unprobed.sort()
    return sorted(pairs)


def count(numbers: Mapping[str, int], skip: Callable[[str], bool]) -> int:
    """How many builds :func:`found` makes at most: per item, one per distinct other value."""
    return len(_probes(numbers, skip))


def _probes(
    numbers: Mapping[str, int], skip: Callable[[str], bool]
) -> dict[tuple[str, int], list[str]]:
    """``(item, value) → the other fields at that value``: one build per item and value
    (fields of one value are one build, and one answer)."""
    probes: dict[tuple[str, int], list[str]] = {}
    for item, value in numbers.items():
        if item_of(item) is None or skip(item):
            continue
        for other, target in numbers.items():
            if other != item and not skip(other) and target > 0 and target != value:
                probes.setdefault((item, target), []).append(other)
    return probes


def _growth(value: int, target: int) -> float:
    """How much larger the item becomes (a build's cost grows with it); 1 where it shrinks."""
    return max(1.0, target / value) if value > 0 else float(target)
