"""A flag whose flip repeats a tensor another number of times (issue 19: no false exact).

BridgeTower's ``vision_config.remove_last_layer`` keeps every tensor name and shape and drops
one layer's tensors: the rows the generator writes condition a tensor on a flag only where the
flipped build lacks or adds it, so nothing said the count moved, the row read the flag as
inert and a config flipping it was counted exact at the default's size. Such a flag is now
``fixed`` (outside the template)."""

from __future__ import annotations

from dimlint.tools import generate_shapes

_LAYER = ("layers.*.weight", 0)


def _learned(count_when_flipped: int) -> generate_shapes._Learned:
    learned = generate_shapes._Learned({"layers": 4, "drop_last": False}, {_LAYER: ((8,), 4)})
    learned.toggled["drop_last"] = (True, {_LAYER: ((8,), count_when_flipped)})
    return learned


def test_a_flag_that_changes_a_count_only_is_fixed() -> None:
    learned = _learned(3)
    rows, _ = generate_shapes._primary_rows({_LAYER: ((8,), 4)}, learned, frozenset(), {})
    assert "drop_last" in learned.fixed
    assert all(not row[3] for row in rows)  # no condition could have said it


def test_a_flag_that_keeps_every_count_is_not_fixed() -> None:
    learned = _learned(4)
    generate_shapes._primary_rows({_LAYER: ((8,), 4)}, learned, frozenset(), {})
    assert "drop_last" not in learned.fixed
