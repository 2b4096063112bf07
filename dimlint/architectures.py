"""What transformers knows about each model type, without importing transformers.

``data/architectures.json`` is generated from the installed transformers by
``python -m dimlint.tools.generate_architectures`` and records the version it came from; a test
regenerates it and fails on drift. It holds, per model type, the attribute aliases
(``attribute_map``), the defaults used when a key is absent, the declared field names (for the
near-miss check of DL004) and the default types of nested sub-configs.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA_FILE = Path(__file__).resolve().parent / "data" / "architectures.json"


@dataclass(frozen=True)
class Architecture:
    """The slice of one transformers config class that normalization needs."""

    model_type: str
    aliases: dict[str, str]
    defaults: dict[str, Any]
    fields: frozenset[str]
    sub_configs: dict[str, str | None]
    causal_lm: bool

    def attribute(self, standard_name: str) -> str:
        """The key this model type stores a standard attribute under (gpt2: hidden → n_embd)."""
        return self.aliases.get(standard_name, standard_name)


@functools.cache
def _table() -> dict[str, Any]:
    with DATA_FILE.open(encoding="utf-8") as handle:
        table: dict[str, Any] = json.load(handle)
    return table


def transformers_version() -> str:
    """The transformers release the table was generated from."""
    return str(_table()["transformers_version"])


@functools.cache
def base_fields() -> frozenset[str]:
    """Fields every transformers config has (``architectures``, ``dtype``, token ids…)."""
    return frozenset(_table()["base_fields"])


@functools.cache
def lookup(model_type: str) -> Architecture | None:
    """The architecture record for ``model_type``, or None for types transformers lacks."""
    record = _table()["model_types"].get(model_type)
    if record is None:
        return None
    return Architecture(
        model_type=model_type,
        aliases=dict(record["aliases"]),
        defaults=dict(record["defaults"]),
        fields=frozenset(record["fields"]),
        sub_configs=dict(record["sub_configs"]),
        causal_lm=bool(record["causal_lm"]),
    )


def model_types() -> list[str]:
    """Every model type in the table, sorted."""
    return sorted(_table()["model_types"])


@functools.cache
def all_fields() -> frozenset[str]:
    """The union of every model type's fields: a key here is meaningful to *some* model."""
    names: set[str] = set(base_fields())
    for record in _table()["model_types"].values():
        names.update(record["fields"])
    return frozenset(names)
