"""What a hover over a dimension says: its constraints, and what it costs in this config.

Two parts, both computed from the same code the rest of dimlint uses:

* **Constraints** — what the value must divide or be divisible by (heads into hidden, KV heads
  into heads, Tensor Core alignment, the parallel sizes of the configured targets), each marked
  as met or not with the rule that checks it.
* **Cost** — parameters and KV-cache bytes per token from :mod:`dimlint.memory` (what ``mem``
  reports), and how they move with this value: the config is recounted with the value one
  higher (and one lower). When both steps change the count by the same amount the count is
  linear in the value, and ``step × value`` is exactly the part of the model this key accounts
  for (the embedding rows of ``vocab_size``, the MLP of ``intermediate_size``, the layers of
  ``num_hidden_layers``); otherwise (``hidden_size`` is in quadratic terms) the marginal cost of
  one more unit is shown.

No pygls here: the server turns the Markdown into an LSP ``Hover``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from dimlint.config.normalize import specs_for_document
from dimlint.config.pointers import unescape_pointer_token
from dimlint.config.spec import INT_FIELD_NAMES, Located, ModelSpec

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment

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


class Cost(NamedTuple):
    """Parameters and KV-cache bytes per token of a whole document."""

    params: int
    kv_per_token: float


def cost(specs: list[ModelSpec], kv_dtype: str | None) -> Cost | None:
    """``mem``'s totals for ``specs`` (None when the memory model cannot count them)."""
    from dimlint.memory import kv_bytes_per_token, language_spec, model_parameters
    from dimlint.memory.dtypes import dtype_bytes, stated_dtype

    try:
        params = model_parameters(specs).total
        dtype = stated_dtype(specs[0].raw)
        kind = kv_dtype or (dtype if dtype_bytes(dtype) >= 2 else "bf16")
        return Cost(params, kv_bytes_per_token(language_spec(specs), kind))
    except Exception:  # the memory model meets configs it cannot count: no cost, no crash
        return None


def _set(root: dict[str, Any], pointer: str, value: int) -> dict[str, Any]:
    """A copy of ``root`` with the member at ``pointer`` set to ``value``."""
    updated = copy.deepcopy(root)
    tokens = [unescape_pointer_token(t) for t in pointer.split("/")[1:]]
    target: Any = updated
    for token in tokens[:-1]:
        target = target[int(token)] if isinstance(target, list) else target[token]
    if isinstance(target, dict):
        target[tokens[-1]] = value
    return updated


def _recount(
    path: str, root: dict[str, Any], pointer: str, value: int, kv_dtype: str | None
) -> Cost | None:
    if value < 1:
        return None
    try:
        specs = specs_for_document(path, _set(root, pointer, value))
    except Exception:  # pragma: no cover - normalization accepts any dict; kept as a guard
        return None
    return cost(specs, kv_dtype)


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
    up: float | None,
    down: float | None,
    value: int,
    show: Callable[[float], str],
) -> str | None:
    """How ``label`` moves with the value: exactly accounted for when linear, else marginal."""
    if up is None:
        return None
    step = up - here
    if step == 0:
        return f"- {label}: {show(here)}, not changed by this value"
    linear = down is not None and here - down == step
    if linear and 0 <= step * value <= here:
        part = step * value
        share = f" ({100 * part / here:.1f}% of {show(here)})" if here else ""
        return f"- {label}: {show(part)}{share}, {show(step)} per unit"
    plus = "+" if step > 0 else ""
    return f"- {label}: {plus}{show(step)} for each +1 (total {show(here)})"


def describe(
    path: str,
    specs: list[ModelSpec],
    hit: Hit,
    deployment: Deployment | None,
) -> str:
    """The Markdown of a hover on ``hit``."""
    located = hit.located
    spec = hit.spec
    where = f" in {spec.label}" if spec.pointer else ""
    lines = [f"**{located.key}** = {located.value}{where} — {MEANING.get(hit.field, hit.field)}"]
    rules = constraints(spec, hit.field, deployment)
    if rules:
        lines += ["", "Must be:", *(f"- {line}" for line in rules)]
    kv_dtype = deployment.kv_dtype if deployment is not None else None
    here = cost(specs, kv_dtype)
    if here is not None and located.pointer is not None and specs:
        root = specs[0].raw
        up = _recount(path, root, located.pointer, located.value + 1, kv_dtype)
        down = _recount(path, root, located.pointer, located.value - 1, kv_dtype)
        effects = [
            _effect(
                "parameters",
                here.params,
                None if up is None else up.params,
                None if down is None else down.params,
                located.value,
                _count,
            ),
            _effect(
                "KV cache per token",
                here.kv_per_token,
                None if up is None else up.kv_per_token,
                None if down is None else down.kv_per_token,
                located.value,
                _bytes,
            ),
        ]
        lines += ["", "In this config (the memory model of `dimlint mem`):"]
        lines += [effect for effect in effects if effect is not None]
    return "\n".join(lines)
