"""What ``dimlint suggest`` must refuse (issue 25: mutants the suite let through).

The grid of ``test_suggest.py`` checks the candidates it is shown; a search that stopped
refusing warnings, shapes outside the tolerance or layouts with more GPUs than the budget would
still show good candidates first. These tests hand the search the one shape that must be refused
(and its passing twin as a control), and run the CLI where the refused ones would be printed.
"""

from __future__ import annotations

import io
import json
from typing import Any

from dimlint.cli import main
from dimlint.fix.suggest.families import Shape
from dimlint.fix.suggest.request import Request
from dimlint.fix.suggest.search import search

#: ``suggest --params 1B``'s first candidate (2048 × 16 layers, 32/4 heads × 64, ffn 5888).
ONE_B = Shape(2048, 16, 32, 4, 64, 5888, 128256, True)
REQUEST = Request(params=10**9)


def _suggest(*argv: str) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["suggest", *argv, "--output-format", "json"], out, err)
    return code, json.loads(out.getvalue())


def test_the_control_shape_passes() -> None:
    outcome = search(REQUEST, shapes=[ONE_B])
    assert [c.shape for c in outcome.candidates] == [ONE_B]
    assert outcome.refused == []


def test_a_warning_refuses_a_shape() -> None:
    shape = ONE_B._replace(ffn=5890)  # not a multiple of 8: DL201 at warning level
    outcome = search(REQUEST, shapes=[shape])
    assert outcome.candidates == []
    [refused] = outcome.refused
    assert ("DL201", "warning") in {(d.code, d.severity.name.lower()) for d in refused.findings}


def test_an_exact_count_outside_the_tolerance_refuses_a_shape() -> None:
    shape = ONE_B._replace(layers=15)  # 946,927,616 parameters: 5.3% under 1B
    outcome = search(REQUEST, shapes=[shape])
    assert outcome.candidates == []
    [refused] = outcome.refused
    assert abs(refused.total - REQUEST.params) > REQUEST.tolerance * REQUEST.params
    assert refused.findings == []  # refused for its count alone


def test_every_printed_candidate_is_within_the_tolerance() -> None:
    """With many candidates asked, the ones whose exact count misses would be printed last."""
    code, data = _suggest("--params", "1B", "--top", "40")
    assert code == 0
    tolerance, params = data["request"]["tolerance"], data["request"]["params"]
    assert len(data["candidates"]) > 10
    for candidate in data["candidates"]:
        assert abs(candidate["params"]["total"] - params) <= tolerance * params, candidate[
            "summary"
        ]
        assert abs(candidate["params"]["error"]) <= tolerance


def test_a_layout_with_more_gpus_than_the_budget_refuses_a_shape() -> None:
    request = REQUEST._replace(budget="2xH100-80GB", targets=("vllm:tp=8",))
    outcome = search(request, shapes=[ONE_B])
    assert outcome.candidates == []
    [refused] = outcome.refused
    [row] = refused.memory
    assert (row["tp"], row["fits"]) == (8, False)
    assert row["per_gpu_bytes"] < row["usable_bytes"]  # the memory fits: the GPU count does not
    with_four = search(
        REQUEST._replace(budget="8xH100-80GB", targets=("vllm:tp=8",)), shapes=[ONE_B]
    )
    assert [c.shape for c in with_four.candidates] == [ONE_B]


def test_cli_prints_no_candidate_for_tp_beyond_the_budget() -> None:
    code, data = _suggest("--params", "1B", "--budget", "2xH100-80GB", "--target", "vllm:tp=8")
    assert code == 1
    assert data["candidates"] == []
