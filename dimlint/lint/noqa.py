"""``# noqa`` comments in Python and YAML files: suppression, and DL701 for the ones that suppress
nothing.

The syntax is ruff's and flake8's: ``# noqa`` suppresses every finding on its line,
``# noqa: DL101, DL201`` the listed codes (separated by commas and/or spaces; text after the
codes is a free explanation). A finding belongs to the line it starts on.

DL701 reports listed ``DLxxx`` codes that suppressed nothing, but only for rules that ran on the
file: a code of a rule switched off by ``--select``/``--ignore`` or per-file ignores may well be
needed in another configuration, and removing it would be destructive. Codes of other tools
(``F401``) and the bare ``# noqa`` (which other linters read too) are never reported. The fix is
safe: it removes the unused codes, or the whole directive when none is left.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from dimlint.checks import all_rules
from dimlint.diagnostics import Applicability, Diagnostic, Edit, Fix, Position, Span
from dimlint.lint.selection import Selection
from dimlint.records import Record

_DIRECTIVE = re.compile(
    r"#\s*(?i:noqa)(?::\s*(?P<codes>[A-Z]+[0-9]+(?:(?:\s*,\s*|\s+)[A-Z]+[0-9]+)*))?"
)
_CODE = re.compile(r"[A-Z]+[0-9]+")


class Document(Protocol):
    """What suppression reads of a document (a Python or a YAML one)."""

    @property
    def path(self) -> str: ...
    @property
    def text(self) -> str: ...
    def position(self, offset: int) -> Position: ...
    def span(self, start: int, end: int) -> Span: ...


class Code(Record):
    code: str
    start: int
    end: int


class Directive(Record):
    """One ``# noqa`` comment (offsets into the file's text)."""

    line: int
    start: int
    end: int
    #: Empty for a bare directive (everything on the line is suppressed).
    codes: tuple[Code, ...]
    comment_start: int
    comment_end: int


def yaml_comments(text: str) -> list[tuple[int, int, str]]:
    """The comments of a YAML text as (start, end, text): a ``#`` at the start of a line or after
    a space or tab, outside a quoted scalar on that line, up to the end of the line."""
    found = []
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        quote: str | None = None
        for index, char in enumerate(body):
            if quote is not None:
                if char == quote:
                    quote = None
            elif char in "'\"" and (index == 0 or body[index - 1] in " \t:[{,-"):
                quote = char
            elif char == "#" and (index == 0 or body[index - 1] in " \t"):
                found.append((offset + index, offset + len(body), body[index:]))
                break
        offset += len(line)
    return found


def directives(document: Document, comments: Sequence[tuple[int, int, str]]) -> list[Directive]:
    """The noqa directives among the comments of a file (at most one per comment)."""
    found = []
    for start, end, text in comments:
        match = _DIRECTIVE.search(text)
        if match is None:
            continue
        codes: tuple[Code, ...] = ()
        if match.group("codes"):
            base = start + match.start("codes")
            codes = tuple(
                Code(m.group(), base + m.start(), base + m.end())
                for m in _CODE.finditer(match.group("codes"))
            )
        line = document.position(start).line
        found.append(Directive(line, start + match.start(), start + match.end(), codes, start, end))
    return found


def apply(
    diagnostics: list[Diagnostic],
    found: list[Directive],
    document: Document,
    selection: Selection,
    enabled: frozenset[str],
) -> list[Diagnostic]:
    """Drop suppressed findings; add DL701 for DL codes that suppressed nothing."""
    by_line = {directive.line: directive for directive in found}
    used: set[tuple[int, str]] = set()
    kept = []
    for diagnostic in diagnostics:
        line = diagnostic.span.start_pos.line if diagnostic.span else 0
        # a finding composed in from another file (Hydra) is that file's line, not this one's
        directive = by_line.get(line) if diagnostic.path == document.path else None
        if directive is not None:
            if not directive.codes:
                continue
            if any(code.code == diagnostic.code for code in directive.codes):
                used.add((line, diagnostic.code))
                continue
        kept.append(diagnostic)
    if "DL701" in enabled:
        kept.extend(_unused(found, used, document, selection, enabled))
    return kept


def _unused(
    found: list[Directive],
    used: set[tuple[int, str]],
    document: Document,
    selection: Selection,
    enabled: frozenset[str],
) -> list[Diagnostic]:
    rules = all_rules()
    reports = []
    for directive in found:
        unused = [
            code
            for code in directive.codes
            if code.code.startswith("DL")
            and (directive.line, code.code) not in used
            and (code.code in enabled or code.code not in rules)
        ]
        if not unused:
            continue
        names = ", ".join(code.code for code in unused)
        unknown = [code.code for code in unused if code.code not in rules]
        known = [code.code for code in unused if code.code in rules]
        reasons = []
        if unknown:
            verb = "is not a dimlint rule" if len(unknown) == 1 else "are not dimlint rules"
            reasons.append(f"{', '.join(unknown)} {verb}")
        if known:
            reasons.append(f"no {', '.join(known)} finding is on this line")
        why = " and ".join(reasons)
        message = (
            f"unused noqa: {why}, so `# noqa: {names}` suppresses nothing. Remove it, or it"
            " will silently hide a finding this line gets later."
        )
        fix = Fix(
            Applicability.SAFE,
            f"remove the unused {names} from the noqa comment",
            (_removal(directive, unused, document.text, document),),
        )
        span = document.span(directive.start, directive.end)
        severity = selection.severity_of("DL701", None)
        reports.append(Diagnostic("DL701", severity, message, document.path, span, None, fix))
    return reports


def _removal(directive: Directive, unused: list[Code], text: str, document: Document) -> Edit:
    """Remove the unused codes; remove the directive (and the comment) when none remains."""
    remaining = [code for code in directive.codes if code not in unused]
    if remaining:
        first, last = directive.codes[0], directive.codes[-1]
        content = ", ".join(code.code for code in remaining)
        return Edit(document.span(first.start, last.end), content)
    before = text[directive.comment_start : directive.start]
    after = text[directive.end : directive.comment_end]
    if after.strip():
        # Text after the codes explains them: keep it, as a comment of its own.
        end = directive.end
        while text[end] in " \t":
            end += 1
        return Edit(document.span(directive.start, end), "# ")
    start = directive.start if before.strip() else directive.comment_start
    while start > 0 and text[start - 1] in " \t":
        start -= 1
    return Edit(document.span(start, directive.comment_end), "")
