"""A ``suggest`` request resolved: the family, deployment and ranges the search keeps to.

:func:`make_plan` turns a :class:`~dimlint.fix.suggest.request.Request` into everything the
enumeration and the ranking read once: the deployment ``check`` would lint under, the TP degrees
shapes are ranked at, the widths the FFN and experts are tried at (the family's roundings and
lcm(256, 64 · TP)), the padded vocab (128 × TP, as Megatron pads it), the FFN and expert ratios
and the depth/width range of released models, and the position, rope and router keys the family
releases.
"""

from __future__ import annotations

import math
from typing import Any

from dimlint.deploy.targets import Deployment, Target, deployment
from dimlint.fix.suggest.families import FAMILIES, TIE_BELOW, Family, round_up
from dimlint.fix.suggest.reference import (
    aspect_range,
    expert_ratio_range,
    family_curve,
    ffn_ratio_range,
    nearest_grouping,
)
from dimlint.fix.suggest.request import Request
from dimlint.records import Record

#: Expert widths are multiples of this (DeepSeek 2048, Qwen3 768, Qwen1.5-MoE 1408).
EXPERT_MULTIPLE = 64
#: Expert width / hidden when the released-shape table gives none (DeepSeek-V3 0.29 … Mixtral
#: 3.5; :func:`dimlint.fix.suggest.reference.expert_ratio_range` reads the table).
EXPERT_RATIO = (0.1, 4.0)
#: Below this size a model is served on one GPU (bf16 weights under 8 GB): without targets
#: its KV and widths are compared at TP 1, where fewer KV heads do save memory.
ONE_GPU_BELOW = 4_000_000_000
#: FFN widths are also tried at multiples of lcm(TP_WIDTH, 64 · TP) for every requested TP
#: degree, so that a shape whose FFN splits evenly over the ranks is found (issue 23).
TP_WIDTH = 256
#: GPUs of one node: without targets, shapes are compared served at up to this TP degree.
NODE = 8
#: The vocabulary is padded to this × the TP degrees, as Megatron's
#: ``make_vocab_size_divisible_by`` (128) does: every rank's slice stays 128-aligned.
VOCAB_PADDING = 128


class Plan(Record):
    """A request resolved: the family, deployment and ranges the search uses."""

    request: Request
    family: Family
    deployment: Deployment | None
    kv_dtype: str
    max_positions: int
    aspect: tuple[float, float, float]
    #: Engines whose accepted TP degrees are reported (the targets', else plan's four).
    engines: tuple[str, ...]
    max_tp: int
    #: TP degrees every shape's heads must divide (from the targets).
    head_divisors: tuple[int, ...]
    #: Pipeline degrees the layers must divide (targets of engines that split evenly).
    layer_divisors: tuple[int, ...]
    vocab: int
    tie: bool
    #: Tensor-parallel degrees the targets name (empty without targets). KV bytes and widths
    #: are ranked per GPU at each of them (see :func:`serving_degrees`).
    tp_degrees: tuple[int, ...] = ()
    #: Without targets: the largest TP degree a shape is assumed to be served at (the budget's
    #: GPU count, else one node of 8), as ``plan`` and ``mem --budget`` choose it.
    serving_cap: int = NODE
    #: (TP degree, replicates KV heads) of every parallel target, for the DL402 pruning.
    kv_rules: tuple[tuple[int, bool], ...] = ()
    #: Multiples the dense FFN width is tried at: the family's roundings and lcm(256, 64·TP).
    ffn_multiples: tuple[int, ...] = (256,)
    #: Multiples the expert width is tried at.
    expert_multiples: tuple[int, ...] = (64,)
    #: ffn / hidden of the family's released dense models (from the released-shape table).
    ffn_ratio: tuple[float, float] = (2.6, 3.6)
    #: expert width / hidden of released mixture-of-experts models (from the table).
    expert_ratio: tuple[float, float] = (0.1, 4.0)
    #: Position, rope and router keys as the family releases them (:mod:`.positions`).
    context_keys: dict[str, Any] | None = None
    #: Query heads per KV head of the family's release nearest in size, grouping beyond which
    #: ranks lower (None: the request fixes the grouping, or the family has no release).
    gqa_reference: float | None = None
    #: FFN (or expert) width / hidden along the family's releases at this size.
    ffn_curve: float | None = None


