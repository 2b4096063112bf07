"""Issue 23's "done when": on ten public targets, #1 is a shape an architect would ship.

The requests and the measurements are :mod:`bench.suggest_released`'s (the same code prints
the table in ``bench/results-suggest.md``). The released models compared with are rows of the
released-shape table generated from the shared corpus, read at run time: nothing here writes
down a shape. For every target, #1 must be accepted by every requested engine at every
requested degree, have per-GPU widths aligned (≥ 128, or as aligned as the released model),
need no more KV bytes per GPU than the released model and be within ±3% of the request; the
released model's own shape must rank in the top 3 whenever it satisfies the request.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.suggest_released import TARGETS, evaluate  # noqa: E402


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    return {target[0]: evaluate(*target) for target in TARGETS}


@pytest.mark.parametrize("label", [t[0] for t in TARGETS])
def test_first_is_shippable(rows: dict[str, dict[str, Any]], label: str) -> None:
    row = rows[label]
    assert row["exit"] == 0, row
    assert row["engines_ok"], row
    assert row["aligned"], row
    assert row["kv_ok"], row
    assert row["params_ok"], row


@pytest.mark.parametrize("label", [t[0] for t in TARGETS])
def test_released_shape_in_top_3(rows: dict[str, dict[str, Any]], label: str) -> None:
    row = rows[label]
    assert row["top3_ok"], row
