"""What transformers knows about each model type, without importing transformers.

``data/architectures.json`` is generated from the installed transformers by
``python -m dimlint.tools.generate_architectures`` and records the version it came from; a test
regenerates it and fails on drift. It holds, per model type, the attribute aliases
(``attribute_map``), the defaults used when a key is absent, the declared field names (for the
near-miss check of DL004) and the default types of nested sub-configs.

The file is close to a megabyte and a run usually needs one or two of its 800 rows, so it is
not parsed whole: the generator writes one model type per line, and :func:`lookup` parses only
the header and the row it is asked for (a full ``json.load`` would cost more than linting).
"""

from __future__ import annotations

import functools
import json
import os
import re
from typing import Any

from dimlint.records import Record

DATA_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "architectures.json"
)
_ROWS_START = '  "model_types": {\n'


class Architecture(Record):
    """The slice of one transformers config class that normalization needs."""

    model_type: str
    aliases: dict[str, str]
    defaults: dict[str, Any]
    fields: frozenset[str]
    sub_configs: dict[str, str | None]
    #: the sub-config keys transformers resolves through AutoConfig by their stated
    #: ``model_type``; the others always build the class's own sub-config class
    auto_sub_configs: frozenset[str]
    causal_lm: bool

    def attribute(self, standard_name: str) -> str:
        """The key this model type stores a standard attribute under (gpt2: hidden → n_embd)."""
        return self.aliases.get(standard_name, standard_name)


@functools.cache
def _text() -> str:
    with open(DATA_FILE, encoding="utf-8") as handle:
        return handle.read()


@functools.cache
def _header() -> dict[str, Any]:
    """The top-level keys before the rows (version, base and all fields)."""
    text = _text()
    end = text.index(_ROWS_START)
    header: dict[str, Any] = json.loads(text[:end].rstrip().rstrip(",") + "\n}")
    return header


def transformers_version() -> str:
    """The transformers release the table was generated from."""
    return str(_header()["transformers_version"])


@functools.cache
def base_fields() -> frozenset[str]:
    """Fields every transformers config has (``architectures``, ``dtype``, …)."""
    return frozenset(_header()["base_fields"])


@functools.cache
def all_fields() -> frozenset[str]:
    """The union of every model type's fields: a key here is meaningful to *some* model."""
    return frozenset(_header()["all_fields"])


@functools.cache
def _row_offsets() -> dict[str, int]:
    """Where each model type's row starts, from one regex pass over the file."""
    text = _text()
    return {
        _name(match.group(1)): match.end()
        for match in re.finditer(r'\n    ("(?:[^"\\]|\\.)*"): ', text)
    }


def _name(token: str) -> str:
    """A quoted model type name (escapes are rare: decoded only when present)."""
    return token[1:-1] if "\\" not in token else str(json.loads(token))


#: Rows found by searching the text before the index of every row is built: one check looks up
#: one or two types, and a search costs a fraction of the index (822 rows in 800 KB).
_SEARCHES_BEFORE_INDEX = 4
_searches = [0]


def _row_start(model_type: str) -> int | None:
    """Where the row of ``model_type`` starts (after its key), or None when there is none."""
    if _searches[0] < _SEARCHES_BEFORE_INDEX and '"' not in model_type and "\\" not in model_type:
        _searches[0] += 1
        key = f'\n    "{model_type}": '
        found = _text().find(key)
        return None if found < 0 else found + len(key)
    return _row_offsets().get(model_type)


@functools.cache
def lookup(model_type: str) -> Architecture | None:
    """The architecture record for ``model_type``, or None for types transformers lacks."""
    start = _row_start(model_type)
    if start is None:
        return None
    text = _text()
    end = text.index("\n", start)
    record = json.loads(text[start:end].rstrip(","))
    return Architecture(
        model_type=model_type,
        aliases=dict(record["aliases"]),
        defaults=dict(record["defaults"]),
        fields=frozenset(record["fields"]),
        sub_configs=dict(record["sub_configs"]),
        auto_sub_configs=frozenset(record.get("auto_sub_configs", ())),
        causal_lm=bool(record["causal_lm"]),
    )


def model_type_names() -> list[str]:
    """Every model type in the table, from the row index alone (cheap: no row is parsed)."""
    return list(_row_offsets())


def model_types() -> list[str]:
    """Every model type in the table, sorted (parses the whole file: for tests and tools)."""
    table: dict[str, Any] = json.loads(_text())
    return sorted(table["model_types"])
