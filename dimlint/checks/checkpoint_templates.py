"""DL610/DL611: the checkpoint against the tensors the model type's shape template implies.

The checkpoint's names are first mapped onto the model's the way ``from_pretrained`` maps them
(:func:`dimlint.memory.checkpoint.load_names.to_model_names`: VLM prefixes, legacy spellings,
per-expert MoE weights merged into the fused tensors), then grouped by name with layer indices
folded to ``*`` — the form the template names tensors in — and compared group by group: shapes
(DL610), how many tensors of each group (layers, DL611) and groups present on one side only (DL611).

The comparison refuses to guess. :func:`template_findings` returns None — and the checkpoint is
compared by its parameter total instead — when the names cannot be mapped with certainty: a
loading transform it cannot replay touches a key, fewer than half of the expected names are
found, or tensors the model expects are missing (or fewer than expected) while others it does
not know are present (a spelling the table does not know, or a layout the template was not
fitted with, looks exactly like that), or a stored shape differs in a way no single config
value explains. A false error on a checkpoint that loads is worse than a total-only
comparison.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from dimlint.checks.registry import Finding
from dimlint.config import architectures
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity
from dimlint.memory.checkpoint.load_names import FOLDED_PART, Mapped, fold_into, to_model_names
from dimlint.memory.checkpoint.stored_extras import FP8_SCALES, quantization
from dimlint.memory.checkpoint.template_plan import Expected, TemplatePlan, templates_fields
from dimlint.memory.parameters.stated import stated_at
from dimlint.records import Record
from dimlint.sources.checkpoint import Checkpoint

#: Checkpoint tensors that are never parameters: buffers older saves carried, and counters.
_STALE = re.compile(
    r"(^|\.)(rotary_emb\.inv_freq|position_ids|masked_bias|num_batches_tracked)$|(^|\.)attn\.bias$"
)
#: Keys whose value says how many multi-token-prediction layers follow the last layer: their
#: tensors are stored but not loaded (DeepSeek-V3's and GLM-4.5's last layer).
MTP_KEYS = ("num_nextn_predict_layers", "num_mtp_layers", "mtp_num_hidden_layers")
#: A tensor of a layer stack, folded (``model.layers.*.``) and as stored (``model.layers.3.``).
_STACK = re.compile(r"^(.*?\.layers\.)\*\.")
_STORED_LAYER = re.compile(r"^(.*?\.layers\.)(\d+)\.")
#: Tensors only a multi-token-prediction layer has (DeepSeek-V3, GLM-4.5): a layer after the
#: last one holding none of them is an extra layer, not MTP.
_MTP_ONLY = re.compile(r"\.(eh_proj|enorm|hnorm|shared_head)\.")
#: A config field a user can set (dotted into sub-configs), not a derived expression.
_SETTABLE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
LISTED = 3
_ties = "loading replaces it with the tied embedding"


def template_findings(
    plan: TemplatePlan, checkpoint: Checkpoint, spec: ModelSpec, enabled: frozenset[str]
) -> list[Finding] | None:
    """DL610/DL611 findings, or None when the checkpoint's names cannot be read with certainty
    (the caller then compares parameter totals)."""
    complete = checkpoint.complete
    if not complete and checkpoint.index_json is None:
        return None
    scales = quantization(spec) is not None  # the plan is made for shape-keeping FP8 only
    read = checkpoint.tensors
    stored = {
        name: (tuple(read[name].shape) if name in read else ())
        for name in checkpoint.names
        if not _STALE.search(name) and not (scales and FP8_SCALES.search(name))
    }
    _drop_mtp(stored, plan, spec)
    naming = plan.naming
    expected_names = plan.names
    known = expected_names | naming.buffers | frozenset(naming.aliases)
    mapped = to_model_names(stored, naming, known)
    if mapped is None:
        return None
    groups = _groups(mapped, plan)
    ignore = naming.ignore
    extras = [name for name in mapped.unexpected if ignore is None or ignore.search(name) is None]
    missing = [name for name in dict.fromkeys(t.name for t in plan.tensors) if name not in groups]
    switched = [name for name in extras if fold_into(name, plan.switched_off) in plan.switched_off]
    beyond = _layers_beyond(plan, mapped)
    unknown_extras = [
        name
        for name in extras
        if name not in switched and not any(name.startswith(prefix) for prefix in beyond)
    ]
    unexplained_missing = [
        name for name in missing if not _conditions(plan, name) and not _ignored(ignore, name)
    ]
    short = [
        name
        for name in groups
        if len(groups[name]) < _wanted(plan, name) and plan.count_trusted(name)
    ]
    found = len(expected_names) - len(missing)
    if found * 2 < len(expected_names) or (unknown_extras and (unexplained_missing or short)):
        return None
    findings: list[Finding] = []
    unread = {
        name
        for name, sources in mapped.sources.items()
        if not all(source in read for source in sources)
    }
    if len(unread) < len(mapped.sources):
        shapes = list(_shape_findings(plan, groups, mapped, spec, unread))
        if not all(explained for _, explained in shapes):
            # A stored shape no single config value explains may as well be a template that
            # is wrong for this config: not an error dimlint can stand behind.
            return None
        if "DL610" in enabled:
            findings.extend(finding for finding, _ in shapes)
    if "DL611" in enabled:
        findings.extend(_count_findings(plan, groups, mapped, spec))
        findings.extend(_missing_findings(plan, missing, ignore, spec))
        findings.extend(_switched_findings(plan, switched, spec))
        if unknown_extras:
            findings.append(
                Finding(
                    "DL611",
                    f"the checkpoint holds {len(unknown_extras)} tensors the config does not"
                    f" describe: {_listing(unknown_extras)}. transformers does not load them"
                    " ('unexpected keys'), so whatever they were trained to do is lost.",
                    spec.pointer,
                )
            )
    return findings


def _layers_beyond(plan: TemplatePlan, mapped: Mapped) -> set[str]:
    """Prefixes (``model.layers.3.``) of the layers the checkpoint stores past the count the
    config implies for their stack: their tensors are reported as whole extra layers, not one
    by one (an extra MoE layer's experts are not merged on load, so they map onto nothing)."""
    implied: dict[str, int] = {}
    for tensor in plan.tensors:
        match = _STACK.match(tensor.name)
        if match is not None:
            implied[match[1]] = max(implied.get(match[1], 0), tensor.repeats)
    found: set[str] = set()
    for name in mapped.shapes:
        match = _STORED_LAYER.match(name)
        if match is not None and match[1] in implied and int(match[2]) >= implied[match[1]]:
            found.add(f"{match[1]}{match[2]}.")
    return found


def _wanted(plan: TemplatePlan, name: str) -> int:
    return sum(tensor.repeats for tensor in plan.tensors if tensor.name == name)


def _ignored(ignore: re.Pattern[str] | None, name: str) -> bool:
    return ignore is not None and ignore.search(name.replace("*", "0")) is not None


def _drop_mtp(stored: dict[str, tuple[int, ...]], plan: TemplatePlan, spec: ModelSpec) -> None:
    """Forget the multi-token-prediction layers stored after the last one (not loaded)."""
    extra = 0
    for source in (spec.raw, spec.raw.get("text_config")):
        if isinstance(source, dict):
            for key in MTP_KEYS:
                value = source.get(key)
                if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                    extra = max(extra, value)
    layers = plan.value("num_hidden_layers") or plan.value("text_config.num_hidden_layers")
    if not extra or not layers:
        return
    beyond: dict[int, list[str]] = {}
    for name in stored:
        match = _STORED_LAYER.match(name)
        if match is not None and layers <= int(match[2]) < layers + extra:
            beyond.setdefault(int(match[2]), []).append(name)
    for names in beyond.values():
        if any(_MTP_ONLY.search(name) for name in names):
            for name in names:
                del stored[name]


def _groups(mapped: Mapped, plan: TemplatePlan) -> dict[str, list[tuple[str, tuple[int, ...]]]]:
    """Mapped tensors by folded model name, without buffers, ignored keys and tied copies."""
    naming = plan.naming
    expected_names = plan.names
    groups: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
    copies: dict[str, list[tuple[str, tuple[int, ...]]]] = {}
    for name, shape in mapped.shapes.items():
        folded = fold_into(name, expected_names)
        original = naming.tied.get(name)
        if original is not None and original in mapped.shapes:
            continue  # a tied copy stored beside its original: loading ties it again
        if folded in expected_names:
            groups.setdefault(folded, []).append((name, shape))
        elif folded in naming.aliases:
            copies.setdefault(naming.aliases[folded], []).append((name, shape))
    for target, tensors in copies.items():
        if target in expected_names and target not in groups:
            groups[target] = tensors  # only the tied copy is stored: loading ties it back
    return groups


def _conditions(plan: TemplatePlan, name: str) -> list[Any]:
    for tensor in plan.tensors:
        if tensor.name == name and tensor.conditions:
            return list(tensor.conditions)
    return []


def _by_name(plan: TemplatePlan) -> dict[str, list[Expected]]:
    found: dict[str, list[Expected]] = {}
    for tensor in plan.tensors:
        found.setdefault(tensor.name, []).append(tensor)
    return found


# --- DL610 ---------------------------------------------------------------------------------


def _shape_findings(
    plan: TemplatePlan,
    groups: dict[str, list[tuple[str, tuple[int, ...]]]],
    mapped: Mapped,
    spec: ModelSpec,
    unread: set[str],
) -> Iterator[tuple[Finding, bool]]:
    """DL610 findings, each with whether a config value explains it. ``unread``: tensors whose
    shard could not be read (their shapes are unknown)."""
    by_name = _by_name(plan)
    for folded, tensors in groups.items():
        entries = by_name[folded]
        wrong = [
            (name, shape)
            for name, shape in tensors
            if name not in unread and not any(entry.matches(shape) for entry in entries)
        ]
        if not wrong:
            continue
        by_shape: dict[tuple[int, ...], list[str]] = {}
        for name, shape in wrong:
            by_shape.setdefault(shape, []).append(name)
        for stored, names in by_shape.items():
            entry = _closest(entries, stored)
            shown = _shown(names[0], mapped)
            message, anchor, explained = _describe(plan, groups, entry, shown, stored, spec)
            code = "DL610"
            if not explained:
                experts = _experts(mapped.sources.get(names[0], []), entry, stored)
                if experts is not None:
                    code, message, explained = "DL611", experts, True
            if len(names) > 1:
                more = len(names) - 1
                message += f" Likewise {more} more {'tensor' if more == 1 else 'tensors'}"
                message += f" ({folded})."
            yield Finding(code, message, anchor or spec.pointer), explained


_EXPERT = re.compile(r"\.experts\.(\d+)\.")


def _experts(sources: list[str], entry: Expected, stored: tuple[int, ...]) -> str | None:
    """A fused expert tensor stacked from more or fewer per-expert tensors than the config's
    expert count, while every other size agrees: which experts the checkpoint lacks or adds
    (the expert count itself is right — the router has that many outputs)."""
    expected = entry.shape
    if len(sources) < 2 or len(stored) != len(expected) or stored[1:] != expected[1:]:
        return None
    numbers = {int(m.group(1)) for source in sources if (m := _EXPERT.search(source))}
    if not numbers:
        return None
    example = sources[0]
    if stored[0] < expected[0]:
        absent = [n for n in range(expected[0]) if n not in numbers]
        if not absent:
            return None
        which = _count(len(absent), "expert")
        return (
            f"the checkpoint lacks {which} ({', '.join(map(str, absent[:LISTED]))}) of the"
            f" {expected[0]} the config implies, stored one module per expert like {example}:"
            f" loading stacks {stored[0]} experts into a tensor of {expected[0]} and fails"
            " with a size mismatch."
        )
    beyond = sorted(n for n in numbers if n >= expected[0])
    if not beyond:
        return None
    return (
        f"the checkpoint holds {_count(len(beyond), 'expert')} beyond the {expected[0]} the"
        f" config implies ({', '.join(map(str, beyond[:LISTED]))}), stored one module per"
        f" expert like {example}: loading stacks {stored[0]} experts into a tensor of"
        f" {expected[0]} and fails with a size mismatch."
    )


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _closest(entries: list[Expected], stored: tuple[int, ...]) -> Expected:
    """The expected entry a stored shape most resembles (same rank, most equal sizes)."""

    def likeness(entry: Expected) -> tuple[int, int]:
        same_rank = len(entry.shape) == len(stored)
        equal = sum(a == b for a, b in zip(entry.shape, stored, strict=False))
        return int(same_rank), equal

    return max(entries, key=likeness)


def _shown(name: str, mapped: Mapped) -> str:
    """The checkpoint's name of a model tensor (merged ones: how they were stored)."""
    sources = mapped.sources.get(name, [name])
    if len(sources) == 1:
        return sources[0]
    return f"{name} (merged on load from {len(sources)} tensors such as {sources[0]})"


def _shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(size) for size in shape) + "]"