def make_plan(request: Request) -> Plan:
    """Resolve the request's defaults (family values, deployment, ranges)."""
    from dimlint.deploy.engines import ENGINES, PLAN_ENGINES
    from dimlint.memory.dtypes import dtype_bytes

    family = FAMILIES[request.family]
    expanded: list[str] = list(request.targets)
    chosen = deployment(
        {},
        targets=expanded,
        budget=request.budget,
        context=request.context,
        batch=request.batch,
        dtype=request.dtype,
        kv_dtype=request.kv_dtype,
    )
    parallel: tuple[Target, ...] = chosen.parallel if chosen else ()
    engines = tuple(dict.fromkeys(t.engine for t in parallel if t.engine != "deepspeed"))
    dtype = request.dtype or "bf16"
    kv_dtype = request.kv_dtype or (dtype if dtype_bytes(dtype) >= 2 else "bf16")
    positions = max(family.max_positions, request.context or 0)
    vocab = request.vocab or family.vocab
    tp_degrees = tuple(sorted({t.tp for t in parallel}))
    cap = NODE if request.params >= ONE_GPU_BELOW else 1
    if chosen is not None and chosen.budget is not None and not tp_degrees:
        from dimlint.deploy.targets import parse_budget_text

        cap = min(NODE, parse_budget_text(chosen.budget)[0])
    per_tp = [math.lcm(TP_WIDTH, 64 * tp) for tp in tp_degrees or (cap,) if tp > 1]
    ffn_multiples = tuple(sorted({family.ffn_multiple, *family.ffn_roundings, *per_tp}))
    expert_multiples = tuple(sorted({EXPERT_MULTIPLE, *per_tp}))
    model_type = family.moe[0] if request.moe and family.moe else family.model_type
    moe = request.moe is not None
    fixed_grouping = request.kv_heads is not None or request.gqa is not None
    return Plan(
        request,
        family,
        chosen,
        kv_dtype,
        1 << (positions - 1).bit_length(),
        aspect_range(
            request.params,
            request.moe is not None,
            (family.moe[0] if request.moe and family.moe else family.model_type,),
        ),
        engines or PLAN_ENGINES,
        max([8, *(t.tp for t in parallel)]),
        tuple(sorted({t.tp for t in parallel if t.tp > 1} | {t.sp for t in parallel if t.sp > 1})),
        tuple(sorted({t.pp for t in parallel if t.pp > 1 and ENGINES[t.engine].even_pp})),
        round_up(vocab, VOCAB_PADDING * math.lcm(1, *tp_degrees)),
        family.tie == "always" or (family.tie == "small" and request.params < TIE_BELOW),
        tp_degrees,
        cap,
        tuple(sorted({(t.tp, ENGINES[t.engine].replicate_kv) for t in parallel if t.tp > 1})),
        ffn_multiples,
        expert_multiples,
        ffn_ratio_range(family.model_type) or family.ffn_ratio,
        expert_ratio_range() or EXPERT_RATIO,
        _context_keys(request, family),
        None if fixed_grouping else nearest_grouping(request.params, moe, model_type),
        family_curve(request.params, moe, (model_type,), _mlp_ratio),
    )


def _mlp_ratio(model: Any) -> float:
    """A release's FFN (or expert) width / hidden; a row without one counts as the others."""
    width = (model.expert_ffn or model.ffn) if model.experts else model.ffn
    return width / model.hidden if width > 0 else math.nan


def _context_keys(request: Request, family: Family) -> dict[str, Any]:
    """The family's released positions, rope scaling and routing for this request."""
    from dimlint.fix.suggest.positions import position_keys, routing_keys

    model_type = family.moe[0] if request.moe and family.moe else family.model_type
    keys = position_keys(
        model_type, request.params, request.context, family.max_positions, family.rope_theta
    )
    if request.moe is not None:
        keys.update(routing_keys(model_type, request.moe.experts, request.moe.top_k))
    return keys
