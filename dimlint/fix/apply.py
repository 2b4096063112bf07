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
import stat
from collections.abc import Callable, Sequence

from dimlint.diagnostics import Applicability, Diagnostic, Edit
from dimlint.lint.results import FileResult
from dimlint.records import Record
from dimlint.sources.confine import within_any

MAX_ROUNDS = 10


class FixOutcome(Record):
    """The fixed bytes (None when nothing changed), the findings fixed, and what remains.

    ``refused`` are the fixes rolled back because the file they wrote no longer read (a new
    DL001): the remaining finding's fix says so instead of being offered again."""

    original: bytes
    fixed: bytes | None
    applied: list[Diagnostic]
    result: FileResult
    refused: tuple[tuple[Diagnostic, str], ...] = ()


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
    wanted: Callable[[Diagnostic], bool] | None = None,
) -> FixOutcome:
    """Apply allowed fixes in rounds, re-linting between rounds, until none is left.

    A round whose re-lint still shows a finding it fixed is rolled back and redone without that
    fix: an edit that did not make its finding go away landed somewhere else, or guessed wrong,
    and is not written. A round after which the file reads worse — more DL001 findings: it no
    longer parses, an anchor went missing — is rolled back too; the fixes are then tried one at a
    time, and the one that breaks the file is refused and reported (``refused``). ``wanted``
    narrows the findings whose fixes apply (the command line's severity floor).
    """
    result = first
    current = original
    applied: list[Diagnostic] = []
    rejected: set[tuple[str, int, int, str]] = set()
    refused: list[tuple[Diagnostic, str]] = []
    one_at_a_time = False
    for _ in range(MAX_ROUNDS * 4):
        document = result.document
        if document is None:
            break
        candidates = [
            d
            for d in result.diagnostics
            if allowed(d, unsafe) and _identity(d) not in rejected and (wanted is None or wanted(d))
        ]
        chosen, edits = _compatible(candidates[:1] if one_at_a_time else candidates)
        if not chosen:
            break
        drop_bom = any(d.code == "DL001" for d in chosen)  # the only DL001 fix removes a BOM
        real_edits = [e for e in edits if e.span.end > e.span.start or e.content]
        text = apply_edits(document.text, real_edits)
        boms = 0 if drop_bom else int(document.bom)
        updated = codecs.BOM_UTF8 * boms + text.encode("utf-8")
        if updated == current:
            break
        after = relint(updated)
        broken = _new_input_problem(result, after)
        if broken is not None:
            if len(chosen) > 1:
                one_at_a_time = True  # find the fix that breaks the file
                continue
            rejected.add(_identity(chosen[0]))
            refused.append((chosen[0], broken))
            continue
        persisting = _still_present(chosen, real_edits, after)
        if persisting:
            rejected.update(_identity(d) for d in persisting)
            continue  # roll back: redo this round without the fixes that did not work
        applied.extend(chosen)
        current = updated
        result = after
        if len(applied) > MAX_ROUNDS * 64:
            break
    if refused:
        result = _mark_refused(result, refused)
    return FixOutcome(
        original, current if current != original else None, applied, result, tuple(refused)
    )


def _new_input_problem(before: FileResult, after: FileResult) -> str | None:
    """What a re-lint says is newly wrong with the file as a file (a DL001 it did not have)."""
    old = sum(d.code == "DL001" for d in before.diagnostics)
    new = [d for d in after.diagnostics if d.code == "DL001"]
    if len(new) <= old and after.document is not None:
        return None
    return new[-1].message if new else "the fixed file could not be read back"


def _mark_refused(result: FileResult, refused: list[tuple[Diagnostic, str]]) -> FileResult:
    """Show a refused fix as not applicable, with the reason, on the finding it was for."""
    from dimlint.diagnostics import Applicability

    reasons = {(d.code, d.message): why for d, why in refused}
    for index, diagnostic in enumerate(result.diagnostics):
        why = reasons.get((diagnostic.code, diagnostic.message))
        if why is None or diagnostic.fix is None:
            continue
        shown = diagnostic.fix._replace(
            applicability=Applicability.DISPLAY,
            message=f"{diagnostic.fix.message} (not applied: the fixed file would not read: {why})",
        )
        result.diagnostics[index] = diagnostic._replace(fix=shown)
    return result


def _identity(diagnostic: Diagnostic) -> tuple[str, int, int, str]:
    span = diagnostic.span
    return (
        diagnostic.code,
        span.start if span else -1,
        span.end if span else -1,
        diagnostic.message,
    )


def _moved(offset: int, edits: list[Edit]) -> int:
    """Where ``offset`` of the text before the edits is in the text after them."""
    shift = 0
    for start, end, content in sorted(set(map(_key, edits))):
        if end <= offset and start < offset:
            shift += len(content) - (end - start)
        elif start <= offset < end:
            return start + shift
    return offset + shift


def _still_present(
    chosen: list[Diagnostic], edits: list[Edit], after: FileResult
) -> list[Diagnostic]:
    """The fixed findings the re-lint still reports at the same place (same rule)."""
    remaining = {(d.code, d.span.start) for d in after.diagnostics if d.span is not None}
    return [
        d
        for d in chosen
        if d.span is not None
        and d.code != "DL001"
        and (d.code, _moved(d.span.start, edits)) in remaining
    ]


def unified_diff(path: str, before: bytes, after: bytes) -> str:
    """A unified diff of a fix, for ``--diff``."""
    old = before.decode("utf-8", errors="replace").splitlines(keepends=True)
    new = after.decode("utf-8", errors="replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"))


class ConcurrentModification(OSError):
    """The file changed on disk after it was read: it is left alone."""


def write_refusal(path: str, roots: Sequence[str]) -> str | None:
    """Why a fix must not be written to ``path`` (None when it may be).

    The file really written is the link's target, so it must lie inside one of the real folders
    checked (``roots``): a symlink in a pull request must not make ``--fix`` edit a file outside
    the repository. A file without write permission (0444) is left alone even when its folder is
    writable, which would let ``os.replace`` swap it (root bypasses ``os.access``, so the mode
    bits are read).
    """
    real = os.path.realpath(path)
    if not within_any(real, roots):
        return f"it is a link to {real}, outside the folders checked"
    try:
        status = os.stat(real)
    except OSError as error:
        return error.strerror or str(error)
    if not stat.S_ISREG(status.st_mode):
        return "not a regular file"
    if not status.st_mode & stat.S_IWUSR or not os.access(real, os.W_OK):
        return "the file is read-only"
    return None


def write_atomically(path: str, expected: bytes, data: bytes) -> None:
    """Replace ``path`` with ``data`` unless its content is no longer ``expected``."""
    from dimlint.sources.safeio import read_regular, replace_atomically

    if read_regular(path) != expected:
        raise ConcurrentModification(f"{path} changed during the run; not written")
    replace_atomically(path, data, os.stat(path).st_mode & 0o7777)
