"""The rules. Importing this package imports every rule module, each registering its rules in
:mod:`dimlint.checks.registry`; :func:`all_rules` is that registry once they are all in."""

from __future__ import annotations

from dimlint.checks import (  # noqa: F401
    alignment,
    architecture_class,
    attention,
    budget,
    checkpoint,
    consistency,
    embedding,
    ffn,
    inputs,
    keys,
    moe,
    noqa,
    parallel,
    schema,
    tokenizer,
    transformers_validation,
)
from dimlint.checks.registry import REGISTRY, Rule

_SORTED: dict[str, Rule] = {}


def all_rules() -> dict[str, Rule]:
    """Every registered rule by code, in code order."""
    if not _SORTED:
        _SORTED.update(sorted(REGISTRY.items()))
    return _SORTED
