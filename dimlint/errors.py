"""Errors that end a run with exit code 2 and a one-line message.

Every exception dimlint raises on purpose derives from :class:`DimlintError`, so that a script
using the Python API (:mod:`dimlint.api`) can catch them all with one ``except``.
"""

from __future__ import annotations

from typing import Any


class DimlintError(Exception):
    """The base of every error dimlint raises on purpose (never an internal failure)."""


class UsageError(DimlintError):
    """Bad arguments, settings or paths: reported in one line, exit code 2."""


class RejectedInput(DimlintError):
    """A config with error-level findings: commands that compute from it (``mem``, ``plan``,
    ``shapes``, and the API's ``mem`` and ``plan``) report the findings instead, and exit 1 as
    ``check`` would; the message lists them, one ``path:line:column: CODE [severity] message``
    per line."""

    def __init__(self, diagnostics: list[Any], sources: dict[str, str]) -> None:
        count = len(diagnostics)
        lines = [f"{count} finding{'s' if count != 1 else ''} in the model config:"]
        lines.extend(f"  {_finding(d)}" for d in diagnostics)
        super().__init__("\n".join(lines))
        #: The findings, as ``check`` reports them (``dimlint.diagnostics.Diagnostic``).
        self.diagnostics = diagnostics
        #: File texts for the code frames of the ``full`` format.
        self.sources = sources


def _finding(diagnostic: Any) -> str:
    """``path:line:column: CODE [severity] message`` of a ``Diagnostic`` (duck-typed: this
    module imports nothing of dimlint)."""
    span = getattr(diagnostic, "span", None)
    where = str(getattr(diagnostic, "path", ""))
    if span is not None:
        where += f":{span.start_pos.line}:{span.start_pos.column}"
    severity = getattr(getattr(diagnostic, "severity", None), "label", "")
    return f"{where}: {diagnostic.code} [{severity}] {diagnostic.message}"
