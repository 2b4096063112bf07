"""Compare a checkpoint's tensors with what the config implies (DL610 shapes, DL611 names).

Findings are grouped so that one wrong value reports once, not once per layer: tensors whose
names differ only in their layer or expert number, with the same expected and stored shape, make
one finding that names the first of them and counts the rest. Each finding points at the config
value that explains it — solved from the shape formulas
(:mod:`dimlint.memory.checkpoint.tensor_axes`) and kept only when changing that one value repairs
the tensor without breaking a tensor that matches today — and at the config's top level when no
single value does.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from dimlint.checks.registry import Finding
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity
from dimlint.memory.checkpoint.expected_tensors import Plan, Tensor
from dimlint.memory.checkpoint.tensor_axes import Axis, Var, render, shape_text, solve
from dimlint.records import Record
from dimlint.sources.checkpoint import Checkpoint

_NUMBER = re.compile(r"\.(\d+)\.")
_EXPERT = re.compile(r"\.experts\.(\d+)\.")
#: How many tensor names a message lists before saying "and N more".
LISTED = 3
#: The tensor that marks a multi-token-prediction layer (DeepSeek-V3's layer 61), which holds
#: a whole decoder layer plus this projection and is skipped when loading.
MTP_MARKER = "eh_proj.weight"


class View(Record):
    """The plan in the checkpoint's naming, and the checkpoint names that matter."""

    expected: dict[str, Tensor]
    #: Tensors the config would imply with a flag flipped (``attention_bias``…).
    potential: dict[str, Tensor]
    #: Checkpoint names, without ignorable ones (old buffers, quantization scales, MTP layers).
    names: frozenset[str]
    layers_prefix: str
    #: Whether the checkpoint was saved from the base model (no head, no ``model.`` prefix).
    base_only: bool


def view(plan: Plan, checkpoint: Checkpoint) -> View:
    """Match the plan's names to the checkpoint's (base-model checkpoints lack the prefix)."""
    base = plan.names.base
    base_only = bool(base) and not any(name.startswith(base) for name in checkpoint.names)
    expected: dict[str, Tensor] = {}
    potential: dict[str, Tensor] = {}
    for tensor in plan.tensors:
        name = tensor.name
        if base_only:
            if not name.startswith(base):
                continue  # the head of a causal LM: a base checkpoint has none
            name = name[len(base) :]
        (expected if tensor.present else potential)[name] = tensor
    layers_prefix = plan.names.layers
    if base_only and layers_prefix.startswith(base):
        layers_prefix = layers_prefix[len(base) :]
    layer = re.compile(rf"^{re.escape(layers_prefix)}\.(\d+)\.")
    mtp = {
        number
        for number in range(plan.layers, plan.layers + plan.extra_layers)
        if f"{layers_prefix}.{number}.{MTP_MARKER}" in checkpoint.names
    }
    kept = set()
    for name in checkpoint.names:
        if plan.ignore.search(name):
            continue
        match = layer.match(name)
        if match is not None and int(match.group(1)) in mtp:
            continue
        kept.add(name)
    return View(expected, potential, frozenset(kept), layers_prefix, base_only)


def _pattern(name: str) -> str:
    """The name with its layer and expert numbers as ``*`` (how grouped tensors are named)."""
    return _NUMBER.sub(".*.", _NUMBER.sub(".*.", name))


def axis_word(rank: int, axis: int) -> str:
    """How a message names positions along one axis of a tensor of ``rank`` dimensions."""
    if rank == 1:
        return "elements"
    if rank == 2:
        return ("rows", "columns")[axis]
    return f"entries along axis {axis}"


