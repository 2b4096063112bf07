"""Stated keys a row's config class reads as it would read the learned domain.

The generator (:mod:`dimlint.tools.legacy_keys`) records per model type which of the keys its
config class declares no field for are an ``alias`` of one declared field (BLOOM's ``n_embed``
sets ``hidden_size``; ``wins`` says which value the class keeps when both are stated) and which
are ``inert`` (GPT-NeoX's ``rotary_emb_base`` moves only the rotary table; Nemotron-H ignores a
stated ``num_hidden_layers``): meta builds showed the tensors unchanged at several values and
depths. The template guards that refuse unlearned keys (``_legacy_key``, ``_unknown_number``)
let these through, and a stated alias is read as its field. Two stated values are inside
for the same reason: a ``fixed`` field stated at the value the class derives when it is left
out (OPT's ``word_embed_proj_dim`` equal to ``hidden_size``), and a numeric field stated null
where the row learned that regime as a variant (DeepSeek-V2-Lite's ``q_lora_rank``).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dimlint.memory.parameters.stated import holder_of


def accepted(learned: dict[str, Any]) -> frozenset[str]:
    """The keys the row's class was probed to alias or ignore: inside at any value."""
    probed: dict[str, Any] = learned.get("legacy_keys", {})
    return frozenset(probed.get("inert", [])) | frozenset(probed.get("alias", {}))


def aliased(raw: dict[str, Any], learned: dict[str, Any]) -> dict[str, Any]:
    """``raw`` with each stated alias key's value read as its field, as the class reads it:
    over a stated field only where the key wins (``raw`` itself when nothing is mapped)."""
    mapping: dict[str, dict[str, Any]] = learned.get("legacy_keys", {}).get("alias", {})
    read = raw
    for key, alias in mapping.items():
        field = alias.get("field")
        if key not in raw or raw[key] is None or not isinstance(field, str):
            continue
        if field in raw and raw[field] is not None and not alias.get("wins"):
            continue
        read = dict(read) if read is raw else read
        read[field] = raw[key]
    return read


def stated_as_derived(
    get: Callable[[str], int | None], learned: dict[str, Any], path: str, stated: int | None
) -> bool:
    """Whether a ``fixed`` field that ``__post_init__`` derives when left out is stated at the
    value the class would derive for this config (OPT's ``word_embed_proj_dim`` stated equal
    to ``hidden_size``): the config is then the one learning built without it, and every
    build that moved the other fields learned it. ``get`` reads the config's other values."""
    expression = learned.get("derived", {}).get(path)
    if stated is None or not isinstance(expression, list):
        return False
    conditions = learned.get("derived_when", {}).get(path, [])
    if any(get(flag) != wanted for flag, wanted in conditions):
        return False
    total = Fraction(0)
    for term in expression:
        numerator, denominator, factors = term
        value = Fraction(numerator, denominator)
        for name, power in factors:
            if name == path:
                return False
            got = get(name)
            if got is None or isinstance(got, bool):
                return False
            value *= Fraction(got) ** power
        total += value
    return total == stated


def stated_null(raw: dict[str, Any], path: str) -> bool:
    """Whether ``raw`` states ``path`` (``key.name`` in a sub-config) as null: the regime of a
    numeric field the class keeps None (DeepSeek-V2-Lite's ``q_lora_rank``), learned as a
    variant row of its own (``"path=null"``)."""
    holder, name = holder_of(raw, path)
    return holder is not None and name in holder and holder[name] is None
