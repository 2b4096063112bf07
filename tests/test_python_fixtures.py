"""Planted defects in Python model code, one fixture per style, found exactly and fixed exactly.

Each file of ``tests/python_fixtures/`` is model code in one of the styles dimlint reads (nanoGPT
dataclass, Meta ``ModelArgs``, transformers 4 ``__init__`` defaults, transformers 5 annotated
defaults, ``LlamaConfig(...)``/``AutoConfig.for_model`` calls, a litgpt ``dict`` table, module
constants with arithmetic, torch.nn layers). Marker lines as in the rule catalogue's Python
blocks (``#``, spaces, carets under the offending text, the code) say what must be found; they are
removed before linting, and then

* the findings are exactly the marked ones (code, line, columns), under the default rules;
* ``--fix --unsafe-fixes`` leaves valid Python whose tokens differ from the original only in
  number literals — the offending literals the first run's fixes named — and a second run
  changes nothing;
* the JSON output has ``pointer: null`` and the fix edits of the DESIGN.md contract;
* many files checked by worker processes report exactly what a serial run reports.
"""

from __future__ import annotations

import difflib
import io
import json
import os
import shutil
import tokenize
from pathlib import Path

import pytest

from dimlint.checks import catalogue
from dimlint.checks.catalogue import Marker
from dimlint.cli import main
from dimlint.fix.apply import fix_file
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

FIXTURES = Path(__file__).parent / "python_fixtures"
NAMES = sorted(path.name for path in FIXTURES.glob("*.py"))


def fixture(name: str) -> tuple[str, tuple[Marker, ...]]:
    """The fixture's code without marker lines, and the markers."""
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    text, markers = catalogue.parse_block(lines, name, "python")
    return text, markers


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--no-config", *argv], out, err)
    return code, out.getvalue(), err.getvalue()


def test_every_style_has_a_fixture() -> None:
    assert set(NAMES) >= {
        "nanogpt_style.py",
        "meta_llama_style.py",
        "transformers4_style.py",
        "transformers5_style.py",
        "hf_calls.py",
        "litgpt_table.py",
        "constants.py",
        "torch_layers.py",
    }


@pytest.mark.parametrize("name", NAMES)
def test_planted_defects_are_found_exactly(name: str) -> None:
    text, markers = fixture(name)
    assert markers, f"{name} plants no defect"
    result = lint_bytes(name, text.encode("utf-8"), Selection())
    found = []
    for diagnostic in result.diagnostics:
        assert diagnostic.span is not None
        start, end = diagnostic.span.start_pos, diagnostic.span.end_pos
        assert start.line == end.line
        found.append(Marker(diagnostic.code, start.line, start.column, end.column))
    messages = "\n".join(f"{d.code} {d.message}" for d in result.diagnostics)
    assert sorted(found) == sorted(markers), messages


def _tokens(text: str) -> list[tuple[int, str]]:
    readline = io.StringIO(text).readline
    return [(t.type, t.string) for t in tokenize.generate_tokens(readline)]


def _fix(name: str, text: str) -> tuple[str, list[tuple[int, int]]]:
    """Apply every fix (unsafe included) as ``--fix --unsafe-fixes`` does; return the fixed
    text and the character ranges the first lint's fixes edit (the offending literals)."""
    selection = Selection()
    data = text.encode("utf-8")
    first = lint_bytes(name, data, selection)
    outcome = fix_file(data, first, lambda new: lint_bytes(name, new, selection), unsafe=True)
    spans = [
        (edit.span.start, edit.span.end)
        for d in first.diagnostics
        if d.fix is not None
        for edit in d.fix.edits
    ]
    return (outcome.fixed or data).decode("utf-8"), spans


@pytest.mark.parametrize("name", NAMES)
def test_fixes_change_only_the_offending_literals(name: str) -> None:
    text, _ = fixture(name)
    fixed, spans = _fix(name, text)
    compile(fixed, name, "exec")  # still valid Python
    # Token by token: the same tokens, except literals (and keywords renamed by DL004) replaced
    # one for one.
    before, after = _tokens(text), _tokens(fixed)
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        assert tag == "replace", (tag, before[i1:i2], after[j1:j2])
        assert i2 - i1 == j2 - j1, (before[i1:i2], after[j1:j2])
        for old, new in zip(before[i1:i2], after[j1:j2], strict=True):
            assert old[0] == new[0] in (tokenize.NUMBER, tokenize.NAME), (old, new)
    # Character by character: every change lies inside a literal a fix of the first run named,
    # so comments, spacing and line ends are byte-identical.
    chars = difflib.SequenceMatcher(a=text, b=fixed, autojunk=False)
    for tag, i1, i2, _j1, _j2 in chars.get_opcodes():
        if tag != "equal":
            assert any(start <= i1 and i2 <= end for start, end in spans), (
                tag,
                text[max(0, i1 - 20) : i2 + 20],
            )
    if spans:
        assert fixed != text


