"""What linting one file produced: its findings, and the parsed document a fix edits."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from dimlint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from dimlint.config.spec import ModelSpec
    from dimlint.sources.jsonfile import JsonDocument
    from dimlint.sources.python.file import PythonDocument
    from dimlint.sources.yamlfile import YamlDocument


class FileResult:
    """Findings for one file, plus what is needed to fix it."""

    __slots__ = (
        "diagnostics",
        "document",
        "models",
        "notes",
        "path",
        "read",
        "skipped",
        "traceback",
    )

    def __init__(self, path: str, diagnostics: list[Diagnostic] | None = None) -> None:
        self.path = path
        self.diagnostics: list[Diagnostic] = diagnostics or []
        self.document: JsonDocument | PythonDocument | YamlDocument | None = None
        #: Why the file produced nothing (``--verbose`` prints it), e.g. "not a model config".
        self.skipped: str | None = None
        #: How many configs and torch layers were read (``--verbose`` prints it); None: unread.
        self.read: tuple[int, int] | None = None
        #: The traceback of an exception raised while checking it (``--verbose`` prints it).
        self.traceback: str | None = None
        #: What was stated but not read (``--verbose`` prints them): an interpolation dimlint
        #: could not resolve, a framework's tag. Certainty before severity: no finding on them.
        self.notes: list[str] = []
        #: The models read, in file order, each as its specs (a config and its sub-configs):
        #: what ``mem``, ``plan`` and ``shapes`` compute from (``lint.model_input``), so they
        #: read a file exactly as its rules did.
        self.models: list[list[ModelSpec]] = []


def cannot_write(result: FileResult, reason: str) -> None:
    """Show ``result``'s fixes without applying them (``display``), saying why: dimlint cannot
    write this file back (UTF-16, a refused path, JSON with comments read blanked)."""
    from dimlint.diagnostics import Applicability

    for index, diagnostic in enumerate(result.diagnostics):
        fix = diagnostic.fix
        if fix is not None and fix.applicability is not Applicability.DISPLAY:
            shown = fix._replace(
                applicability=Applicability.DISPLAY,
                message=f"{fix.message} (not applied: {reason})",
            )
            result.diagnostics[index] = diagnostic._replace(fix=shown)


#: The origin :func:`dimlint.lint.yaml_front` appends to a parallel-layout finding's message.
_ORIGIN = re.compile(r" \[parallel sizes from [^\]]*\]$")
#: What a finding's message says about the model around the value rather than the value: the
#: runner-up repairs (:func:`dimlint.checks.coupled.planned_fix`) and their parameter changes,
#: which differ between two models reading one literal (``${a.b}`` in one section and
#: ``${oc.select:a.b,…}`` in another: one value, one finding).
_AROUND = re.compile(r" Alternatives: .*$|\s\((?:[+-]?[\d.]+% parameters|parameters unchanged)\)")


def unique(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The findings of a run with each reported once: a value a Hydra defaults list composes
    into several configs is found from each of them and from its own file, a literal two
    sections of one file reference is found from each; the copy with a fix (its own file's)
    is kept."""
    kept: dict[tuple[str, str, int | None, str], int] = {}
    found: list[Diagnostic] = []
    for diagnostic in diagnostics:
        start = diagnostic.span.start if diagnostic.span is not None else None
        # a parallel-layout finding names the pointers of the sizes it judged, which differ
        # between the group file and the primary that composes it: still one finding
        message = _AROUND.sub("", _ORIGIN.sub("", diagnostic.message))
        key = (diagnostic.code, diagnostic.path, start, message)
        index = kept.get(key)
        if index is None:
            kept[key] = len(found)
            found.append(diagnostic)
        elif found[index].fix is None and diagnostic.fix is not None:
            found[index] = diagnostic
    return found
