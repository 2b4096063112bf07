"""Rule modules; importing this package registers every rule (see :mod:`dimlint.registry`)."""

from __future__ import annotations

from dimlint.checks import (  # noqa: F401
    alignment,
    architecture_class,
    attention,
    budget,
    checkpoint,
    consistency,
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
