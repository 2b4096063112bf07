"""The default human format: headline, a code frame with the value underlined, and the fix."""

from __future__ import annotations

from collections.abc import Sequence

from dimlint.diagnostics import Diagnostic, split_lines
from dimlint.report.concise import headline


def _frame(diagnostic: Diagnostic, text: str) -> list[str]:
    span = diagnostic.span
    if span is None or not text:
        return []
    lines = split_lines(text)
    line_number = span.start_pos.line
    if not 1 <= line_number <= len(lines):
        return []
    source = lines[line_number - 1].expandtabs(1)
    gutter = len(str(line_number))
    start = span.start_pos.column
    if span.end_pos.line == line_number:
        width = max(1, span.end_pos.column - start)
    else:
        width = max(1, len(source) - start + 1)
    if len(source) > 160:  # minified JSON: show a window around the value
        offset = max(0, start - 60)
        source = ("…" if offset else "") + source[offset : offset + 160]
        start = start - offset + (1 if offset else 0)
    pad = " " * gutter
    return [
        f"{pad} |",
        f"{line_number} | {source}",
        f"{pad} | {' ' * (start - 1)}{'^' * width} {diagnostic.code}",
        f"{pad} |",
    ]


def render(diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> str:
    out: list[str] = []
    for diagnostic in diagnostics:
        out.append(headline(diagnostic))
        out.extend(_frame(diagnostic, sources.get(diagnostic.path, "")))
        if diagnostic.fix is not None:
            kind = diagnostic.fix.applicability.value
            out.append(f"  = fix ({kind}): {diagnostic.fix.message}")
        out.append("")
    return "\n".join(out) + ("\n" if out else "")
