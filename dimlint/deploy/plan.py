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
from dimlint.deploy.training import TrainingSetup
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
    #: ``--training``: each layout sized for a training step (tp × pp × dp), not for serving.
    training: TrainingSetup | None = None


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


def _training_memory(
    specs: tuple[ModelSpec, ...],
    setting: Setting,
    setup: TrainingSetup,
    layout: tuple[int, int, int],
    gpu: GPU | None,
    upper: int,
) -> dict[str, int | None]:
    """One training step on tp × pp × dp, as ``mem --training`` and DL501 size it, and the
    longest sequence that fits ``gpu`` (None without one)."""
    from dimlint.deploy.training import longest_seq, step, usable_bytes

    tp, pp, dp = layout
    dtype, batch = setting.dtype, setting.batch
    used = step(specs, setup, dtype=dtype, tp=tp, pp=pp, dp=dp, batch=batch, seq=setting.context)
    longest = None
    if gpu is not None:
        usable = usable_bytes(gpu)
        longest = longest_seq(
            specs, setup, usable=usable, upper=upper, dtype=dtype, tp=tp, pp=pp, dp=dp, batch=batch
        )
    return {
        "weights": used.weights,
        "gradients": used.gradients,
        "optimizer_states": used.optimizer,
        "zero3_gathered": used.gathered,
        "activations": used.activations,
        "overhead": used.overhead,
        "total": used.total,
        "longest_seq": longest,
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
    utilization = GPU_MEMORY_UTILIZATION
    setup = request.training
    if setup is not None:
        from dimlint.deploy.fit import default_context
        from dimlint.deploy.training import attention_of, usable_bytes

        attention, attention_note = attention_of(models, setup)
        upper = max(setting.context, default_context(model))
        if gpu is not None:
            usable, utilization = usable_bytes(gpu), 1.0  # a training step may fill the device
    memory: dict[tuple[int, int], dict[str, Any]] = {}
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
                dp = 1
                if setup is not None:  # the GPUs left after tp × pp are data-parallel ranks
                    dp = setup.dp or max(1, request.max_gpus // (tp * pp))
                    if tp * pp * dp > request.max_gpus:
                        continue
                if (tp, pp) not in memory:
                    memory[tp, pp] = (
                        _memory(models, setting, tp, pp)
                        if setup is None
                        else _training_memory(models, setting, setup, (tp, pp, dp), gpu, upper)
                    )
                used = memory[tp, pp]
                fits = None if usable is None else used["total"] <= usable
                gpus = tp * pp * dp
                layout = {"tp": tp, "pp": pp, "gpus": gpus, "memory": used, "fits": fits}
                if setup is not None:
                    layout = {"tp": tp, "pp": pp, "dp": dp, **layout}
                layouts.append(layout)
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
            "gpu_memory_utilization": utilization,
        },
        "memory_note": "per GPU, serving: weights and KV cache computed from the config,"
        " activations and overhead estimated",
        "training": None,
        "engines": engines,
    }
    if setup is not None:
        data["memory_note"] = (
            "per GPU, one training step (as mem --training and DL501 size it): model states"
            " computed from the config, activations and overhead estimated; longest_seq is the"
            " longest sequence at the micro-batch that fits the GPU"
        )
        data["training"] = {
            "method": setup.method,
            "lora_rank": setup.lora_rank,
            "lora_targets": setup.lora_targets,
            "optimizer": setup.optimizer,
            "zero": setup.zero,
            "dp": setup.dp,
            "recompute": setup.recompute,
            "offload": setup.offload,
            "attention": attention,
            "attention_note": attention_note,
        }
    return Plan(data, summaries)
