"""Which file an open document is linted as, and in which workspace folder.

``file:`` documents are linted as the file they name. ``untitled:`` buffers (a new file not yet
saved) are linted as a file of their language in the first workspace folder, so that the
workspace's settings apply to them. Anything else (other schemes, a URI naming a path with a
NUL byte, which no file system accepts) is not linted: the server logs why and stays quiet,
instead of failing on the first system call with the path. No pygls here.
"""

from __future__ import annotations

import os
import re
from urllib.parse import unquote, urlparse

#: Suffix of the file an ``untitled:`` buffer is linted as, by its language id.
LANGUAGE_SUFFIX = {
    "python": ".py",
    "json": ".json",
    "jsonc": ".json",
    "yaml": ".yaml",
}
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def file_path(uri: str) -> str | None:
    """The local path a ``file:`` URI names (None for other schemes or impossible paths)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if parsed.netloc and parsed.netloc != "localhost":
        path = f"//{parsed.netloc}{path}"
    if "\x00" in path or not path:
        return None
    return path


def lint_path(uri: str, language: str | None, folders: list[str]) -> tuple[str, str | None] | None:
    """The path ``uri`` is linted as and the workspace folder it belongs to, or None."""
    if uri.startswith("untitled:"):
        suffix = LANGUAGE_SUFFIX.get(language or "")
        if suffix is None:
            return None
        name = _UNSAFE.sub("-", unquote(uri[len("untitled:") :])).strip("-") or "untitled"
        folder = folders[0] if folders else os.getcwd()
        return os.path.join(folder, f"{name}{suffix}"), folder if folders else None
    path = file_path(uri)
    if path is None:
        return None
    absolute = os.path.abspath(path)
    inside = [f for f in folders if os.path.commonpath([f, absolute]) == f]
    return path, max(inside, key=len) if inside else None


def folder_paths(uris: list[str]) -> list[str]:
    """Local paths of the workspace folders (folders that are not local are left out)."""
    found = [file_path(uri) for uri in uris]
    return [os.path.abspath(path) for path in found if path is not None]
