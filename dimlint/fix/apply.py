"""Apply fixes: edit the original text, re-lint, repeat; then write atomically.

Edits replace exact character ranges of the original text, so indentation, key order, line
endings and every untouched value stay byte-identical. Fixes are applied in rounds (as ruff
does): overlapping edits wait for the next round, which re-lints the edited text, so a second
``--fix`` run finds nothing to do. A file is written through a temporary file and
``os.replace``, and not at all if it changed on disk while dimlint was running.
"""

from __future__ import annotations

import codecs
import difflib
import os
import tempfile
from collections.abc import Callable
from typing import NamedTuple

from dimlint.diagnostics import Applicability, Diagnostic, Edit
from dimlint.lint.results import FileResult

MAX_ROUNDS = 10


class FixOutcome(NamedTuple):
    """The fixed bytes (None when nothing changed), the findings fixed, and what remains."""

    original: bytes
    fixed: bytes | None
    applied: list[Diagnostic]
    result: FileResult


def allowed(diagnostic: Diagnostic, unsafe: bool) -> bool:
    """Whether ``--fix`` (with or without ``--unsafe-fixes``) may apply this finding's fix."""
    if diagnostic.fix is None:
        return False
    kind = diagnostic.fix.applicability
    return kind is Applicability.SAFE or (unsafe and kind is Applicability.UNSAFE)


def _key(edit: Edit) -> tuple[int, int, str]:
    return (edit.span.start, edit.span.end, edit.content)


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits, given in any order (identical duplicates merged)."""
    pieces: list[str] = []
    cursor = 0
    for start, end, content in sorted(set(map(_key, edits))):
        pieces.append(text[cursor:start])
        pieces.append(content)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _compatible(fixes: list[Diagnostic]) -> tuple[list[Diagnostic], list[Edit]]:
    """Fixes whose edits neither overlap nor conflict; the others wait for the next round.

    A fix is all or nothing. Two findings offering the same edit (DL101 and DL201 both moving
    hidden_size to 4096) are compatible: the edit is applied once.
    """
    chosen: list[Diagnostic] = []
    taken: dict[tuple[int, int], str] = {}
    for diagnostic in fixes:
        assert diagnostic.fix is not None
        edits = diagnostic.fix.edits
        clash = any(_conflicts(edit, taken) for edit in edits)
        if clash:
            continue
        chosen.append(diagnostic)
        taken.update({(e.span.start, e.span.end): e.content for e in edits})
    return chosen, [e for d in chosen if d.fix is not None for e in d.fix.edits]


def _conflicts(edit: Edit, taken: dict[tuple[int, int], str]) -> bool:
    """An edit conflicts with a taken one on the same range with other text, or overlapping."""
    for (start, end), content in taken.items():
        if (start, end) == (edit.span.start, edit.span.end):
            if content != edit.content:
                return True
        elif start < edit.span.end and edit.span.start < end:
            return True
    return False


def fix_file(
    original: bytes,
    first: FileResult,
    relint: Callable[[bytes], FileResult],
    *,
    unsafe: bool,
) -> FixOutcome:
    """Apply allowed fixes in rounds, re-linting between rounds, until none is left."""
    result = first
    current = original
    applied: list[Diagnostic] = []
    for _ in range(MAX_ROUNDS):
        document = result.document
        if document is None:
            break
        chosen, edits = _compatible([d for d in result.diagnostics if allowed(d, unsafe)])
        if not chosen:
            break
        drop_bom = any(d.code == "DL001" for d in chosen)  # the only DL001 fix removes a BOM
        text = apply_edits(
            document.text, [e for e in edits if e.span.end > e.span.start or e.content]
        )
        keep_bom = document.bom and not drop_bom
        updated = (codecs.BOM_UTF8 if keep_bom else b"") + text.encode("utf-8")
        if updated == current:
            break
        applied.extend(chosen)
        current = updated
        result = relint(current)
    return FixOutcome(original, current if current != original else None, applied, result)


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """A unified diff of a fix, for ``--diff``."""
    old = before.decode("utf-8", errors="replace").splitlines(keepends=True)
    new = after.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"))


class ConcurrentModification(OSError):
    """The file changed on disk after it was read: it is left alone."""


def write_atomically(path: str, expected: bytes, data: bytes) -> None:
    """Replace ``path`` with ``data`` unless its content is no longer ``expected``."""
    with open(path, "rb") as handle:
        if handle.read() != expected:
            raise ConcurrentModification(f"{path} changed during the run; not written")
    directory = os.path.dirname(os.path.abspath(path))
    mode = os.stat(path).st_mode & 0o7777
    descriptor, temporary = tempfile.mkstemp(prefix=".dimlint-", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
