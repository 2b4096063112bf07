"""Shared plumbing of the coupled-dimension rules (DL101–DL104, DL201, DL202).

Maps a :class:`ModelSpec` onto :class:`dimlint.config.geometry.Dims`, names each dimension the way
the
config spells it, and turns a :mod:`dimlint.deploy.dimension_search` suggestion into a
:class:`PlannedFix` whose
edits replace exactly the values that change.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dimlint.checks.registry import PlannedFix
from dimlint.config.geometry import Dims, Field, Problem, evaluate
from dimlint.config.spec import READ_ONLY, Located, ModelSpec
from dimlint.config.trainingkeys import ALIGNED_ROWS
from dimlint.diagnostics import Applicability

if TYPE_CHECKING:
    from dimlint.deploy.dimension_search import Suggestion


def problems_of(spec: ModelSpec) -> frozenset[Problem]:
    """``evaluate(dims_of(spec))``, computed once per spec for all the coupled rules."""
    found: frozenset[Problem] | None = spec.memo.get("problems")
    if found is None:
        found = spec.memo["problems"] = evaluate(dims_of(spec))
    return found


def problem_of(spec: ModelSpec, code: str) -> Problem | None:
    """The problem ``code`` of ``spec`` (the coupled rules other than DL201 raise at most one),
    from a per-spec table so that each rule does not scan the set again."""
    table: dict[str, Problem] | None = spec.memo.get("problems_by_code")
    if table is None:
        table = {}
        for problem in problems_of(spec):
            table.setdefault(problem.code, problem)
        spec.memo["problems_by_code"] = table
    return table.get(code)


def dims_of(spec: ModelSpec) -> Dims:
    """The coupled values of ``spec`` (explicit head dim only; None where unknown)."""
    cached: Dims | None = spec.memo.get("dims")
    if cached is not None:
        return cached
    spec.memo["dims"] = dims = _dims(spec)
    return dims


def _dims(spec: ModelSpec) -> Dims:
    # Recurrent heads split an inner width, not attention: no attention rule applies to them.
    attention = not spec.recurrent
    vocab = spec.vocab.value if spec.vocab is not None else None
    rows = spec.embedding_rows
    if rows is not None and rows.value % ALIGNED_ROWS == 0:
        vocab = None  # padded elsewhere: the GEMMs see aligned rows, the vocab is the tokenizer's
    heads, kv_heads, head_dim = spec.heads, spec.kv_heads, spec.head_dim
    return Dims(
        hidden=spec.hidden.value if spec.hidden is not None else None,
        heads=heads.value if attention and heads is not None else None,
        kv_heads=kv_heads.value if attention and kv_heads is not None else None,
        head_dim=head_dim.value if attention and head_dim is not None else None,
        ffn=spec.ffn.value if spec.ffn is not None else None,
        expert_ffn=spec.expert_ffn.value if spec.expert_ffn is not None else None,
        vocab=vocab,
        rotary_fraction=spec.partial_rotary_factor.value if spec.partial_rotary_factor else None,
        rotary_dim=spec.rotary_dim.value if spec.rotary_dim is not None else None,
        mla=spec.is_mla,
    )


def located(spec: ModelSpec, field: Field) -> Located[int] | Located[float] | None:
    """Where a coupled dimension was read from."""
    if field == "rotary":
        return spec.rotary_dim if spec.rotary_dim is not None else spec.partial_rotary_factor
    result: Located[int] | None = getattr(spec, field)
    return result


def key_names(spec: ModelSpec) -> dict[Field, str]:
    """How the config spells each coupled dimension (``n_embd`` for gpt2's hidden…)."""
    cached: dict[Field, str] | None = spec.memo.get("key_names")
    if cached is not None:
        return cached
    defaults: dict[Field, str] = {
        "hidden": "hidden_size",
        "heads": "num_attention_heads",
        "kv_heads": "num_key_value_heads",
        "head_dim": "head_dim",
        "ffn": "intermediate_size",
        "expert_ffn": "moe_intermediate_size",
        "vocab": "vocab_size",
        "rotary": "partial_rotary_factor",
    }
    names: dict[Field, str] = {}
    for field, default in defaults.items():
        source = located(spec, field)
        names[field] = source.key if source is not None else default
    spec.memo["key_names"] = names
    return names


def anchor(spec: ModelSpec, *fields: Field) -> str | None:
    """The pointer of the first of ``fields`` that the file states (else of the config)."""
    for field in fields:
        source = located(spec, field)
        if source is not None and source.pointer is not None and source.in_file:
            return source.pointer
    return spec.pointer or None


def mutable_fields(spec: ModelSpec) -> list[Field]:
    """Dimensions a fix may edit: those the file states as plain values."""
    fields: list[Field] = [
        "hidden",
        "heads",
        "kv_heads",
        "head_dim",
        "ffn",
        "expert_ffn",
        "vocab",
        "rotary",
    ]
    read_only: frozenset[str] = spec.memo.get(READ_ONLY, frozenset())
    return [
        f
        for f in fields
        if (source := located(spec, f)) is not None
        and source.in_file
        and source.pointer not in read_only
    ]


def suggestions(spec: ModelSpec, problem: Problem) -> list[Suggestion]:
    """Best repairs for ``problem`` found by the joint search (imported only when needed)."""
    from dimlint.deploy.dimension_search import suggest

    layers = spec.layers.value if spec.layers else 1
    experts = spec.experts.value if spec.experts else 0
    return suggest(
        dims_of(spec),
        problem,
        mutable_fields(spec),
        layers=layers,
        gated=bool(spec.gated_mlp),
        experts=experts,
    )


def planned_fix(spec: ModelSpec, problem: Problem) -> tuple[PlannedFix | None, str]:
    """The fix for ``problem`` and a sentence listing the runner-up alternatives."""
    from dimlint.deploy.dimension_search import format_value

    found = suggestions(spec, problem)
    if not found:
        return None, ""
    names = key_names(spec)
    best, *others = found
    replacements = []
    for change in best.changes:
        source = located(spec, change.field)
        assert source is not None
        assert source.pointer is not None
        replacements.append((source.pointer, format_value(change.new)))
    fix = PlannedFix(Applicability.UNSAFE, "set " + best.describe(names), tuple(replacements))
    alternatives = "; ".join(other.describe(names) for other in others)
    return fix, (f" Alternatives: {alternatives}." if alternatives else "")
