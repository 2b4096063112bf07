"""Machine-readable output: the JSON array contract of DESIGN.md, one object per finding."""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring
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
    """The report: ``json.dumps([to_dict(d) …], indent=2, ensure_ascii=False)`` byte for byte,
    each finding's text put together directly (with ``indent`` the standard library falls back
    to its pure-Python encoder, and a corpus report has hundreds of findings; a test compares
    the two)."""
    del sources
    if not diagnostics:
        return "[]\n"
    rules = all_rules()
    parts = [_finding_text(d, rules[d.code].name, rules[d.code].url) for d in diagnostics]
    return "[\n" + ",\n".join(parts) + "\n]\n"


def _finding_text(diagnostic: Diagnostic, name: str, url: str) -> str:
    quote = encode_basestring
    fix = diagnostic.fix
    if fix is None:
        fix_text = "null"
    else:
        edits = ",\n".join(
            f"        {{\n{_position_text(edit.span, '          ')},\n"
            f'          "content": {quote(edit.content)}\n        }}'
            for edit in fix.edits
        )
        fix_text = (
            f'{{\n      "applicability": {quote(fix.applicability.value)},\n'
            f'      "message": {quote(fix.message)},\n'
            f'      "edits": {f"[{chr(10)}{edits}{chr(10)}      ]" if edits else "[]"}\n    }}'
        )
    pointer = diagnostic.pointer
    return (
        f'  {{\n    "code": {quote(diagnostic.code)},\n    "name": {quote(name)},\n'
        f'    "severity": {quote(diagnostic.severity.label)},\n'
        f'    "message": {quote(diagnostic.message)},\n    "file": {quote(diagnostic.path)},\n'
        f"{_position_text(diagnostic.span, '    ')},\n"
        f'    "pointer": {"null" if pointer is None else quote(pointer)},\n'
        f'    "fix": {fix_text},\n    "url": {quote(url)}\n  }}'
    )


def _position_text(span: Span | None, indent: str) -> str:
    if span is None:
        line, column, end_line, end_column = 1, 1, 1, 1
    else:
        (line, column), (end_line, end_column) = span.start_pos, span.end_pos
    return (
        f'{indent}"line": {line},\n{indent}"column": {column},\n'
        f'{indent}"end_line": {end_line},\n{indent}"end_column": {end_column}'
    )
