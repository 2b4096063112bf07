"""Parameter counts of released configs against the models transformers builds from them.

Each config of ``tests/data/released_configs`` is built on the meta device (no memory) as the
class its ``architectures`` names, through ``AutoConfig.for_model(model_type, **config)`` as
``from_pretrained`` reads a config.json, and ``sum(p.numel() for p in model.parameters())``
(tied weights once) is compared with ``mem``'s count and its ``exact`` label. Used by
``tests/test_released_ground_truth.py`` and runnable alone for the per-type table:
``python tests/released_ground_truth.py [HALF]`` (no argument: every half). ``unseen`` holds
configs gathered after the tuning stopped and never measured until the closing report;
``unseen2`` a second such half, gathered after ``unseen`` had been looked at (so that one half
stays unmeasured while the other guides fixes); ``unseen3`` a third, gathered after ``unseen2``
had been measured (see ``released_configs/UNSEEN3.md``); and ``unseen4`` a fourth, gathered at
stop 34 after the others had guided fixes (``released_configs/UNSEEN4.md``); and ``unseen5`` a
fifth, gathered at stop 35 while ``unseen4``'s misses were being fixed, committed before anything
measured it (``released_configs/UNSEEN5.md``); and ``unseen6`` a sixth, gathered at stop 36
while the hand recipes were being retired, committed before anything measured it
(``released_configs/UNSEEN6.md``); and ``unseen7`` a seventh, gathered at the end of stop 36
after every fix of that stop was committed (``released_configs/UNSEEN7.md``); and ``unseen8`` an
eighth, gathered at the start of stop 37 and committed before anything measured it
(``released_configs/UNSEEN8.md``); and ``unseen9`` a ninth, gathered at the start of stop 38
and committed before anything measured it (``released_configs/UNSEEN9.md``); and ``unseen10``
a tenth, gathered after ``unseen9`` as a probe to tune on while ``unseen9`` stays unmeasured
(``released_configs/UNSEEN10.md``); and ``unseen11`` an eleventh, gathered at the start of stop
39 and committed before anything measured it (``released_configs/UNSEEN11.md``); and ``unseen12``
a twelfth, gathered after ``unseen11`` had been measured and its misses fixed, committed before
anything measured it (``released_configs/UNSEEN12.md``); and ``unseen13`` a thirteenth, gathered
at the start of stop 40 and committed before anything measured it
(``released_configs/UNSEEN13.md``); and ``unseen14`` a fourteenth, gathered at the start of stop
41 with the per-type cap raised to 8 (``released_configs/UNSEEN14.md``); and ``unseen15`` a
fifteenth, gathered after ``unseen14`` had been measured (``released_configs/UNSEEN15.md``); and
``unseen16`` a
sixteenth, gathered after ``unseen15`` with types beyond BERT/GPT-2/Llama preferred, committed
before anything measured it (``released_configs/UNSEEN16.md``). The test suite measures only
``tune`` and ``held_out``.
"""

from __future__ import annotations

import csv
import json
import signal
import sys
import warnings
from collections import defaultdict
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent / "data" / "released_configs"
#: Seconds one config may take to build on the meta device (the largest take about two).
LIMIT_S = 60


class Outcome(NamedTuple):
    """One config: what transformers built (or why not) and what mem said."""

    file: str
    model_type: str
    truth: int | None  # None: transformers does not build it (``why``)
    ours: int | None
    exact: bool
    why: str

    @property
    def status(self) -> str:
        if self.truth is None:
            return "unbuilt"
        if self.ours is None:
            return "uncounted"
        right = self.ours == self.truth
        if self.exact:
            return "exact" if right else "FALSE-EXACT"
        return "estimate-right" if right else "estimate"


#: The halves ``SOURCES.tsv`` may name (see the module docstring).
HALVES = (
    "tune", "held_out", "unseen", "unseen2", "unseen3", "unseen4", "unseen5", "unseen6", "unseen7",
    "unseen8", "unseen9", "unseen10", "unseen11", "unseen12", "unseen13", "unseen14", "unseen15",
    "unseen16",
)  # fmt: skip


