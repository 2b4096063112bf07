"""The generated tables of ``dimlint/data`` that hold one model type per line.

``shapes.json`` (about 6 MB), ``load_names.json`` and ``derived_lists.json`` are JSON objects
whose rows are written ``\\n    "<model type>": {…},`` on one line each. A check asks for one or
two model types, so a lookup finds the row's key by a substring search and decodes that line
alone instead of parsing the whole file; the index of every row is built only when someone
lists the model types. The generators write them with :func:`render`.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

_ROW_KEY = re.compile(rb'\n    ("(?:[^"\\]|\\.)*"): ')


class RowTable:
    """One such table, read once on first use (an absent file reads as empty: no rows)."""

    def __init__(self, path: str) -> None:
        self.path = path

    @functools.cached_property
    def data(self) -> bytes:
        """The table as bytes: a lookup decodes one row, not the whole file."""
        try:
            with open(self.path, "rb") as handle:
                return handle.read()
        except OSError:
            return b""

    @functools.cached_property
    def offsets(self) -> dict[str, int]:
        """Where each model type's row starts (after its key), from one pass over the file."""
        return {json.loads(match.group(1)): match.end() for match in _ROW_KEY.finditer(self.data)}

    def row(self, model_type: str) -> Any:
        """The decoded row of ``model_type``, or None when the table has none."""
        data = self.data
        key = f"\n    {json.dumps(model_type)}: ".encode()
        found = data.find(key)
        if found < 0:
            return None
        start = found + len(key)
        end = data.index(b"\n", start)
        return json.loads(data[start:end].rstrip(b","))


def render(version: str, rows: Sequence[tuple[str, Any]]) -> str:
    """A table of ``rows`` (model type, row) for the transformers ``version`` it was learned
    from, one row per line as :class:`RowTable` reads it."""
    lines = ["{", f'  "transformers_version": {json.dumps(version)},', '  "types": {']
    for index, (name, row) in enumerate(rows):
        comma = "," if index < len(rows) - 1 else ""
        lines.append(f"    {json.dumps(name)}: {json.dumps(row, sort_keys=True)}{comma}")
    lines += ["  }", "}", ""]
    return "\n".join(lines)
