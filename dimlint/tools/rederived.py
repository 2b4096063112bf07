"""Sub-config entries the config class builds itself, which a perturbed build must not restate.

The generator changes a sub-config's field by rebuilding the sub-config from a dict of its
stated values (:func:`dimlint.tools.generate_shapes._perturbed_many`). Declared fields whose
default is None and that ``__post_init__`` fills in (``layer_types``) are left out of that dict
so the class derives them again for the new value. Some classes also derive per-layer
structures that are no declared field at all: Gemma-4's text config turns ``layer_types`` into
``per_layer_config`` (a head-dimension override for each full-attention layer, keyed by layer
index) through its keyword arguments. Restated, that dict still names the default's layers:
``num_hidden_layers`` of 60 then fails ("layer 35 differs"), so the layer count was ``fixed``
and every Gemma-4 with another depth fell back to the hand recipes. Such an entry is the class's
own derivation when a bare instance of the class (built with no arguments) holds the very same
value: left out, the class derives it again from the changed fields.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def _declared_names(config_class: Any) -> set[str]:
    if not dataclasses.is_dataclass(config_class):
        return set()
    return {field.name for field in dataclasses.fields(config_class)}


def undeclared_structures(sub: Any) -> set[str]:
    """Names of ``sub``'s entries that are lists or dicts, no declared field or alias of its
    class, and equal to what a bare instance of the class derives (see the module doc)."""
    try:
        bare = type(sub)().to_dict()
    except Exception:  # a class that needs arguments derives nothing we can compare with
        return set()
    declared = _declared_names(type(sub)) | set(getattr(sub, "attribute_map", {}) or {})
    found: set[str] = set()
    for name, value in sub.to_dict().items():
        if (
            isinstance(value, list | dict)
            and value
            and name not in declared
            and name in bare
            and bare[name] == value
        ):
            found.add(name)
    return found