class _Shapes:
    """Expected and stored shapes of every tensor in both, and candidate explanations.

    Tensors are handled by shape formula: a 61-layer model with 256 experts has tens of
    thousands of tensors but a few dozen formulas, so trying a candidate value costs little.
    """

    def __init__(self, plan: Plan, view: View, checkpoint: Checkpoint) -> None:
        self.plan = plan
        self.env = plan.env
        self.pairs = [
            (name, tensor, checkpoint.tensors[name].shape)
            for name, tensor in view.expected.items()
            if name in checkpoint.tensors
        ]
        #: formula → how many tensors of it are stored with each shape
        self.stored: dict[tuple[Axis, ...], Counter[tuple[int, ...]]] = {}
        for _, tensor, stored in self.pairs:
            self.stored.setdefault(tensor.shape, Counter())[stored] += 1
        self._expected: dict[tuple[Axis, ...], tuple[int, ...]] = {}
        self._scores: dict[tuple[str, int], int | None] = {}

    def shape(self, formula: tuple[Axis, ...]) -> tuple[int, ...]:
        if formula not in self._expected:
            self._expected[formula] = tuple(axis.value(self.env) for axis in formula)
        return self._expected[formula]

    def score(self, name: str, value: int) -> int | None:
        """How many mismatching tensors setting ``name`` to ``value`` repairs; None when it
        breaks a tensor that matches today."""
        key = (name, value)
        if key not in self._scores:
            changed = {**self.env, name: value}
            repaired: int | None = 0
            for formula, stored in self.stored.items():
                if not any(name in axis.names() for axis in formula):
                    continue
                old = self.shape(formula)
                new = tuple(axis.value(changed) for axis in formula)
                if new != old and old in stored:
                    repaired = None
                    break
                assert repaired is not None
                repaired += stored[new] if new != old else 0
            self._scores[key] = repaired
        return self._scores[key]

    def explain(self, axis: Axis, stored: int) -> list[tuple[Var, int]]:
        """Single config values that would make ``axis`` produce ``stored`` without breaking
        another tensor; of those, the ones that repair the most tensors."""
        found: list[tuple[int, Var, int]] = []
        for name in axis.names():
            var = self.plan.variables[name]
            value = solve(axis, name, stored, self.env)
            if value is None or value == var.value or not var.settable:
                continue
            if var.key == "multi_query" and value not in (1, self.env.get("heads")):
                continue
            score = self.score(name, value)
            if score is not None:
                found.append((score, var, value))
        best = max((score for score, _, _ in found), default=0)
        return [(var, value) for score, var, value in found if score == best]


def shape_findings(
    plan: Plan, view: View, checkpoint: Checkpoint, spec: ModelSpec
) -> Iterator[Finding]:
    """DL610: tensors whose stored shape is not the one the config implies."""
    shapes = _Shapes(plan, view, checkpoint)
    groups: dict[tuple[str, tuple[int, ...], tuple[int, ...]], list[tuple[str, Tensor]]] = {}
    for name, tensor, stored in shapes.pairs:
        expected = shapes.shape(tensor.shape)
        if expected != stored:
            groups.setdefault((_pattern(name), expected, stored), []).append((name, tensor))
    for (pattern, expected, stored), members in groups.items():
        name, tensor = members[0]
        message, anchor = _describe(shapes, tensor, name, expected, stored)
        if len(members) > 1:
            more = len(members) - 1
            message += f" Likewise {more} more {'tensor' if more == 1 else 'tensors'} ({pattern})."
        yield Finding("DL610", message, anchor or spec.pointer)


def _describe(
    shapes: _Shapes, tensor: Tensor, name: str, expected: tuple[int, ...], stored: tuple[int, ...]
) -> tuple[str, str | None]:
    head = (
        f"{name} is {shape_text(stored)} in the checkpoint but the config implies"
        f" {shape_text(expected)}"
    )
    load = " Loading fails with a size mismatch."
    if len(stored) != len(expected):
        return (
            f"{head}: {len(stored)} dimensions where {len(expected)} are expected.{load}",
            None,
        )
    if len(stored) == 2 and stored == expected[::-1] and stored[0] != stored[1]:
        return f"{head}: the matrix is stored transposed.{load}", None
    reasons: list[str] = []
    anchor: str | None = None
    for position, (axis, want, have) in enumerate(zip(tensor.shape, expected, stored, strict=True)):
        if want == have:
            continue
        formula = render(axis, shapes.plan.variables)
        text = f"its {have} {axis_word(len(stored), position)} should be {formula}"
        if len(axis.terms) > 1 or axis.terms[0][0] != 1 or len(axis.terms[0][1]) > 1:
            text += f" = {want}"
        candidates = shapes.explain(axis, have)
        if candidates:
            text += "; " + " or ".join(var.say(value) for var, value in candidates)
            text += " would explain it"
            anchor = anchor or next((v.pointer for v, _ in candidates if v.pointer), None)
        else:
            text += "; no single config value explains it"
        anchor = anchor or next(
            (
                shapes.plan.variables[n].pointer
                for n in axis.names()
                if shapes.plan.variables[n].pointer
            ),
            None,
        )
        reasons.append(text)
    return f"{head}: {'; and '.join(reasons)}.{load}", anchor


