"""``dimlint shapes PATH``: one decoder layer, stage by stage, with shapes and parameters."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from dimlint.errors import UsageError
from dimlint.report.escape import for_terminal


def _shape(shape: tuple[str | int, ...]) -> str:
    return "[" + ", ".join(f"{dim:,}" if isinstance(dim, int) else dim for dim in shape) + "]"


def run_shapes(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from dimlint.deploy.fit import default_context
    from dimlint.lint.model_input import deployment_of, read_model
    from dimlint.memory import language_spec
    from dimlint.memory.parameters.shapes import supports, walk

    model = read_model(args.path, args.config, args.no_config, force=args.force)
    path, specs = model.path, model.specs
    if not any(spec.hidden is not None for spec in specs):
        raise UsageError(f"{path}: no hidden size found: is this a model config?")
    spec = language_spec(specs)
    found = deployment_of(model, context=args.seq, batch=args.batch)
    args.seq = found.context or default_context(spec)
    args.batch = found.batch or 1
    if args.layer is not None and not 0 <= args.layer < (spec.layers.value if spec.layers else 1):
        raise UsageError(
            f"{path}: --layer {args.layer} is out of range: the model has"
            f" {spec.layers.value if spec.layers else 1} layers (0 to"
            f" {(spec.layers.value if spec.layers else 1) - 1})"
        )
    if not supports(spec):
        raise UsageError(
            f"{path}: {spec.model_type or 'this model'} is not a Llama-like decoder; `dimlint"
            " shapes` walks attention/MLA + MLP/MoE layers (use `dimlint mem` for its size)"
        )
    result = walk(spec, batch=args.batch, seq=args.seq, layer=args.layer)
    document: dict[str, Any] = {
        "path": path,
        "model_type": spec.model_type,
        "pointer": spec.pointer or None,
        "batch": args.batch,
        "seq": args.seq,
        "layer": result.layer,
        "stages": [stage._asdict() for stage in result.stages],
        "layer_params": result.layer_params,
        "layers": result.layers,
        "all_layers_params": result.all_layers_params,
        "model": [stage._asdict() for stage in result.model_stages],
        "total": result.total,
        "notes": result.notes,
    }
    from dimlint.api.memory_report import label_invalid

    document = label_invalid(document, model)
    if args.output_format == "json":
        out.write(json.dumps(document, indent=2) + "\n")
        return 0
    title = f"{path}  ({spec.model_type}{', ' + spec.pointer if spec.pointer else ''})"
    lines = [document["invalid"]["note"]] if "invalid" in document else []
    lines += [
        title,
        f"  layer {result.layer} of {result.layers}, batch {args.batch} × sequence {args.seq:,}",
    ]
    rows = [
        (s.name, _shape(s.shape), f"{s.params:,}" if s.params else "", s.note)
        for s in result.stages
    ]
    rows.append(("one layer", "", f"{result.layer_params:,}", ""))
    rows.append((f"all {result.layers} layers", "", f"{result.all_layers_params:,}", ""))
    rows += [(s.name, _shape(s.shape), f"{s.params:,}", s.note) for s in result.model_stages]
    rows.append(("model total", "", f"{result.total:,}", "= dimlint mem params.total"))
    widths = [max(len(row[column]) for row in rows) for column in range(3)]
    header = ("stage", "output shape", "parameters")
    lines.append(f"  {header[0]:<{widths[0]}}  {header[1]:<{widths[1]}}  {header[2]:>{widths[2]}}")
    for name, shape, params, note in rows:
        line = f"  {name:<{widths[0]}}  {shape:<{widths[1]}}  {params:>{widths[2]}}  {note}"
        lines.append(line.rstrip())
    lines.extend(f"  note: {note}" for note in result.notes)
    out.write(for_terminal("\n".join(lines) + "\n"))
    return 0
