"""``mem --plot``: the marks people look for are in the figure, and the image is what was drawn.

The figure is built by :func:`dimlint.report.memory_plot.build_figure` (the same one ``--plot``
saves), so the tests read its artists: the asked context and the longest context that fits are
vertical lines at those x values, the comparison panel has a log y axis, and each model has its
own panel. The saved PNG is read back for its size.
"""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main
from dimlint.config.normalize import specs_for_document

matplotlib = pytest.importorskip("matplotlib")

LLAMA_8B: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16",
}
LLAMA_70B = {
    **LLAMA_8B,
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
    "intermediate_size": 28672,
}
TINY = {**LLAMA_8B, "hidden_size": 512, "num_attention_heads": 8, "num_hidden_layers": 4}


def args(**given: Any) -> argparse.Namespace:
    values = {"context": 8192, "batch": 1, "tp": 1, "pp": 1, "dtype": None, "kv_dtype": None}
    values["budget"] = None
    values.update(given)
    return argparse.Namespace(**values)


def document(name: str, config: dict[str, Any]) -> tuple[str, list[Any]]:
    path = f"/models/{name}/config.json"
    return path, specs_for_document(path, config)


def vertical_lines(axis: Any) -> dict[str, float]:
    """label → x of every vertical line (axvline) on the axis."""
    found = {}
    for line in axis.get_lines():
        xs = list(line.get_xdata())
        if len(xs) == 2 and xs[0] == xs[1]:
            found[line.get_label()] = float(xs[0])
    return found


def test_single_model_marks_the_asked_and_the_longest_fitting_context() -> None:
    from dimlint.report.memory_plot import build_figure, longest_fitting

    chosen = args(budget="1xL4-24GB", context=8192)
    specs = document("llama-8b", LLAMA_8B)
    figure = build_figure([specs], chosen)
    (axis,) = figure.axes
    lines = vertical_lines(axis)
    assert lines["asked: 8,192"] == 8192
    from dimlint.memory.gpus import parse_budget

    usable = parse_budget("1xL4-24GB")[1].usable_bytes()
    longest = longest_fitting(specs[1], chosen, usable)
    # 16 GB of bf16 weights leave ~4.6 GiB for a 128 KiB-per-token cache: tens of thousands of
    # tokens, well short of the model's 131,072.
    assert 8192 < longest < 131072
    assert lines[f"longest that fits: {longest:,}"] == longest
    figure.clf()


def test_longest_fitting_context_is_the_edge_of_the_budget() -> None:
    """One token more than the answer does not fit; the answer itself does (bisection edge)."""
    from dimlint.memory.estimates import serving_memory
    from dimlint.memory.gpus import parse_budget
    from dimlint.report.memory_plot import longest_fitting

    chosen = args(budget="1xL4-24GB")
    _, specs = document("llama-8b", LLAMA_8B)
    usable = parse_budget("1xL4-24GB")[1].usable_bytes()
    longest = longest_fitting(specs, chosen, usable)

    def total(context: int) -> int:
        return serving_memory(
            specs, context=context, batch=1, dtype="bf16", kv_dtype="bf16", tp=1, pp=1
        ).total

    assert total(longest) <= usable < total(longest + 1)


def test_comparison_is_readable_side_by_side() -> None:
    from dimlint.report.memory_plot import build_figure

    documents = [document("tiny", TINY), document("llama-8b", LLAMA_8B), document("70b", LLAMA_70B)]
    figure = build_figure(documents, args(budget="8xH100-80GB", tp=8))
    scatter, totals, *panels = figure.axes
    assert scatter.get_title() == "hidden size against memory"
    assert scatter.get_xlabel() == "hidden size"
    # one point per model, at its hidden size
    xs = sorted(float(c.get_offsets()[0][0]) for c in scatter.collections)
    assert xs == [512.0, 4096.0, 8192.0]
    assert totals.get_yscale() == "log"  # a 70B model does not flatten a tiny one
    assert [p.get_title() for p in panels] == ["tiny", "llama-8b", "70b"]
    for panel in panels:
        assert vertical_lines(panel)["asked: 8,192"] == 8192
        labels = [t.get_text() for t in panel.get_legend().get_texts()]
        assert any(label.startswith(("longest that fits", "fits up to")) for label in labels)
    figure.clf()


def test_saved_png_is_the_figure(tmp_path: Path) -> None:
    from matplotlib import image

    configs = []
    for name, config in (("tiny", TINY), ("llama-8b", LLAMA_8B)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "config.json").write_text(json.dumps(config))
        configs.append(str(folder / "config.json"))
    target = tmp_path / "chart.png"
    code = main(
        ["mem", *configs, "--no-config", "--budget", "1xH100-80GB", "--plot", str(target)],
        io.StringIO(),
        io.StringIO(),
    )
    assert code == 0
    pixels = image.imread(str(target))
    height, width = pixels.shape[:2]
    assert (width, height) == (1800, 1000)  # 18 × 10 inches at 100 dpi: top row + one row
