"""DL001 invalid-input and DL002 duplicate-key: problems of the file, not of the model.

Both are raised by the linter while reading a document (see :mod:`dimlint.lint.pipeline`), before
any
spec exists, so they are registered here for the catalogue, the CLI and filtering, with no
spec-level check.
"""

from __future__ import annotations

from dimlint.checks.registry import register
from dimlint.diagnostics import Severity

register(
    "DL001",
    "invalid-input",
    Severity.ERROR,
    "A file cannot be parsed: JSON syntax, encoding, or a top level that is not an object.",
    fix="sometimes",
)
register(
    "DL002",
    "duplicate-key",
    Severity.ERROR,
    "A JSON object repeats a key: readers silently keep the last value.",
    fix="always",
)
