"""``dimlint mem --plot FILE``: memory per GPU against context length, and a side-by-side
comparison when several configs are given.

matplotlib is an optional extra (``pip install 'dimlint[plot]'``) imported only here, only
when a plot is asked for; without it :class:`PlotError` says how to get it.
"""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

from dimlint.config.spec import ModelSpec

GIB = 1024**3
#: Where a point's name goes (offset in points, alignment), by how many labelled points lie
#: close to it already: above right, below right, above left, below left — so that the names
#: of models of nearly the same size (Llama-3-8B and Qwen2-7B) do not print over each other.
_LABEL_PLACES = (((4, 4), "left"), ((4, -12), "left"), ((-4, 4), "right"), ((-4, -12), "right"))


class PlotError(Exception):
    """A plot could not be made (matplotlib missing, unsupported file type)."""


def _contexts(asked: int, longest: int) -> list[int]:
    """Powers of two from 512 to past the asked context and the longest position (both are
    marked, so both are points of the x range, never its clipped edge)."""
    top = max(2 * asked, min(longest or asked, 1 << 20))
    contexts, value = [], 512
    while value <= top:
        contexts.append(value)
        value *= 2
    return sorted({*contexts, asked, top})


def _x_range(axis: Any, contexts: list[int]) -> None:
    """The context axis with a margin on each side (log scale): a mark at the first or the last
    context (``max_position_embeddings``, the asked one) stays visible inside the axes."""
    axis.set_xscale("log", base=2)
    axis.set_xlim(contexts[0] / 1.25, contexts[-1] * 1.25)


def accepted_layout(specs: list[ModelSpec], tp: int, pp: int) -> tuple[int, int]:
    """``(tp, pp)`` when some engine of ``dimlint plan`` runs the model that way, else the
    largest layout within it that one does (Qwen2-7B's 28 heads: tp 8 → tp 4): a chart shows
    only layouts that can be deployed."""
    from dimlint.deploy.engines import ENGINES, PLAN_ENGINES, pp_refusals, tp_refusals
    from dimlint.deploy.fit import language_model

    model = language_model(tuple(specs))

    def runs(t: int, p: int) -> bool:
        return any(
            not tp_refusals(ENGINES[name], model, t) and not pp_refusals(ENGINES[name], model, p)
            for name in PLAN_ENGINES
        )

    for size in range(tp * pp, 0, -1):
        for t in range(min(tp, size), 0, -1):
            p = size // t
            if t * p == size and p <= pp and runs(t, p):
                return t, p
    return 1, 1


def _at(args: argparse.Namespace, layout: tuple[int, int]) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(args), "tp": layout[0], "pp": layout[1]})


def _layout_label(args: argparse.Namespace, layout: tuple[int, int]) -> str:
    if layout == (args.tp, args.pp):
        return ""
    return f" (tp {layout[0]}, pp {layout[1]}: no engine runs tp {args.tp}, pp {args.pp})"


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


def _usable(args: argparse.Namespace) -> int | None:
    if not args.budget:
        return None
    from dimlint.memory.gpus import parse_budget

    return parse_budget(args.budget)[1].usable_bytes()


def longest_fitting(specs: list[ModelSpec], args: argparse.Namespace, usable: int) -> int:
    """The longest context whose serving memory fits ``usable`` bytes per GPU (0: none), up to
    the model's own maximum (or the asked context, if longer), as ``check --budget`` computes
    it; by bisection — memory grows with the context."""
    from dimlint.config.maxlen import derived_max_length
    from dimlint.memory.dtypes import dtype_bytes, stated_dtype
    from dimlint.memory.estimates import language_spec, serving_memory

    dtype = args.dtype or stated_dtype(specs[0].raw)
    kv_dtype = args.kv_dtype or (dtype if dtype_bytes(dtype) >= 2 else "bf16")

    def fits(context: int) -> bool:
        total = serving_memory(
            specs,
            context=context,
            batch=args.batch,
            dtype=dtype,
            kv_dtype=kv_dtype,
            tp=args.tp,
            pp=args.pp,
        ).total
        return total <= usable

    derived = derived_max_length(language_spec(specs))
    low, high = 0, max(int(args.context), derived.value if derived is not None else 1 << 24)
    if fits(high):
        return high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


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


