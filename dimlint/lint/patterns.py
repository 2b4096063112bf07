"""Glob patterns for paths in settings (``exclude``, ``per-file-ignores``).

Patterns are relative to the folder of the settings file that holds them (the working
directory when there is none), so a setting means the same wherever dimlint is started from.
A pattern matches a path relative to that folder, or the name of the file or of any folder
it is in (``drafts`` excludes everything under a ``drafts`` folder); ``**/`` also matches at
the top.
"""

from __future__ import annotations

import fnmatch
import os


def path_matches(path: str, pattern: str, root: str) -> bool:
    """Whether ``path``, or a folder it is in, matches ``pattern`` taken relative to ``root``."""
    relative = os.path.relpath(os.path.abspath(path), os.path.abspath(root)).replace(os.sep, "/")
    pattern = pattern.removeprefix("./").rstrip("/")
    parts = relative.split("/")
    for depth in range(1, len(parts) + 1):
        prefix, name = "/".join(parts[:depth]), parts[depth - 1]
        if fnmatch.fnmatch(prefix, pattern) or fnmatch.fnmatch(name, pattern):
            return True
        if pattern.startswith("**/") and fnmatch.fnmatch(prefix, pattern[3:]):
            return True
    return False
