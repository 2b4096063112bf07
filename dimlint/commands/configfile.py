"""Read the one config a command such as ``mem``, ``shapes`` or ``plan`` works on.

Unlike ``check``, these commands cannot report a broken file as a finding and carry on: they
need the config, so a file that cannot be read or parsed is a usage error (exit 2) that points
the user at ``dimlint check``, which locates the problem.
"""

from __future__ import annotations

from typing import Any


def read_config(path: str) -> tuple[str, dict[str, Any]]:
    """The config at ``path`` (a file, a folder holding ``config.json``, or a Hub id such as
    ``hf://org/name``: :mod:`dimlint.sources.source`) and the path its findings name."""
    from dimlint.sources.source import load_source

    loaded = load_source(path)
    return loaded.path, loaded.value
