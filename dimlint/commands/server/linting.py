"""Lint the text an editor holds, and fix all of it: the pipeline of ``check``, no pygls.

The editor's text is encoded as UTF-8 and handed to :func:`dimlint.linter.lint_bytes`, the same
entry point ``check`` reads files through, so codes, messages, spans and fixes are identical;
only findings on this file are kept (the checkpoint rules may report on the files beside it,
which are not open).
"""

from __future__ import annotations

from typing import NamedTuple

from dimlint.diagnostics import Diagnostic
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection

#: Files the server lints; other documents get no diagnostics.
SUFFIXES = (".json", ".py")


class Linted(NamedTuple):
    """The findings on one version of one document."""

    version: int | None
    text: str
    diagnostics: tuple[Diagnostic, ...]


def _data(text: str) -> bytes:
    # surrogatepass: a lone surrogate the editor holds becomes bytes the decoder reports (DL001)
    return text.encode("utf-8", "surrogatepass")


def lint_text(path: str, text: str, selection: Selection | None) -> tuple[Diagnostic, ...]:
    """The findings ``check`` reports on ``path`` if it held ``text`` (none when excluded)."""
    if selection is None or not path.endswith(SUFFIXES):
        return ()
    result = lint_bytes(path, _data(text), selection)
    return tuple(d for d in result.diagnostics if d.path == path)


def fix_all(path: str, text: str, selection: Selection) -> str | None:
    """The text after every safe fix (``check --fix``'s rounds), or None when nothing changes."""
    from dimlint.fix import apply as fixer

    data = _data(text)
    first = lint_bytes(path, data, selection)
    if first.document is None:
        return None

    def relint(new: bytes) -> FileResult:
        return lint_bytes(path, new, selection)

    outcome = fixer.fix_file(data, first, relint, unsafe=False)
    if outcome.fixed is None:
        return None
    return outcome.fixed.decode("utf-8-sig", "surrogatepass")
