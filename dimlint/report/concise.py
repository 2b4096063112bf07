"""One line per finding: ``path:line:col: CODE [severity] message`` (grep- and editor-friendly)."""

from __future__ import annotations

from collections.abc import Sequence

from dimlint.diagnostics import Diagnostic
from dimlint.report import with_fix


def location(diagnostic: Diagnostic) -> str:
    if diagnostic.span is None:
        return f"{diagnostic.path}:1:1"
    start = diagnostic.span.start_pos
    return f"{diagnostic.path}:{start.line}:{start.column}"


def headline(diagnostic: Diagnostic, message: str | None = None) -> str:
    marker = " [*]" if diagnostic.fix is not None else ""
    return (
        f"{location(diagnostic)}: {diagnostic.code}{marker} [{diagnostic.severity.label}]"
        f" {diagnostic.message if message is None else message}"
    )


def render(diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> str:
    del sources  # concise output shows no code frames
    return "".join(headline(d, with_fix(d)) + "\n" for d in diagnostics)