def _describe(
    plan: TemplatePlan,
    groups: dict[str, list[tuple[str, tuple[int, ...]]]],
    entry: Expected,
    name: str,
    stored: tuple[int, ...],
    spec: ModelSpec,
) -> tuple[str, str | None, bool]:
    expected = entry.shape
    head = (
        f"{name} is {_shape_text(stored)} in the checkpoint but the config implies"
        f" {_shape_text(expected)}"
    )
    load = " Loading fails with a size mismatch."
    if len(stored) != len(expected):
        rank = f"{len(stored)} dimensions where {len(expected)} are expected"
        return f"{head}: {rank}.{load}", None, False
    if len(stored) == 2 and stored == expected[::-1] and stored[0] != stored[1]:
        # both sizes are right, in the wrong order: no config value is to blame
        return f"{head}: the matrix is stored transposed.{load}", None, all(entry.trusted)
    flipped = _flags_explaining(plan, entry.name, stored, spec)
    if flipped:
        settings = " and ".join(f"{_key(spec, field)} {_json(value)}" for field, value in flipped)
        anchor = next((p for field, _ in flipped if (p := _pointer(spec, field))), None)
        return f"{head}: {settings} would explain it.{load}", anchor, True
    reasons: list[str] = []
    anchor = None
    explained = True
    for axis, (want, have) in enumerate(zip(expected, stored, strict=True)):
        if want == have or not entry.trusted[axis]:
            continue
        expression = entry.dims[axis]
        formula = _render(plan, expression, spec)
        text = f"its {have} {axis_word(len(stored), axis)} should be {formula}"
        if not _simple(expression):
            text += f" = {want}"
        candidates = _explain(plan, groups, expression, have)
        if candidates:
            text += "; " + " or ".join(f"{_key(spec, f)} {v}" for f, v in candidates)
            text += " would explain it"
            anchor = anchor or next((p for f, _ in candidates if (p := _pointer(spec, f))), None)
        else:
            text += "; no single config value explains it"
            explained = False
        for field in templates_fields(expression):
            anchor = anchor or _pointer(spec, field)
        reasons.append(text)
    return f"{head}: {'; and '.join(reasons)}.{load}", anchor, explained


