"""What a raw config states at a template's path: ``hidden_size`` at the top level,
``text_config.hidden_size`` in a sub-config dict.

The templates, the plan counter and the probed-key reader all look values up so; one lookup
keeps them agreeing on where a path points.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def holder_of(raw: Mapping[str, Any], path: str) -> tuple[Mapping[str, Any] | None, str]:
    """The dict that states ``path``'s last name (None when its sub-config is not a dict),
    and that name."""
    key, _, name = path.rpartition(".")
    holder = raw.get(key) if key else raw
    return (holder if isinstance(holder, Mapping) else None), name


def stated_at(raw: Mapping[str, Any], path: str) -> object:
    """The value ``raw`` states at ``path``, None when it states none."""
    holder, name = holder_of(raw, path)
    return holder.get(name) if holder is not None else None
