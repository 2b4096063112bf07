"""Derived fields whose independence switches structure inside a flipped flag's regime.

A field the class derives when it is left out (wav2vec2's ``output_hidden_size``, which is
``hidden_size`` unless stated) is learned by moving it, and its tensors fitted. But inside the
regime of a flag the default leaves off, moving it away from its derivation can build tensors
that exist only while the two differ: with ``add_adapter`` on and ``output_hidden_size !=
hidden_size``, wav2vec2's adapter adds ``adapter.proj`` and ``adapter.proj_layer_norm``. The
flag's tensors are refitted from builds with the flag flipped
(:func:`~dimlint.tools.generate_shapes.refit_toggled`), which fit the shapes of the tensors
the flipped default built, never asking whether a move added others. A config stating the
field off its derivation in that regime was then counted without them, labelled exact.

:func:`relations` asks that question for every derived field a flag-only tensor reads: the
primary class is built with the flag flipped, once with the field derived and once with it
moved; where the tensor names differ, the row records ``relations``: ``[field, flag, value,
names]`` (the names that appeared or vanished). The run-time
(:mod:`dimlint.memory.parameters.templates`) then counts such a config only where the field
is stated at its derivation, and otherwise says which structure no template learned.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

#: ``(changes) → tensor names`` of the primary class built with those fields changed (raises
#: where the class rejects the config).
Names = Callable[[Mapping[str, object]], set[str]]
#: A fitted size expression: ``[[numerator, denominator, [[field, power], …]], …]``.
_Expression = list[list[Any]]


def _fields(expression: _Expression) -> set[str]:
    return {str(name) for _, _, factors in expression for name, _ in factors}


def candidates(row: Mapping[str, Any]) -> list[tuple[str, str, object]]:
    """``(field, flag, value)``: each derived field (``row["derived"]``) that a tensor read
    only under ``flag = value``, a value other than the flag's default, in any class."""
    derived = set(row.get("derived", {}))
    defaults: Mapping[str, object] = row.get("defaults", {})
    found: set[tuple[str, str, object]] = set()
    for record in row.get("classes", {}).values():
        for tensor in record.get("tensors", []):
            toggled = [
                (str(flag), wanted) for flag, wanted in tensor[3] if defaults.get(flag) != wanted
            ]
            if not toggled:
                continue
            read = _fields(tensor[1]).union(*(_fields(dim) for dim in tensor[2]))
            for field in sorted(read & derived):
                found.update((field, flag, wanted) for flag, wanted in toggled)
    return sorted(found, key=repr)


def relations(
    row: Mapping[str, Any],
    values: Callable[[Mapping[str, object]], Mapping[str, int]],
    names: Names,
    trials: Callable[[int], Iterator[int]],
) -> list[list[object]]:
    """The ``relations`` of ``row`` (see the module doc). ``values`` gives a changed config's
    numbers, ``names`` its primary class's tensor names, ``trials`` the values to move a
    field to; a regime or a move the class rejects says nothing."""
    found: list[list[object]] = []
    for field, flag, wanted in candidates(row):
        regime: dict[str, object] = {flag: wanted}
        try:
            base = names(regime)
            value = values(regime).get(field)
        except Exception:  # the flipped regime does not build: its tensors were never seen
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            continue
        for trial in trials(value):
            try:
                moved = names({**regime, field: trial})
            except Exception:  # this value does not build: try the next
                continue
            if moved != base:
                found.append([field, flag, wanted, sorted(moved ^ base)])
            break
    return found
