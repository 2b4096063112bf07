"""``dimlint mem PATH...``: parameters, weights, KV cache and memory per GPU, as a table or JSON.

The JSON contract (DESIGN.md): one object per path (an array for several) with
``params.total``, ``params.active``, ``params.embedding``, ``params.components``,
``params.exact`` (false when the count is an estimate: a model type dimlint does not know),
``weights.bytes`` (for ``--dtype``), ``kv_cache.bytes`` (for ``--context`` × ``--batch`` at
``--kv-dtype``, the whole model), and ``per_gpu`` (at ``--tp``/``--pp``), whose
``activations`` and ``overhead`` are listed under ``estimated``. A context beyond the model's
``max_position_embeddings`` is computed anyway and a note says so (refusing it is DL502's job).
"""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from dimlint.api.memory_report import (
    ESTIMATED,
    apply_settings,
    label_invalid,
    layout_refusals,
    load_document,
    load_model,
    report,
)
from dimlint.errors import UsageError
from dimlint.report.escape import for_terminal

__all__ = [
    "ESTIMATED",
    "apply_settings",
    "layout_refusals",
    "load_document",
    "render",
    "report",
    "run_mem",
    "size",
]


def run_mem(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Compute and print the memory report of every path: exit 1 when a ``--budget`` is given
    and a model does not fit it (as ``check --budget`` fails on DL501), 2 on usage errors."""
    models = [load_model(path, args) for path in args.paths]
    documents = [(model.path, model.specs) for model in models]
    reports = []
    for model in models:
        own = argparse.Namespace(**vars(args))
        apply_settings(model.path, model.specs, own)
        try:
            reports.append(label_invalid(report(model.path, model.specs, own), model))
        except ValueError as error:
            raise UsageError(str(error)) from None
    if args.output_format == "json":
        payload: Any = reports[0] if len(reports) == 1 else reports
        out.write(json.dumps(payload, indent=2) + "\n")
    else:
        out.write(for_terminal("\n".join(render(item) for item in reports)))
    if args.plot:
        from dimlint.report.memory_plot import PlotError, plot

        plot_args = argparse.Namespace(**vars(args))
        apply_settings(*documents[0], plot_args)
        try:
            plot(args.plot, documents, plot_args)
        except PlotError as error:
            raise UsageError(str(error)) from None
        err.write(f"dimlint: wrote {args.plot}\n")
    misfits = [item for item in reports if (item.get("budget") or {}).get("fits") is False]
    return 1 if misfits else 0


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
    if item.get("invalid"):
        lines.insert(0, item["invalid"]["note"])
    rows: list[tuple[str, str, str]] = [
        (
            "parameters",
            f"{params['total']:,}",
            f"{_billions(params['total'])}" + ("" if params.get("exact", True) else " estimate"),
        ),
        ("  active per token", f"{params['active']:,}", ""),
        ("  embeddings + head", f"{params['embedding']:,}", ""),
    ]
    if len(params["components"]) > 1:
        for component in params["components"]:
            rows.append((f"  {component['name']}", f"{component['params']:,}", ""))
    quant = f", {weights['quantization']}" if weights["quantization"] else ""
    rows.append(("weights", size(weights["bytes"]), f"{weights['dtype']}{quant}"))
    layers = ", ".join(f"{count} {name.replace('_', ' ')}" for name, count in kv["layers"].items())
    cached = f"{size(kv['bytes_per_token'])}/token; {layers}"
    if not kv["bytes"] and not kv["bytes_per_token"]:
        cached = "none: the model runs once over its input and keeps nothing between steps"
    rows.append(
        (
            "KV cache",
            size(kv["bytes"]),
            f"{kv['dtype']}, {kv['context']:,} tokens × {kv['batch']} ({cached})",
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
                f" tp {training['tp']} × pp {training['pp']} × dp {training['dp']})",
                "",
                f"micro-batch {training['micro_batch']} × {training['seq']:,} tokens,"
                f" recompute {training['recompute']}, {training['attention']} attention",
            )
        )
        if training["method"] != "full":
            targets = ", ".join(training["lora_targets"])
            rows.append(
                (
                    f"  {training['method']} r={training['lora_rank']}",
                    f"{training['trainable_params']:,}",
                    f"trainable parameters ({targets}); frozen base"
                    + (" in NF4" if training["method"] == "qlora" else ""),
                )
            )
        for key, label in (
            ("weights", "weights"),
            ("gradients", "gradients"),
            ("optimizer_states", "optimizer states"),
            ("zero3_gathered", "ZeRO-3 gathered"),
            ("activations", "activations"),
            ("overhead", "overhead"),
        ):
            if key == "zero3_gathered" and not training[key]:
                continue
            tag = "estimate" if key in training["estimated"] else ""
            rows.append((f"  {label}", size(training[key]), tag))
        rows.append(("  total", size(training["total"]), "includes estimates"))
        if training["cpu_offloaded"]:
            rows.append(
                (
                    "  CPU (offloaded)",
                    size(training["cpu_offloaded"]),
                    f"--offload {training['offload']}: host memory per rank",
                )
            )
    budget = item["budget"]
    if budget:
        verdict = "fits" if budget["fits"] else "does NOT fit"
        longest = budget.get("longest_seq")
        if longest == 0:
            verdict += "; no training sequence fits, not even one token a micro-batch"
        elif longest is not None:
            verdict += f"; longest training sequence that fits: {longest:,}"
        share = (
            "all"
            if budget["judged"] == "training"  # a training step may fill the device
            else f"{budget['gpu_memory_utilization']:g}"
        )
        rows.append(
            (
                f"budget {budget['budget']}",
                size(budget["usable_bytes"]),
                f"usable per GPU ({share} of {size(budget['memory_bytes'])}, {budget['gpu']}):"
                f" {verdict}",
            )
        )
    width = max(len(label) for label, _, _ in rows)
    value_width = max(len(value) for _, value, _ in rows)
    for label, value, detail in rows:
        lines.append(f"  {label:<{width}}  {value:>{value_width}}  {detail}".rstrip())
    lines.extend(f"  note: {note}" for note in item["notes"])
    return "\n".join(lines) + "\n"
