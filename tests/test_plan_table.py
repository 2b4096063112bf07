"""`plan`'s table at every size: refusals grouped by reason (one line per reason, the degrees it
refuses as ranges), and memory rows that say something new; the JSON keeps everything."""

from __future__ import annotations

import io
import json
import re

import pytest

from dimlint.cli import main
from tests.conftest import REPO

QWEN2 = str(REPO / "examples" / "qwen2-7b" / "config.json")


def run(*argv: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert main(list(argv), out, err) == 0, err.getvalue()
    return out.getvalue()


def _degrees(text: str) -> set[int]:
    found: set[int] = set()
    for part in text.split(", "):
        low, _, high = part.partition("–")
        found.update(range(int(low), int(high or low) + 1))
    return found


@pytest.mark.parametrize("max_gpus", [8, 32, 64])
def test_refusals_grouped_by_reason_cover_every_refused_degree(max_gpus: int) -> None:
    data = json.loads(run("plan", QWEN2, "--max-gpus", str(max_gpus), "--output-format", "json"))
    table = run("plan", QWEN2, "--max-gpus", str(max_gpus))
    engine = None
    listed: dict[tuple[str, str], set[int]] = {}
    reasons: dict[tuple[str, str], list[str]] = {}
    for line in table.splitlines():
        header = re.match(r"^(\w+) \(", line)
        if header and header.group(1) in data["engines"]:
            engine = header.group(1)
        refused = re.match(r"^    (tp|pp|ep) ([\d, –]+): (.+)$", line)
        if refused and engine:
            key = (engine, refused.group(1))
            listed.setdefault(key, set()).update(_degrees(refused.group(2)))
            reasons.setdefault(key, []).append(refused.group(3))
            assert not re.search(rf"\b{refused.group(1)} \d", refused.group(3)), line
    for name, entry in data["engines"].items():
        for kind in ("tp", "pp", "ep"):
            refused = set(range(1, max_gpus + 1)) - set(entry[kind])
            assert listed.get((name, kind), set()) == refused, (name, kind)
            found = reasons.get((name, kind), [])
            assert len(found) == len(set(found))  # one line per reason
    assert len(table.splitlines()) < 100  # 234 lines at 32 GPUs, 510 at 64, before grouping


def test_memory_rows_that_repeat_are_left_out_and_counted() -> None:
    data = json.loads(run("plan", QWEN2, "--max-gpus", "32", "--output-format", "json"))
    table = run("plan", QWEN2, "--max-gpus", "32")
    layouts = {
        (layout["tp"], layout["pp"]): layout
        for entry in data["engines"].values()
        for layout in entry["layouts"]
    }
    rows = re.findall(r"^\s+(\d+)\s+(\d+)\s+\d+\s+[\d.]+", table, re.M)
    shown = {(int(tp), int(pp)) for tp, pp in rows}
    left_out = set(layouts) - shown
    assert left_out
    assert f"({len(left_out)} layouts with more pipeline stages" in table
    for tp, pp in left_out:  # each has a row with the same tp, fewer GPUs and the same memory
        assert any(
            t == tp and p < pp and layouts[t, p]["memory"] == layouts[tp, pp]["memory"]
            for t, p in shown
        ), (tp, pp)
