"""Whether a path, links followed, lies inside a folder: the one containment test of dimlint.

Every read or write that must stay inside a tree (``--fix`` writing through a symlink, a
checkpoint index naming its shards, the walk telling a link into the tree from one out of it)
asks :func:`within`. Comparing strings by prefix gets this wrong in ways a test rarely sees:
``/repo/tree-evil/victim.json`` starts with ``/repo/tree``, and a root given with or without a
trailing separator, or through a link, changes the answer. Here both sides are resolved to real
paths and compared by whole components (``os.path.commonpath``), so a sibling folder whose name
extends the root's is outside.
"""

from __future__ import annotations

import os
from collections.abc import Iterable


def within(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or lies under it, both with every link followed."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    try:
        return os.path.commonpath([real, base]) == base
    except ValueError:  # different drives (Windows): never inside
        return False


def within_any(path: str, roots: Iterable[str]) -> bool:
    """True when ``path`` (links followed) lies inside one of ``roots``."""
    return any(within(path, root) for root in roots)
