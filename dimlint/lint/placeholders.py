"""Values a comment says are not used: ``hidden_size=1,  # not used``.

Code and training configs fill a required argument with a placeholder and say so beside it
(a Megatron ``TransformerConfig`` built only for its parallel settings, a YAML key kept for a
code path that is off). The literal is real, the model it would describe is not: judged as a
size it gives errors about a model nobody builds. A finding whose value (where it points, or a
value its fix edits) sits on a line whose own trailing comment says the value is unused, ignored,
a placeholder or a dummy is not reported; ``--verbose`` says which and why.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from dimlint.diagnostics import Diagnostic, Position

#: What such a comment says (whole words, any case).
UNUSED = re.compile(
    r"(?i)\b(?:(?:not|never|isn'?t|is\s+not)\s+used|unused|ignored|placeholder|dummy)\b"
)


class Document(Protocol):
    @property
    def path(self) -> str: ...
    @property
    def text(self) -> str: ...
    def position(self, offset: int) -> Position: ...


def may_apply(text: str) -> bool:
    """Whether the text has such a word at all (most files do not: nothing else is done)."""
    return UNUSED.search(text) is not None


def marked_lines(document: Document, comments: Sequence[tuple[int, int, str]]) -> set[int]:
    """Lines whose trailing comment (after code on the same line) says the value is unused."""
    lines: set[int] = set()
    text = document.text
    for start, _, comment in comments:
        if UNUSED.search(comment) is None:
            continue
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip():  # a comment after code, not a comment line
            lines.add(document.position(start).line)
    return lines


def drop_marked(
    diagnostics: list[Diagnostic], lines: set[int], document: Document, notes: list[str]
) -> list[Diagnostic]:
    """The findings whose values are not on a marked line (the others become notes)."""
    if not lines:
        return diagnostics
    kept = []
    for diagnostic in diagnostics:
        touched = _lines(diagnostic) if diagnostic.path == document.path else set()
        marked = sorted(touched & lines)
        if marked:
            notes.append(
                f"line {marked[0]}: {diagnostic.code} not reported: a comment there says the"
                " value is not used"
            )
            continue
        kept.append(diagnostic)
    return kept


def _lines(diagnostic: Diagnostic) -> set[int]:
    found = set()
    if diagnostic.span is not None:
        found.add(diagnostic.span.start_pos.line)
    if diagnostic.fix is not None:
        found.update(edit.span.start_pos.line for edit in diagnostic.fix.edits)
    return found
