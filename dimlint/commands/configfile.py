"""Read the one config a command such as ``mem``, ``shapes`` or ``plan`` works on.

Unlike ``check``, these commands cannot report a broken file as a finding and carry on: they
need the config, so a file that cannot be read or parsed is a usage error (exit 2) that points
the user at ``dimlint check``, which locates the problem. The file goes through the same JSON
reader as ``check`` (no recursion: a config nested 100,000 levels deep is an answer, not a
crash; integer literals longer than ``int()`` accepts are kept as :class:`HugeInt`), and a
config whose dimensions are invalid (DL003: a string, ≤ 0, larger than any tensor can be) is
refused with exit 1 rather than computed with.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from dimlint.errors import InputError, UsageError

if TYPE_CHECKING:
    from dimlint.spec import ModelSpec


def read_config(path: str) -> tuple[str, dict[str, Any]]:
    """The config at ``path`` (a file, or a folder holding ``config.json``) and its file path."""
    from dimlint.sources import jsonfile

    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    document, problems = jsonfile.load(path, data)
    fatal = [problem for problem in problems if not problem.recoverable]
    if document is None or fatal:
        problem = (fatal or problems)[0]
        where = f"line {problem.position.line}, column {problem.position.column}"
        raise UsageError(
            f"{path}: not valid JSON ({problem.message} at {where}); `dimlint check` locates it"
        )
    if not isinstance(document.value, dict):
        raise UsageError(f"{path}: the top level is not a JSON object")
    return path, document.value


def refuse_invalid(path: str, specs: list[ModelSpec]) -> None:
    """Raise :class:`InputError` when a spec holds a dimension DL003 rejects."""
    from dimlint.checks.schema import check_invalid_values

    for spec in specs:
        if not spec.invalid:
            continue  # the fast path: every stated dimension read as a valid integer
        finding = next(iter(check_invalid_values(spec)), None)
        if finding is not None:
            raise InputError(
                f"{path}: {finding.message} (DL003 at {finding.anchor}): nothing is computed"
                f" from an invalid value; `dimlint check {path}` shows it"
            )