def _flags_explaining(
    plan: TemplatePlan, name: str, stored: tuple[int, ...], spec: ModelSpec
) -> list[tuple[str, object]]:
    """The flag settings that select a variant of ``name`` with exactly the stored shape
    (Falcon's fused QKV is narrower with ``multi_query: true``), or none."""
    for conditions, dims in plan.alternatives.get(name, []):
        shape = tuple(plan.evaluate(dim, {}) for dim in dims)
        if shape != stored:
            continue
        flips = [
            (str(field), wanted)
            for field, wanted in conditions
            if stated_at(spec.raw, str(field)) != wanted
        ]
        if flips:
            return flips
    return []


def _simple(expression: list[Any]) -> bool:
    """Whether an expression is one field as it is (its value needs no ``= …``)."""
    if len(expression) != 1:
        return False
    numerator, denominator, factors = expression[0]
    return numerator == denominator == 1 and len(factors) == 1 and factors[0][1] == 1


def _render(plan: TemplatePlan, expression: list[Any], spec: ModelSpec) -> str:
    """``2 × moe_intermediate_size 32`` — an expression with the config's values."""
    parts: list[str] = []
    for numerator, denominator, factors in expression:
        words: list[str] = []
        coefficient = f"{numerator}" if denominator == 1 else f"{numerator}/{denominator}"
        if coefficient != "1" or not factors:
            words.append(coefficient)
        divisors: list[str] = []
        for field, exponent in factors:
            text = f"{_key(spec, field)} {plan.value(field)}"
            if exponent < 0:
                divisors.append(text if exponent == -1 else f"({text})^{-exponent}")
            else:
                words.append(text if exponent == 1 else f"({text})^{exponent}")
        term = " × ".join(words) if words else "1"
        if divisors:
            term += " / " + " / ".join(divisors)
        parts.append(term)
    return " + ".join(parts)


