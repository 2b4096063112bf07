"""Errors that end a run with exit code 2 and a one-line message."""

from __future__ import annotations


class UsageError(Exception):
    """Bad arguments, settings or paths: reported in one line, exit code 2."""
