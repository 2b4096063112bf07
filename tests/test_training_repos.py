"""Config files of training repositories dimlint was not written for (issue 20), kept with their
sources in ``tests/data/training_repos/SOURCES.tsv``: each dialect is read (a config per file),
no false error, and the two real defects found where they are written."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from dimlint.cli import main

DATA = Path(__file__).parent / "data" / "training_repos"
#: The defects these files really have: (file, code, line).
REAL = {
    # 40 layers and 36 heads for pythia-12b's 36 and 40: 5120 / 36 is no head width
    ("pythia__pythia-12b-deduped.yml", "DL101", 8),
    # 24 layers over 16 pipeline stages: Megatron asserts num_layers % pp == 0
    ("Megatron-LM__train_bert_340m_distributed.sh", "DL405", 28),
}


def _run(*extra: str) -> tuple[list[dict[str, object]], str]:
    out, err = io.StringIO(), io.StringIO()
    main(["check", str(DATA), "--output-format", "json", "--no-config", *extra], out, err)
    return json.loads(out.getvalue()), err.getvalue()


def test_every_file_has_its_source() -> None:
    with (DATA / "SOURCES.tsv").open(encoding="utf-8") as handle:
        listed = {row["file"] for row in csv.DictReader(handle, delimiter="\t")}
    assert listed == {p.name for p in DATA.iterdir() if p.name != "SOURCES.tsv"}


def test_each_file_is_read_and_only_real_defects_are_errors() -> None:
    findings, err = _run("--verbose")
    errors = {
        (Path(str(f["file"])).name, f["code"], f["line"])
        for f in findings
        if f["severity"] == "error"
    }
    assert errors == REAL
    for path in DATA.iterdir():
        if path.name != "SOURCES.tsv":
            assert f"{path.name}: read 1 config" in err, path.name


def test_the_swap_is_undone_by_its_fix() -> None:
    findings, _ = _run()
    (swap,) = [f for f in findings if f["code"] == "DL101"]
    fix = swap["fix"]
    assert isinstance(fix, dict)
    assert "look swapped" in str(fix["message"])