def _solve(plan: TemplatePlan, expression: list[Any], field: str, target: int) -> int | None:
    """The positive value of ``field`` for which ``expression`` gives ``target``, if any."""
    current = plan.value(field)
    low = plan.evaluate(expression, {field: 1})
    high = plan.evaluate(expression, {field: 2})
    if current is None or low is None or high is None or high <= low:
        return None
    slope = high - low
    if (target - low) % slope:
        return None
    value = (target - low) // slope + 1
    if value <= 0 or value == current or plan.evaluate(expression, {field: value}) != target:
        return None
    return value


def _explain(
    plan: TemplatePlan,
    groups: dict[str, list[tuple[str, tuple[int, ...]]]],
    expression: list[Any],
    stored: int,
) -> list[tuple[str, int]]:
    """Single config values that give ``stored`` without breaking a tensor that matches now;
    of those, the ones that repair the most stored tensors."""
    found: list[tuple[int, str, int]] = []
    by_name = _by_name(plan)
    for field in templates_fields(expression):
        if not _SETTABLE.match(field):
            continue  # a derived width (``hidden_size//num_attention_heads``): no key to set
        value = _solve(plan, expression, field, stored)
        if value is None:
            continue
        score: int | None = 0
        for folded, tensors in groups.items():
            entries = by_name[folded]
            if len(entries) != 1:
                continue
            entry = entries[0]
            if not any(field in templates_fields(dim) for dim in entry.dims):
                continue
            new = tuple(plan.evaluate(dim, {field: value}) for dim in entry.dims)
            matching = sum(entry.matches(shape) for _, shape in tensors)
            if new != entry.shape and matching:
                score = None
                break
            assert score is not None
            score += sum(shape == new for _, shape in tensors) if new != entry.shape else 0
        if score is not None:
            found.append((score, field, value))
    best = max((score for score, _, _ in found), default=0)
    return [(field, value) for score, field, value in found if score == best]


