"""What a user notices, through the CLI (issue 11, item 3)."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main
from dimlint.report.github import step_summary
from tests.conftest import REPO

BROKEN = str(REPO / "examples" / "broken-llama" / "config.json")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def findings(*argv: str) -> list[dict[str, Any]]:
    _, out, _ = run("check", *argv, "--no-config", "--output-format", "json")
    result: list[dict[str, Any]] = json.loads(out)
    return result


@pytest.mark.parametrize("output_format", ["concise", "github", "sarif", "junit"])
def test_every_format_names_the_chosen_fix(output_format: str) -> None:
    chosen = {d["fix"]["message"] for d in findings(BROKEN) if d["code"] == "DL101"}
    assert len(chosen) == 1
    _, out, _ = run("check", BROKEN, "--no-config", "--output-format", output_format)
    expected = next(iter(chosen))
    if output_format == "github":
        expected = expected.replace("%", "%25")  # workflow-command escaping
    assert expected in out


def test_verbose_says_why_json_files_were_skipped(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text('{"model": {"type": "BPE"}}')
    (tmp_path / "package.json").write_text('{"name": "x"}')
    (tmp_path / "config.json").write_text(Path(BROKEN).read_text())
    _, _, err = run("check", str(tmp_path), "--no-config", "--verbose")
    assert f"skipped {tmp_path / 'tokenizer.json'}: a tokenizer file" in err
    assert f"skipped {tmp_path / 'package.json'}: package.json is never a model config" in err
    _, _, quiet = run("check", str(tmp_path), "--no-config")
    assert "skipped" not in quiet


def test_a_symlinked_second_name_is_checked_once(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text(Path(BROKEN).read_text())
    os.symlink("model/config.json", tmp_path / "alias.json")
    paths = {d["file"] for d in findings(str(tmp_path))}
    assert paths == {str(model / "config.json")}
    _, _, err = run("check", str(tmp_path), "--no-config", "--verbose")
    assert "alias.json: a symlink to" in err


def test_the_same_file_named_twice_is_checked_once() -> None:
    once = findings(BROKEN)
    assert findings(BROKEN, BROKEN) == once


@pytest.mark.parametrize("depth", [3, 62, 63, 64, 65, 200])
def test_duplicate_keys_are_found_at_any_depth(tmp_path: Path, depth: int) -> None:
    nested = '{"a": ' * depth + '{"k": 1, "k": 2}' + "}" * depth
    text = '{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "x": '
    text += nested + "}"
    path = tmp_path / "config.json"
    path.write_text(text)
    (duplicate,) = [d for d in findings(str(path)) if d["code"] == "DL002"]
    assert duplicate["pointer"] == "/x" + "/a" * depth + "/k"
    offset = text.index('"k": 1')  # the earlier key, computed from the planted text
    assert (duplicate["line"], duplicate["column"]) == (1, offset + 1)
    code, _, _ = run("check", str(path), "--no-config", "--fix", "--select", "DL002")
    assert code == 0
    assert json.loads(path.read_text()) == json.loads(text)  # the kept value is the last one
    assert '"k": 1' not in path.read_text()


LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32}


def test_dl004_reports_a_misspelt_leftover_beside_the_real_key(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA, "num_hidden_layers": 32, "num_hiden_layers": 40}))
    (finding,) = [d for d in findings(str(path)) if d["code"] == "DL004"]
    assert finding["pointer"] == "/num_hiden_layers"
    assert "which is also set" in finding["message"]
    assert finding["fix"] is None  # which value was meant is the author's call


def test_dl004_keeps_two_real_keys_apart(tmp_path: Path) -> None:
    """``model_dtype`` beside ``model_type`` is a real key (VILA), not a misspelt leftover."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**LLAMA, "model_dtype": "torch.float16"}))
    assert [d for d in findings(str(path)) if d["code"] == "DL004"] == []


def test_dl004_names_look_alike_characters(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    key = "hidden_siz\u0435"  # a Cyrillic small letter ie for the final e
    path.write_text(json.dumps({"model_type": "llama", key: 4096, "num_attention_heads": 32}))
    (finding,) = [d for d in findings(str(path)) if d["code"] == "DL004"]
    assert "U+0435 CYRILLIC SMALL LETTER IE where it has 'e'" in finding["message"]
    assert "shape" not in finding["fix"]["message"]
    _, out, _ = run("check", str(path), "--no-config")
    assert "these change shapes or which key takes effect" in out


def test_a_fix_that_cannot_be_written_is_not_counted_fixable(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    text = json.dumps({**LLAMA, "hidden_size": 4096.0}, indent=2)
    path.write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    (finding,) = [d for d in findings(str(path)) if d["code"] == "DL003"]
    assert finding["fix"]["applicability"] == "display"
    assert "UTF-16" in finding["fix"]["message"]
    _, out, _ = run("check", str(path), "--no-config")
    assert "fixable" not in out


def test_python_syntax_error_sits_where_its_message_says(tmp_path: Path) -> None:
    source = "import torch\n\nclass Config:\n    hidden_size = 4096\n\n" + "\n" * 8
    source += "x = foo(1, 2, 3, 4, 5, 6 +\n"
    path = tmp_path / "model.py"
    path.write_text(source)
    (finding,) = findings(str(path))
    assert finding["code"] == "DL001"
    assert finding["message"] == "invalid Python: '(' was never closed"
    line = source.splitlines().index("x = foo(1, 2, 3, 4, 5, 6 +") + 1
    assert (finding["line"], finding["column"]) == (
        line,
        source.splitlines()[line - 1].index("(") + 1,
    )


def test_step_summary_counts_in_plain_english() -> None:
    from dimlint.diagnostics import Diagnostic, Severity

    def finding(severity: Severity) -> Diagnostic:
        return Diagnostic("DL101", severity, "m", "config.json", None, None, None)

    assert "1 finding: 1 error." in step_summary([finding(Severity.ERROR)])
    many = [finding(Severity.ERROR)] * 5 + [finding(Severity.WARNING)]
    assert "6 findings: 5 errors, 1 warning." in step_summary(many)
