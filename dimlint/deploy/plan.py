"""``dimlint plan``'s answer, as plain data: accepted parallel sizes and what fits where.

For each engine (vLLM, SGLang, Megatron-LM, transformers native TP) the accepted TP, PP and EP
degrees from 1 to ``--max-gpus`` and, for each refused one, the engine's reason
(:mod:`dimlint.deploy.engines`, the same rules as DL401–DL406). Then every accepted (tp, pp) layout
with
the per-GPU serving memory :mod:`dimlint.memory` estimates, whether it fits ``--gpu``, and the
smallest layout that does. The result is the ``--output-format json`` document of DESIGN.md;
:mod:`dimlint.commands.plan` renders it as a table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dimlint.config.spec import ModelSpec
from dimlint.deploy.engines import ENGINES, PLAN_ENGINES, valid_degrees
from dimlint.deploy.fit import Setting, resolve_setting
from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.memory import GPU


class PlanRequest(Record):
    """What ``plan`` was asked; None means the model's own (context, formats)."""

    gpu: str | None = None
    max_gpus: int = 8
    context: int | None = None
    batch: int = 1
    dtype: str | None = None
    kv_dtype: str | None = None
    engines: tuple[str, ...] = PLAN_ENGINES


def _memory(specs: tuple[ModelSpec, ...], setting: Setting, tp: int, pp: int) -> dict[str, int]:
    from dimlint.memory import serving_memory

    models: Any = specs if len(specs) > 1 else specs[0]
    estimate = serving_memory(
        models,
        context=setting.context,
        batch=setting.batch,
        dtype=setting.dtype,
        kv_dtype=setting.kv_dtype,
        tp=tp,
        pp=pp,
    )
    return {
        "weights": estimate.weights,
        "kv_cache": estimate.kv_cache,
        "activations": estimate.activations,
        "overhead": estimate.overhead,
        "total": estimate.total,
    }


def _gpu(name: str) -> GPU:
    from dimlint.memory import gpu_named

    return gpu_named(name)  # a ValueError that lists the known GPUs


class Plan(Record):
    """The JSON document, and the refusals' first clauses for the table."""

    data: dict[str, Any]
    #: (engine, "tp"/"pp"/"ep") → {refused degree: summaries}.
    summaries: dict[tuple[str, str], dict[int, str]]


def build_plan(path: str, specs: list[ModelSpec], request: PlanRequest) -> Plan:
    """The plan of the model in ``specs`` (one config document and its sub-configs)."""
    from dimlint.deploy.fit import language_model
    from dimlint.memory import GPU_MEMORY_UTILIZATION

    models = tuple(specs)
    model = language_model(models)
    setting = resolve_setting(
        model, request.context, request.batch, request.dtype, request.kv_dtype
    )
    gpu = _gpu(request.gpu) if request.gpu else None
    usable = gpu.usable_bytes() if gpu is not None else None
    memory: dict[tuple[int, int], dict[str, int]] = {}
    engines: dict[str, Any] = {}
    summaries: dict[tuple[str, str], dict[int, str]] = {}
    for name in request.engines:
        engine = ENGINES[name]
        entry: dict[str, Any] = {"label": engine.label}
        valid: dict[str, list[int]] = {}
        for kind in ("tp", "pp", "ep"):
            accepted, refused = valid_degrees(engine, model, kind, request.max_gpus)
            valid[kind] = accepted
            entry[kind] = accepted
            entry[f"{kind}_invalid"] = {
                str(d): "; ".join(r.reason for r in found) for d, found in refused.items()
            }
            summaries[name, kind] = {
                d: "; ".join(r.summary for r in found) for d, found in refused.items()
            }
        layouts = []
        for tp in valid["tp"]:
            for pp in valid["pp"]:
                if tp * pp > request.max_gpus:
                    continue
                if (tp, pp) not in memory:
                    memory[tp, pp] = _memory(models, setting, tp, pp)
                used = memory[tp, pp]
                fits = None if usable is None else used["total"] <= usable
                layouts.append({"tp": tp, "pp": pp, "gpus": tp * pp, "memory": used, "fits": fits})
        layouts.sort(key=lambda layout: (layout["gpus"], layout["pp"]))
        entry["layouts"] = layouts
        entry["smallest_fit"] = next((dict(lay) for lay in layouts if lay["fits"]), None)
        engines[name] = entry
    data = {
        "path": path,
        "model_type": model.model_type,
        "pointer": model.pointer,
        "context": setting.context,
        "batch": setting.batch,
        "dtype": setting.dtype,
        "kv_dtype": setting.kv_dtype,
        "max_gpus": request.max_gpus,
        "gpu": None
        if gpu is None
        else {
            "name": gpu.name,
            "memory_bytes": gpu.memory_bytes,
            "usable_bytes": usable,
            "gpu_memory_utilization": GPU_MEMORY_UTILIZATION,
        },
        "memory_note": "per GPU, serving: weights and KV cache computed from the config,"
        " activations and overhead estimated",
        "engines": engines,
    }
    return Plan(data, summaries)
