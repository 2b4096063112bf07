"""DL701 unused-noqa: registered here for the catalogue, the CLI and filtering.

It is a check over Python and YAML comments, not over a :class:`ModelSpec`:
:mod:`dimlint.lint.noqa` raises it while applying the ``# noqa`` comments of a file.
"""

from __future__ import annotations

from dimlint.checks.registry import register
from dimlint.diagnostics import Severity

register(
    "DL701",
    "unused-noqa",
    Severity.INFO,
    "A `# noqa: DLxxx` comment in Python or YAML suppresses nothing.",
    fix="always",
)
