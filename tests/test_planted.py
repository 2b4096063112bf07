"""Recall and fixes on defects planted into real released-model configs.

Each clean released config of ``../shared/corpus`` (no error finding, hidden/heads/layers/vocab
known) gets one defect at a time, planted by editing its text so that the planted value's line
and column are known exactly: a value replaced through the span reader
(``JsonDocument.value_span``), a key renamed, a member duplicated, a comma or brace deleted. The
rule responsible must fire *at that place*. Per kind, recall is found-at-the-right-place /
planted; run with ``-s`` for the table.

The shape defects with a fix (DL101, DL102, DL201, DL202) are then repaired with
``fix_file(..., unsafe=True)``: the result must parse, keep every key, lint without errors, stay
put on a second run, and differ from the planted text only inside the edited values.
"""

from __future__ import annotations

import csv
import difflib
import functools
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from dimlint.checks.keys import DIMENSION_KEYS
from dimlint.config import architectures
from dimlint.config.normalize import specs_for_document
from dimlint.config.spec import Located, ModelSpec
from dimlint.diagnostics import Applicability, Diagnostic, Position, Severity
from dimlint.fix.apply import fix_file
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.results import FileResult
from dimlint.lint.run_rules import is_toy
from dimlint.lint.selection import Selection
from dimlint.sources import jsonfile, jsonspans
from dimlint.sources.jsonfile import JsonDocument
from tests.conftest import shared_path

#: At most this many cases per kind (15 kinds): keeps the suite well under a minute.
CASES_PER_KIND = 100
MIN_BASE_CONFIGS = 100
#: Recall is measured at 100% for every kind (``pytest tests/test_planted.py -s`` prints the
#: table): a single miss is a regression, so the thresholds are what is measured.
MIN_OVERALL_RECALL = 1.0
MIN_KIND_RECALL = 1.0
#: Kinds whose finding carries a shape fix that --unsafe-fixes applies.
FIXABLE = ("DL101", "DL102", "DL201", "DL202")
#: Misspellings that DL004 must catch: (field, typo).
TYPOS = (("num_attention_heads", "num_attention_head"), ("intermediate_size", "intermediat_size"))


class BaseConfig(NamedTuple):
    """A clean released config: its text, parsed document and normalized specs."""

    relative: str
    text: str
    document: JsonDocument
    specs: list[ModelSpec]
    diagnostics: list[Diagnostic]  # of the unplanted config (warnings and infos only)


class Case(NamedTuple):
    """One planted defect and where its finding must be."""

    kind: str
    code: str
    source: str
    pointer: str  # the planted value (DL001: the damaged object)
    text: str
    position: Position  # where the finding must start (DL001: the damaged character)
    severity: Severity | None = None  # required severity, when the rule grades it
    nested: bool = False  # planted inside a sub-config (text_config, vision_config…)


# ------------------------------------------------------------------------- base configs


