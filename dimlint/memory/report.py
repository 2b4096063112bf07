"""The ``mem`` report of one config: parameters, weights, KV cache, memory per GPU (a JSON object).

``dimlint mem --output-format json`` prints exactly what :func:`report` returns, and
:func:`dimlint.memory` (:mod:`dimlint.api`) returns it to Python: one code path. The
contract (DESIGN.md, *mem / plan JSON*) is described in :mod:`dimlint.commands.mem`.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from dimlint.errors import UsageError
from dimlint.spec import ModelSpec

DEFAULT_CONTEXT = 4096
ESTIMATED = ["activations", "overhead"]


class MemOptions(NamedTuple):
    """What ``mem`` computes for: the command's options, defaults resolved (:func:`mem_options`)."""

    context: int
    batch: int
    dtype: str | None
    kv_dtype: str | None
    tp: int
    pp: int
    budget: str | None
    training: bool
    optimizer: str
    zero: int
    dp: int
    recompute: str


def model_specs(path: str, value: dict[str, Any]) -> list[ModelSpec]:
    """The specs of a config ``mem`` can size: a :class:`UsageError` when none has a hidden
    size (not a model config)."""
    from dimlint.normalize import specs_for_document

    specs = specs_for_document(path, value)
    if not any(spec.hidden is not None for spec in specs):
        raise UsageError(f"{path}: no hidden size found: is this a model config?")
    return specs


#: The option names, as ``dimlint mem`` spells its arguments.
MEM_FIELDS = MemOptions._fields


def mem_options(
    *,
    context: int | None = None,
    batch: int = 1,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    tp: int | None = None,
    pp: int | None = None,
    budget: str | None = None,
    training: bool = False,
    optimizer: str = "adam",
    zero: int = 0,
    dp: int = 1,
    recompute: str = "none",
) -> MemOptions:
    """Resolve the defaults: a ``budget`` of N GPUs means tp N unless tp/pp are given; the
    context defaults to :data:`DEFAULT_CONTEXT`. An unknown GPU is a :class:`UsageError`."""
    if budget and tp is None and pp is None:
        from dimlint.memory import parse_budget

        try:
            tp = parse_budget(budget)[0]
        except ValueError as error:
            raise UsageError(str(error)) from None
    return MemOptions(
        context or DEFAULT_CONTEXT,
        batch,
        dtype,
        kv_dtype,
        tp or 1,
        pp or 1,
        budget,
        training,
        optimizer,
        zero,
        dp,
        recompute,
    )


def _layer_counts(spec: ModelSpec) -> dict[str, int]:
    from dimlint.memory.config import Cfg
    from dimlint.memory.layers import cache_plan

    counts: dict[str, int] = {}
    for layer in cache_plan(Cfg(spec)):
        if layer.kind == "kv":
            name = "full_attention" if layer.window is None else "windowed_attention"
        else:
            name = {"latent": "latent_attention", "state": "recurrent_state"}.get(
                layer.kind, "no_cache"
            )
        counts[name] = counts.get(name, 0) + 1
    return counts


def _quantization_label(specs: list[ModelSpec], dtype: str) -> str | None:
    from dimlint.memory.dtypes import dtype_bytes
    from dimlint.memory.weights import quantized_bytes_per_weight

    if dtype_bytes(dtype) >= 2:
        return None
    config = specs[0].raw.get("quantization_config")
    if not isinstance(config, dict):
        return None
    per_weight = quantized_bytes_per_weight(config)
    method = config.get("quant_method", "unknown")
    if per_weight is None:
        return f"{method} (not recognised: counted as {dtype})"
    return f"{method}, {per_weight * 8:.3g} bits per quantized weight"


