"""``dimlint mem PATH...``: parameters, weights, KV cache and memory per GPU, as a table or JSON.

The JSON contract (DESIGN.md): one object per path (an array for several) with
``params.total``, ``params.active``, ``params.embedding``, ``params.components``,
``weights.bytes`` (for ``--dtype``), ``kv_cache.bytes`` (for ``--context`` × ``--batch`` at
``--kv-dtype``, the whole model), and ``per_gpu`` (at ``--tp``/``--pp``), whose
``activations`` and ``overhead`` are listed under ``estimated``. A context beyond the model's
``max_position_embeddings`` is computed anyway and a note says so (refusing it is DL502's job).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from dimlint.errors import UsageError
from dimlint.spec import ModelSpec

DEFAULT_CONTEXT = 4096
ESTIMATED = ["activations", "overhead"]


def load_document(path: str) -> tuple[str, list[ModelSpec]]:
    """The specs of the config at ``path`` (a file, or a folder holding ``config.json``)."""
    from dimlint.commands.configfile import read_config, refuse_invalid
    from dimlint.normalize import specs_for_document

    path, value = read_config(path)
    specs = specs_for_document(path, value)
    refuse_invalid(path, specs)
    if not any(spec.hidden is not None for spec in specs):
        raise UsageError(f"{path}: no hidden size found: is this a model config?")
    return path, specs


def _layer_counts(spec: ModelSpec) -> dict[str, int]:
    from dimlint.memory.config import Cfg
    from dimlint.memory.layers import cache_plan

    counts: dict[str, int] = {}
    for _index, layer, count in cache_plan(Cfg(spec)):
        if layer.kind == "kv":
            name = "full_attention" if layer.window is None else "windowed_attention"
        else:
            name = {"latent": "latent_attention", "state": "recurrent_state"}.get(
                layer.kind, "no_cache"
            )
        counts[name] = counts.get(name, 0) + count
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


def report(
    path: str,
    specs: list[ModelSpec],
    args: argparse.Namespace,
) -> dict[str, Any]:
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


def run_mem(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Compute and print the memory report of every path; usage errors exit 2."""
    if args.budget and args.tp is None and args.pp is None:
        from dimlint.memory import parse_budget

        try:
            args.tp = parse_budget(args.budget)[0]
        except ValueError as error:
            raise UsageError(str(error)) from None
    args.tp = args.tp or 1
    args.pp = args.pp or 1
    args.context = args.context or DEFAULT_CONTEXT
    documents = [load_document(path) for path in args.paths]
    try:
        reports = [report(path, specs, args) for path, specs in documents]
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.output_format == "json":
        payload: Any = reports[0] if len(reports) == 1 else reports
        out.write(json.dumps(payload, indent=2) + "\n")
    else:
        out.write("\n".join(render(item) for item in reports))
    if args.plot:
        from dimlint.memory.plot import PlotError, plot

        try:
            plot(args.plot, documents, args)
        except PlotError as error:
            raise UsageError(str(error)) from None
        err.write(f"dimlint: wrote {args.plot}\n")
    return 0


def size(count: float) -> str:
    """Bytes for people: GiB (1024³) above 1 GiB, else MiB/KiB."""
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if abs(count) >= scale:
            return f"{count / scale:,.2f} {unit}"
    return f"{count:,.0f} B"


def _billions(count: int) -> str:
    return f"{count / 1e9:,.2f} B" if count >= 1e8 else f"{count / 1e6:,.1f} M"


def render(item: dict[str, Any]) -> str:
    """The human table of one report."""
    params, weights, kv, gpu = item["params"], item["weights"], item["kv_cache"], item["per_gpu"]
    moe = params["active"] != params["total"]
    kind = f"MoE, {_billions(params['active'])} active" if moe else "dense"
    lines = [f"{item['path']}  ({item['model_type'] or 'unknown type'}, {kind})"]
    rows: list[tuple[str, str, str]] = [
        ("parameters", f"{params['total']:,}", f"{_billions(params['total'])}"),
        ("  active per token", f"{params['active']:,}", ""),
        ("  embeddings + head", f"{params['embedding']:,}", ""),
    ]
    if len(params["components"]) > 1:
        for component in params["components"]:
            rows.append((f"  {component['name']}", f"{component['params']:,}", ""))
    quant = f", {weights['quantization']}" if weights["quantization"] else ""
    rows.append(("weights", size(weights["bytes"]), f"{weights['dtype']}{quant}"))
    layers = ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in kv["layers"].items())
    rows.append(
        (
            "KV cache",
            size(kv["bytes"]),
            f"{kv['dtype']}, {kv['context']:,} tokens × {kv['batch']}"
            f" ({size(kv['bytes_per_token'])}/token; {layers})",
        )
    )
    rows.append((f"per GPU (tp {gpu['tp']}, pp {gpu['pp']})", "", ""))
    for key, label in (
        ("weights", "weights"),
        ("kv_cache", "KV cache"),
        ("activations", "activations"),
        ("overhead", "overhead"),
    ):
        tag = "estimate" if key in gpu["estimated"] else ""
        rows.append((f"  {label}", size(gpu[key]), tag))
    rows.append(("  total", size(gpu["total"]), "includes estimates"))
    training = item["training"]
    if training:
        rows.append(
            (
                f"training (per GPU, {training['optimizer']}, ZeRO-{training['zero']},"
                f" dp {training['dp']})",
                "",
                f"micro-batch {training['micro_batch']} × {training['seq']:,} tokens,"
                f" recompute {training['recompute']}",
            )
        )
        for key, label in (
            ("weights", "weights"),
            ("gradients", "gradients"),
            ("optimizer_states", "optimizer states"),
            ("activations", "activations"),
            ("overhead", "overhead"),
        ):
            tag = "estimate" if key in training["estimated"] else ""
            rows.append((f"  {label}", size(training[key]), tag))
        rows.append(("  total", size(training["total"]), "includes estimates"))
    budget = item["budget"]
    if budget:
        verdict = "fits" if budget["fits"] else "does NOT fit"
        rows.append(
            (
                f"budget {budget['budget']}",
                size(budget["usable_bytes"]),
                f"usable per GPU ({budget['gpu_memory_utilization']:g} of"
                f" {size(budget['memory_bytes'])}): {verdict}",
            )
        )
    width = max(len(label) for label, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    for label, value, detail in rows:
        lines.append(f"  {label:<{width}}  {value:>{value_width}}  {detail}".rstrip())
    lines.extend(f"  note: {note}" for note in item["notes"])
    return "\n".join(lines) + "\n"
