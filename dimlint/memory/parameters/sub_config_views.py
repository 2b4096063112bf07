"""A composite's sub-configs judged by the checks a top-level config gets (issue 19).

The template guards that refuse a stated key no build learned (a legacy key the config class
pops from ``**kwargs``, a flag never varied) read the top-level keys of a config. A composite's
sub-config holds such keys too: Gemma-4's ``text_config.global_head_dim`` and
``num_global_key_value_heads`` resize its global layers, and the composite's template, learned
at the default, counted neither. Each stated sub-config is handed to the same guards as a config
of its own type, with a view of the row that holds what the row learned under it: its paths
below the sub-config (fields it moved, flags it flipped), and what the sub-model's own row found
of the config class itself (the value a legacy key falls back to, the keys its builds proved
inert). Keys that row proved aliases of a field are folded into the field first
(:func:`with_aliases_read`), as the sub-config's class reads them: the composite's template
reads the field, not the key (LFM2.5-VL's ``text_config.block_ff_dim``, which ``Lfm2Config``
pops into ``intermediate_size``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dimlint.config import architectures
from dimlint.memory.parameters.probed_keys import aliased

#: The row's lists and tables of paths that say what it learned.
_LEARNED = ("examined", "defaults", "declared", "fixed", "strings")


def stated(raw: Mapping[str, Any], model_type: str) -> Iterator[tuple[str, dict[str, Any], str]]:
    """``(key, stated sub-config, its model type)`` of each sub-config ``raw`` states as an
    object whose type is known (stated, else the class's default for the key)."""
    record = architectures.lookup(model_type)
    if record is None:
        return
    for key, default_type in record.sub_configs.items():
        sub = raw.get(key)
        if not isinstance(sub, dict):
            continue
        named = sub.get("model_type")
        sub_type = named if isinstance(named, str) and named else default_type
        if sub_type:  # else a class whose sub-config type is unknown: judged by its fields
            yield key, sub, sub_type


def views(
    raw: Mapping[str, Any],
    model_type: str,
    learned: Mapping[str, Any],
    row_of: Callable[[str], dict[str, Any] | None],
) -> Iterator[tuple[str, dict[str, Any], str, dict[str, Any]]]:
    """``(prefix, stated sub-config, its model type, view of the row)`` of each sub-config
    ``raw`` states as an object (see the module doc)."""
    paths = [path for name in _LEARNED for path in learned.get(name, []) or []]
    for key, sub, sub_type in stated(raw, model_type):
        prefix = f"{key}."
        own = row_of(sub_type) or {}
        view = {
            "examined": [path[len(prefix) :] for path in paths if path.startswith(prefix)],
            "legacy": own.get("legacy", {}),
            "legacy_keys": {"inert": own.get("legacy_keys", {}).get("inert", [])},
        }
        yield prefix, sub, sub_type, view


def with_aliases_read(
    raw: dict[str, Any], model_type: str, row_of: Callable[[str], dict[str, Any] | None]
) -> dict[str, Any]:
    """``raw`` with each stated sub-config's alias keys (those the sub-model's own row proved
    to set one field: ``legacy_keys.alias``) read into their fields and dropped, as that
    sub-config's class does in ``__post_init__`` (``raw`` itself when no sub-config states
    one)."""
    read = raw
    for key, sub, sub_type in stated(raw, model_type):
        own = row_of(sub_type) or {}
        mapping = own.get("legacy_keys", {}).get("alias", {})
        if not isinstance(mapping, dict) or not any(name in sub for name in mapping):
            continue
        folded_sub = aliased(dict(sub), own)
        for name in mapping:
            folded_sub.pop(name, None)
        read = dict(read) if read is raw else read
        read[key] = folded_sub
    return read
