"""Read the one config a command such as ``mem``, ``shapes`` or ``plan`` works on.

Unlike ``check``, these commands cannot report a broken file as a finding and carry on: they
need the config, so a file that cannot be read or parsed is a usage error (exit 2) that points
the user at ``dimlint check``, which locates the problem.
"""

from __future__ import annotations

import json
import os
from typing import Any

from dimlint.errors import UsageError


def read_config(path: str) -> tuple[str, dict[str, Any]]:
    """The config at ``path`` (a file, or a folder holding ``config.json``) and its file path."""
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        with open(path, encoding="utf-8-sig") as handle:
            value = json.load(handle)
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: not valid JSON ({error}); `dimlint check` locates it") from None
    if not isinstance(value, dict):
        raise UsageError(f"{path}: the top level is not a JSON object")
    return path, value
