"""The values that cross module boundaries: severities, positions, findings and their fixes.

Everything here is a frozen dataclass so that a rule cannot mutate a finding after another part
of the pipeline (filtering, fixing, reporting) has looked at it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


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


@dataclass(frozen=True, order=True)
class Position:
    """A 1-based line and column, columns counted in Unicode code points."""

    line: int
    column: int


@dataclass(frozen=True)
class Span:
    """A half-open range of the source, both as character offsets and as positions."""

    start: int
    end: int
    start_pos: Position
    end_pos: Position


@dataclass(frozen=True)
class Edit:
    """Replace the characters ``[start, end)`` of the original text with ``content``."""

    span: Span
    content: str


@dataclass(frozen=True)
class Fix:
    """A set of non-overlapping edits that together repair one finding."""

    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Diagnostic:
    """One finding: a rule, where it is, what is wrong, and optionally how to repair it."""

    code: str
    severity: Severity
    message: str
    path: str
    span: Span | None
    pointer: str | None = None
    fix: Fix | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        line = self.span.start_pos.line if self.span else 0
        column = self.span.start_pos.column if self.span else 0
        return (self.path, line, column, self.code)