@pytest.mark.parametrize("name", NAMES)
def test_a_second_fix_run_changes_nothing(name: str, tmp_path: Path) -> None:
    text, _ = fixture(name)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    run("--fix", "--unsafe-fixes", str(path))
    once = path.read_bytes()
    compile(once, name, "exec")
    run("--fix", "--unsafe-fixes", str(path))
    assert path.read_bytes() == once
    code, out, _ = run("--diff", "--unsafe-fixes", str(path))
    assert (code, out) == (0, "")


def test_fix_of_a_shared_constant_edits_its_definition_once() -> None:
    text, _ = fixture("constants.py")
    fixed, _ = _fix("constants.py", text)
    diff = difflib.ndiff(text.splitlines(), fixed.splitlines())
    changed = [line for line in diff if line[:1] in "+-"]
    # A head count that changes alone costs no parameter: it is preferred to a narrower
    # hidden size (issue 11), and the shared constant's definition is rewritten once.
    assert changed == ["- HEADS = 24", "+ HEADS = 16"]


def test_json_output_has_null_pointers_and_edits(tmp_path: Path) -> None:
    text, markers = fixture("nanogpt_style.py")
    path = tmp_path / "model.py"
    path.write_text(text, encoding="utf-8")
    code, out, _ = run("--output-format", "json", str(path))
    findings = json.loads(out)
    assert code == 1
    assert [f["code"] for f in findings] == [m.code for m in sorted(markers, key=lambda m: m.line)]
    assert all(f["pointer"] is None for f in findings)
    dl101 = next(f for f in findings if f["code"] == "DL101")
    assert (dl101["line"], dl101["column"], dl101["end_column"]) == (18, 38, 42)
    assert dl101["fix"]["applicability"] == "unsafe"
    assert dl101["fix"]["edits"][0]["line"] == 18


def test_constant_use_points_at_the_use_and_fixes_the_definition(tmp_path: Path) -> None:
    text, _ = fixture("constants.py")
    path = tmp_path / "constants.py"
    path.write_text(text, encoding="utf-8")
    _, out, _ = run("--output-format", "json", str(path))
    findings = json.loads(out)
    assert [(f["line"], f["code"]) for f in findings] == [(10, "DL101"), (17, "DL101")]
    for finding in findings:
        edits = {
            (e["line"], e["column"], e["end_column"]): e["content"] for e in finding["fix"]["edits"]
        }
        # HEADS = 24 is rewritten; HIDDEN = 1024, which the fix relies on, is listed unchanged
        # so that a fix rewriting HIDDEN in the same round would conflict with this one.
        assert edits == {(3, 10, 14): "1024", (4, 9, 11): "16"}


def test_per_file_ignores_from_settings(tmp_path: Path) -> None:
    text, _ = fixture("torch_layers.py")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "layers.py").write_text(text, encoding="utf-8")
    (tmp_path / "dimlint.toml").write_text(
        '[per-file-ignores]\n"models/*.py" = ["DL201"]\n', encoding="utf-8"
    )
    out, err = io.StringIO(), io.StringIO()
    main(["check", "--output-format", "json", str(tmp_path)], out, err)
    assert {f["code"] for f in json.loads(out.getvalue())} == {"DL101"}, err.getvalue()


def test_directories_are_walked_for_python_files(tmp_path: Path) -> None:
    for name in NAMES:
        (tmp_path / name).write_text(fixture(name)[0], encoding="utf-8")
    (tmp_path / "plain.py").write_text("print('not model code')\n", encoding="utf-8")
    code, out, _ = run("--output-format", "json", str(tmp_path))
    files = {os.path.basename(f["file"]) for f in json.loads(out)}
    assert code == 1
    assert files == set(NAMES)


def test_parallel_run_reports_exactly_what_a_serial_run_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for copy in range(3):
        for name in NAMES:
            folder = tmp_path / f"copy{copy}"
            folder.mkdir(exist_ok=True)
            (folder / name).write_text(fixture(name)[0], encoding="utf-8")
    (tmp_path / "config.json").write_text('{"hidden_size": 4100, "num_attention_heads": 32}')
    shutil.copy(FIXTURES.parent.parent / "examples" / "qwen2-7b" / "config.json", tmp_path / "q")
    monkeypatch.setenv("DIMLINT_JOBS", "1")
    serial = run("--output-format", "json", str(tmp_path))
    monkeypatch.setenv("DIMLINT_JOBS", "2")
    parallel = run("--output-format", "json", str(tmp_path))
    assert parallel == serial
    assert len(json.loads(serial[1])) > 3 * len(NAMES)
