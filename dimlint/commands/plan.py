"""``dimlint plan PATH``: read one config, print its deployment plan as a table or JSON."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, TextIO

from dimlint.report.escape import for_terminal

if TYPE_CHECKING:
    from dimlint.deploy.plan import Plan


def run_plan(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Compute and print the plan; usage errors (unreadable file, unknown GPU) exit 2, a config
    with input errors exits 1 with those findings (the front end all commands share)."""
    from dimlint.api import plan_model as plan_of

    plan = plan_of(
        args.path,
        gpu=args.gpu,
        max_gpus=args.max_gpus,
        context=args.context,
        batch=args.batch,
        dtype=args.dtype,
        kv_dtype=args.kv_dtype,
        training=args.training,
        optimizer=args.optimizer,
        zero=args.zero,
        dp=args.dp,
        recompute=args.recompute,
        attention=args.attention,
        lora_rank=args.lora_rank,
        lora_targets=args.lora_targets,
        qlora=args.qlora,
        offload=args.offload,
        config=args.config,
        no_config=args.no_config,
        force=args.force,
    )
    if args.output_format == "json":
        out.write(json.dumps(plan.data, indent=2) + "\n")
    else:
        out.write(for_terminal(render_table(plan)))
        out.writelines(for_terminal(f"note: {note}\n") for note in plan.data["notes"])
    return 0


def by_reason(summaries: dict[int, str]) -> dict[str, list[int]]:
    """Refused degrees grouped by reason, not by degree: each summary is split into its clauses
    (``"; "``) and the degree is taken out of each (``tp 6`` → ``tp``, ``6 ranks`` → ``the
    ranks``), so "num_attention_heads 28 is not divisible by tp" lists every degree it refuses
    on one line, however large ``--max-gpus`` is. Reasons keep their first appearance's order."""
    import re

    grouped: dict[str, list[int]] = {}
    for degree, summary in sorted(summaries.items()):
        for clause in summary.split("; "):
            reason = re.sub(rf"\b(tp|pp|ep|dp) {degree}\b", r"\1", clause)
            reason = re.sub(rf"\b{degree} ranks\b", "the ranks", reason)
            degrees = grouped.setdefault(reason, [])
            if degree not in degrees:
                degrees.append(degree)
    return grouped


def _gib(count: int) -> str:
    return f"{count / 2**30:.2f}"


def _ranges(degrees: list[int]) -> str:
    """``[1, 2, 4, 5, 6, 8]`` → ``1, 2, 4–6, 8``: runs of three or more as ranges."""
    runs: list[list[int]] = []
    for degree in sorted(degrees):
        if runs and degree == runs[-1][-1] + 1:
            runs[-1].append(degree)
        else:
            runs.append([degree])
    parts: list[str] = []
    for run in runs:
        parts.extend([f"{run[0]}–{run[-1]}"] if len(run) > 2 else map(str, run))
    return ", ".join(parts)


#: (memory key, column label) of the table, serving and training.
_SERVING_COLUMNS = (
    ("weights", "weights"),
    ("kv_cache", "kv cache"),
    ("activations", "activ."),
    ("overhead", "overhead"),
    ("total", "total"),
)
_TRAINING_COLUMNS = (
    ("weights", "weights"),
    ("gradients", "grads"),
    ("optimizer_states", "optim."),
    ("zero3_gathered", "zero3"),
    ("activations", "activ."),
    ("overhead", "overhead"),
    ("total", "total"),
    ("longest_seq", "longest"),
)


def _cell(name: str, value: int | None) -> str:
    if name == "longest_seq":
        return "-" if value is None else f"{value:,}"
    return _gib(value or 0)


