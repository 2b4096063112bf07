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
from dimlint.linter import FileResult

MAX_ROUNDS = 10


class FixOutcome(NamedTuple):
    """The fixed text (None when nothing applied) and how many fixes were applied."""

    original: bytes
    fixed: bytes | None
    applied: int
    result: FileResult


def allowed(diagnostic: Diagnostic, unsafe: bool) -> bool:
    if diagnostic.fix is None:
        return False
    kind = diagnostic.fix.applicability
    return kind is Applicability.SAFE or (unsafe and kind is Applicability.UNSAFE)


def apply_edits(text: str, edits: list[Edit]) -> tuple[str, int]:
    """Apply non-overlapping edits (identical duplicates merged); return text and count."""
    unique = sorted({(e.span.start, e.span.end, e.content) for e in edits})
    pieces: list[str] = []
    cursor = 0
    applied = 0
    for start, end, content in unique:
        if start < cursor:
            continue  # overlaps an earlier edit: left for the next round
        pieces.append(text[cursor:start])
        pieces.append(content)
        cursor = end
        applied += 1
    pieces.append(text[cursor:])
    return "".join(pieces), applied


def fix_file(
    original: bytes,
    first: FileResult,
    relint: Callable[[bytes], FileResult],
    *,
    unsafe: bool,
) -> FixOutcome:
    """Apply allowed fixes to a file's bytes until none is left (or MAX_ROUNDS)."""
    result = first
    current = original
    applied_total = 0
    for _ in range(MAX_ROUNDS):
        document = result.document
        if document is None or document.text is None:
            break
        fixes = [d for d in result.diagnostics if allowed(d, unsafe)]
        if not fixes:
            break
        drop_bom = any(d.code == "DL001" for d in fixes)
        edits: list[Edit] = []
        taken: list[tuple[int, int]] = []
        for diagnostic in fixes:
            assert diagnostic.fix is not None
            ranges = [(e.span.start, e.span.end) for e in diagnostic.fix.edits]
            # a fix is all or nothing: skip it if any of its edits overlaps a taken one
            if any(
                _overlaps(r, t) and not _same(diagnostic, r, edits) for r in ranges for t in taken
            ):
                continue
            edits.extend(diagnostic.fix.edits)
            taken.extend(ranges)
        text, count = apply_edits(
            document.text, [e for e in edits if e.span.end > e.span.start or e.content]
        )
        applied_total += len(fixes) if count or drop_bom else 0
        keep_bom = document.bom and not drop_bom
        updated = (codecs.BOM_UTF8 if keep_bom else b"") + text.encode("utf-8")
        if updated == current:
            break
        current = updated
        result = relint(current)
    return FixOutcome(original, current if current != original else None, applied_total, result)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _same(diagnostic: Diagnostic, span: tuple[int, int], edits: list[Edit]) -> bool:
    """An edit identical to one already taken (two findings offering the same change)."""
    assert diagnostic.fix is not None
    mine = {(e.span.start, e.span.end, e.content) for e in diagnostic.fix.edits}
    return any(
        (e.span.start, e.span.end, e.content) in mine and (e.span.start, e.span.end) == span
        for e in edits
    )


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
