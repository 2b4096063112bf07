"""The provenance check of generated tables fails for each thing that makes a table stale."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from dimlint.tools import provenance

GENERATOR = ("tools/shape_fit.py",)


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "shapes.json"
    path.write_text('{"transformers_version": "9.9.9", "model_types": {}}\n')
    provenance.record(path, "9.9.9", GENERATOR)
    return path


def test_a_fresh_record_matches(table: Path) -> None:
    assert provenance.stale(table, "9.9.9") == []
    assert provenance.stale(table) == []  # transformers not installed: the version is not read


def test_a_hand_edit_of_the_table(table: Path) -> None:
    table.write_text(table.read_text().replace("{}", '{"deit": {}}'))
    assert provenance.stale(table, "9.9.9") == [
        "shapes.json was changed without its generator (its hash differs)"
    ]


def test_another_transformers(table: Path) -> None:
    assert provenance.stale(table, "9.9.10") == [
        "shapes.json was learned from transformers 9.9.9, 9.9.10 is installed"
    ]


def test_a_change_to_the_generator_code(table: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = table.parent / "package"
    (package / "tools").mkdir(parents=True)
    shutil.copyfile(provenance.PACKAGE / GENERATOR[0], package / GENERATOR[0])
    monkeypatch.setattr(provenance, "PACKAGE", package)
    assert provenance.stale(table, "9.9.9") == []
    source = package / GENERATOR[0]
    # a comment and a docstring are not code: no regeneration called for
    text = source.read_text()
    source.write_text(text.replace('"""', '"""Reworded. ', 1) + "\n# a comment\n")
    assert provenance.stale(table, "9.9.9") == []
    source.write_text(text + "\n\ndef _added() -> int:\n    return 1\n")
    assert provenance.stale(table, "9.9.9") == [
        "the code of tools/shape_fit.py changed since shapes.json was generated"
    ]


def test_a_missing_record(table: Path) -> None:
    provenance.provenance_path(table).unlink()
    assert provenance.stale(table) == ["shapes.provenance.json is missing: regenerate shapes.json"]


def test_the_record_names_its_inputs(table: Path) -> None:
    recorded = json.loads(provenance.provenance_path(table).read_text())
    assert recorded["table"] == "shapes.json"
    assert recorded["generator"] == list(GENERATOR)
    assert recorded["table_sha256"] == provenance.file_hash(table)
