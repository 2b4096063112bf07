"""The values that cross module boundaries: severities, positions, findings and their fixes.

Everything here is immutable (named tuples, :class:`dimlint.records.Record`) so that a rule cannot
mutate a finding after another part of the pipeline (filtering, fixing, reporting) has looked at
it. Named tuples rather than frozen dataclasses because a linter run on one file is dominated by
start-up, and defining a dataclass costs about a millisecond and a half at import time.
"""

from __future__ import annotations

import enum
import re

from dimlint.records import Record

#: Where lines end, for every position dimlint reports and every code frame it prints: ``\n``,
#: ``\r\n`` and a lone ``\r`` (as Python, editors and LSP count them). ``str.splitlines`` also
#: breaks at form feeds and U+2028, which would put a caret on the wrong line.
LINE_BREAK = re.compile(r"\r\n?|\n")


def line_starts(text: str) -> list[int]:
    """The offset at which each line of ``text`` starts."""
    return [0, *(match.end() for match in LINE_BREAK.finditer(text))]


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` without their breaks, split where :data:`LINE_BREAK` says."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def position_of(text: str, offset: int) -> Position:
    """1-based line and column (code points) of ``offset``, without building a table."""
    line = 1
    start = 0
    for match in LINE_BREAK.finditer(text, 0, offset):
        if match.end() > offset:
            break
        line += 1
        start = match.end()
    return Position(line, offset - start + 1)


class Severity(enum.IntEnum):
    """How bad a finding is; ordered so that ``max()`` and ``>=`` compare by badness."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @classmethod
    def parse(cls, text: str) -> Severity:
        """Parse ``error``/``warning``/``info`` (case-insensitive)."""
        try:
            return cls[text.strip().upper()]
        except KeyError:
            raise ValueError(
                f"unknown severity {text!r}: expected one of error, warning, info"
            ) from None

    @property
    def label(self) -> str:
        return self.name.lower()


class Applicability(enum.Enum):
    """Whether ``--fix`` may apply a fix on its own (see DESIGN.md, *fix*)."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY = "display"


class Position(Record):
    """A 1-based line and column, columns counted in Unicode code points."""

    line: int
    column: int


class Span(Record):
    """A half-open range of the source, both as character offsets and as positions."""

    start: int
    end: int
    start_pos: Position
    end_pos: Position


class Edit(Record):
    """Replace the characters ``[start, end)`` of the original text with ``content``."""

    span: Span
    content: str


class Fix(Record):
    """A set of non-overlapping edits that together repair one finding."""

    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]


class Diagnostic(Record):
    """One finding: a rule, where it is, what is wrong, and optionally how to repair it."""

    code: str
    severity: Severity
    message: str
    path: str
    span: Span | None
    pointer: str | None = None
    fix: Fix | None = None
    notes: tuple[str, ...] = ()

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        line = self.span.start_pos.line if self.span else 0
        column = self.span.start_pos.column if self.span else 0
        return (self.path, line, column, self.code)
