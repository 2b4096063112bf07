"""Regimes that only exist where other switches are on, and their combinations.

The shape generator (:mod:`dimlint.tools.generate_shapes`) learns a model type around its
default config and flips one field at a time. Several interdependent fields of released configs
matter only together: DeBERTa-v2's ``position_buckets`` sizes the relative embeddings only
where ``relative_attention`` is on, which the default config has off, so probing it at the
default (:func:`generate_shapes._switches_on`) sees nothing and the embeddings stay pinned at
the default's ``-1``; and DeBERTa-v3 states ``position_buckets = 256`` together with
``norm_rel_ebd = "layer_norm"``, two regimes a one-deep variant table learns apart but never
together. So:

- :func:`sentinels_in_flipped`: a field at a negative default ("unset") is also probed in the
  regime of each flag whose flip changed the tensors (the flag flipped, the field positive):
  one that moves a tensor there is a regime (``path > 0``) learned as a variant, in which the
  flag is flipped and refitted as at the default (its tensors then read the field);
- :func:`nests`: variants are learned within variants, each combination of regimes once, in
  one canonical order (a variant learns the regimes of fields that sort after every field it
  states), so that a config stating several regimes finds the row learned with all of them
  (the run-time follows the deepest path, ``templates._deepest``). The number of variant rows
  per type stays bounded (``generate_shapes._MAX_VARIANTS``, the single regimes first) and a
  CPU deadline stops combining.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: ``(values, groups)`` of a build with some fields changed (raises where the class rejects).
Build = Callable[[Mapping[str, object]], tuple[dict[str, Any], Any]]


def sentinels_in_flipped(
    base_values: Mapping[str, int],
    toggled: Mapping[str, object],
    skip: set[str],
    build: Build,
    probe: int,
) -> dict[str, int]:
    """Fields at a negative default, not in ``skip``, that stated at ``probe`` change the
    tensors with some flag of ``toggled`` (flag → its flipped value) flipped, each at
    ``probe``."""
    found: dict[str, int] = {}
    regimes: dict[str, tuple[dict[str, Any], Any] | None] = {}
    for path, value in sorted(base_values.items()):
        if isinstance(value, bool) or value >= 0 or path in skip:
            continue
        for flag, flipped in sorted(toggled.items()):
            if flag not in regimes:
                try:
                    regimes[flag] = build({flag: flipped})
                except Exception:  # the flipped flag does not build: no regime to probe
                    regimes[flag] = None
            regime = regimes[flag]
            if regime is None:
                continue
            try:
                values, groups = build({flag: flipped, path: probe})
            except Exception:  # a positive value does not build in the regime
                continue
            if values.get(path) == probe and groups != regime[1]:
                found[path] = probe
                break
    return found


def nests(path: str, held: Mapping[str, object]) -> bool:
    """Whether a variant stating ``held`` learns the regime of ``path`` within itself: each
    combination of regimes is learned once, along the path that states them in sorted order."""
    return path not in held and all(path > other for other in held)


#: Builds spent judging string values in flipped regimes per model type, at most: past it a
#: value not judged there is outside.
REGIME_STRING_BUILDS = 120


def alike_in_flipped(
    path: str,
    literal: str,
    moved: Mapping[str, object],
    toggled: Mapping[str, object],
    build: Build,
    spent: list[int],
) -> bool:
    """Whether a string value that keeps the default's tensors (or only moves the learned
    fields ``moved``) does so in the regime of every flag of ``toggled`` too: stated with the
    flag flipped it builds what the flag flipped with ``moved`` stated builds. DeBERTa's
    ``pos_att_type = "c2p"`` changes nothing where ``relative_attention`` is off (the
    default) and adds a position key projection where it is on. ``spent`` counts the builds
    (one per regime, :data:`REGIME_STRING_BUILDS` at most); a value the budget leaves
    unjudged, or one a regime rejects, is not alike."""
    for flag, flipped in sorted(toggled.items()):
        if flag == path or flag in moved:
            continue
        if spent[0] >= REGIME_STRING_BUILDS:
            return False
        spent[0] += 1
        try:
            _, stated = build({flag: flipped, path: literal})
            _, reference = build({flag: flipped, **moved})
        except Exception:  # rejected in the regime: not shown alike
            return False
        if stated != reference:
            return False
    return True


def joined(
    path: str,
    literals: list[str],
    build: Build,
    splits: Callable[[str], bool],
) -> str | None:
    """The value stating every literal of ``literals`` at once (``"c2p|p2c"``, sorted), where
    the class splits a string of ``|``-joined values into a list (``splits(value)``: DeBERTa's
    ``pos_att_type``) and the two orders build the same tensors (the code asks which values the
    list holds, not where): released configs state the set (``["p2c", "c2p"]``,
    ``"p2c|c2p"``), never one literal, and the run-time reads a stated list or joined string
    in this form (:func:`dimlint.memory.parameters.split_strings.normalized`). None otherwise."""
    if len(literals) < 2:
        return None
    forward = "|".join(sorted(literals))
    backward = "|".join(sorted(literals, reverse=True))
    try:
        if not splits(forward):
            return None
        if build({path: forward})[1] != build({path: backward})[1]:
            return None
    except Exception:  # the class rejects the joined value
        return None
    return forward


def flags_in_flipped(
    base_values: Mapping[str, int],
    toggled: Mapping[str, tuple[object, Any]],
    skip: set[str],
    build: Build,
) -> tuple[dict[str, list[tuple[str, object, set[tuple[str, tuple[int, ...]]]]]], set[str]]:
    """Flags inert at the default that change the tensors in the regime of another flag:
    DeBERTa-v2's ``share_att_key`` drops the position key and query projections, which exist
    only where ``relative_attention`` is on. Each flag of ``base_values`` not in ``toggled``
    (flag → its flipped value and that build's tensors) nor ``skip`` is flipped in each
    regime: ``(drops, unexplained)``, where ``drops`` maps a flag to ``(regime flag, its
    flipped value, the (name, shape) tensors the flip drops there)`` and ``unexplained``
    holds the flags whose flip in a regime adds tensors, or does not build (the caller keeps
    those at their default: ``fixed``)."""
    drops: dict[str, list[tuple[str, object, set[tuple[str, tuple[int, ...]]]]]] = {}
    unexplained: set[str] = set()
    for path, value in sorted(base_values.items()):
        if not isinstance(value, bool) or path in toggled or path in skip:
            continue
        for flag, (flipped, regime) in sorted(toggled.items()):
            try:
                values, groups = build({flag: flipped, path: not value})
            except Exception:  # does not build in the regime: unknown there
                unexplained.add(path)
                break
            if values.get(path) != (not value) or groups == regime:
                continue
            before = {(name, shape) for (name, _), (shape, _) in regime.items()}
            after = {(name, shape) for (name, _), (shape, _) in groups.items()}
            if after - before:
                unexplained.add(path)
                break
            drops.setdefault(path, []).append((flag, flipped, before - after))
    for path in unexplained:
        drops.pop(path, None)
    return drops, unexplained
