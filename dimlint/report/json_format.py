"""Machine-readable output: the JSON array contract of DESIGN.md, one object per finding."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dimlint.checks import all_rules
from dimlint.diagnostics import Diagnostic, Span


def _position(span: Span | None) -> dict[str, int]:
    if span is None:
        return {"line": 1, "column": 1, "end_line": 1, "end_column": 1}
    return {
        "line": span.start_pos.line,
        "column": span.start_pos.column,
        "end_line": span.end_pos.line,
        "end_column": span.end_pos.column,
    }


def to_dict(diagnostic: Diagnostic) -> dict[str, Any]:
    """The DESIGN.md JSON object of one finding."""
    rule = all_rules()[diagnostic.code]
    fix = None
    if diagnostic.fix is not None:
        fix = {
            "applicability": diagnostic.fix.applicability.value,
            "message": diagnostic.fix.message,
            "edits": [
                {**_position(edit.span), "content": edit.content} for edit in diagnostic.fix.edits
            ],
        }
    return {
        "code": diagnostic.code,
        "name": rule.name,
        "severity": diagnostic.severity.label,
        "message": diagnostic.message,
        "file": diagnostic.path,
        **_position(diagnostic.span),
        "pointer": diagnostic.pointer,
        "fix": fix,
        "url": rule.url,
    }


def render(diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> str:
    del sources
    return json.dumps([to_dict(d) for d in diagnostics], indent=2, ensure_ascii=False) + "\n"
