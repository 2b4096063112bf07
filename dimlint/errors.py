"""Errors that end a run with exit code 2 and a one-line message."""

from __future__ import annotations


class UsageError(Exception):
    """Bad arguments, settings or paths: reported in one line, exit code 2."""


class InvalidInput(Exception):
    """A config ``mem``, ``plan`` or ``shapes`` cannot compute from: its error-level input
    findings (DL001–DL003), one per line, are printed and the exit code is 1, as ``check``'s."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines
