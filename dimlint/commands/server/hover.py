"""What a hover over a dimension says: its constraints, and what it costs in this config.

Two parts, both computed from the same code the rest of dimlint uses:

* **Constraints** — what the value must divide or be divisible by (heads into hidden, KV heads
  into heads, Tensor Core alignment, the parallel sizes of the configured targets), each marked
  as met or not with the rule that checks it.
* **Cost** — the figures of ``dimlint mem`` for the document (:func:`mem_figures` calls the very
  report ``mem`` prints, with the settings ``mem`` would apply): parameters, the KV cache at
  ``mem``'s context (a sliding window bounds it, so bytes per token alone can be 0), the total
  per GPU, labelled an estimate as ``mem`` labels it. How they move with the value is measured
  between the document and its **valid neighbours**: the nearest values above and below that
  add no shape error (DL1xx) the document does not already have — ``num_attention_heads`` 28 on
  a 3584-wide model is compared with 32, never with 29 — and that change the figures at all (a
  value halved in the model, ``intermediate_size // 2``, is probed two apart). When both sides
  move by the same amount per unit, the figure is linear in the value, and ``rate × value`` is
  exactly the part of the model this key accounts for (the embedding rows of ``vocab_size``, the
  layers of ``num_hidden_layers``); otherwise each neighbour's difference is shown.

No pygls here: the server turns the Markdown into an LSP ``Hover``.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from dimlint.config.normalize import specs_for_document
from dimlint.config.pointers import unescape_pointer_token
from dimlint.config.spec import INT_FIELD_NAMES, Located, ModelSpec

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment
    from dimlint.diagnostics import Diagnostic

#: What each canonical field is, in a few words.
MEANING = {
    "hidden": "model width (hidden size)",
    "heads": "attention (query) heads",
    "kv_heads": "key/value heads",
    "head_dim": "width of one attention head",
    "ffn": "MLP inner width",
    "layers": "decoder layers",
    "vocab": "vocabulary rows (embedding and LM head)",
    "max_positions": "longest context the positions support",
    "rotary_dim": "rotated channels per head",
    "experts": "routed experts per MoE layer",
    "experts_per_token": "experts each token is routed to",
    "expert_groups": "expert groups for group-limited routing",
    "topk_groups": "expert groups each token may use",
    "shared_experts": "always-active shared experts",
    "expert_ffn": "MLP inner width of one expert",
    "q_lora_rank": "MLA query low-rank width",
    "kv_lora_rank": "MLA key/value latent width (cached per token)",
    "qk_rope_head_dim": "MLA rotary part of each head (cached per token)",
    "qk_nope_head_dim": "MLA non-rotary part of each head",
    "v_head_dim": "width of one value head",
    "sliding_window": "tokens a windowed attention layer sees",
}


class Hit(NamedTuple):
    """The dimension under the cursor: which spec, which field, where its text is."""

    spec: ModelSpec
    field: str
    located: Located[int]
    start: int
    end: int


def field_at(
    specs: Sequence[ModelSpec], spans: Callable[[str], list[tuple[int, int]]], offset: int
) -> Hit | None:
    """The stated dimension whose key or value text contains ``offset``.

    ``spans(pointer)`` gives the character ranges of the key and value written at ``pointer``.
    """
    for spec in specs:
        for field in INT_FIELD_NAMES:
            located: Located[int] | None = getattr(spec, field)
            if located is None or not located.in_file or located.pointer is None:
                continue
            for start, end in spans(located.pointer):
                if start <= offset <= end:
                    return Hit(spec, field, located, start, end)
    return None


def _name(spec: ModelSpec, field: str, fallback: str) -> str:
    located: Located[int] | None = getattr(spec, field, None)
    return located.key if located is not None else fallback


def _mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def constraints(spec: ModelSpec, field: str, deployment: Deployment | None) -> list[str]:
    """One line per divisibility or range requirement on ``field``, marked met (✓) or not (✗)."""
    value = getattr(spec, field).value
    lines: list[str] = []
    hidden = spec.hidden.value if spec.hidden else None
    heads = spec.heads.value if spec.heads else None
    kv = spec.kv_heads.value if spec.kv_heads else None
    head_name = _name(spec, "heads", "num_attention_heads")
    hidden_name = _name(spec, "hidden", "hidden_size")
    kv_name = _name(spec, "kv_heads", "num_key_value_heads")
    explicit_head_dim = spec.head_dim is not None
    if field == "hidden" and heads and not spec.is_mla:
        if explicit_head_dim:
            lines.append(
                f"– {spec.head_dim.key if spec.head_dim else 'head_dim'} is stated, so "
                f"{hidden_name} need not be divisible by {head_name} (DL105)"
            )
        else:
            lines.append(
                f"{_mark(value % heads == 0)} divisible by {head_name} {heads}"
                f" (head dim = {value}/{heads}) — DL101"
            )
    if field == "heads" and not spec.is_mla:
        if hidden and not explicit_head_dim:
            lines.append(f"{_mark(hidden % value == 0)} divides {hidden_name} {hidden} — DL101")
        if kv:
            lines.append(
                f"{_mark(value % kv == 0 and kv <= value)} divisible by {kv_name} {kv} — DL102"
            )
    if field == "kv_heads" and heads and not spec.is_mla:
        lines.append(
            f"{_mark(heads % value == 0 and value <= heads)} divides {head_name} {heads} — DL102"
        )
    if field == "head_dim" or (field in ("hidden", "heads") and not explicit_head_dim):
        width = spec.effective_head_dim
        if width is not None and not spec.is_mla:
            lines.append(f"{_mark(width <= 256)} head dim {width} ≤ 256 (FlashAttention) — DL104")
            lines.append(f"{_mark(width % 8 == 0)} head dim {width} a multiple of 8 — DL104")
    if field in ("hidden", "ffn", "expert_ffn"):
        lines.append(f"{_mark(value % 8 == 0)} multiple of 8 (Tensor Core tiles) — DL201")
        lines.append(f"{_mark(value % 64 == 0)} multiple of 64 (fastest GEMMs) — DL201")
    if field == "vocab":
        lines.append(
            f"{_mark(value % 64 == 0)} multiple of 64 (LM head GEMM, vLLM padding) — DL202"
        )
    if field == "experts" and spec.experts_per_token:
        top_k = spec.experts_per_token.value
        lines.append(
            f"{_mark(top_k <= value)} at least {spec.experts_per_token.key} {top_k} — DL107"
        )
    if field == "experts_per_token" and spec.experts:
        lines.append(
            f"{_mark(value <= spec.experts.value)} at most {spec.experts.key}"
            f" {spec.experts.value} — DL107"
        )
    if field == "experts" and spec.expert_groups:
        groups = spec.expert_groups.value
        lines.append(
            f"{_mark(value % groups == 0)} divisible by {spec.expert_groups.key} {groups} — DL107"
        )
    if field == "max_positions" and deployment is not None and deployment.context:
        lines.append(
            f"{_mark(value >= deployment.context)} covers the target context"
            f" {deployment.context} — DL502"
        )
    lines.extend(_parallel(spec, field, value, deployment))
    return lines


def _parallel(spec: ModelSpec, field: str, value: int, deployment: Deployment | None) -> list[str]:
    """The configured targets' requirements: TP over heads, KV heads, FFN, vocab; PP; EP."""
    if deployment is None:
        return []
    lines = []
    for target in deployment.parallel:
        name = target.text or target.engine
        if field == "heads" and target.tp > 1:
            lines.append(
                f"{_mark(value % target.tp == 0)} divisible by tp={target.tp} ({name}) — DL401"
            )
        if field == "kv_heads" and target.tp > 1 and not spec.is_mla:
            ok = value % target.tp == 0 or target.tp % value == 0
            lines.append(
                f"{_mark(ok)} divisible by tp={target.tp}, or dividing it (replicated"
                f" KV heads) ({name}) — DL402"
            )
        if field in ("ffn", "expert_ffn") and target.tp > 1:
            lines.append(
                f"{_mark(value % target.tp == 0)} divisible by tp={target.tp} ({name}) — DL403"
            )
        if field == "layers" and target.pp > 1:
            lines.append(
                f"{_mark(value % target.pp == 0)} divisible by pp={target.pp} for an"
                f" even split ({name}) — DL405"
            )
        if field == "experts" and target.ep > 1:
            lines.append(
                f"{_mark(value % target.ep == 0)} divisible by ep={target.ep} ({name}) — DL406"
            )
    return lines


#: Steps tried, in order, to reach a valid neighbour that changes the figures.
_STEPS = (*range(1, 17), 24, 32, 48, 64, 96, 128, 256)
#: Valid neighbours that change nothing, after which the figures are taken not to depend on the
#: value (a value divided by 2 or 4 in the model changes them within four steps).
_UNCHANGED = 4


class Figures(NamedTuple):
    """What ``dimlint mem`` reports for one document (its JSON report and the options used)."""

    report: dict[str, Any]
    args: argparse.Namespace


def mem_figures(path: str, specs: list[ModelSpec]) -> Figures | None:
    """``mem``'s report of ``specs`` read from ``path`` (None when ``mem`` could not count them)."""
    from dimlint.api.memory_report import apply_settings, report

    args = argparse.Namespace(
        context=None,
        batch=None,
        dtype=None,
        kv_dtype=None,
        tp=None,
        pp=None,
        budget=None,
        training=False,
        config=None,
        no_config=False,
    )
    try:
        apply_settings(path, specs, args)
        return Figures(report(path, specs, args), args)
    except Exception:  # the memory model meets configs it cannot count: no cost, no crash
        return None


def _recount(path: str, specs: list[ModelSpec], args: argparse.Namespace) -> dict[str, Any] | None:
    from dimlint.api.memory_report import report

    try:
        return report(path, specs, args)
    except Exception:
        return None


def _shape_errors(specs: list[ModelSpec]) -> set[tuple[str | None, str]]:
    """The error-level shape findings (DL1xx) of ``specs``: what makes a config invalid."""
    from dimlint.checks import all_rules
    from dimlint.diagnostics import Severity
    from dimlint.lint.run_rules import spec_findings
    from dimlint.lint.selection import Selection

    rules = all_rules()
    codes = [code for code, rule in rules.items() if code.startswith("DL1")]
    found: set[tuple[str | None, str]] = set()
    for spec in specs:
        for finding in spec_findings(spec, codes, Selection()):
            severity = finding.severity or rules[finding.code].severity
            if severity is Severity.ERROR:
                found.add((spec.pointer, finding.code))
    return found


def set_value(root: dict[str, Any], pointer: str, value: int) -> dict[str, Any]:
    """A copy of ``root`` with the member at ``pointer`` set to ``value``."""
    updated = copy.deepcopy(root)
    tokens = [unescape_pointer_token(t) for t in pointer.split("/")[1:]]
    target: Any = updated
    for token in tokens[:-1]:
        target = target[int(token)] if isinstance(target, list) else target[token]
    if isinstance(target, dict):
        target[tokens[-1]] = value
    return updated


def json_respec(
    path: str, root: dict[str, Any], pointer: str
) -> Callable[[int], list[ModelSpec] | None]:
    """The document's specs with the value at ``pointer`` replaced, read as ``mem`` reads it."""

    def respec(value: int) -> list[ModelSpec] | None:
        try:
            return specs_for_document(path, set_value(root, pointer, value))
        except Exception:  # normalization accepts any dict; kept as a guard
            return None

    return respec


def _key(report: dict[str, Any]) -> tuple[int, int]:
    return report["params"]["total"], report["kv_cache"]["bytes"]


class Neighbour(NamedTuple):
    """A valid value near the document's, and ``mem``'s report with it."""

    value: int
    report: dict[str, Any]


def neighbour(
    path: str,
    value: int,
    direction: int,
    respec: Callable[[int], list[ModelSpec] | None],
    here: Figures,
    errors: set[tuple[str | None, str]],
    steps: tuple[int, ...] = _STEPS,
    patience: int = _UNCHANGED,
) -> Neighbour | None:
    """The nearest value in ``direction`` that is valid and changes ``mem``'s figures; a valid
    value that changes nothing when ``patience`` valid values in a row changed nothing (the
    figures do not depend on this value); None when no value tried is valid."""
    unchanged: list[Neighbour] = []
    for step in steps:
        candidate = value + direction * step
        if candidate < 1:
            break
        specs = respec(candidate)
        if not specs or not _shape_errors(specs) <= errors:
            continue
        counted = _recount(path, specs, here.args)
        if counted is None:
            continue
        if _key(counted) != _key(here.report):
            return Neighbour(candidate, counted)
        unchanged.append(Neighbour(candidate, counted))
        if len(unchanged) >= patience:
            break
    return unchanged[0] if unchanged else None


def neighbours(
    path: str,
    value: int,
    respec: Callable[[int], list[ModelSpec] | None],
    here: Figures,
) -> list[Neighbour]:
    """The valid neighbours above and below. When they lie at different distances (a value
    halved in the model changes the count every second step), both are probed again at the
    larger distance, so that the two differences are comparable per unit."""
    errors = _shape_errors(here_specs) if (here_specs := respec(value)) else set()
    found = [
        side
        for direction in (1, -1)
        if (side := neighbour(path, value, direction, respec, here, errors)) is not None
    ]
    changed = [side for side in found if _key(side.report) != _key(here.report)]
    if len(changed) == 1 and len(found) == 2:
        # one side moves, the other not yet: look further on that side (a cache allocated in
        # blocks of 16 tokens changes only every 16th window size)
        other = next(side for side in found if side not in changed)
        direction = 1 if other.value > value else -1
        further = neighbour(path, value, direction, respec, here, errors, patience=len(_STEPS))
        if further is not None and _key(further.report) != _key(here.report):
            found = [changed[0], further]
            changed = found
    if len(changed) == 2:
        distance = max(abs(side.value - value) for side in found)
        if any(abs(side.value - value) != distance for side in found):
            even = [
                neighbour(path, value, direction, respec, here, errors, (distance,))
                for direction in (1, -1)
            ]
            if all(side is not None for side in even):
                return [side for side in even if side is not None]
    return found


def _count(number: float) -> str:
    """A parameter count as people write it: 1.45M, 5.94B."""
    sign = "-" if number < 0 else ""
    number = abs(number)
    for size, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if number >= size:
            return f"{sign}{number / size:.3g}{unit}"
    return f"{sign}{number:.0f}"


def _bytes(number: float) -> str:
    """A byte count in binary units: 128 KiB."""
    sign = "-" if number < 0 else ""
    number = abs(number)
    for size, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if number >= size:
            return f"{sign}{number / size:.3g} {unit}"
    return f"{sign}{number:.0f} B"


def _effect(
    label: str,
    here: float,
    value: int,
    sides: list[tuple[Neighbour, float]],
    show: Callable[[float], str],
) -> str:
    """How ``label`` moves between the document and its valid neighbours (value, figure)."""
    if not sides:
        return f"- {label}: {show(here)}; no valid value nearby to compare with"
    if all(figure == here for _, figure in sides):
        return f"- {label}: {show(here)}, not changed by this value"
    rates = {(figure - here) / (other.value - value) for other, figure in sides}
    if len(sides) == 2 and len(rates) == 1:
        rate = rates.pop()
        part = rate * value
        if 0 <= part <= here:
            share = f" ({100 * part / here:.1f}% of {show(here)})" if here else ""
            return f"- {label}: {show(part)}{share}, {show(rate)} per unit"
    moves = []
    for other, figure in sides:
        plus = "+" if figure >= here else ""
        moves.append(f"{plus}{show(figure - here)} at {other.value}")
    return f"- {label}: {show(here)}; " + ", ".join(moves) + " (the nearest valid values)"


def describe(
    path: str,
    specs: list[ModelSpec],
    hit: Hit,
    deployment: Deployment | None,
    respec: Callable[[int], list[ModelSpec] | None] | None = None,
    errors: Sequence[Diagnostic] = (),
) -> str:
    """The Markdown of a hover on ``hit``; ``specs`` the model as ``mem`` reads it (empty: no
    figures), ``errors`` its error-level findings (the figures then describe an invalid model,
    and say so); ``respec(value)`` reads the document again with the hovered value replaced
    (None: no neighbours are probed)."""
    located = hit.located
    spec = hit.spec
    where = f" in {spec.label}" if spec.pointer else ""
    lines = [f"**{located.key}** = {located.value}{where} — {MEANING.get(hit.field, hit.field)}"]
    rules = constraints(spec, hit.field, deployment)
    if rules:
        lines += ["", "Must be:", *(f"- {line}" for line in rules)]
    here = mem_figures(path, specs) if specs else None
    if here is None:
        return "\n".join(lines)
    report = here.report
    kv = report["kv_cache"]
    sides = neighbours(path, located.value, respec, here) if respec is not None else []
    exact = report["params"]["exact"]
    lines += [
        "",
        f"In this config, as `dimlint mem` reports it (KV cache at {kv['context']:,} tokens ×"
        f" {kv['batch']}, {kv['dtype']}):",
    ]
    if errors:
        codes = ", ".join(sorted({d.code for d in errors}))
        lines.append(
            f"- INVALID MODEL: the config has {len(errors)} error"
            f"{'s' if len(errors) != 1 else ''} ({codes}): `dimlint mem` refuses it; these"
            " figures describe a model that would not build"
        )
    lines.append(
        _effect(
            "parameters" + ("" if exact else " (estimate: a model type counted approximately)"),
            report["params"]["total"],
            located.value,
            [(n, n.report["params"]["total"]) for n in sides],
            _count,
        )
    )
    lines.append(
        _effect(
            "KV cache",
            kv["bytes"],
            located.value,
            [(n, n.report["kv_cache"]["bytes"]) for n in sides],
            _bytes,
        )
    )
    if kv["bytes_per_token"]:
        lines.append(f"- KV cache per token: {_bytes(kv['bytes_per_token'])}")
    elif kv["bytes"]:
        lines.append(
            "- KV cache per token: 0 B beyond the attention window (a sliding window"
            " bounds the cache)"
        )
    gpu = report["per_gpu"]
    estimated = ", ".join(gpu["estimated"])
    lines.append(
        f"- memory per GPU (tp {gpu['tp']}, pp {gpu['pp']}): {_bytes(gpu['total'])} —"
        f" an estimate ({estimated} are estimated)"
    )
    return "\n".join(lines)