def sources(half: str | None = None) -> list[dict[str, str]]:
    # a misspelt half would otherwise read as an empty population and a table of nothing
    if half is not None and half not in HALVES:
        raise ValueError(f"unknown half {half!r}: one of {', '.join(HALVES)}")
    with open(ROOT / "SOURCES.tsv", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [row for row in rows if half is None or row["half"] == half]


class _OverTime(Exception):
    pass


def _expire(signum: int, frame: object) -> None:
    raise _OverTime


def transformers_count(raw: dict[str, Any]) -> tuple[int | None, str]:
    """(parameters of the model transformers builds, "") or (None, why it does not)."""
    import torch
    import transformers

    from dimlint.memory.parameters import templates

    names = raw.get("architectures")
    model_type = raw.get("model_type")
    if not isinstance(model_type, str):
        return None, "no model_type"
    if not isinstance(names, list) or not names:
        # no architectures: mem counts the class the templates were learned from
        learned = templates.row(model_type)
        names = [learned["primary"]] if learned and learned.get("primary") else []
    if not names:
        return None, f"no architectures and no class learned for {model_type}"
    model_class = getattr(transformers, str(names[0]), None)
    if model_class is None:
        return None, f"{names[0]} is not a class of transformers {transformers.__version__}"
    kwargs = {key: value for key, value in raw.items() if key != "model_type"}
    previous = signal.signal(signal.SIGALRM, _expire)
    signal.alarm(LIMIT_S)
    try:
        config = transformers.AutoConfig.for_model(model_type, **kwargs)
        with torch.device("meta"):
            model = model_class(config)
        return sum(int(p.numel()) for p in model.parameters()), ""
    except _OverTime:
        return None, f"over {LIMIT_S}s"
    except Exception as error:  # transformers refuses it: not a ground truth
        return None, f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def dimlint_count(raw: dict[str, Any]) -> tuple[int | None, bool, str]:
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters

    try:
        counted = model_parameters(specs_for_document("config.json", raw))
    except Exception as error:  # reported as uncounted, never hidden
        return None, False, f"{type(error).__name__}: {error}"
    return counted.total, counted.exact, "; ".join(counted.notes)


def compared(raw: dict[str, Any]) -> tuple[int, int | None, bool]:
    """``(transformers' count, dimlint's count, its exact label)`` for one config built on the
    meta device, as the tests compare them; skipped where torch or transformers is absent."""
    import pytest

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    expected, why = transformers_count(raw)
    assert expected is not None, why
    ours, exact, _ = dimlint_count(raw)
    return expected, ours, exact


def outcome(row: dict[str, str]) -> Outcome:
    with open(ROOT / row["file"], encoding="utf-8") as handle:
        raw = json.load(handle)
    truth, why = transformers_count(raw)
    ours, exact, notes = dimlint_count(raw)
    return Outcome(row["file"], str(raw.get("model_type")), truth, ours, exact, why or notes)


def outcomes(half: str | None = None) -> list[Outcome]:
    import transformers

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [outcome(row) for row in sources(half)]


def table(results: list[Outcome]) -> str:
    """Per model type: configs, built, exact, false exacts, estimates (right/wrong), unbuilt."""
    by_type: dict[str, list[Outcome]] = defaultdict(list)
    for result in results:
        by_type[result.model_type].append(result)
    lines = ["| model type | configs | built | exact | false exact | estimate | unbuilt |"]
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    for name in sorted(by_type):
        group = by_type[name]
        status = [r.status for r in group]
        built = sum(s != "unbuilt" for s in status)
        estimates = sum(s in ("estimate", "estimate-right", "uncounted") for s in status)
        lines.append(
            f"| {name} | {len(group)} | {built} | {status.count('exact')} |"
            f" {status.count('FALSE-EXACT')} | {estimates} | {status.count('unbuilt')} |"
        )
    return "\n".join(lines)


def summary(results: list[Outcome]) -> str:
    built = [r for r in results if r.status != "unbuilt"]
    exact = sum(r.status == "exact" for r in built)
    false = sum(r.status == "FALSE-EXACT" for r in built)
    types = len({r.model_type for r in results})
    share = exact / len(built) if built else 0.0
    return (
        f"{len(results)} configs of {types} model types; {len(built)} built by transformers;"
        f" exact {exact}/{len(built)} ({share:.1%}); false exact {false}"
    )


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    chosen = sys.argv[1] if len(sys.argv) > 1 else None
    found = outcomes(chosen)
    for result in found:
        if result.status not in ("exact", "unbuilt"):
            delta = f"{(result.ours or 0) / result.truth - 1:+.2%}" if result.truth else "n/a"
            print(f"{result.status:14} {result.file} {result.truth} {result.ours} {delta} "
                  f"{result.why[:150]}")  # fmt: skip
    print(table(found))
    print(summary(found))
