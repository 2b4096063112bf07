"""Released models, for comparison and for the depth/width range a suggestion keeps to.

The table (``dimlint/data/released_shapes.json``) is generated from the shared corpus by
:mod:`dimlint.tools.generate_released_shapes`; nothing here reads the corpus.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
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
    """(low, target, high) of hidden / layers: the range among released models near ``params``
    (dense or mixture-of-experts as asked), and the family's own ratio at this size
    (:func:`family_curve` over ``model_types``: Gemma-2 is deep and thin, hidden/layers 85 at
    9B where Llama-3-8B has 128), else the median of every family's in the range."""
    window = _window(params, moe)
    ratios = sorted(m.hidden / m.layers for m in window)
    cut = int(len(ratios) * TRIM)
    kept = ratios[cut : len(ratios) - cut] or ratios
    own = family_curve(params, moe, model_types, lambda m: m.hidden / m.layers)
    median = own if own is not None else kept[len(kept) // 2]
    return kept[0], median, kept[-1]


def family_curve(
    params: int, moe: bool, model_types: tuple[str, ...], value: Callable[[Released], float]
) -> float | None:
    """``value`` along the family's own releases, at ``params``: log-interpolated in size
    between the releases nearest below and above (their geometric mean where several share a
    size), the nearest one's beyond the family's range, None when it has no release.

    A family scales depth and width along its own curve (Gemma-2: 2B 89, 9B 85, 27B 100
    hidden/layers; Llama-3: 128 at 8B, 102 at 70B, 130 at 405B): the target for a size
    between two releases lies between theirs, and at a released size it is that release's,
    where a median over a window (9B and 27B: 100) would take a neighbour's."""
    own = [
        m
        for m in released()
        if m.model_type in model_types and bool(m.experts) == moe and quotable(m) and m.params
    ]
    own = [m for m in own if value(m) > 0]  # a row without the value (nan, 0) says nothing
    if not own:
        return None
    below = [m.params for m in own if m.params <= params]
    above = [m.params for m in own if m.params >= params]
    low = max(below) if below else min(above)
    high = min(above) if above else max(below)

    def at(size: int) -> float:
        logs = [math.log(value(m)) for m in own if m.params == size]
        return sum(logs) / len(logs)

    if low == high:
        return math.exp(at(low))
    share = math.log(params / low) / math.log(high / low)
    return math.exp(at(low) + share * (at(high) - at(low)))


def nearest_grouping(params: int, moe: bool, model_type: str) -> float | None:
    """Query heads per KV head of the family's release nearest in size (log scale), as
    :func:`dimlint.fix.suggest.search.default_head_dims` takes its head dim: Llama-3.1-8B's
    32/8 (4) at 8B, Llama-3.1-70B's 64/8 (8) at 70B, Qwen2.5-0.5B's 14/2 (7). None when the
    family has no release with KV heads."""
    own = [
        m
        for m in released()
        if m.model_type == model_type
        and bool(m.experts) == moe
        and quotable(m)
        and m.params
        and 0 < m.kv_heads <= m.heads
    ]
    if not own:
        return None
    closest = min(own, key=lambda m: abs(math.log(m.params / params)))
    return closest.heads / closest.kv_heads


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
