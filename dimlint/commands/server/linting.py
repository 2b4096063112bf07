"""Lint the text an editor holds, and fix all of it: the pipeline of ``check``, no pygls.

The editor's text is encoded as UTF-8 and handed to
:func:`dimlint.lint.model_input.read_findings`, the one reading of a model: ``check``'s front end
(JSON, YAML and Python alike), the same lint ``mem``, ``plan`` and the hover judge a config by, so
codes, messages, spans and fixes are identical; only findings on this file are kept (the checkpoint
rules may report on the files beside it, which are not open).

A document is treated as a file a walk of its workspace met (``check .``), not as one named on
the command line: what the walk never opens (``package.json``, ``tsconfig.json``, files under
``node_modules`` or named by ``.gitignore``) and what does not parse without being a model
config (``.vscode/settings.json``, ``devcontainer.json``: JSON with comments) stay silent, as
:mod:`dimlint.lint.discovery` and :mod:`dimlint.lint.walkfilter` decide for ``check``.
"""

from __future__ import annotations

from typing import NamedTuple

from dimlint.diagnostics import Diagnostic
from dimlint.lint.discovery import walk_skips
from dimlint.lint.model_input import read_findings
from dimlint.lint.pipeline import crashed, lint_bytes
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection
from dimlint.lint.walkfilter import not_ours

#: Files the server lints (those ``check`` reads); other documents get no diagnostics.
SUFFIXES = (".json", ".py", ".yaml", ".yml")


class Outcome(NamedTuple):
    """What a lint of one text found."""

    diagnostics: tuple[Diagnostic, ...]
    #: False when the text could not be read as a document at all (its findings are DL001s
    #: alone): the editor then keeps the findings of the last version that could be.
    readable: bool = True


class Linted(NamedTuple):
    """The findings on one version of one document."""

    version: int | None
    text: str
    diagnostics: tuple[Diagnostic, ...]


def _data(text: str) -> bytes:
    # surrogatepass: a lone surrogate the editor holds becomes bytes the decoder reports (DL001)
    return text.encode("utf-8", "surrogatepass")


def silenced(path: str, root: str | None) -> str | None:
    """Why ``check .`` would pass over the file at ``path`` (None: it would check it)."""
    if not path.endswith(SUFFIXES):
        return "not a file dimlint reads"
    return walk_skips(path, root)


def lint_text(
    path: str, text: str, selection: Selection | None, root: str | None = None
) -> Outcome:
    """The findings ``check .`` run in ``root`` reports on ``path`` if it held ``text``."""
    if selection is None or silenced(path, root) is not None:
        return Outcome(())
    data = _data(text)
    try:
        result = read_findings(path, data, selection)
    except Exception as error:  # the per-file guard of check: a DL001, never a dead server
        result = crashed(path, error)
    if result.document is None and not_ours(path, result, data) is not None:
        return Outcome(())  # unparsable and not a model config: check's walk is silent too
    found = tuple(d for d in result.diagnostics if d.path == path)
    readable = not found or any(d.code != "DL001" for d in found)
    return Outcome(found, readable)


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
