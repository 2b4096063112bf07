"""``dimlint mem --plot FILE``: memory per GPU against context length, and a side-by-side
comparison when several configs are given.

matplotlib is an optional extra (``pip install 'dimlint[plot]'``) imported only here, only
when a plot is asked for; without it :class:`PlotError` says how to get it.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from dimlint.config.spec import ModelSpec

GIB = 1024**3


class PlotError(Exception):
    """A plot could not be made (matplotlib missing, unsupported file type)."""


def _contexts(asked: int, longest: int) -> list[int]:
    top = max(2 * asked, min(longest or asked, 1 << 20))
    contexts, value = [], 512
    while value <= top:
        contexts.append(value)
        value *= 2
    if asked not in contexts:
        contexts = sorted({*contexts, asked})
    return contexts


def _series(
    specs: list[ModelSpec], args: argparse.Namespace, contexts: list[int]
) -> dict[str, list[float]]:
    from dimlint.memory.dtypes import dtype_bytes, stated_dtype
    from dimlint.memory.estimates import serving_memory

    dtype = args.dtype or stated_dtype(specs[0].raw)
    kv_dtype = args.kv_dtype or (dtype if dtype_bytes(dtype) >= 2 else "bf16")
    series: dict[str, list[float]] = {"weights": [], "kv": [], "other": [], "total": []}
    for context in contexts:
        estimate = serving_memory(
            specs,
            context=context,
            batch=args.batch,
            dtype=dtype,
            kv_dtype=kv_dtype,
            tp=args.tp,
            pp=args.pp,
        )
        series["weights"].append(estimate.weights / GIB)
        series["kv"].append(estimate.kv_cache / GIB)
        series["other"].append((estimate.activations + estimate.overhead) / GIB)
        series["total"].append(estimate.total / GIB)
    return series


def _budget_line(axis: Any, args: argparse.Namespace) -> None:
    if not args.budget:
        return
    from dimlint.memory.gpus import GPU_MEMORY_UTILIZATION, parse_budget

    _, gpu = parse_budget(args.budget)
    axis.axhline(gpu.memory_bytes / GIB, color="black", linewidth=1, label=f"{gpu.name} reports")
    axis.axhline(
        gpu.usable_bytes() / GIB,
        color="red",
        linestyle="--",
        linewidth=1.5,
        label=f"usable: {GPU_MEMORY_UTILIZATION:g} × (vLLM default)",
    )


def _name(path: str, specs: list[ModelSpec]) -> str:
    """A short label: the folder of a ``config.json``, else the file's stem."""
    base = os.path.basename(path)
    if base == "config.json":
        return os.path.basename(os.path.dirname(os.path.abspath(path))) or base
    return os.path.splitext(base)[0] or specs[0].model_type or path


def plot(path: str, documents: list[tuple[str, list[ModelSpec]]], args: argparse.Namespace) -> None:
    """Write the chart to ``path`` (``.png`` or ``.svg``)."""
    extension = os.path.splitext(path)[1].lower()
    if extension not in (".png", ".svg"):
        raise PlotError(f"--plot {path}: use a .png or .svg file name")
    try:
        import matplotlib
    except ImportError:
        raise PlotError(
            "--plot needs matplotlib, an optional extra: pip install 'dimlint[plot]'"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dimlint.memory.config_view import Cfg
    from dimlint.memory.estimates import language_spec

    longest = max(Cfg(language_spec(specs)).max_positions for _, specs in documents)
    contexts = _contexts(args.context, longest)
    title = f"memory per GPU (tp {args.tp}, pp {args.pp}, batch {args.batch})"
    if len(documents) == 1:
        source, specs = documents[0]
        series = _series(specs, args, contexts)
        figure, axis = plt.subplots(figsize=(9, 5.5))
        axis.stackplot(
            contexts,
            series["weights"],
            series["kv"],
            series["other"],
            labels=["weights", "KV cache", "activations + overhead (estimates)"],
            alpha=0.8,
        )
        positions = Cfg(language_spec(specs)).max_positions
        if positions:
            axis.axvline(positions, color="grey", linestyle=":", label="max_position_embeddings")
        _budget_line(axis, args)
        axis.set_title(f"{_name(source, specs)}: {title}")
    else:
        figure, (sizes, bars, lines) = plt.subplots(1, 3, figsize=(16, 5.5))
        names = [_name(source, specs) for source, specs in documents]
        hidden = [Cfg(language_spec(specs)).hidden for _, specs in documents]
        sizes.bar(names, hidden, color="tab:blue")
        sizes.set_title("hidden size")
        sizes.tick_params(axis="x", rotation=30)
        asked = contexts.index(args.context)
        stacks = [_series(specs, args, contexts) for _, specs in documents]
        bottom = [0.0] * len(stacks)
        for key, label in (("weights", "weights"), ("kv", "KV cache"), ("other", "other (est.)")):
            values = [stack[key][asked] for stack in stacks]
            bars.bar(names, values, bottom=bottom, label=label)
            bottom = [b + v for b, v in zip(bottom, values, strict=True)]
        bars.set_title(f"GiB per GPU at {args.context:,} tokens")
        bars.tick_params(axis="x", rotation=30)
        bars.legend()
        for name, stack in zip(names, stacks, strict=True):
            lines.plot(contexts, stack["total"], marker="o", label=name)
        _budget_line(lines, args)
        axis = lines
        axis.set_title(title)
    axis.set_xscale("log", base=2)
    axis.set_xlabel("context length (tokens)")
    axis.set_ylabel("GiB per GPU")
    axis.legend(loc="best", fontsize="small")
    axis.grid(True, alpha=0.3)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)
