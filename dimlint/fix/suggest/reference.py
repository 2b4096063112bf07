"""Released models, for comparison and for the depth/width range a suggestion keeps to.

The table (``dimlint/data/released_shapes.json``) is generated from the shared corpus by
:mod:`dimlint.tools.generate_released_shapes`; nothing here reads the corpus.
"""

from __future__ import annotations

import functools
import json
import math
import re
from pathlib import Path
from typing import Any

from dimlint.records import Record

TABLE = Path(__file__).resolve().parents[2] / "data" / "released_shapes.json"
#: Released models within this factor of the requested size set the depth/width range.
SIZE_WINDOW = 3.0
#: …and at least this many of them (the window widens until there are).
MIN_MODELS = 8
#: Share of those models cut at each end of the range (outliers: MiniCPM3's 62 thin layers).
TRIM = 0.0


class Released(Record):
    name: str
    model_type: str
    params: int
    active: int
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    experts: int
    expert_ffn: int
    top_k: int
    #: ``max_position_embeddings`` as released (0: not stated).
    max_positions: int = 0
    rope_theta: float = 0.0
    #: The released ``rope_scaling`` (``rope_type``, ``factor``…), None without one.
    rope_scaling: dict[str, Any] | None = None
    #: Router keys of a mixture-of-experts config (``n_group``, ``topk_group``…).
    routing: dict[str, Any] | None = None

    def describe(self) -> str:
        """``Llama-3.1-8B: 4096 × 32 layers, 32/8 heads, ffn 14336, 8.03B``."""
        text = f"{self.name} ({self.model_type}): {self.hidden} × {self.layers} layers,"
        text += f" {self.heads}/{self.kv_heads} heads"
        if self.experts:
            width = self.expert_ffn or self.ffn
            text += f", {self.experts} experts × {width} top-{self.top_k}"
        else:
            text += f", ffn {self.ffn}"
        size = f"{self.params / 1e9:.2f}B"
        if self.active != self.params:
            size += f" ({self.active / 1e9:.2f}B active)"
        return f"{text}, {size}"


@functools.cache
def released() -> tuple[Released, ...]:
    data: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
    return tuple(
        Released(**{field: row[field] for field in Released._fields}) for row in data["models"]
    )


def _window(params: int, moe: bool) -> list[Released]:
    models = [m for m in released() if bool(m.experts) == moe] or list(released())
    factor = SIZE_WINDOW
    while True:
        near = [m for m in models if params / factor <= m.params <= params * factor]
        if len(near) >= MIN_MODELS or factor > 1000:
            return near
        factor *= 1.5


def aspect_range(
    params: int, moe: bool, model_types: tuple[str, ...] = ()
) -> tuple[float, float, float]:
    """(low, median, high) of hidden / layers among released models near ``params`` (dense or
    mixture-of-experts as asked). The median is that of the family's own released models in
    the window when it has any (``model_types``: Gemma-2 is deep and thin, hidden/layers 85 at
    9B where Llama-3-8B has 128), else of every family's."""
    window = _window(params, moe)
    ratios = sorted(m.hidden / m.layers for m in window)
    cut = int(len(ratios) * TRIM)
    kept = ratios[cut : len(ratios) - cut] or ratios
    own = sorted(m.hidden / m.layers for m in window if m.model_type in model_types)
    median = own[len(own) // 2] if own else kept[len(kept) // 2]
    return kept[0], median, kept[-1]


def ffn_ratio_range(model_type: str) -> tuple[float, float] | None:
    """(lowest, highest) ffn / hidden among the released dense models of ``model_type``, the
    caps the search keeps to (None with fewer than two): a cap taken from the data admits every
    released model of the family (Qwen2.5-1.5B's 5.83 × hidden)."""
    ratios = [
        m.ffn / m.hidden
        for m in released()
        if m.model_type == model_type and not m.experts and m.ffn > 0 and m.hidden > 0
    ]
    if len(ratios) < 2:
        return None
    return min(ratios), max(ratios)


def expert_ratio_range() -> tuple[float, float] | None:
    """(lowest, highest) expert width / hidden among released mixture-of-experts models
    (DeepSeek-V3 0.29 … Mixtral 3.5): narrower experts than any released are not searched."""
    ratios = [
        (m.expert_ffn or m.ffn) / m.hidden
        for m in released()
        if m.experts and (m.expert_ffn or m.ffn) and m.hidden
    ]
    return (min(ratios), max(ratios)) if len(ratios) >= 2 else None


def quotable(model: Released) -> bool:
    """A row worth quoting as a released model: its MLP width is stated (Falcon's configs leave
    ``ffn_hidden_size`` to a default: "ffn 0" says nothing) and its name is a release's, not a
    bare architecture name (``llava``, the key of a preset table) or a bare size (``6.21B``, a
    benchmark preset)."""
    if not model.experts and model.ffn <= 0:
        return False
    if re.fullmatch(r"[\d.]+[kKmMbBtT]?", model.name):
        return False
    return model.name.lower().replace("-", "_") not in _model_types()


@functools.cache
def _model_types() -> frozenset[str]:
    from dimlint.config.architectures import model_type_names

    return frozenset(model_type_names())


def nearest(params: int, moe: bool, count: int = 3, model_type: str = "") -> list[Released]:
    """The released models closest in size (log scale), mixture-of-experts or not as asked;
    the closest of ``model_type`` (the family written) first, then any family."""
    pool = [m for m in released() if bool(m.experts) == moe and quotable(m)] or list(released())
    ordered = sorted(pool, key=lambda m: abs(math.log(m.params / params)))
    same = [m for m in ordered if model_type and m.model_type == model_type][:1]
    seen: set[tuple[int, ...]] = set()
    found: list[Released] = []
    for model in same + ordered:
        shape = (model.hidden, model.layers, model.heads, model.kv_heads, model.ffn)
        if shape not in seen:
            seen.add(shape)
            found.append(model)
        if len(found) == count:
            break
    return found