def _context_marks(
    axis: Any, specs: list[ModelSpec], args: argparse.Namespace, contexts: list[int]
) -> str:
    """Mark the requested context, and the longest context that fits the budget, on the x
    axis (within the plotted range; beyond it the legend says where). Returns the fit's label."""
    from dimlint.config.maxlen import derived_max_length
    from dimlint.memory.estimates import language_spec

    axis.axvline(
        args.context, color="black", linestyle="-.", linewidth=1, label=f"asked: {args.context:,}"
    )
    usable = _usable(args)
    if usable is None:
        return ""
    longest = longest_fitting(specs, args, usable)
    derived = derived_max_length(language_spec(specs))
    if not longest:
        label = "nothing fits the budget"
    elif derived is not None and longest >= derived.value:
        label = f"fits up to its maximum: {longest:,}"
    else:
        label = f"longest that fits: {longest:,}"
    if contexts[0] <= longest <= contexts[-1]:
        axis.axvline(longest, color="red", linestyle=":", linewidth=1.5, label=label)
    else:
        axis.plot([], [], color="red", linestyle=":", linewidth=1.5, label=label)
    return label


def _name(path: str, specs: list[ModelSpec]) -> str:
    """A short label: the config's ``_name_or_path``, the folder of a ``config.json``, else the
    file's stem (at most 32 characters)."""
    stated = specs[0].raw.get("_name_or_path") if specs else None
    if isinstance(stated, str) and stated.strip() and not stated.startswith(("/", ".")):
        name = stated.rstrip("/").rsplit("/", 1)[-1]
    elif os.path.basename(path) == "config.json":
        name = os.path.basename(os.path.dirname(os.path.abspath(path))) or "config.json"
    else:
        name = os.path.splitext(os.path.basename(path))[0] or specs[0].model_type or path
    return name if len(name) <= 32 else name[:31] + "…"


def _breakdown(
    axis: Any,
    specs: list[ModelSpec],
    args: argparse.Namespace,
    contexts: list[int],
    budget_lines: bool = True,
) -> None:
    """Weights, KV cache and the estimated rest, stacked, against the context (own y scale)."""
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.estimates import language_spec

    args = _at(args, accepted_layout(specs, args.tp, args.pp))
    series = _series(specs, args, contexts)
    axis.stackplot(
        contexts,
        series["weights"],
        series["kv"],
        series["other"],
        labels=["weights", "KV cache", "activations + overhead (est.)"],
        alpha=0.8,
    )
    positions = Cfg(language_spec(specs)).max_positions
    if positions:
        axis.axvline(positions, color="grey", linestyle=":", label="max_position_embeddings")
    _context_marks(axis, specs, args, contexts)
    if budget_lines:
        _budget_line(axis, args)
    _x_range(axis, contexts)
    axis.set_ylim(0, _top(axis) * 1.08)
    axis.set_xlabel("context length (tokens)")
    axis.set_ylabel("GiB per GPU")
    axis.grid(True, alpha=0.3)


def _hidden_vs_memory(
    axis: Any, documents: list[tuple[str, list[ModelSpec]]], args: argparse.Namespace
) -> None:
    """The motivating article's chart, computed: hidden size against weight memory per model."""
    from dimlint.memory import model_parameters, weight_bytes
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.dtypes import stated_dtype
    from dimlint.memory.estimates import language_spec

    placed: list[tuple[float, float]] = []  # labelled points, log2(hidden) and log10(GiB)
    for source, specs in documents:
        hidden = Cfg(language_spec(specs)).hidden
        weights = weight_bytes(model_parameters(specs), args.dtype or stated_dtype(specs[0].raw))
        axis.scatter([hidden], [weights / GIB], s=40)
        here = (math.log2(max(hidden, 1)), math.log10(max(weights / GIB, 1e-9)))
        near = sum(1 for x, y in placed if abs(x - here[0]) < 0.6 and abs(y - here[1]) < 0.35)
        (dx, dy), align = _LABEL_PLACES[near % len(_LABEL_PLACES)]
        placed.append(here)
        axis.annotate(_name(source, specs), (hidden, weights / GIB), fontsize=8,
                      xytext=(dx, dy), textcoords="offset points", ha=align)  # fmt: skip
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.margins(x=0.25, y=0.25)  # room for the names beside the points
    axis.set_xlabel("hidden size")
    axis.set_ylabel("weights (GiB, log)")
    axis.set_title("hidden size against memory")
    axis.grid(True, which="both", alpha=0.3)


