"""Baselines: adopt dimlint on an existing corpus, then see only what is new."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from dimlint.cli import main
from tests.conftest import shared_path


def check(*argv: str) -> tuple[int, list[dict[str, object]]]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", *argv, "--output-format", "json"], out, err)
    findings: list[dict[str, object]] = json.loads(out.getvalue())
    return code, findings


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    copy = tmp_path / "configs"
    shutil.copytree(shared_path("corpus", "configs"), copy)
    return copy


def _plant_kv_heads(corpus: Path) -> Path:
    """Set num_key_value_heads 8 → 6 in a 32-head config: exactly one new finding (DL102)."""
    for path in sorted(corpus.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        if '"num_attention_heads": 32,' in text and '"num_key_value_heads": 8,' in text:
            path.write_text(text.replace('"num_key_value_heads": 8,', '"num_key_value_heads": 6,'))
            return path
    raise AssertionError("no 32-head, 8-KV-head config in the corpus")


def _shift_lines(corpus: Path, avoid: Path) -> Path:
    """Insert blank lines at the top of a file with findings: no finding may look new."""
    for path in sorted(corpus.glob("*.json")):
        _, findings = check(str(path), "--no-config")
        if path != avoid and findings:
            text = path.read_text(encoding="utf-8")
            path.write_text("\n\n\n" + text, encoding="utf-8")
            return path
    raise AssertionError("no file with findings")


def test_baseline_reports_only_the_planted_defect(corpus: Path) -> None:
    baseline = corpus.parent / "dimlint-baseline.json"
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(corpus), "--write-baseline", str(baseline)], out, err) == 0
    recorded = json.loads(baseline.read_text())["findings"]
    assert len(recorded) > 100

    code, findings = check(str(corpus), "--baseline", str(baseline))
    assert (code, findings) == (0, [])

    planted = _plant_kv_heads(corpus)
    _shift_lines(corpus, avoid=planted)
    code, findings = check(str(corpus), "--baseline", str(baseline))
    assert code == 1
    assert [(f["code"], Path(str(f["file"])).name) for f in findings] == [("DL102", planted.name)]


def test_baseline_counts_identical_findings(tmp_path: Path) -> None:
    config = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}
    config |= {"num_hidden_layers": 2, "vocab_size": 50257}
    first = tmp_path / "a" / "config.json"
    first.parent.mkdir()
    first.write_text(json.dumps(config))
    baseline = tmp_path / "baseline.json"
    assert main(["check", str(tmp_path), "--write-baseline", str(baseline)]) == 0
    second = tmp_path / "b" / "config.json"
    second.parent.mkdir()
    second.write_text(json.dumps(config))
    _, findings = check(str(tmp_path), "--baseline", str(baseline))
    assert [Path(str(f["file"])).parent.name for f in findings] == ["b"]


def test_unreadable_baseline_is_a_usage_error(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    missing = str(tmp_path / "nope.json")
    assert main(["check", "examples", "--baseline", missing], out, err) == 2
    assert "cannot read baseline" in err.getvalue()
