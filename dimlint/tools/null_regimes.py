"""Fields whose class default is a number and whose ``None`` builds another structure.

DeepSeek-V2's ``q_lora_rank`` defaults to 1536 (a low-rank query pair ``q_a_proj`` /
``q_b_proj``); DeepSeek-V2-Lite states ``q_lora_rank: null``, which the class keeps and the
model reads as "no low rank": a dense ``q_proj``. Field learning moves numbers only, so the
null structure was never built and such configs were refused. A field the class accepts as
None (the config keeps it None) whose model then builds, with other tensors than the default's,
is a regime of its own: the generator learns it as a variant row with the field stated None
(``"path=null"`` under ``variants``, ``[path, "=", null]`` under ``regimes``), which the
run-time picks for a config stating the field null.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: Shapes of one class built from a config (``generate_shapes._groups`` of a meta build).
Shapes = Callable[[Any, Any], object]


def null_switches(
    config: Any,
    model_class: Any,
    declared: Mapping[str, object],
    skip: Iterable[str],
    shapes: Shapes,
    held: Mapping[str, object] | None = None,
) -> list[str]:
    """The top-level fields of ``declared`` (the class defaults) that default to a number and
    that, stated None beside ``held``, keep None in the config and build tensors other than
    the config stating ``held`` alone."""
    found: list[str] = []
    excluded = set(skip)
    try:
        base = shapes(model_class, type(config)(**(held or {})))
    except Exception:  # the plain config does not build: nothing to compare with
        return []
    for path, default in sorted(declared.items()):
        if (
            path in excluded
            or isinstance(default, bool)
            or not isinstance(default, int)
            or path in (held or {})
        ):
            continue
        try:
            stated = type(config)(**{**(held or {}), path: None})
            if getattr(stated, path, 0) is not None:
                continue  # the class replaces None: no regime of its own
            if shapes(model_class, stated) != base:
                found.append(path)
        except Exception:  # the class or model rejects None: left refused
            continue
    return found