def _index(pattern: re.Pattern[str], name: str) -> int | None:
    match = pattern.search(name)
    return int(match.group(1)) if match is not None else None


def _listing(names: list[str]) -> str:
    shown = ", ".join(sorted(names, key=_natural)[:LISTED])
    return shown + (f" and {len(names) - LISTED} more" if len(names) > LISTED else "")


def _natural(name: str) -> list[object]:
    return [int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", name)]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _span(numbers: list[int], noun: str) -> str:
    """``layer 2`` or ``layers 2–5``."""
    low, high = min(numbers), max(numbers)
    return f"{noun} {low}" if low == high else f"{noun}s {low}–{high}"


def tensor_findings(
    plan: Plan, view: View, checkpoint: Checkpoint, spec: ModelSpec
) -> Iterator[Finding]:
    """DL611: tensors the config implies that the checkpoint lacks, and the reverse."""
    for name, shard in checkpoint.unmapped[:1]:
        others = len(checkpoint.unmapped) - 1
        yield Finding(
            "DL611",
            f"the index's weight_map places {name} in {shard}, but that shard's header has no"
            f" such tensor{f' (and {others} more like it)' if others else ''}: loading fails."
            " The index and the shards come from different saves; download them again.",
            spec.pointer,
        )
    unmapped = {name for name, _ in checkpoint.unmapped}
    missing = sorted(n for n in view.expected if n not in view.names and n not in unmapped)
    extra = sorted(n for n in view.names if n not in view.expected)
    layer = re.compile(rf"^{re.escape(view.layers_prefix)}\.(\d+)\.")
    yield from _layer_findings(plan, view, layer, missing, extra, spec)
    yield from _expert_findings(plan, missing, extra, spec)
    yield from _head_findings(plan, view, missing, extra, spec)
    yield from _flag_findings(view, missing, extra, spec)
    if missing:
        yield Finding(
            "DL611",
            f"the checkpoint lacks {len(missing)} tensors the config implies: {_listing(missing)}."
            " transformers initialises them randomly (a 'missing keys' warning) and the model"
            " computes garbage.",
            spec.pointer,
        )
    if extra:
        yield Finding(
            "DL611",
            f"the checkpoint holds {len(extra)} tensors the config does not describe:"
            f" {_listing(extra)}. They are not loaded ('unexpected keys'), so whatever they"
            " were trained to do is lost.",
            spec.pointer,
        )


def _take(names: list[str], chosen: set[str]) -> None:
    names[:] = [name for name in names if name not in chosen]


def _layer_findings(
    plan: Plan,
    view: View,
    layer: re.Pattern[str],
    missing: list[str],
    extra: list[str],
    spec: ModelSpec,
) -> Iterator[Finding]:
    var = plan.variables["layers"]
    stored = sorted({i for n in view.names if (i := _index(layer, n)) is not None})
    if not stored:
        return
    count = stored[-1] + 1
    beyond = [n for n in extra if (i := _index(layer, n)) is not None and i >= plan.layers]
    if beyond:
        numbers = sorted({i for n in beyond if (i := _index(layer, n)) is not None})
        yield Finding(
            "DL611",
            f"the checkpoint holds {_count(count, 'layer')} ({view.layers_prefix}.0 to"
            f" {view.layers_prefix}.{count - 1}) but {var.key} is {var.value}: the"
            f" {len(beyond)} tensors of {_span(numbers, 'layer')} are not loaded, so the model"
            f" runs without them. {var.key} {count} would explain it.",
            var.pointer or spec.pointer,
        )
        _take(extra, set(beyond))
    absent = [n for n in missing if (i := _index(layer, n)) is not None and i >= count]
    if absent:
        numbers = sorted({i for n in absent if (i := _index(layer, n)) is not None})
        yield Finding(
            "DL611",
            f"the checkpoint has no tensors for {_span(numbers, 'layer')}"
            f" ({view.layers_prefix}.{numbers[0]}.*, {len(absent)} tensors): it holds"
            f" {_count(count, 'layer')} but {var.key} is {var.value}. transformers initialises"
            " the missing layers randomly and the model computes garbage."
            f" {var.key} {count} would explain it.",
            var.pointer or spec.pointer,
        )
        _take(missing, set(absent))


def _expert_findings(
    plan: Plan, missing: list[str], extra: list[str], spec: ModelSpec
) -> Iterator[Finding]:
    var = plan.variables.get("experts")
    if var is None:
        return
    beyond = [n for n in extra if (i := _index(_EXPERT, n)) is not None and i >= var.value]
    if beyond:
        count = max(i for n in beyond if (i := _index(_EXPERT, n)) is not None) + 1
        yield Finding(
            "DL611",
            f"the checkpoint holds {count} experts per MoE layer ({sorted(beyond, key=_natural)[0]}"
            f" and {len(beyond) - 1} more tensors of"
            f" {_span(list(range(var.value, count)), 'expert')}) but"
            f" {var.key} is {var.value}: those experts are not loaded and the router cannot"
            f" choose them. {var.key} {count} would explain it.",
            var.pointer or spec.pointer,
        )
        _take(extra, set(beyond))
    absent = [n for n in missing if _index(_EXPERT, n) is not None]
    if absent:
        numbers = sorted({i for n in absent if (i := _index(_EXPERT, n)) is not None})
        first = numbers[0]
        yield Finding(
            "DL611",
            f"the checkpoint lacks {_span(numbers, 'expert')} ({sorted(absent, key=_natural)[0]},"
            f" {len(absent)} tensors) but {var.key} is {var.value}: transformers initialises"
            " them randomly and the router sends tokens to them."
            + (
                f" {var.key} {first} would explain it."
                if first and numbers[-1] == var.value - 1
                else ""
            ),
            var.pointer or spec.pointer,
        )
        _take(missing, set(absent))


def _head_findings(
    plan: Plan, view: View, missing: list[str], extra: list[str], spec: ModelSpec
) -> Iterator[Finding]:
    if view.base_only:
        return
    weight = f"{plan.names.head}.weight"
    tie = spec.raw.get("tie_word_embeddings")
    where = f"{spec.pointer}/tie_word_embeddings" if isinstance(tie, bool) else spec.pointer
    stated = "tie_word_embeddings is false" if tie is False else "the config does not tie it"
    if weight in missing:
        yield Finding(
            "DL611",
            f"the checkpoint has no {weight} but {stated}: the LM head is initialised randomly"
            " and the model computes garbage. The checkpoint was saved with a tied head: set"
            " tie_word_embeddings to true.",
            where,
        )
        _take(missing, {weight})
    if weight in extra and plan.tied:
        yield Finding(
            "DL611",
            f"the config ties the LM head to the input embedding (tie_word_embeddings) but the"
            f" checkpoint stores a separate {weight}: loading replaces it with the embedding."
            " If the head was trained untied, set tie_word_embeddings to false; if it is a copy"
            " of the embedding, nothing is lost.",
            where,
            Severity.WARNING,
        )
        _take(extra, {weight, f"{plan.names.head}.bias"} & set(extra))


def _flag_findings(
    view: View, missing: list[str], extra: list[str], spec: ModelSpec
) -> Iterator[Finding]:
    by_key: dict[str, list[str]] = {}
    for name in missing:
        key = view.expected[name].flag
        if key is not None:
            by_key.setdefault(key, []).append(name)
    for key, names in by_key.items():
        yield Finding(
            "DL611",
            f"{key} is true, so the config implies {len(names)} tensors the checkpoint lacks"
            f" ({_listing(names)}): they are initialised randomly. Set {key} to false.",
            _pointer(spec, key),
        )
        _take(missing, set(names))
    by_key = {}
    for name in extra:
        tensor = view.potential.get(name)
        if tensor is not None and tensor.flag is not None:
            by_key.setdefault(tensor.flag, []).append(name)
    for key, names in by_key.items():
        yield Finding(
            "DL611",
            f"the checkpoint holds {len(names)} tensors that exist only when {key} is true"
            f" ({_listing(names)}), but {key} is not: they are not loaded. Set {key} to true.",
            _pointer(spec, key),
        )
        _take(extra, set(names))


def _pointer(spec: ModelSpec, key: str) -> str:
    return f"{spec.pointer}/{key}" if key in spec.raw else spec.pointer