def _released(corpus: Path) -> list[str]:
    """Corpus paths of the configs MANIFEST.tsv marks as released models."""
    with (corpus / "MANIFEST.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return sorted(r["file"] for r in rows if r["purpose"] == "released-model")


def _complete(spec: ModelSpec) -> bool:
    """hidden, heads, layers and vocab all known: the shape rules can judge this spec."""
    return all(getattr(spec, name) is not None for name in ("hidden", "heads", "layers", "vocab"))


@functools.cache
def base_configs() -> list[BaseConfig]:
    """Released configs with no error finding whose top-level or nested spec is complete."""
    corpus = shared_path("corpus")
    found = []
    for relative in _released(corpus):
        data = (corpus / relative).read_bytes()
        result = lint_bytes(relative, data, Selection())
        if any(d.severity is Severity.ERROR for d in result.diagnostics):
            continue
        document, _ = jsonfile.load(relative, data)  # the span reader that findings use
        if document is None:
            continue
        specs = specs_for_document(relative, document.value)
        if any(_complete(spec) for spec in specs):
            found.append(BaseConfig(relative, document.text, document, specs, result.diagnostics))
    return found


# ------------------------------------------------------------------------------ planting


def position_at(text: str, offset: int) -> Position:
    """1-based line and code-point column of an offset (what findings report)."""
    line = text.count("\n", 0, offset) + 1
    return Position(line, offset - (text.rfind("\n", 0, offset) + 1) + 1)


def in_file(located: Located[Any] | None) -> Located[Any] | None:
    """The located value when the file states it as a plain value (so it can be replaced)."""
    if located is None or not located.in_file or located.pointer is None:
        return None
    return located


def value_at(value: Any, pointer: str) -> Any:
    """The value at a JSON pointer, walked here (not by dimlint's span reader)."""
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        value = value[int(token)] if isinstance(value, list) else value[token]
    return value


def replace_value(base: BaseConfig, pointer: str, new: str) -> tuple[str, Position] | None:
    """The text with the value at ``pointer`` replaced, and where that value starts.

    The span reader only says where to cut; the test checks that the cut-out text is the value
    (parsed with ``json``) and computes the line and column from the offset itself, so a span
    reader that drifted would make the planted position disagree with the finding.
    """
    span = base.document.value_span(pointer)
    if span is None:
        return None
    assert json.loads(base.text[span.start : span.end]) == value_at(base.document.value, pointer)
    return base.text[: span.start] + new + base.text[span.end :], position_at(base.text, span.start)


def value_case(
    kind: str, code: str, base: BaseConfig, located: Located[Any] | None, new: str, **extra: Any
) -> Case | None:
    """A case that replaces a stated value; None when the spec does not state it."""
    source = in_file(located)
    if source is None or _already_reported(base, code, source.pointer, extra.get("severity")):
        return None
    planted = replace_value(base, source.pointer, new)
    if planted is None:
        return None
    text, position = planted
    return Case(kind, code, base.relative, source.pointer, text, position, **extra)


def _already_reported(base: BaseConfig, code: str, pointer: str, severity: Severity | None) -> bool:
    """The unplanted config already has this finding here (GPT-2's vocab 50257 has DL202):
    planting there would count a finding the plant did not cause."""
    return any(
        d.code == code and d.pointer == pointer and severity in (None, d.severity)
        for d in base.diagnostics
    )


def _misaligned(value: int, multiple: int) -> int:
    """The smallest of value+4, +1, +2 that is not a multiple of ``multiple``."""
    return next(v for v in (value + 4, value + 1, value + 2) if v % multiple)


def plant_dl101(base: BaseConfig, spec: ModelSpec) -> Case | None:
    """hidden no longer divisible by heads (only without head_dim: with one, it is legal)."""
    if spec.head_dim is not None or spec.is_mla or spec.heads is None or spec.hidden is None:
        return None
    heads, hidden = spec.heads.value, spec.hidden.value
    if heads < 2:
        return None
    new = _misaligned(hidden, heads)
    return value_case("DL101 hidden+4", "DL101", base, spec.hidden, str(new))


def plant_dl102(base: BaseConfig, spec: ModelSpec) -> Case | None:
    """kv heads that do not divide heads (the nearest such ≤ heads, else heads + 1)."""
    if spec.is_mla or spec.heads is None or spec.kv_heads is None:
        return None
    heads, kv = spec.heads.value, spec.kv_heads.value
    if spec.kv_heads.origin != "config" or not isinstance(spec.raw.get(spec.kv_heads.key), int):
        return None  # falcon's multi_query flag: no number to replace
    bad = sorted((k for k in range(2, heads) if heads % k), key=lambda k: (abs(k - kv), k))
    new = bad[0] if bad else heads + 1
    return value_case("DL102 kv∤heads", "DL102", base, spec.kv_heads, str(new))


def plant_dl201(base: BaseConfig, spec: ModelSpec) -> Case | None:
    """An FFN width off the multiple of 8 that Tensor Core GEMMs need (warning grade); not in a
    toy-sized config, where performance rules are silent by design (``run_rules.is_toy``)."""
    if spec.ffn is None or is_toy(spec):
        return None
    new = _misaligned(spec.ffn.value, 8)
    return value_case("DL201 ffn+4", "DL201", base, spec.ffn, str(new), severity=Severity.WARNING)


def plant_dl202(base: BaseConfig, spec: ModelSpec) -> Case | None:
    """A vocab one row off a multiple of 64 (the classic unpadded tokenizer size)."""
    if spec.vocab is None or is_toy(spec):
        return None
    new = next(v for v in (spec.vocab.value + 1, spec.vocab.value + 2) if v % 64)
    return value_case("DL202 vocab+1", "DL202", base, spec.vocab, str(new))


def dl003_planter(
    label: str, field: str, render: Callable[[int], str]
) -> Callable[[BaseConfig, ModelSpec], Case | None]:
    """A planter that writes ``render(value)`` in place of a dimension (wrong type/range)."""

    def plant(base: BaseConfig, spec: ModelSpec) -> Case | None:
        located: Located[int] | None = getattr(spec, field)
        if located is None:
            return None
        return value_case(f"DL003 {label}", "DL003", base, located, render(located.value))

    return plant


def typo_planter(field: str, typo: str) -> Callable[[BaseConfig, ModelSpec], Case | None]:
    """Rename ``field`` to ``typo`` where the model type has the field (DL004 at the value)."""

    def plant(base: BaseConfig, spec: ModelSpec) -> Case | None:
        if field not in spec.raw or not _has_field(spec.model_type, field):
            return None
        pointer = f"{spec.pointer}/{field}"
        key, value = base.document.key_span(pointer), base.document.value_span(pointer)
        if key is None or value is None:
            return None
        text = base.text[: key.start] + json.dumps(typo) + base.text[key.end :]
        shift = len(json.dumps(typo)) - (key.end - key.start)
        position = position_at(text, value.start + shift)
        typo_pointer = f"{spec.pointer}/{typo}"
        return Case(f"DL004 {typo}", "DL004", base.relative, typo_pointer, text, position)

    return plant


def _has_field(model_type: str | None, field: str) -> bool:
    """Whether the model type really has ``field`` (remote-code types: they state it)."""
    arch = architectures.lookup(model_type) if model_type else None
    return arch is None or field in arch.fields


def plant_comma(base: BaseConfig, spec: ModelSpec) -> Case | None:
    """Delete the comma after the first of hidden/heads/layers/vocab that has one."""
    for name in ("hidden", "heads", "layers", "vocab"):
        source = in_file(getattr(spec, name))
        span = base.document.value_span(source.pointer) if source is not None else None
        if source is None or span is None:
            continue
        after = base.text[span.end :]
        offset = span.end + len(after) - len(after.lstrip())
        if base.text[offset : offset + 1] == ",":
            text = base.text[:offset] + base.text[offset + 1 :]
            position = position_at(base.text, offset)
            return Case("DL001 no comma", "DL001", base.relative, source.pointer, text, position)
    return None


def delete_closing_brace(base: BaseConfig, pointer: str) -> tuple[str, Position] | None:
    """The text without the closing brace of the object at ``pointer``, and where it was."""
    span = base.document.value_span(pointer)
    if span is None or base.text[span.end - 1] != "}":
        return None
    brace = span.end - 1
    return base.text[:brace] + base.text[brace + 1 :], position_at(base.text, brace)


def plant_brace(base: BaseConfig, spec: ModelSpec) -> Case | None:
    """Delete the file's last closing brace (the parser notices at once, at the end).

    A nested object's brace is different: ``{"a": {"b": 1, "c": 2}`` is still a valid prefix,
    so every parser first fails at the end of the file. Those are checked separately
    (:func:`test_deleted_nested_brace_is_reported_where_json_stops`).
    """
    if spec.pointer:
        return None
    planted = delete_closing_brace(base, "")
    if planted is None:
        return None
    text, position = planted
    return Case("DL001 no brace", "DL001", base.relative, "", text, position)


def plant_duplicate(base: BaseConfig, spec: ModelSpec) -> Case | None:
    """Repeat a dimension member with another value right after it (DL002 at the first key)."""
    names = ("hidden", "heads", "layers", "vocab")
    choice = sum(map(ord, base.relative + spec.pointer)) % len(names)
    for name in names[choice:] + names[:choice]:
        source = in_file(getattr(spec, name))
        if source is None or not isinstance(source.value, int):
            continue
        key = base.document.key_span(source.pointer)
        value = base.document.value_span(source.pointer)
        if key is None or value is None:
            continue
        assert json.loads(base.text[key.start : key.end]) == source.pointer.rsplit("/", 1)[1]
        position = position_at(base.text, key.start)
        indent = " " * (position.column - 1)
        member = f",\n{indent}{json.dumps(source.key)}: {source.value * 2}"
        text = base.text[: value.end] + member + base.text[value.end :]
        return Case("DL002 duplicate", "DL002", base.relative, source.pointer, text, position)
    return None


#: The kinds of defect, in the order of PLANTERS (parametrizes the recall test statically).
KINDS = (
    "DL101 hidden+4",
    "DL102 kv∤heads",
    "DL201 ffn+4",
    "DL202 vocab+1",
    'DL003 "string"',
    "DL003 float",
    "DL003 bool",
    "DL003 null",
    "DL003 negative",
    "DL003 zero heads",
    *(f"DL004 {typo}" for _, typo in TYPOS),
    "DL001 no comma",
    "DL001 no brace",
    "DL002 duplicate",
)
PLANTERS: tuple[Callable[[BaseConfig, ModelSpec], Case | None], ...] = (
    plant_dl101,
    plant_dl102,
    plant_dl201,
    plant_dl202,
    dl003_planter('"string"', "hidden", lambda v: json.dumps(str(v))),
    dl003_planter("float", "hidden", lambda v: f"{v}.0"),
    dl003_planter("bool", "hidden", lambda v: "true"),
    dl003_planter("null", "hidden", lambda v: "null"),
    dl003_planter("negative", "hidden", lambda v: "-1"),
    dl003_planter("zero heads", "heads", lambda v: "0"),
    *(typo_planter(field, typo) for field, typo in TYPOS),
    plant_comma,
    plant_brace,
    plant_duplicate,
)


def _cases_of(planter: Callable[[BaseConfig, ModelSpec], Case | None]) -> list[Case]:
    """Every case one planter makes, nested specs first so the cap never drops them."""
    cases = []
    for base in base_configs():
        for spec in base.specs:
            if (case := planter(base, spec)) is not None:
                cases.append(case._replace(nested=bool(spec.pointer)))
    return sorted(cases, key=lambda c: (not c.nested, c.source, c.pointer))


def _capped(cases: list[Case], cap: int) -> list[Case]:
    """All nested cases, then top-level ones spread evenly over the corpus, up to ``cap``."""
    nested = [c for c in cases if c.nested]
    top = [c for c in cases if not c.nested]
    room = max(cap - len(nested), 0)
    step = max(len(top) / room, 1.0) if room else 1.0
    spread = [top[int(i * step)] for i in range(min(room, len(top)))]
    return (nested + spread)[:cap]


@functools.cache
def planted_cases() -> list[Case]:
    return [case for planter in PLANTERS for case in _capped(_cases_of(planter), CASES_PER_KIND)]


# ------------------------------------------------------------------------------ judging


def lint_case(case: Case, selection: Selection | None = None) -> FileResult:
    return lint_bytes(case.source, case.text.encode("utf-8"), selection or Selection())


def at_place(case: Case, diagnostics: list[Diagnostic]) -> Diagnostic | None:
    """The finding of the planted code at the planted place, if any.

    Value defects: exactly the value's line and column. Syntax damage: within one line of the
    damaged character (a parser notices a missing comma at the next token).
    """
    for d in diagnostics:
        if d.code != case.code or d.span is None:
            continue
        if case.severity is not None and d.severity is not case.severity:
            continue
        start = d.span.start_pos
        if case.code == "DL001":
            if abs(start.line - case.position.line) <= 1:
                return d
        elif start == case.position:
            return d
    return None


class Outcome(NamedTuple):
    case: Case
    found: Diagnostic | None
    diagnostics: list[Diagnostic]


@functools.cache
def outcomes() -> list[Outcome]:
    results = []
    for case in planted_cases():
        diagnostics = lint_case(case).diagnostics
        results.append(Outcome(case, at_place(case, diagnostics), diagnostics))
    return results


def recall_table(results: list[Outcome]) -> str:
    """Planted, found and recall per kind and overall, as a Markdown table."""
    planted: Counter[str] = Counter(o.case.kind for o in results)
    found: Counter[str] = Counter(o.case.kind for o in results if o.found is not None)
    lines = ["| kind | planted | found | recall |", "| --- | ---: | ---: | ---: |"]
    for kind in planted:
        lines.append(
            f"| {kind} | {planted[kind]} | {found[kind]} | {found[kind] / planted[kind]:.1%} |"
        )
    total, hits = sum(planted.values()), sum(found.values())
    lines.append(f"| **all** | {total} | {hits} | {hits / max(total, 1):.1%} |")
    return "\n".join(lines)


def describe_miss(outcome: Outcome) -> str:
    """Where the finding should have been and what was reported instead."""
    case = outcome.case
    nearby = [
        f"{d.code}@{d.span.start_pos.line}:{d.span.start_pos.column} {d.pointer}"
        for d in outcome.diagnostics
        if d.span is not None and (d.code == case.code or d.pointer == case.pointer)
    ]
    where = f"{case.position.line}:{case.position.column}"
    return f"  {case.source} {case.pointer} expected {case.code}@{where}; got {nearby or 'nothing'}"


# --------------------------------------------------------------------------------- tests


def test_enough_real_configs_to_plant_into() -> None:
    bases = base_configs()
    assert len(bases) >= MIN_BASE_CONFIGS, f"only {len(bases)} clean released configs"
    nested = {c.source for c in planted_cases() if c.nested}
    assert len(nested) >= 3, "defects must also be planted inside nested sub-configs"


def test_case_budget() -> None:
    """Every kind is exercised, and the total stays small enough for a fast suite."""
    shared_path("corpus", "MANIFEST.tsv")
    per_kind = Counter(c.kind for c in planted_cases())
    assert list(per_kind) == list(KINDS)
    assert min(per_kind.values()) >= 20, per_kind
    assert sum(per_kind.values()) <= 1500


def test_typos_are_not_fields_of_any_model() -> None:
    """A "typo" that some transformers model declares would be a legitimate key, not a miss."""
    known = architectures.all_fields() | DIMENSION_KEYS
    for field, typo in TYPOS:
        assert field in known
        assert typo not in known, f"{typo} is a real field of some model type"


def test_planted_texts_are_what_they_claim() -> None:
    """Value plants still parse (only DL001 breaks syntax) and change the intended pointer."""
    shared_path("corpus", "MANIFEST.tsv")
    for case in planted_cases():
        if case.code == "DL001":
            with pytest.raises(json.JSONDecodeError):
                json.loads(case.text)
            continue
        json.loads(case.text)


@pytest.mark.parametrize("kind", KINDS)
def test_recall_per_kind(kind: str) -> None:
    shared_path("corpus", "MANIFEST.tsv")
    results = [o for o in outcomes() if o.case.kind == kind]
    misses = [o for o in results if o.found is None]
    recall = 1 - len(misses) / len(results)
    assert recall >= MIN_KIND_RECALL, (
        f"{kind}: recall {recall:.1%} ({len(results) - len(misses)}/{len(results)}) < "
        f"{MIN_KIND_RECALL:.0%}; misses:\n" + "\n".join(map(describe_miss, misses))
    )


def test_overall_recall() -> None:
    shared_path("corpus", "MANIFEST.tsv")
    results = outcomes()
    table = recall_table(results)
    print("\n" + table)  # shown with -s
    hits = sum(o.found is not None for o in results)
    assert hits / len(results) >= MIN_OVERALL_RECALL, table


def test_deleted_nested_brace_is_reported_where_json_stops() -> None:
    """A sub-config's missing ``}`` is reported where the text stops being JSON (DESIGN: DL001
    at the error's line/column) — for a valid prefix that is the end of the file, which dimlint
    reports at its last character (not at blank lines below) and names the unclosed bracket."""
    misses = []
    count = 0
    for base in base_configs():
        for spec in base.specs:
            planted = delete_closing_brace(base, spec.pointer) if spec.pointer else None
            if planted is None:
                continue
            text, _ = planted
            count += 1
            try:
                json.loads(text)
            except json.JSONDecodeError:
                end = len(text.rstrip(" \t\n\r"))
                line = text.count("\n", 0, end) + 1
                expected = Position(line, end - (text.rfind("\n", 0, end) + 1) + 1)
            else:  # pragma: no cover - a deleted brace always breaks the document
                pytest.fail(f"{base.relative}: still JSON without the brace of {spec.pointer}")
            diagnostics = lint_bytes(base.relative, text.encode("utf-8"), Selection()).diagnostics
            found = [d for d in diagnostics if d.code == "DL001" and d.span]
            starts = [d.span.start_pos for d in found if d.span]
            if expected not in starts or not any("never closed" in d.message for d in found):
                misses.append(f"  {base.relative} {spec.pointer}: want {expected}, got {starts}")
    assert count >= 20
    assert not misses, "DL001 not at json's error position:\n" + "\n".join(misses)


# ---------------------------------------------------------------------------------- fixes


def key_paths(value: Any, prefix: tuple[str | int, ...] = ()) -> set[tuple[str | int, ...]]:
    """Every key path of a JSON value (array items by index)."""
    paths: set[tuple[str | int, ...]] = set()
    if isinstance(value, dict):
        for key, child in value.items():
            paths.add((*prefix, key))
            paths |= key_paths(child, (*prefix, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            paths |= key_paths(child, (*prefix, index))
    return paths


def value_spans(text: str) -> set[tuple[int, int]]:
    """Every scalar value's (start, end) in ``text``: the only places a shape fix may edit."""
    _, index = jsonspans.parse(text)
    return {
        (m.value_start, m.value_end)
        for m in index.members.values()
        if text[m.value_start] not in "{["
    }


def fix_problems(case: Case) -> list[str]:
    """Why the unsafe fix of a planted case is not clean (empty when it is)."""
    selection = Selection(select=(case.code,))

    def relint(data: bytes) -> FileResult:
        return lint_bytes(case.source, data, selection)

    planted = case.text.encode("utf-8")
    first = relint(planted)
    target = at_place(case, first.diagnostics)
    if target is None:
        return ["not found (see the recall test)"]
    if target.fix is None or target.fix.applicability is Applicability.DISPLAY:
        return [f"no applicable fix offered: {target.message}"]
    outcome = fix_file(planted, first, relint, unsafe=True)
    if outcome.fixed is None:
        return ["fix_file changed nothing"]
    fixed_text = outcome.fixed.decode("utf-8")
    problems = []
    try:
        fixed_value = json.loads(fixed_text)
    except json.JSONDecodeError as error:
        return [f"fixed text is not JSON: {error}"]
    if key_paths(fixed_value) != key_paths(json.loads(case.text)):
        problems.append("the fix added or removed keys")
    after = lint_bytes(case.source, outcome.fixed, Selection()).diagnostics
    for d in after:
        if d.severity is Severity.ERROR or (d.code == case.code and d.pointer == case.pointer):
            problems.append(f"after the fix: {d.code} {d.pointer}: {d.message}")
    again = fix_file(outcome.fixed, relint(outcome.fixed), relint, unsafe=True)
    if again.fixed is not None:
        problems.append(f"not idempotent: a second run changes {_diff(fixed_text, again.fixed)}")
    problems += _outside_edits(case.text, fixed_text)
    return problems


def _outside_edits(planted: str, fixed: str) -> list[str]:
    """Bytes may change only inside scalar values of the planted text (whole-value edits).

    A diff is used rather than the fixer's own edit list, so that a fixer which rewrote more
    than it announced (reformatting, re-serialising) is caught too. Lines are matched first
    (fast); within each changed line, the changed characters must lie inside one value.
    """
    spans = value_spans(planted)
    old_lines = planted.splitlines(keepends=True)
    new_lines = fixed.splitlines(keepends=True)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    stray = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace" or i2 - i1 != j2 - j1:
            stray.append(f"lines {i1 + 1}-{i2} {tag}d")
            continue
        for offset, (old, new) in enumerate(zip(old_lines[i1:i2], new_lines[j1:j2], strict=True)):
            first, last = _changed_region(old, new)
            begin = starts[i1 + offset]
            if not any(a <= begin + first and begin + last <= b for a, b in spans):
                stray.append(f"line {i1 + offset + 1}: {old.strip()!r} → {new.strip()!r}")
    return [f"bytes changed outside any value: {'; '.join(stray)}"] if stray else []


def _changed_region(old: str, new: str) -> tuple[int, int]:
    """[first, last) of ``old`` that differs from ``new`` (common prefix and suffix removed)."""
    limit = min(len(old), len(new))
    first = next((i for i in range(limit) if old[i] != new[i]), limit)
    suffix = 0
    while suffix < limit - first and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    return first, len(old) - suffix


def _diff(before: str, after: str | bytes) -> str:
    if isinstance(after, bytes):
        after = after.decode("utf-8")
    changed = difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
    return " | ".join(list(changed)[2:8])


def fixable_cases(code: str) -> list[Case]:
    return [c for c in planted_cases() if c.code == code]


@pytest.mark.parametrize("code", FIXABLE)
def test_unsafe_fix_repairs_planted_defect(code: str) -> None:
    shared_path("corpus", "MANIFEST.tsv")
    cases = fixable_cases(code)
    assert cases
    failures = []
    for case in cases:
        if problems := fix_problems(case):
            failures.append(f"{case.source} {case.pointer}:\n    " + "\n    ".join(problems))
    assert not failures, f"{len(failures)}/{len(cases)} {code} fixes are not clean:\n" + "\n".join(
        failures
    )
