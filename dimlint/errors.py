"""Errors that end a run with a one-line message: exit code 2, or 1 for bad input."""

from __future__ import annotations


class UsageError(Exception):
    """Bad arguments, settings or paths: reported in one line, exit code 2."""


class InputError(Exception):
    """A config a command cannot compute with (invalid dimensions): one line, exit code 1,
    as for any command given a config with error-level input findings."""
