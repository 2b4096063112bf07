"""Which layer kinds of a per-layer plan hold each layer tensor (issue 19: per-layer structure).

A template counts each layer tensor with an expression fitted over the fields. Where the
default config's layers are of several kinds (``layer_types``: Kimi-Linear's 6 full-attention
and 21 linear-attention layers, DeepSeek-V4's 20 CSA and 23 HCA layers, Gemma-4's 25 sliding
and 5 full), the tensors of one kind are repeated as many times as the default plan has layers
of that kind: a constant, which a released config stating another plan (7 full and 20 linear)
makes wrong, so such plans fell back to the hand recipes.

Here the builds say which kind each layer tensor belongs to. In the default model a tensor
that exists in some layers only, once in each, and in exactly the layers whose plan entry is
one of a set of kinds, is tagged with that set. A probe build then checks the tags: the plan
with its first layer given another kind of the plan (read back from the config, so a class
that rewrites a stated plan is followed) must build exactly the tensors the tags predict, every
untagged tensor unchanged. Only then are the tags recorded (``layer_kinds`` in a class record,
keyed by the index of its tensor row), with the plan's kinds, the field that counts its layers,
and any plan position the class rewrites whatever is stated (Gemma-4 forces its last layer to
full attention): the run-time (:mod:`dimlint.memory.parameters.plan_counts`) counts a tagged
tensor from a stated plan instead of its fitted expression.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dimlint.memory.parameters.plan_counts import names_mixer_kinds, normalized
from dimlint.tools import numbered_modules

#: A layer index: the first all-digit segment of a parameter name.
_LAYER_INDEX = re.compile(r"(?:^|\.)(\d+)(?=\.)")
_ANY_INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.)")

Shapes = dict[tuple[str, tuple[int, ...]], int]


def _is_plan(value: object) -> bool:
    return names_mixer_kinds(value) and len(value) > 1


def plans(config: Any, sub_configs: Mapping[str, Any]) -> dict[str, tuple[list[str], str]]:
    """``path → (plan as stated, path of the field counting its layers)`` for the config's and
    its direct sub-configs' ``layer_types``-like lists of one entry per layer, with more than
    one kind (a uniform plan tags nothing)."""
    found: dict[str, tuple[list[str], str]] = {}
    for prefix, obj in [("", config), *((f"{key}.", sub) for key, sub in sub_configs.items())]:
        layers = getattr(obj, "num_hidden_layers", None)
        if not isinstance(layers, int) or isinstance(layers, bool):
            continue
        mapped = (getattr(obj, "attribute_map", {}) or {}).get("num_hidden_layers")
        count_path = f"{prefix}{mapped or 'num_hidden_layers'}"
        for name, value in obj.to_dict().items():
            if _is_plan(value) and len(value) == layers and len(set(map(normalized, value))) > 1:
                found[f"{prefix}{name}"] = (list(value), count_path)
    return found


def shapes(model: Any) -> tuple[Shapes, dict[tuple[str, tuple[int, ...]], tuple[str, set[int]]]]:
    """``(collapsed name, shape) → count`` of ``model``, and for each such group the name
    prefix before its layer index and the layer indices holding it."""
    counts: Shapes = Counter()
    where: dict[tuple[str, tuple[int, ...]], tuple[str, set[int]]] = {}
    named = [(name, tuple(int(d) for d in p.shape)) for name, p in model.named_parameters()]
    names = numbered_modules.folded(named)
    for name, shape in named:
        key = (_ANY_INDEX.sub("*", names[name]), shape)
        counts[key] += 1
        match = _LAYER_INDEX.search(name)
        if match is None:
            continue
        prefix = name[: match.start(1)]
        entry = where.setdefault(key, (prefix, set()))
        entry[1].add(int(match.group(1)))
    return dict(counts), where


def tags(
    counts: Shapes,
    where: Mapping[tuple[str, tuple[int, ...]], tuple[str, set[int]]],
    plan: Sequence[str],
) -> dict[tuple[str, tuple[int, ...]], list[str]]:
    """The kinds of ``plan`` that hold each tensor group found once per layer in the layers of
    some kinds (every kind, for one found in every layer), under the name prefix of the groups
    found in every layer."""
    layers = len(plan)
    kinds = [normalized(item) for item in plan]
    every = Counter(prefix for (prefix, indices) in where.values() if indices == set(range(layers)))
    if not every:
        return {}
    tower = every.most_common(1)[0][0]
    found: dict[tuple[str, tuple[int, ...]], list[str]] = {}
    for key, (prefix, indices) in where.items():
        if prefix != tower or counts[key] != len(indices):
            continue
        if indices == set(range(layers)):
            # in every layer: every kind holds it, so a stated plan counts it once per layer
            # (a class whose layer count is the plan's length alone, Nemotron-H, moves no
            # count field that an expression could read)
            found[key] = sorted(set(kinds))
            continue
        if not indices <= set(range(layers)):
            continue
        held = {kinds[index] for index in indices}
        if indices == {index for index in range(layers) if kinds[index] in held}:
            found[key] = sorted(held)
    return found


def predicted(
    counts: Shapes, tagged: Mapping[tuple[str, tuple[int, ...]], list[str]], plan: Sequence[str]
) -> Shapes:
    """The groups a model built with ``plan`` has if the tags hold."""
    kinds = Counter(normalized(item) for item in plan)
    result: Shapes = {}
    for key, count in counts.items():
        expected = sum(kinds[kind] for kind in tagged[key]) if key in tagged else count
        if expected:
            result[key] = expected
    return result


def probe_plan(plan: Sequence[str]) -> list[str] | None:
    """The plan with its first layer given the first other kind it has, or None."""
    other = next((item for item in plan if normalized(item) != normalized(plan[0])), None)
    return None if other is None else [other, *plan[1:]]


def rewritten(
    plan: Sequence[str], read_back: Callable[[list[str]], list[str] | None]
) -> dict[str, str] | None:
    """Plan positions (``"0"``, ``"-1"``) the class sets to one kind whatever is stated there,
    found by stating each other kind of the plan at the first and last layer: a position is
    recorded when every other kind reads back as the default's; None when a statement reads
    back changed in any other way (a rewrite this record cannot describe)."""
    positions: dict[str, str] = {}
    kinds = sorted({str(item) for item in plan})
    for position in (0, len(plan) - 1):
        forced: list[bool] = []
        for kind in kinds:
            if kind == plan[position]:
                continue
            stated = list(plan)
            stated[position] = kind
            back = read_back(stated)
            if back is None or len(back) != len(stated):
                return None
            if back == stated:
                forced.append(False)
                continue
            expected = list(stated)
            expected[position] = plan[position]
            if back != expected:
                return None
            forced.append(True)
        if forced and all(forced):
            positions["0" if position == 0 else "-1"] = normalized(plan[position])
        elif any(forced):
            return None
    return positions


def learn(
    rows: Sequence[Sequence[Any]],
    config: Any,
    sub_configs: Mapping[str, Any],
    build: Callable[[Any], Any],
    perturb: Callable[[str, object], Any],
) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict[str, object]]]:
    """``(tags by plan path and row index, plan records)`` of one class whose ``rows`` (the
    generator's ``[name, count, dims, conditions, shape, count, toggled_only, …]``) were fitted
    from ``config``; ``build(config)`` builds the class, ``perturb(path, value)`` states one
    field changed. A plan whose tags a probe build contradicts records nothing."""
    found = plans(config, sub_configs)
    if not found:
        return {}, {}
    counts, where = shapes(build(config))
    by_path: dict[str, dict[str, list[str]]] = {}
    records: dict[str, dict[str, object]] = {}
    for path, (plan, layers_path) in found.items():
        tagged = tags(counts, where, plan)
        probe = probe_plan(plan)
        if not tagged or probe is None:
            continue

        def read_back(stated: list[str], path: str = path) -> list[str] | None:
            try:
                value = _read(perturb(path, list(stated)), path)  # a class may edit it
            except Exception:  # the class rejects the plan
                return None
            return [str(item) for item in value] if isinstance(value, list) else None

        try:
            probed = perturb(path, list(probe))
            probe_counts, _ = shapes(build(probed))
        except Exception:  # the class rejects the probe: the tags cannot be checked
            continue
        back = _read(probed, path)
        if not isinstance(back, list) or probe_counts != predicted(counts, tagged, back):
            continue
        positions = rewritten(plan, read_back)
        if positions is None:
            continue
        by_row = {
            str(index): tagged[(str(row[0]), tuple(row[4]))]
            for index, row in enumerate(rows)
            if not row[6] and (str(row[0]), tuple(row[4])) in tagged
        }
        if not by_row:
            continue
        by_path[path] = by_row
        records[path] = {
            "layers": layers_path,
            "kinds": sorted({normalized(item) for item in plan}),
            "rewritten": positions,
        }
    return by_path, records


def _read(config: Any, path: str) -> object:
    key, _, name = path.rpartition(".")
    holder = getattr(config, key) if key else config
    return getattr(holder, name, None)
