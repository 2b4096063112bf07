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


QWEN2_7B = {
    **LLAMA_8B,
    "model_type": "qwen2",
    "hidden_size": 3584,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "num_hidden_layers": 28,
    "intermediate_size": 18944,
    "vocab_size": 152064,
    "max_position_embeddings": 131072,
}
DEEPSEEK_LIKE = {**LLAMA_70B, "max_position_embeddings": 163840}  # not a power of two


def _drawn(figure: Any) -> Any:
    figure.canvas.draw()
    return figure.canvas.get_renderer()


def _overlaps(a: Any, b: Any) -> bool:
    return bool(a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1)


def test_legends_stay_off_every_axes() -> None:
    """Every legend's box (in display pixels, after drawing) overlaps no axes of the figure:
    it covers no line, no stack and no neighbouring panel."""
    from dimlint.report.memory_plot import build_figure

    documents = [document(n, c) for n, c in (("qwen", QWEN2_7B), ("70b", LLAMA_70B))]
    documents.append(document("deepseek", DEEPSEEK_LIKE))
    for chosen in (documents, documents[:1]):
        figure = build_figure(chosen, args(budget="8xH100-80GB", tp=8))
        renderer = _drawn(figure)
        legends = [a.get_legend() for a in figure.axes if a.get_legend() is not None]
        legends += list(figure.legends)
        assert legends
        for legend in legends:
            box = legend.get_window_extent(renderer)
            for axis in figure.axes:
                assert not _overlaps(box, axis.get_window_extent(renderer)), axis.get_title()
            figure_box = figure.bbox
            assert figure_box.x0 <= box.x0  # not cut off
            assert box.x1 <= figure_box.x1
            assert figure_box.y0 <= box.y0
            assert box.y1 <= figure_box.y1
        figure.clf()


def test_every_mark_is_inside_its_axes() -> None:
    """Vertical marks (asked context, max_position_embeddings, longest fit) lie strictly inside
    the x range, horizontal ones (the budget) inside the y range; names beside the points of
    the scatter stay inside their axes."""
    from dimlint.report.memory_plot import build_figure

    documents = [document("deepseek", DEEPSEEK_LIKE), document("tiny", TINY)]
    for chosen in (documents, documents[:1]):
        figure = build_figure(chosen, args(budget="8xH100-80GB", tp=8, context=4096))
        renderer = _drawn(figure)
        marks = 0
        for axis in figure.axes:
            low_x, high_x = axis.get_xlim()
            low_y, high_y = axis.get_ylim()
            for line in axis.get_lines():
                xs, ys = list(line.get_xdata()), list(line.get_ydata())
                if len(xs) == 2 and xs[0] == xs[1]:  # axvline: x in data, y in axes fraction
                    assert low_x < float(xs[0]) < high_x, (axis.get_title(), line.get_label())
                    marks += 1
                elif len(ys) == 2 and ys[0] == ys[1] and list(xs) == [0, 1]:  # axhline
                    assert low_y < float(ys[0]) < high_y, (axis.get_title(), line.get_label())
                    marks += 1
            box = axis.get_window_extent(renderer)
            for text in axis.texts:
                inner = text.get_window_extent(renderer)
                assert box.x0 <= inner.x0, text.get_text()
                assert inner.x1 <= box.x1, text.get_text()
                assert box.y0 <= inner.y0, text.get_text()
                assert inner.y1 <= box.y1, text.get_text()
        labels = [line.get_label() for axis in figure.axes for line in axis.get_lines()]
        assert "max_position_embeddings" in labels
        assert marks >= 3
        figure.clf()


def test_names_of_models_of_nearly_one_size_do_not_overlap() -> None:
    """Llama-3-8B (4096 wide, 15 GiB) and Qwen2-7B (3584, 14 GiB) lie close in the scatter:
    their names are placed on different sides, and neither prints over the other."""
    from dimlint.report.memory_plot import build_figure

    wide = {**LLAMA_8B, "hidden_size": 8192, "num_attention_heads": 64, "num_hidden_layers": 80}
    documents = [
        document("tiny", TINY),
        document("llama-8b", LLAMA_8B),
        document("qwen2-7b", QWEN2_7B),
        document("llama-70b", wide),
    ]
    figure = build_figure(documents, args())
    renderer = _drawn(figure)
    scatter = next(axis for axis in figure.axes if axis.get_title() == "hidden size against memory")
    boxes = {text.get_text(): text.get_window_extent(renderer) for text in scatter.texts}
    assert not _overlaps(boxes["llama-8b"], boxes["qwen2-7b"])
    figure.clf()


def test_only_layouts_some_engine_accepts_are_drawn() -> None:
    """Qwen2-7B's 28 heads refuse tp 8 in every engine: it is drawn at tp 4 and says so."""
    from dimlint.api import plan
    from dimlint.report.memory_plot import accepted_layout, build_figure

    documents = [document("qwen", QWEN2_7B), document("llama-8b", LLAMA_8B)]
    assert accepted_layout(documents[0][1], 8, 1) == (4, 1)
    assert accepted_layout(documents[1][1], 8, 1) == (8, 1)
    data = plan(QWEN2_7B, max_gpus=8).data
    assert not any(8 in entry["tp"] for entry in data["engines"].values())
    assert any(4 in entry["tp"] for entry in data["engines"].values())
    figure = build_figure(documents, args(budget="8xH100-80GB", tp=8))
    _, totals, *panels = figure.axes
    labels = [line.get_label() for line in totals.get_lines()]
    assert "qwen (tp 4, pp 1)" in labels
    assert "llama-8b" in labels
    assert [p.get_title() for p in panels] == ["qwen (tp 4, pp 1)", "llama-8b"]
    figure.clf()