# --- DL611 ---------------------------------------------------------------------------------


def _count_findings(
    plan: TemplatePlan,
    groups: dict[str, list[tuple[str, tuple[int, ...]]]],
    mapped: Mapped,
    spec: ModelSpec,
) -> Iterator[Finding]:
    """Groups holding more or fewer tensors than the config implies: whole layers (one
    finding, with the layer count that explains it) or single tensors of a layer."""
    by_name = _by_name(plan)
    off: dict[str, tuple[int, int]] = {}
    for folded, tensors in groups.items():
        entries = by_name[folded]
        want = sum(entry.repeats for entry in entries)
        if want != len(tensors) and plan.count_trusted(folded):
            off[folded] = (want, len(tensors))
    covered: set[str] = set()
    for (field, value), names in _layer_counts(plan, groups, off).items():
        if covered & set(names):
            continue
        covered |= set(names)
        want, have = off[names[0]]
        layers = _layer_numbers(groups[names[0]], names[0], mapped)
        if layers is not None and have and (want * len(layers.stored)) % have == 0:
            text = _layer_text(names, layers, want * len(layers.stored) // have)
        else:
            stacks = {name.split("*", 1)[0] for name in names}
            stack = stacks.pop() if len(stacks) == 1 else ""
            where = f" of {stack}*" if stack else ""
            text = (
                f"the checkpoint holds {have} of each of the {len(names)} tensors{where}"
                f" ({_listing(names)}) but the config implies {want}: "
            )
            if have > want:
                text += "transformers does not load the extra ones, so the model runs"
                text += " without them."
            else:
                text += "transformers initialises the missing ones randomly: garbage out."
        text += f" {_key(spec, field)} {value} would explain it."
        yield Finding("DL611", text, _pointer(spec, field) or spec.pointer)
    for folded, (want, have) in off.items():
        if folded in covered:
            continue
        named = _absent_and_beyond(folded, [name for name, _ in groups[folded]], want, mapped)
        absent, beyond = named if named is not None else ([], [])
        if have < want and absent:
            yield Finding(
                "DL611",
                f"the checkpoint lacks {_listing(absent)} ({have} of the {want} tensors of"
                f" {folded} the config implies): transformers initialises"
                f" {'it' if len(absent) == 1 else 'them'} randomly (a 'missing keys' warning)"
                " and the model computes garbage.",
                spec.pointer,
            )
        elif have > want and beyond:
            yield Finding(
                "DL611",
                f"the checkpoint holds {_listing(beyond)} beyond the {want} tensors of"
                f" {folded} the config implies: transformers does not load"
                f" {'it' if len(beyond) == 1 else 'them'}.",
                spec.pointer,
            )
        else:
            yield Finding(
                "DL611",
                f"the checkpoint holds {have} tensors of {folded} but the config implies {want}:"
                " transformers initialises missing ones randomly and drops extra ones.",
                spec.pointer,
            )


class _Layers(Record):
    """The layer numbers a stack's tensors are stored under, and how the checkpoint spells
    one layer's prefix (``model.layers.2.*``, ``h.2.*`` in a base-model save)."""

    stored: frozenset[int]
    #: The checkpoint name of one stored tensor, split, and where its layer number is.
    parts: tuple[str, ...]
    position: int

    def prefix(self, number: int) -> str:
        return ".".join((*self.parts[: self.position], str(number), "*"))


def _layer_numbers(
    tensors: list[tuple[str, tuple[int, ...]]], folded: str, mapped: Mapped
) -> _Layers | None:
    """The layers one group of a whole-layer count mismatch is stored under (the index at the
    first ``*``); None when its names do not show them plainly (a merged or renamed tensor),
    or when a numbered module repeats inside the layer (Switch's ``expert_*``: the count the
    config changes may be that one's)."""
    folded_parts = folded.split(".")
    star = folded_parts.index("*") if "*" in folded_parts else -1
    if star < 0 or any(part != "*" and FOLDED_PART.fullmatch(part) for part in folded_parts):
        return None
    numbers: set[int] = set()
    for name, _ in tensors:
        piece = name.split(".")[star]
        if not piece.isdigit():
            return None
        numbers.add(int(piece))
    model_name = tensors[0][0]
    sources = mapped.sources.get(model_name, [model_name])
    number = model_name.split(".")[star]
    if len(sources) != 1 or sources[0].split(".").count(number) != 1:
        return None
    parts = tuple(sources[0].split("."))
    return _Layers(frozenset(numbers), parts, parts.index(number))


def _layer_text(names: list[str], layers: _Layers, implied: int) -> str:
    """A whole-layer mismatch in layers: which are absent, or beyond the ``implied`` count."""
    stack = names[0].split("*", 1)[0]
    where = f"{stack}*" if stack else names[0]
    each = f"{len(names)} tensors each: {_listing(names)}"
    if len(layers.stored) < implied:
        absent = [n for n in range(implied) if n not in layers.stored]
        shown = _first_few([layers.prefix(n) for n in absent])
        return (
            f"the checkpoint has no tensors for {_count_word(absent, 'layer')}"
            f" {_numbers(absent)} ({shown}) of the {implied} of {where} the config implies"
            f" ({each}): transformers initialises the missing layers randomly: garbage out."
        )
    extra = [n for n in sorted(layers.stored) if n >= implied]
    return (
        f"the checkpoint holds {len(layers.stored)} layers of {where} ({each}) but the config"
        f" implies {implied}: transformers does not load {_count_word(extra, 'layer')}"
        f" {_numbers(extra)}, so the model runs without {'it' if len(extra) == 1 else 'them'}."
    )


def _count_word(items: list[int], noun: str) -> str:
    return noun if len(items) == 1 else f"{noun}s"


def _numbers(items: list[int]) -> str:
    return _first_few([str(item) for item in items])


def _absent_and_beyond(
    folded: str, names: list[str], want: int, mapped: Mapped
) -> tuple[list[str], list[str]] | None:
    """Which tensors of a group are missing, or stored beyond the count the config implies,
    in the checkpoint's spelling. The index at the first ``*`` is the one counted; the other
    ``*`` (numbered modules' ``expert_*`` among them) take the values the stored names have
    (T5's ``block.*.layer.2``, Switch's ``expert_3``). None when the names do not follow that
    pattern."""
    parts = folded.split(".")
    stars = [position for position, part in enumerate(parts) if FOLDED_PART.fullmatch(part)]
    if not stars:
        return None
    combos: dict[tuple[int, ...], dict[int, str]] = {}
    for name in names:
        pieces = name.split(".")
        if len(pieces) != len(parts):
            return None
        numbers = [n for p in stars if (n := _number(pieces[p], parts[p])) is not None]
        if len(numbers) != len(stars):
            return None
        combos.setdefault(tuple(numbers[1:]), {})[numbers[0]] = name
    if want % len(combos):
        return None
    per = want // len(combos)
    absent: list[str] = []
    beyond: list[str] = []
    for stored in combos.values():
        sibling = next(iter(stored.values()))
        for number in range(per):
            if number not in stored:
                absent.append(_spelled(sibling, stars[0], number, mapped))
        beyond.extend(mapped.sources.get(stored[n], [stored[n]])[0] for n in stored if n >= per)
    return absent, beyond


def _number(piece: str, part: str) -> int | None:
    """The index a stored name's ``piece`` holds where the template's ``part`` is folded."""
    stem = part[:-1]
    number = piece[len(stem) :] if piece.startswith(stem) else ""
    return int(number) if number.isdecimal() else None


def _spelled(sibling: str, position: int, number: int, mapped: Mapped) -> str:
    """The checkpoint name a missing tensor would have: its stored sibling's, with the index
    changed (the model's name when the sibling's spelling does not show the index once)."""
    pieces = sibling.split(".")
    index = pieces[position]
    stem = index.rstrip("0123456789")
    pieces[position] = f"{stem}{number}"
    model_name = ".".join(pieces)
    sources = mapped.sources.get(sibling, [])
    if len(sources) == 1 and sources[0].count(f".{index}.") == 1:
        return sources[0].replace(f".{index}.", f".{stem}{number}.")
    return model_name


def _layer_counts(
    plan: TemplatePlan,
    groups: dict[str, list[tuple[str, tuple[int, ...]]]],
    off: dict[str, tuple[int, int]],
) -> dict[tuple[str, int], list[str]]:
    """(count field, value) → the groups it repairs, where it repairs every stored group
    whose count reads that field (a layer too many or too few, not one tensor deleted)."""
    by_name = _by_name(plan)
    fixes: dict[tuple[str, int], list[str]] = {}
    for folded, (_, have) in off.items():
        entries = by_name[folded]
        if len(entries) != 1:
            continue
        expression = entries[0].count_expression
        for field in templates_fields(expression):
            value = _solve(plan, expression, field, have)
            if value is not None:
                fixes.setdefault((field, value), []).append(folded)
    found: dict[tuple[str, int], list[str]] = {}
    for (field, value), names in sorted(fixes.items(), key=lambda item: -len(item[1])):
        readers = [
            folded
            for folded in groups
            if len(by_name[folded]) == 1
            and field in templates_fields(by_name[folded][0].count_expression)
        ]
        if len(names) > 1 and set(readers) <= set(names):
            found[(field, value)] = names
    return found


def _missing_findings(
    plan: TemplatePlan, missing: list[str], ignore: re.Pattern[str] | None, spec: ModelSpec
) -> Iterator[Finding]:
    by_condition: dict[tuple[str, object], list[str]] = {}
    plain: list[str] = []
    for name in missing:
        if _ignored(ignore, name):
            continue
        conditions = _conditions(plan, name)
        if conditions:
            field, wanted = conditions[0]
            by_condition.setdefault((str(field), wanted), []).append(name)
        else:
            plain.append(name)
    for (field, wanted), names in by_condition.items():
        yield Finding(
            "DL611",
            f"{_key(spec, field)} is {_json(wanted)}, so the config implies {len(names)} tensor"
            f"{'' if len(names) == 1 else 's'} the checkpoint lacks ({_listing(names)}):"
            f" transformers initialises {'it' if len(names) == 1 else 'them'} randomly."
            f" Set {_key(spec, field)} to {_json(_flipped(wanted))} if the checkpoint is right.",
            _pointer(spec, field) or spec.pointer,
        )
    if plain:
        yield Finding(
            "DL611",
            f"the checkpoint lacks {len(plain)} tensor{'' if len(plain) == 1 else 's'} the config"
            f" implies: {_listing(plain)}. transformers initialises them randomly (a 'missing"
            " keys' warning) and the model computes garbage.",
            spec.pointer,
        )


def _switched_findings(plan: TemplatePlan, names: list[str], spec: ModelSpec) -> Iterator[Finding]:
    by_condition: dict[tuple[str, object], list[str]] = {}
    for name in names:
        field, wanted = plan.switched_off[fold_into(name, plan.switched_off)][0]
        by_condition.setdefault((str(field), wanted), []).append(name)
    for (field, wanted), listed in by_condition.items():
        tied = "tie" in field
        yield Finding(
            "DL611",
            f"the checkpoint holds {len(listed)} tensor{'' if len(listed) == 1 else 's'} that"
            f" exist only when {_key(spec, field)} is {_json(wanted)} ({_listing(listed)}), but"
            f" it is not: {_ties if tied else 'they are not loaded'}."
            + (
                " If it is a copy of the embedding, nothing is lost."
                if tied
                else f" Set {_key(spec, field)} to {_json(wanted)}."
            ),
            _pointer(spec, field) or spec.pointer,
            Severity.WARNING if tied else None,
        )


# --- wording -------------------------------------------------------------------------------


def axis_word(rank: int, axis: int) -> str:
    """How a message names positions along one axis of a tensor of ``rank`` dimensions."""
    if rank == 1:
        return "elements"
    if rank == 2:
        return ("rows", "columns")[axis]
    return f"entries along axis {axis}"


def _json(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _flipped(value: object) -> object:
    return (not value) if isinstance(value, bool) else value


def _listing(names: list[str]) -> str:
    return _first_few(sorted(dict.fromkeys(names)))


def _first_few(items: list[str]) -> str:
    """The first :data:`LISTED` of ``items``, and how many more there are."""
    shown = ", ".join(items[:LISTED])
    return shown + (f" and {len(items) - LISTED} more" if len(items) > LISTED else "")


def _location(spec: ModelSpec, field: str) -> tuple[list[str], str] | None:
    """The keys of ``field`` in the config as stated (aliases and older layouts included)."""
    raw = spec.raw
    parts = field.split(".")
    container: Any = raw
    for part in parts[:-1]:
        container = container.get(part) if isinstance(container, dict) else None
    name = parts[-1]
    if isinstance(container, dict):
        if name in container:
            return parts, name
        model_type = container.get("model_type", raw.get("model_type"))
        record = architectures.lookup(model_type) if isinstance(model_type, str) else None
        if record is not None:
            for standard, real in record.aliases.items():
                if real == name and standard in container:
                    return [*parts[:-1], standard], standard
    if (
        len(parts) == 2
        and parts[0] == "text_config"
        and parts[1] in raw
        and "text_config" not in raw
    ):
        return [parts[1]], parts[1]
    return None


def _key(spec: ModelSpec, field: str) -> str:
    """How a message names ``field``: the key the config states it under."""
    located = _location(spec, field)
    return ".".join(located[0]) if located is not None else field


def _pointer(spec: ModelSpec, field: str) -> str | None:
    located = _location(spec, field)
    if located is None:
        return None
    return spec.pointer + "".join(f"/{part}" for part in located[0])
