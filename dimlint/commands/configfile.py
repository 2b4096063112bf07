"""Read the one config a command such as ``mem``, ``shapes`` or ``plan`` works on.

Unlike ``check``, these commands cannot report a broken file as a finding and carry on: they
need the config, so a file that cannot be read or parsed is a usage error (exit 2) that points
the user at ``dimlint check``, which locates the problem.
"""

from __future__ import annotations

import json
import os
from typing import Any

from dimlint.errors import InvalidInput, UsageError


def read_config(path: str) -> tuple[str, dict[str, Any]]:
    """The config at ``path`` (a file, or a folder holding ``config.json``) and its file path.

    The config goes through the input rules of ``check`` (DL001 invalid input, DL002 duplicate
    keys, DL003 invalid values) first: a negative ``v_head_dim`` or a string ``hidden_size`` is
    reported as ``check`` reports it (:class:`InvalidInput`, exit 1), never turned into a
    negative KV cache.
    """
    from dimlint.safeio import read_regular

    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        data = read_regular(path, limit=MAX_CONFIG_BYTES + 1)
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise UsageError(f"{path}: more than {MAX_CONFIG_BYTES >> 20} MiB; not a model config")
    try:
        value = json.loads(data.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError) as error:
        reason = str(error)[:200]
        raise UsageError(f"{path}: not valid JSON ({reason}); `dimlint check` locates it") from None
    if not isinstance(value, dict):
        raise UsageError(f"{path}: the top level is not a JSON object")
    _validate(path, data)
    return path, value


#: Larger files are not read (as in ``check``).
MAX_CONFIG_BYTES = 256 * 1024 * 1024
INPUT_RULES = ("DL001", "DL002", "DL003")


def _validate(path: str, data: bytes) -> None:
    """Raise :class:`InvalidInput` when the input rules find an error in the config."""
    from dimlint.diagnostics import Severity
    from dimlint.linter import lint_bytes
    from dimlint.report.concise import headline
    from dimlint.selection import Selection

    found = lint_bytes(path, data, Selection(select=INPUT_RULES)).diagnostics
    errors = [d for d in found if d.severity >= Severity.ERROR and d.code != "DL001"]
    if errors:
        raise InvalidInput([headline(d) for d in errors])
