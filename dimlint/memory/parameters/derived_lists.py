"""The lists and dicts a config class derives at its default config (``data/derived_lists.json``,
written by :mod:`dimlint.tools.generate_derived_lists`).

A template was learned at these values: SmolLM3's ``no_rope_layers``, Mllama's
``cross_attention_layers``, Kimi-Linear's ``mlp_layer_types`` are declared ``None`` and derived in
``__post_init__``, so ``architectures.json`` (declared defaults) cannot say what the build had.
:mod:`~dimlint.memory.parameters.template_plans` takes a stated list equal to its derived default
as learned. Like the other tables, one model type per line; only the line asked for is parsed.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from dimlint.config.rowtable import RowTable

#: ``dimlint/data``: two packages up from this module.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = RowTable(os.path.join(_PACKAGE_DIR, "data", "derived_lists.json"))


@functools.cache
def defaults(model_type: str) -> dict[str, Any]:
    """Dotted path → the list or dict ``model_type``'s default config derives there."""
    found = TABLE.row(model_type)
    return found if isinstance(found, dict) else {}