def render_table(result: Plan) -> str:
    """The human-readable plan: degrees per engine, then one memory table for all layouts.

    Refused degrees show the first clause of each reason; ``--output-format json`` has them
    whole (with the engine's message and source).
    """
    plan = result.data
    gpu = plan["gpu"]
    where = (
        f"{gpu['name']}: {_gib(gpu['usable_bytes'])} GiB usable per GPU"
        f" ({gpu['gpu_memory_utilization']:g} of {_gib(gpu['memory_bytes'])} GiB)"
        if gpu
        else "no --gpu given: memory shown, fit not judged"
    )
    lines = [plan["invalid"]["note"]] if plan.get("invalid") else []
    training = plan.get("training")
    if training:
        rank = f" r={training['lora_rank']}" if training["lora_rank"] else ""
        where = where.replace(f"({gpu['gpu_memory_utilization']:g} of", "(all of") if gpu else where
        lines += [
            f"{plan['path']} ({plan['model_type'] or 'config'}) · training {training['method']}"
            f"{rank}, {training['optimizer']}, ZeRO-{training['zero']}, recompute"
            f" {training['recompute']}, {training['attention']} attention · sequence"
            f" {plan['context']} × micro-batch {plan['batch']} · {plan['dtype']} · {where}",
            "",
        ]
    else:
        lines += [
            f"{plan['path']} ({plan['model_type'] or 'config'}) · context {plan['context']} ×"
            f" batch {plan['batch']} · {plan['dtype']} weights, {plan['kv_dtype']} KV cache"
            f" · {where}",
            "",
        ]
    layouts: dict[tuple[int, int], dict[str, Any]] = {}
    accepted_by: dict[tuple[int, int], list[str]] = {}
    for name, entry in plan["engines"].items():
        lines.append(f"{name} ({entry['label']})")
        for kind in ("tp", "pp", "ep"):
            lines.append(f"  {kind} accepted: {_ranges(entry[kind]) or 'none'}")
            for reason, degrees in by_reason(result.summaries[name, kind]).items():
                lines.append(f"    {kind} {_ranges(degrees)}: {reason}")
        for layout in entry["layouts"]:
            key = (layout["tp"], layout["pp"])
            layouts[key] = layout
            accepted_by.setdefault(key, []).append(name)
        fit = entry["smallest_fit"]
        if fit is not None:
            data = f" × dp {fit['dp']}" if "dp" in fit else ""
            lines.append(
                f"  smallest layout that fits: tp {fit['tp']} × pp {fit['pp']}{data}"
                f" ({fit['gpus']} GPU{'s' if fit['gpus'] > 1 else ''},"
                f" {_gib(fit['memory']['total'])} GiB per GPU)"
            )
        elif gpu:
            lines.append(f"  no layout up to {plan['max_gpus']} GPUs fits")
        lines.append("")
    columns = _TRAINING_COLUMNS if training else _SERVING_COLUMNS
    lines.append(
        "memory per GPU in GiB of one training step (model states from the config;"
        " activations and overhead are estimates; longest: the longest sequence that fits)"
        if training
        else "memory per GPU in GiB (weights and KV cache from the config; activations and"
        " overhead are estimates)"
    )
    header = ("tp", "pp", "gpus", *(label for _, label in columns), "fits")
    rows = [header]
    #: (tp, memory per GPU) already shown with fewer GPUs: more pipeline stages that buy
    #: nothing (28 layers over 8 or 9 stages both leave 4 on the largest stage).
    shown: set[tuple[int, tuple[int, ...]]] = set()
    same = 0
    for key in sorted(layouts, key=lambda k: (k[0] * k[1], k[1])):
        layout = layouts[key]
        memory = layout["memory"]
        per_gpu = (layout["tp"], tuple(sorted(v or 0 for v in memory.values())))
        if per_gpu in shown:
            same += 1
            continue
        shown.add(per_gpu)
        fits = {True: "yes", False: "no", None: "-"}[layout["fits"]]
        cells = [_cell(name, memory[name]) for name, _ in columns]
        rows.append(
            (
                str(layout["tp"]),
                str(layout["pp"]),
                str(layout["gpus"]),
                *cells,
                f"{fits}  ({' '.join(accepted_by[key])})",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
    for row in rows:
        cells = [cell.rjust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append("  " + "  ".join([*cells, row[-1]]))
    if same:
        lines.append(
            f"  ({same} layout{'s' if same != 1 else ''} with more pipeline stages and the same"
            " memory per GPU as one above left out; --output-format json lists every layout)"
        )
    return "\n".join(lines) + "\n"
