"""Parallel layouts under a deployment target: TP, PP, EP and CP sizes (DL401–DL407).

The engine rules live in :mod:`dimlint.deploy.engines` (shared with ``dimlint plan``); these checks
run them for each ``--target`` with sizes and report each refusal at the config value it is
about, with the sizes that engine does accept. Without a target they say nothing.

They judge the language model only: vision and audio towers are sharded (or replicated) by
rules of their own in each engine, and a composite config's top level has no heads of its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dimlint.checks.registry import Finding, deployment_rule
from dimlint.config.normalize import is_language_model
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity

if TYPE_CHECKING:
    from dimlint.deploy.engines import Refusal
    from dimlint.deploy.targets import Deployment, Target

#: Which parallel dimension each rule is about (for the "accepted sizes" advice).
_DIMENSION = {
    "DL401": "tp",
    "DL402": "tp",
    "DL403": "tp",
    "DL404": "tp",
    "DL405": "pp",
    "DL406": "ep",
}


def _sequence(spec: ModelSpec, deployment: Deployment) -> tuple[int, str] | None:
    if deployment.context is not None:
        return deployment.context, "--context"
    if spec.max_positions is not None:
        return spec.max_positions.value, spec.max_positions.key
    return None


def _refusals(spec: ModelSpec, target: Target, deployment: Deployment) -> list[Refusal]:
    """Every refusal of ``target`` for ``spec``, computed once per spec and target."""
    key = f"refusals {target!r} {deployment.context}"
    cached: list[Refusal] | None = spec.memo.get(key)
    if cached is not None:
        return cached
    # The engines' rules are imported only when a target is given: a plain check never runs them.
    from dimlint.deploy.engines import ENGINES, cp_refusals, ep_refusals, pp_refusals, tp_refusals

    engine = ENGINES[target.engine]
    found = tp_refusals(engine, spec, target.tp, target.ep)
    found += pp_refusals(engine, spec, target.pp)
    if target.ep > 1 and spec.experts is not None and spec.experts.value:
        found += ep_refusals(engine, spec, target.ep)  # ep on a dense model does nothing
    sequence = _sequence(spec, deployment)
    if sequence is not None:
        found += cp_refusals(engine, spec, target.cp, target.sp, *sequence)
    spec.memo[key] = found
    return found


def _pointer(spec: ModelSpec, field: str) -> str | None:
    if field == "shared_ffn" and "shared_expert_intermediate_size" in spec.raw:
        return f"{spec.pointer}/shared_expert_intermediate_size"
    if field == "shared_ffn":
        field = "expert_ffn"
    located = getattr(spec, field, None)
    if located is not None and located.pointer is not None:
        return str(located.pointer)
    return spec.pointer or None


def _advice(code: str, spec: ModelSpec, target: Target, deployment: Deployment) -> str:
    from dimlint.deploy.engines import ENGINES, MAX_DEGREE, valid_degrees

    engine = ENGINES[target.engine]
    if code == "DL407":
        if target.cp > 1:
            return (
                f" Use a sequence length that is a multiple of {2 * target.cp}, or another cp size."
            )
        return ""
    kind = _DIMENSION[code]
    degree = getattr(target, kind)
    limit = min(max(8, degree), MAX_DEGREE)
    accepted, _ = valid_degrees(engine, spec, kind, limit)
    sizes = ", ".join(str(d) for d in accepted)
    advice = f" {kind} sizes {engine.label} accepts for this model (up to {limit}): {sizes}."
    if code == "DL402" and not engine.replicate_kv:
        advice += (
            " vLLM, SGLang and Megatron-LM replicate KV heads and also accept tp that is a"
            " multiple of the KV heads."
        )
    return advice


def _findings(code: str, spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    if not is_language_model(spec):
        return
    for target in deployment.parallel:
        for refusal in _refusals(spec, target, deployment):
            if refusal.code != code:
                continue
            yield Finding(
                code,
                f"{refusal.reason} (target {target.text})."
                f"{_advice(code, spec, target, deployment)}",
                _pointer(spec, refusal.field),
            )


@deployment_rule(
    "DL401",
    "tp-heads",
    Severity.ERROR,
    "Under a target, the attention heads are not divisible by the tensor parallel size.",
)
def check_tp_heads(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    return _findings("DL401", spec, deployment)


@deployment_rule(
    "DL402",
    "tp-kv-heads",
    Severity.ERROR,
    "Under a target, the KV heads cannot be split or replicated over the tensor parallel size.",
)
def check_tp_kv_heads(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    return _findings("DL402", spec, deployment)


@deployment_rule(
    "DL403",
    "tp-ffn",
    Severity.ERROR,
    "Under a target, an FFN width (or its quantization groups) does not split over tp.",
)
def check_tp_ffn(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    return _findings("DL403", spec, deployment)


@deployment_rule(
    "DL404",
    "tp-vocab",
    Severity.ERROR,
    "Under a target, the (padded) vocabulary does not split over the tensor parallel size.",
)
def check_tp_vocab(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    return _findings("DL404", spec, deployment)


@deployment_rule(
    "DL405",
    "pp-layers",
    Severity.ERROR,
    "Under a target, the layers cannot be split into the pipeline stages the engine needs.",
)
def check_pp_layers(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    return _findings("DL405", spec, deployment)


@deployment_rule(
    "DL406",
    "ep-experts",
    Severity.ERROR,
    "Under a target, the routed experts cannot be split over the expert parallel size.",
)
def check_ep_experts(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    return _findings("DL406", spec, deployment)


@deployment_rule(
    "DL407",
    "cp-sequence",
    Severity.ERROR,
    "Under a target, the sequence or heads do not split over context/sequence parallel ranks.",
)
def check_cp_sequence(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    return _findings("DL407", spec, deployment)
