"""DL701 unused-noqa: registered here for the catalogue, the CLI and filtering.

It is a check over Python comments, not over a :class:`ModelSpec`: :mod:`dimlint.noqa` raises
it while applying the ``# noqa`` comments of a file.
"""

from __future__ import annotations

from dimlint.diagnostics import Severity
from dimlint.registry import register

register(
    "DL701",
    "unused-noqa",
    Severity.INFO,
    "A `# noqa: DLxxx` comment in Python code suppresses nothing.",
    fix="always",
)