def build_figure(documents: list[tuple[str, list[ModelSpec]]], args: argparse.Namespace) -> Any:
    """The matplotlib figure of ``mem --plot`` (tests read its artists back)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dimlint.memory.config_view import Cfg
    from dimlint.memory.estimates import language_spec

    longest = max(Cfg(language_spec(specs)).max_positions for _, specs in documents)
    contexts = _contexts(args.context, longest)
    title = f"memory per GPU (tp {args.tp}, pp {args.pp}, batch {args.batch})"
    if len(documents) == 1:
        source, specs = documents[0]
        figure, axis = plt.subplots(figsize=(9, 5.5))
        _breakdown(axis, specs, args, contexts)
        note = _layout_label(args, accepted_layout(specs, args.tp, args.pp))
        axis.set_title(f"{_name(source, specs)}: {title}{note}")
        _legend_beside(axis, "small")
        figure.tight_layout()
        return figure
    columns = 4
    rows = 1 + -(-len(documents) // columns)
    figure = plt.figure(figsize=(18, 5 * rows))
    grid = figure.add_gridspec(rows, columns)
    _hidden_vs_memory(figure.add_subplot(grid[0, :2]), documents, args)
    totals = figure.add_subplot(grid[0, 2:])
    for source, specs in documents:
        layout = accepted_layout(specs, args.tp, args.pp)
        label = _name(source, specs) + (f" (tp {layout[0]}, pp {layout[1]})" if layout != (
            args.tp, args.pp) else "")  # fmt: skip
        totals.plot(contexts, _series(specs, _at(args, layout), contexts)["total"], marker="o",
                    label=label)  # fmt: skip
    totals.axvline(args.context, color="black", linestyle="-.", linewidth=1,
                   label=f"asked: {args.context:,}")  # fmt: skip
    _budget_line(totals, args)
    _x_range(totals, contexts)
    totals.set_yscale("log")  # a 671B model does not flatten a 7B one
    bottom, top = totals.get_ylim()
    totals.set_ylim(bottom / 1.3, top * 1.3)
    totals.set_xlabel("context length (tokens)")
    totals.set_ylabel("GiB per GPU (log)")
    totals.set_title(title)
    totals.grid(True, which="both", alpha=0.3)
    _legend_beside(totals, "small")
    for index, (source, specs) in enumerate(documents):
        panel = figure.add_subplot(grid[1 + index // columns, index % columns])
        _breakdown(panel, specs, args, contexts, budget_lines=False)  # each on its own scale
        layout = accepted_layout(specs, args.tp, args.pp)
        extra = f" (tp {layout[0]}, pp {layout[1]})" if layout != (args.tp, args.pp) else ""
        panel.set_title(_name(source, specs) + extra, fontsize="medium")
        # below the panel, outside it: the legend never covers the stack it names
        panel.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize="x-small")
    figure.tight_layout()
    return figure


def _legend_beside(axis: Any, size: str) -> None:
    """The legend to the right of the axes, outside them: never over the lines it names."""
    axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize=size)


def _top(axis: Any) -> float:
    """The highest y of the axes' data and horizontal lines (a budget line above the stack)."""
    highest = 0.0
    for collection in axis.collections:
        for path in collection.get_paths():
            if len(path.vertices):
                highest = max(highest, float(path.vertices[:, 1].max()))
    for line in axis.get_lines():
        xs, ys = list(line.get_xdata()), [float(y) for y in line.get_ydata()]
        if len(xs) == 2 and xs[0] == xs[1]:
            continue  # a vertical mark: its y runs over the axes (0 to 1), not data
        if ys:
            highest = max(highest, *ys)  # lines and horizontal marks (the budget): data y
    return highest or 1.0


def plot(path: str, documents: list[tuple[str, list[ModelSpec]]], args: argparse.Namespace) -> None:
    """Write the chart to ``path`` (``.png`` or ``.svg``)."""
    extension = os.path.splitext(path)[1].lower()
    if extension not in (".png", ".svg"):
        raise PlotError(f"--plot {path}: use a .png or .svg file name")
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise PlotError(
            "--plot needs matplotlib, an optional extra: pip install 'dimlint[plot]'"
        ) from None
    import matplotlib.pyplot as plt

    figure = build_figure(documents, args)
    figure.savefig(path)
    plt.close(figure)
