"""What meta builds showed about a template's domain beyond single moves.

The table is ``data/domain_probes.json``, written by :mod:`dimlint.tools.generate_domain_probes`.

A template learns each field from builds that move it alone. Two things such builds cannot show
are probed afterwards and recorded per model type:

- ``interacting``: pairs of flags whose joint flip builds other tensors than the sum of their
  single flips (Falcon's ``new_decoder_architecture`` with ``parallel_attn`` off keeps
  ``input_layernorm`` and adds ``post_attention_layernorm``, where each flip alone swaps the
  first for ``ln_attn`` and ``ln_mlp``, or adds the second). A config that states both values
  of such a pair is outside the learned domain. So is a config stating one of the
  ``wrong_flips``: a single flip whose build the template was found to count wrong.
- ``wrong_moves``: integer fields that, moved to a value no learning build stated, built other
  tensors than the template counts. A field is fitted from one move, and two points cannot
  tell a line from a floor: YOLOS's patch grid ``(512 // p) · (864 // p)`` was fitted through
  16 and 32 as ``3024 - 81 p``. Each entry is ``[path, proven]``: a config stating another
  value than a proven one is outside; or ``[path, proven, lists]`` where the class derives
  those lists from the field and keeps a stated one: outside only while one is stated.
- ``inert_unset``: fields the class declares with a None default whose stated number built the
  default's tensors at every probed value (DeepSeek-V2's routing ``n_group``). Any other stated
  integer for a None field is outside: no build stated it (Falcon's ``num_ln_in_parallel_attn``
  of 2 adds ``ln_attn`` and ``ln_mlp``).

Like the other tables, one model type per line; only the line asked for is parsed.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dimlint.config import architectures
from dimlint.config.rowtable import RowTable
from dimlint.memory.parameters.probed_keys import accepted

#: ``dimlint/data``: two packages up from this module.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE = RowTable(os.path.join(_PACKAGE_DIR, "data", "domain_probes.json"))
#: Names that size no tensor: token ids, windows, routing's top-k.
SIZES_NOTHING = re.compile(r"(_id$|_ids$|per_tok|topk|top_k|window)")


#: Set while the generator judges templates as if no probe had run.
_IGNORED = contextvars.ContextVar("domain_probes_ignored", default=False)


def _row(model_type: str) -> dict[str, Any]:
    return {} if _IGNORED.get() else _recorded(model_type)


@functools.cache
def _recorded(model_type: str) -> dict[str, Any]:
    found = TABLE.row(model_type)
    return found if isinstance(found, dict) else {}


@contextlib.contextmanager
def ignored() -> Iterator[None]:
    """Count as if no probe had run: the generator judges templates so, or a pair it recorded
    would read as an estimate and drop out of the next table."""
    token = _IGNORED.set(True)
    try:
        yield
    finally:
        _IGNORED.reset(token)


def interacting(model_type: str) -> list[list[list[Any]]]:
    """``[[path, value], [path, value]]`` per pair of flag values that interact."""
    pairs: list[list[list[Any]]] = _row(model_type).get("interacting", [])
    return pairs


def wrong_flips(model_type: str) -> list[list[Any]]:
    """``[path, value]`` per single flag flip the template was found to count wrong."""
    flips: list[list[Any]] = _row(model_type).get("wrong_flips", [])
    return flips


def wrong_moves(model_type: str) -> list[list[Any]]:
    """``[path, proven]`` (or ``[path, proven, lists]``) per integer field whose template is
    proven at the ``proven`` values only (only while one of ``lists`` is stated beside it)."""
    moves: list[list[Any]] = _row(model_type).get("wrong_moves", [])
    return moves


def outside_move(model_type: str, raw: Mapping[str, Any]) -> str | None:
    """Why a number ``raw`` states lies off the proven values of one of the ``wrong_moves``,
    or None."""
    for path, proven, *beside in wrong_moves(model_type):
        value = value_at(raw, path)
        if not isinstance(value, int) or isinstance(value, bool) or value in proven:
            continue
        parent = path.rpartition(".")[0]
        lists = [f"{parent}.{key}" if parent else key for key in (beside[0] if beside else [])]
        if lists and all(value_at(raw, name) is None for name in lists):
            continue  # the class derives the list from the field, which the template reads
        beside_lists = f" with {', '.join(lists)} stated" if lists else ""
        return (
            f"{path} = {value}: {model_type}'s template is proven at"
            f" {' or '.join(map(str, proven))} only{beside_lists} (a meta build at another"
            " value showed other tensors than it counts)"
        )
    return None


def value_at(document: Mapping[str, Any], path: str) -> object:
    """What ``document`` holds at ``path``, dotted through every dict on the way (the probes
    reach two sub-configs deep: ESMFold2's ``structure_head.diffusion_module.fourier_dim``),
    None where it holds nothing."""
    holder: object = document
    for key in path.split("."):
        holder = holder.get(key) if isinstance(holder, Mapping) else None
    return holder


def inert_unset(model_type: str) -> frozenset[str]:
    """The None-default fields whose stated number builds the default's tensors."""
    return frozenset(_row(model_type).get("inert_unset", []))


def learned_paths(learned: dict[str, Any]) -> set[str]:
    """Every path the row learned in some way: moved, derived, fixed, a stand-in, a regime,
    or a key probed inert or an alias."""
    paths = set(learned.get("defaults", {})) | set(learned.get("examined", []))
    paths |= set(learned.get("declared", {})) | set(learned.get("derived", {}))
    paths |= set(learned.get("fixed", [])) | set(learned.get("stand_ins", {}))
    paths |= {str(regime[0]) for regime in learned.get("regimes", [])}
    return paths | accepted(learned)


def unset_fields(model_type: str, learned: dict[str, Any]) -> list[str]:
    """The top-level fields ``model_type``'s class declares None that the row never learned
    and whose name does not say it sizes nothing (:data:`SIZES_NOTHING`): those a stated
    number may move unseen, which the generator probes."""
    record = architectures.lookup(model_type)
    if record is None:
        return []
    known = learned_paths(learned) | architectures.base_fields()
    return sorted(
        key
        for key, default in record.defaults.items()
        if default is None
        and key not in record.sub_configs
        and key not in known
        and not SIZES_NOTHING.search(key)
    )


def outside_pair(model_type: str, get: Callable[[str], object]) -> str | None:
    """Why the values ``get`` reads lie on an interacting pair or a wrong flip, or None."""
    for path, value in wrong_flips(model_type):
        if _same(get(path), value):
            return (
                f"{path} = {value}: a meta build of {model_type} with it showed other tensors"
                " than its template counts"
            )
    for (first, first_value), (second, second_value) in interacting(model_type):
        if _same(get(first), first_value) and _same(get(second), second_value):
            return (
                f"{first} = {first_value} with {second} = {second_value}: together they build"
                f" other tensors than {model_type}'s template learned from each alone"
            )
    return None


def _same(stated: object, value: object) -> bool:
    """Whether ``stated`` is the flag ``value``; a string's forced flag reads as 0 or 1."""
    if isinstance(value, bool):
        return isinstance(stated, int) and stated in (0, 1) and bool(stated) is value
    return type(stated) is type(value) and stated == value
