"""Errors that end a run with exit code 2 and a one-line message.

Every exception dimlint raises on purpose derives from :class:`DimlintError`, so that a script
using the Python API (:mod:`dimlint.api`) can catch them all with one ``except``.
"""

from __future__ import annotations


class DimlintError(Exception):
    """The base of every error dimlint raises on purpose (never an internal failure)."""


class UsageError(DimlintError):
    """Bad arguments, settings or paths: reported in one line, exit code 2."""
