"""What transformers does with values the rules judge, per model type, without importing it.

``data/behaviour.json`` is written by ``python -m dimlint.tools.generate_behaviour`` from the
installed transformers (see that module for how each fact was observed): what a model type does
with a hidden size its heads do not divide (DL101 says what really happens for the config's own
model type), and which integer fields its config class accepts as ``null`` (DL003 leaves those
alone).
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

DATA_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "behaviour.json"
)


@functools.cache
def _table() -> dict[str, Any]:
    try:
        with open(DATA_FILE, encoding="utf-8") as handle:
            data: dict[str, Any] = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data


def transformers_version() -> str:
    """The transformers release the facts were observed with ("" without the file)."""
    return str(_table().get("transformers_version", ""))


def head_divisibility(model_type: str | None) -> str | None:
    """``config``, ``build``, ``forward``, ``runs``, ``built`` or ``accepted`` (see the
    generator), or None for a model type transformers was not asked about."""
    if not model_type:
        return None
    outcome = _table().get("head_divisibility", {}).get(model_type)
    return outcome if isinstance(outcome, str) else None


def accepts_null(model_type: str | None, field: str) -> bool:
    """Whether ``model_type``'s config class types ``field`` as ``int | None``."""
    if not model_type:
        return False
    return field in _table().get("nullable", {}).get(model_type, ())
