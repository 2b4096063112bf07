"""The JSON reporter's fast indented writer is byte-identical to ``json.dumps(indent=2)``."""

from __future__ import annotations

import json
from typing import Any


def _diagnostics() -> list[Any]:
    from dimlint.diagnostics import (
        Applicability,
        Diagnostic,
        Edit,
        Fix,
        Position,
        Severity,
        Span,
    )

    span = Span(3, 7, Position(1, 4), Position(1, 8))
    edit = Edit(span, '"é\\n"')
    return [
        Diagnostic("DL101", Severity.ERROR, 'héllo "x"\n', "a/config.json", span, "/a~1b"),
        Diagnostic("DL201", Severity.INFO, "m", "b.json", None, None, None),
        Diagnostic(
            "DL004",
            Severity.WARNING,
            "m",
            "c.json",
            span,
            "/k",
            Fix(Applicability.UNSAFE, "rename", (edit, edit)),
        ),
        Diagnostic(
            "DL003", Severity.ERROR, "m", "d.json", span, "", Fix(Applicability.SAFE, "x", ())
        ),
    ]


def test_report_writer_matches_the_dict_form() -> None:
    """``render`` writes each finding directly; it must equal ``to_dict`` through json.dumps."""
    from dimlint.report.json_format import render, to_dict

    diagnostics = _diagnostics()
    expected = json.dumps([to_dict(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
    assert render(diagnostics, {}) == expected
    assert render([], {}) == json.dumps([], indent=2) + "\n"


def test_report_writer_on_real_findings(tmp_path: Any) -> None:
    """The same on everything ``check --select ALL`` finds in the examples and fixtures."""
    import contextlib
    import io
    from pathlib import Path

    import dimlint.commands.check as check_command
    from dimlint.cli import main
    from dimlint.report.json_format import render, to_dict

    root = Path(__file__).resolve().parent.parent
    captured: list[Any] = []
    original = check_command._report

    def spy(args: Any, run: Any, out: Any, err: Any) -> None:
        captured.extend(run.diagnostics)
        original(args, run, out, err)

    check_command._report = spy  # type: ignore[assignment]
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            for target in ("examples", "tests/python_fixtures", "rules"):
                arguments = ["check", "--no-config", "--output-format", "json", "--select", "ALL"]
                main([*arguments, str(root / target)], stdout=io.StringIO())
    finally:
        check_command._report = original  # type: ignore[assignment]
    assert len(captured) >= 20
    assert any(d.fix is not None and d.fix.edits for d in captured)
    expected = json.dumps([to_dict(d) for d in captured], indent=2, ensure_ascii=False) + "\n"
    assert render(captured, {}) == expected