def report(path: str, specs: list[ModelSpec], args: MemOptions) -> dict[str, Any]:
    """The ``mem`` JSON object for one document."""
    from dimlint.memory import (
        kv_bytes_per_token,
        kv_cache_bytes,
        language_spec,
        model_parameters,
        serving_memory,
        training_memory,
        training_states,
        weight_bytes,
    )
    from dimlint.memory.config import Cfg
    from dimlint.memory.dtypes import dtype_bytes, stated_dtype

    lm = language_spec(specs)
    dtype = args.dtype or stated_dtype(specs[0].raw)
    kv_dtype = args.kv_dtype or (dtype if dtype_bytes(dtype) >= 2 else "bf16")
    context, batch, tp, pp = args.context, args.batch, args.tp, args.pp
    params = model_parameters(specs)
    notes = list(params.notes)
    quantization = specs[0].raw.get("quantization_config")
    quantized = quantization if isinstance(quantization, dict) and dtype_bytes(dtype) < 2 else None
    max_positions = Cfg(lm).max_positions
    if max_positions and context > max_positions:
        notes.append(
            f"context {context} exceeds max_position_embeddings {max_positions}: computed"
            " anyway (DL502 in `dimlint check --context` refuses it)"
        )
    serving = serving_memory(
        specs, context=context, batch=batch, dtype=dtype, kv_dtype=kv_dtype, tp=tp, pp=pp
    )
    result: dict[str, Any] = {
        "path": path,
        "model_type": specs[0].model_type,
        "params": {
            "total": params.total,
            "active": params.active,
            "embedding": params.embedding,
            "components": [{"name": name, "params": count} for name, count in params.components],
        },
        "weights": {
            "dtype": dtype,
            "bytes": weight_bytes(params, dtype, quantized),
            "quantization": _quantization_label(specs, dtype),
        },
        "kv_cache": {
            "dtype": kv_dtype,
            "context": context,
            "batch": batch,
            "bytes": kv_cache_bytes(lm, context=context, batch=batch, kv_dtype=kv_dtype),
            "bytes_per_token": kv_bytes_per_token(lm, kv_dtype),
            "layers": _layer_counts(lm),
        },
        "per_gpu": {
            "tp": tp,
            "pp": pp,
            "weights": serving.weights,
            "kv_cache": serving.kv_cache,
            "activations": serving.activations,
            "overhead": serving.overhead,
            "total": serving.total,
            "estimated": ESTIMATED,
        },
        "training": None,
        "budget": None,
        "notes": notes,
    }
    if args.training:
        seq = args.context
        states = training_states(
            params, dtype=dtype, optimizer=args.optimizer, zero=args.zero, dp=args.dp, tp=tp, pp=pp
        )
        training = training_memory(
            specs,
            dtype=dtype,
            optimizer=args.optimizer,
            zero=args.zero,
            dp=args.dp,
            tp=tp,
            pp=pp,
            batch=batch,
            seq=seq,
            recompute=args.recompute,
        )
        result["training"] = {
            "dtype": dtype,
            "optimizer": args.optimizer,
            "zero": args.zero,
            "dp": args.dp,
            "tp": tp,
            "pp": pp,
            "micro_batch": batch,
            "seq": seq,
            "recompute": args.recompute,
            "weights": states.weights,
            "gradients": states.gradients,
            "optimizer_states": states.optimizer,
            "activations": training.activations,
            "overhead": training.overhead,
            "total": training.total,
            "estimated": ESTIMATED,
        }
    if args.budget:
        result["budget"] = _budget(args.budget, result)
    return result


def _budget(text: str, result: dict[str, Any]) -> dict[str, Any]:
    from dimlint.memory import GPU_MEMORY_UTILIZATION, parse_budget

    try:
        count, gpu = parse_budget(text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    usable = gpu.usable_bytes()
    per_gpu = result["per_gpu"]
    gpus = per_gpu["tp"] * per_gpu["pp"]
    return {
        "budget": text,
        "gpu": gpu.name,
        "count": count,
        "memory_bytes": gpu.memory_bytes,
        "gpu_memory_utilization": GPU_MEMORY_UTILIZATION,
        "usable_bytes": usable,
        "gpus_needed": gpus,
        "fits": per_gpu["total"] <= usable and gpus <= count,
    }
