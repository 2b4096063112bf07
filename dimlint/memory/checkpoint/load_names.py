"""How ``from_pretrained`` renames checkpoint tensors into the model's, learned from transformers.

The shape templates (:mod:`dimlint.memory.parameters.templates`) name each tensor as the model holds
it in memory. A checkpoint on disk may name them otherwise, and both spellings load: transformers 5
renames keys while loading (``language_model.model.layers`` of a LLaVA checkpoint saved by
transformers 4 becomes ``model.language_model.layers``; ``weight_g`` becomes
``parametrizations.weight.original0``) and merges MoE experts stored one per module
(``experts.0.w1.weight``) into the fused 3-D ``experts.gate_up_proj`` of the model, while
``save_pretrained`` writes the per-expert layout back. ``data/load_names.json`` (written by ``python
-m dimlint.tools.generate_load_names``) records, per model type and class, the ordered transforms
transformers applies when loading (its ``get_model_conversion_mapping``, with the legacy renames),
the persistent buffers a checkpoint also holds, the tied aliases it may hold or omit, and the keys
the class tells the loader to ignore.

:func:`to_model_names` replays those transforms on a checkpoint's names and shapes the way the
loader does — every renaming in turn, then at most one converter, then the base-model prefix
added or stripped — and computes the merged shape of what a converter collects. A transform
this module cannot replay (a custom renaming class, an operation other than stacking experts
and concatenating them) makes the answer None as soon as it touches a checkpoint key: then the
names cannot be mapped with certainty and the checkpoint is compared by its total instead.

The generator checks the replay against transformers itself: the names ``save_pretrained``
would write for the default build must map back to the model's state dict exactly
(``roundtrip`` in the row); classes for which it does not are not used.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from dimlint.config.rowtable import RowTable
from dimlint.records import Record

#: ``dimlint/data``: two packages up from this module.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_FILE = os.path.join(_PACKAGE_DIR, "data", "load_names.json")
_TABLE = RowTable(DATA_FILE)
_INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.)")
_NATURAL = re.compile(r"(\d+)")
#: A module numbered by its name rather than by an index (Switch's ``expert_3.``, gated T5's
#: ``wi_1.``): the generator folds those whose numbered siblings are identical
#: (:mod:`dimlint.tools.numbered_modules`).
NUMBERED_MODULE = re.compile(r"(?:^|(?<=\.))([A-Za-z][A-Za-z0-9]*?)_(\d+)(?=\.)")
#: One part of a folded name that stands for an index: a layer's (``*``) or a numbered
#: module's (``expert_*``).
FOLDED_PART = re.compile(r"(?:[A-Za-z][A-Za-z0-9]*_)?\*")
#: Operations of a converter whose effect on shapes is replayed: stacking one tensor per
#: expert along a new axis, and concatenating the stacks (gate and up) along an axis.
REPLAYED_OPERATIONS = frozenset({"MergeModulelist", "Concatenate"})


def fold(name: str) -> str:
    """``name`` with its layer and expert indices as ``*`` (how templates name tensors)."""
    return _INDEX.sub("*", name)


def fold_into(name: str, known: Collection[str]) -> str:
    """``name`` folded the way the template that ``known`` comes from names it.

    Layer indices always fold. Numbered modules fold only where ``known`` holds them folded:
    the generator folds a numbered module when its siblings are identical (Switch's
    ``expert_0`` … ``expert_7``, gated T5's ``wi_0``/``wi_1``), so a checkpoint's ``wi_1``
    must find the template's ``wi_*``, while modules that merely carry a number (``conv_1``
    beside a differently sized ``conv_2``) keep it. A name's numbered modules fold all
    together or not at all, as the generator folds every repeated one it finds."""
    folded = fold(name)
    if folded in known or NUMBERED_MODULE.search(folded) is None:
        return folded
    every = NUMBERED_MODULE.sub(r"\1_*", folded)
    return every if every in known else folded


def transformers_version() -> str:
    """The transformers release the rows were learned from ("" without the file)."""
    match = re.search(r'"transformers_version": "([^"]*)"', _TABLE.data[:200].decode())
    return match.group(1) if match else ""


@functools.cache
def _legacy() -> list[Any]:
    """The renames every class applies after its own (on the table's second line)."""
    match = re.search(rb'\n  "legacy": (.*),\n', _TABLE.data[:20000])
    if match is None:
        return []
    parsed = json.loads(match.group(1))
    return parsed if isinstance(parsed, list) else []


@functools.cache
def row(model_type: str) -> dict[str, Any] | None:
    """The learned row of ``model_type`` (its classes), or None."""
    found = _TABLE.row(model_type)
    return found if isinstance(found, dict) else None


class Transform:
    """One of transformers' ``WeightRenaming``/``WeightConverter`` entries, replayed."""

    def __init__(self, entry: list[Any]) -> None:
        kind, pattern, sources, targets, scope, base, operations = entry
        self.kind: str = kind
        self.regex = re.compile(pattern)
        self.sources: list[str] = list(sources)
        self.targets: list[str] = list(targets)
        self.scope: str | None = scope
        self.base: str | None = base
        self.operations: list[tuple[str, int]] = [(str(op), int(dim)) for op, dim in operations]

    @property
    def replayable(self) -> bool:
        if self.kind == "rename":
            return True
        if self.kind != "convert" or len(self.targets) != 1:
            return False
        return all(op in REPLAYED_OPERATIONS for op, _ in self.operations)

    def touches(self, key: str) -> bool:
        """Whether the transform would act on ``key`` (for transforms not replayed)."""
        return self.rename(key)[1] is not None

    def rename(self, key: str) -> tuple[str, str | None]:
        """``WeightTransform.rename_source_key``: the renamed key and the source pattern that
        matched (None: no match)."""
        prefix: str | None = None
        rest = key
        if self.scope is not None:
            scope = f"{self.scope}." if self.scope else ""
            base = f"{self.base}." if self.base else ""
            if key.startswith(base + scope):
                prefix = base + scope
            elif key.startswith(scope):
                prefix = scope
            else:
                return key, None
            rest = key[len(prefix) :]
        match = self.regex.search(rest)
        if match is None:
            return key, None
        group = next((name for name, value in match.groupdict().items() if value is not None), None)
        if group is None:
            return key, None
        source = self.sources[int(group[1:])]
        replacement = self.targets[0]
        if r"\1" in replacement:
            captured = match.group(self.regex.groupindex[group] + 1)
            if captured is None:
                return key, None
            replacement = replacement.replace(r"\1", captured)
        renamed = rest.replace(match.group(0), replacement, 1)
        return (prefix + renamed if prefix is not None else renamed), source


class Naming(Record):
    """What loading does to the checkpoint names of one class."""

    transforms: list[Transform]
    base_prefix: str
    #: Folded names of persistent buffers: stored by ``save_pretrained``, not parameters.
    buffers: frozenset[str]
    #: Folded tied names → the folded parameter they share storage with.
    aliases: dict[str, str]
    #: The same by exact name (UDOP's ``decoder.relative_bias.biases.0`` folds onto a
    #: parameter's own name: only the exact name tells the tied copy apart).
    tied: dict[str, str]
    #: Regexes of keys the class tells the loader to ignore when unexpected or missing.
    ignore: re.Pattern[str] | None


def naming(model_type: str, class_name: str) -> Naming | None:
    """The loading knowledge of ``class_name``; None when absent or not verified."""
    learned = row(model_type)
    if learned is None:
        return None
    entry = learned.get(class_name)
    if not isinstance(entry, dict) or not entry.get("roundtrip") or not entry.get("validated"):
        return None
    try:
        transforms = [Transform(item) for item in [*entry.get("transforms", []), *_legacy()]]
        patterns = [str(pattern) for pattern in entry.get("ignore", [])]
        ignore = re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None
    except (re.error, TypeError, ValueError, IndexError):
        return None
    return Naming(
        transforms,
        str(entry.get("base", "")),
        frozenset(entry.get("buffers", [])),
        dict(entry.get("aliases", {})),
        dict(entry.get("tied", {})),
        ignore,
    )


def validated(model_type: str, class_name: str) -> bool:
    """Whether the template of ``class_name`` predicted a second build (every learned size
    halved) exactly when the table was generated."""
    learned = row(model_type)
    entry = learned.get(class_name) if learned is not None else None
    return isinstance(entry, dict) and entry.get("validated") is True


def not_parameters(model_type: str, class_name: str, stored: Iterable[str]) -> frozenset[str]:
    """The names in ``stored`` that are not parameters of ``class_name``: persistent buffers
    it saves with its weights (BART's ``final_logits_bias``) and tied copies whose original
    is stored too. Empty when unknown."""
    learned = row(model_type)
    entry = learned.get(class_name) if learned is not None else None
    if not isinstance(entry, dict):
        return frozenset()
    names = frozenset(stored)
    buffers = frozenset(str(name) for name in entry.get("buffers", []))
    tied = entry.get("tied", {})
    return frozenset(
        name
        for name in names
        if fold(name) in buffers or (isinstance(tied, dict) and tied.get(name) in names)
    )


class Mapped(Record):
    """Checkpoint tensors under the model's names."""

    #: model name → shape (converted tensors: the shape after merging).
    shapes: dict[str, tuple[int, ...]]
    #: model name → the checkpoint names it was loaded from.
    sources: dict[str, list[str]]
    #: checkpoint names with no model tensor after renaming.
    unexpected: list[str]


def _natural(name: str) -> list[object]:
    return [int(part) if part.isdecimal() else part for part in _NATURAL.split(name)]


def to_model_names(
    stored: Mapping[str, tuple[int, ...]],
    naming: Naming,
    expected: Iterable[str],
) -> Mapped | None:
    """Replay loading on ``stored`` (checkpoint name → shape) against the folded model names
    ``expected``; None when a transform that cannot be replayed applies, or a converter's
    inputs cannot be merged (the loader would fail, or do something not modelled here)."""
    known = frozenset(expected)
    renamings = [t for t in naming.transforms if t.kind == "rename"]
    converters = [t for t in naming.transforms if t.kind == "convert"]
    opaque = [t for t in naming.transforms if not t.replayable]
    base = naming.base_prefix
    collected: dict[str, dict[str, list[tuple[str, tuple[int, ...]]]]] = {}
    owners: dict[str, Transform] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    sources: dict[str, list[str]] = {}
    unexpected: list[str] = []
    for key in sorted(stored, key=_natural):
        if any(t.touches(key) for t in opaque):
            return None
        renamed, source, converter = _rename(key, renamings, converters, base, known)
        if fold_into(renamed, known) not in known and fold_into(key, known) in known:
            renamed, source, converter = _prefixed(key, base, known), None, None
        if fold_into(renamed, known) not in known:
            unexpected.append(key)
            continue
        if converter is None or source is None:
            shapes[renamed] = stored[key]
            sources[renamed] = [key]
            continue
        owners[renamed] = converter
        collected.setdefault(renamed, {}).setdefault(source, []).append((key, stored[key]))
    for name, by_source in collected.items():
        merged = _merge(owners[name], by_source)
        if merged is None:
            return None
        shapes[name] = merged
        sources[name] = [key for items in by_source.values() for key, _ in items]
    return Mapped(shapes, sources, unexpected)


def _rename(
    key: str,
    renamings: list[Transform],
    converters: list[Transform],
    base: str,
    known: frozenset[str],
) -> tuple[str, str | None, Transform | None]:
    renamed = key
    for renaming in renamings:
        renamed, _ = renaming.rename(renamed)
    source: str | None = None
    chosen: Transform | None = None
    for converter in converters:
        renamed, source = converter.rename(renamed)
        if source is not None:
            chosen = converter
            break
    return _prefixed(renamed, base, known), source, chosen


def _prefixed(key: str, base: str, known: frozenset[str]) -> str:
    """The base-model prefix stripped or added, as the loader does to fit the model."""
    if not base:
        return key
    if key.startswith(base + ".") and fold_into(key[len(base) + 1 :], known) in known:
        return key[len(base) + 1 :]
    if fold_into(f"{base}.{key}", known) in known:
        return f"{base}.{key}"
    return key


def _merge(
    converter: Transform, by_source: dict[str, list[tuple[str, tuple[int, ...]]]]
) -> tuple[int, ...] | None:
    """The shape a converter's operations give the tensors it collected."""
    current: dict[str, tuple[int, ...] | list[tuple[int, ...]]] = {
        source: [shape for _, shape in items] for source, items in by_source.items()
    }
    for operation, dim in converter.operations:
        if operation == "MergeModulelist":
            stacked: dict[str, tuple[int, ...] | list[tuple[int, ...]]] = {}
            for source, value in current.items():
                if not isinstance(value, list):
                    stacked[source] = value
                    continue
                if len(set(value)) != 1 or not 0 <= dim <= len(value[0]):
                    return None  # torch.stack needs equal shapes
                first = value[0]
                stacked[source] = (*first[:dim], len(value), *first[dim:])
            current = stacked
        elif operation == "Concatenate":
            parts: list[tuple[int, ...]] = []
            for source in converter.sources:
                item = current.get(source)
                if item is not None:
                    parts.extend(item if isinstance(item, list) else [item])
            if not parts or len({len(part) for part in parts}) != 1:
                return None
            rank = len(parts[0])
            if not 0 <= dim < rank:
                return None
            rest = {part[:dim] + part[dim + 1 :] for part in parts}
            if len(rest) != 1:
                return None  # torch.cat needs equal shapes off the axis
            total = sum(part[dim] for part in parts)
            current = {"": (*parts[0][:dim], total, *parts[0][dim + 1 :])}
        else:
            return None
    values = list(current.values())
    if len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, list):
        return value[0] if len(value) == 1 else None
    return value
