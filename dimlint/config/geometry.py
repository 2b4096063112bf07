"""The coupled attention/width dimensions and the pure predicates over them.

DL101–DL104, DL201 and DL202 all judge the same handful of numbers (hidden, heads, KV heads,
head dim, rotary width, FFN and vocab). The rules and the fix search both call
:func:`evaluate`, so a suggested fix is checked by exactly the logic that raised the finding and
cannot trade one finding for another.
"""

from __future__ import annotations

import functools
import math
from typing import Literal

from dimlint.diagnostics import Severity
from dimlint.records import Record

#: Tensor Cores want multiples of 8 elements (fp16/bf16); 64 is where A100 GEMMs are fastest.
ALIGN_MIN = 8
ALIGN_BEST = 64
#: Vocab rows are padded to 64 by nanoGPT and vLLM; below that the LM head GEMM is misaligned.
VOCAB_MULTIPLE = 64
#: FlashAttention 2/3 and vLLM's flash backend support head dims up to 256.
MAX_KERNEL_HEAD_DIM = 256
#: FlashMLA's sparse decoding kernels run multi-query attention (one shared KV head) with heads
#: 512 or 576 wide (``h_kv == 1``; ``d_qk == 576 || d_qk == 512``; ``d_v == 512``): the head dim
#: DeepSeek-V4 chose (512, one KV head) has its kernel.
MQA_KERNEL_HEAD_DIMS = frozenset({512, 576})

Field = Literal["hidden", "heads", "kv_heads", "head_dim", "ffn", "expert_ffn", "vocab", "rotary"]


class Dims(Record):
    """The values the coupled rules read; ``None`` means unknown (the rule stays silent)."""

    hidden: int | None
    heads: int | None
    kv_heads: int | None  # None: same as heads
    head_dim: int | None  # explicit only; None means hidden // heads
    ffn: int | None
    expert_ffn: int | None
    vocab: int | None
    rotary_fraction: float | None = None
    rotary_dim: int | None = None
    mla: bool = False

    def with_values(self, **values: int | float | None) -> Dims:
        return self._replace(**values)  # type: ignore[arg-type]

    @property
    def head_width(self) -> int | None:
        """Per-head width used by attention: explicit, or hidden // heads when it divides."""
        if self.head_dim is not None:
            return self.head_dim
        if self.hidden and self.heads and self.hidden % self.heads == 0:
            return self.hidden // self.heads
        return None

    @property
    def rotary_width(self) -> int | None:
        """Rotated channels per head: explicit ``rotary_dim``, or ``int(head width × fraction)``.

        transformers and vLLM both truncate (``int(head_dim * partial_rotary_factor)``), so
        Moonshine's 36 × 0.9 = 32.4 rotates 32 channels: fine.
        """
        if self.rotary_dim is not None:
            return self.rotary_dim
        width = self.head_width
        if width is None or self.rotary_fraction is None:
            return None
        return int(width * self.rotary_fraction)


class Problem(Record):
    """One violated predicate: which rule, which dimension, how bad."""

    code: str
    field: Field
    severity: Severity


@functools.lru_cache(maxsize=4096)
def evaluate(d: Dims) -> frozenset[Problem]:
    """Every coupled-dimension problem of ``d``.

    Cached: the configs of one family share their dimensions, and the fix search scores the
    same candidate shapes for each of them."""
    found: list[Problem] = []
    if d.hidden and d.heads and d.head_dim is None and not d.mla and d.hidden % d.heads:
        found.append(Problem("DL101", "hidden", Severity.ERROR))
    if d.heads and d.kv_heads and not d.mla and (d.heads % d.kv_heads or d.kv_heads > d.heads):
        found.append(Problem("DL102", "kv_heads", Severity.ERROR))
    rotary = d.rotary_width
    if rotary is not None and rotary % 2:
        found.append(Problem("DL103", "rotary", Severity.ERROR))
    width = d.head_width
    if (
        width is not None
        and not d.mla
        and (width > MAX_KERNEL_HEAD_DIM or width % ALIGN_MIN)
        and not has_mqa_kernel(d)
    ):
        found.append(Problem("DL104", "head_dim", Severity.WARNING))
    for name, value in alignment_targets(d):
        if value % ALIGN_MIN:
            found.append(Problem("DL201", name, Severity.WARNING))
        elif value % ALIGN_BEST:
            found.append(Problem("DL201", name, Severity.INFO))
    if d.vocab and d.vocab % VOCAB_MULTIPLE:
        found.append(Problem("DL202", "vocab", Severity.INFO))
    return frozenset(found)


def has_mqa_kernel(d: Dims) -> bool:
    """Whether ``d`` is the multi-query shape FlashMLA's sparse kernels run (see
    :data:`MQA_KERNEL_HEAD_DIMS`): one KV head, heads 512 or 576 wide."""
    return d.kv_heads == 1 and d.head_width in MQA_KERNEL_HEAD_DIMS


def alignment_targets(d: Dims) -> list[tuple[Field, int]]:
    """The GEMM widths DL201 checks: hidden, FFN, and projection widths that differ from them."""
    targets: list[tuple[Field, int]] = []
    if d.hidden:
        targets.append(("hidden", d.hidden))
    if d.ffn:
        targets.append(("ffn", d.ffn))
    if d.expert_ffn:
        targets.append(("expert_ffn", d.expert_ffn))
    width = d.head_width
    if width is not None and d.heads and not d.mla:
        if d.head_dim is not None and d.heads * width != d.hidden:
            targets.append(("heads", d.heads * width))
        kv = d.kv_heads or d.heads
        if kv != d.heads:
            targets.append(("kv_heads", kv * width))
    return targets


def approximate_parameters(d: Dims, layers: int, gated: bool, experts: int = 0) -> int:
    """A parameter count good enough to express a fix's cost as a percentage.

    Embeddings plus, per layer, the Q/K/V/O projections and the MLP (three matrices when gated,
    two otherwise; experts × expert width for MoE). Norms and biases are left out: they change
    nothing visible in a percentage. Exact counts are ``dimlint mem``'s job.
    """
    hidden = d.hidden or 0
    heads = d.heads or 0
    kv = d.kv_heads or heads
    if d.head_dim is not None:
        attention = 2 * hidden * heads * d.head_dim + 2 * hidden * kv * d.head_dim
    else:
        # the projections are hidden wide whatever the head count: a head count that changes
        # alone changes no parameter (only the KV width, a fraction kv / heads of it, moves)
        attention = 2 * hidden * hidden + (2 * hidden * hidden * kv // heads if heads else 0)
    matrices = 3 if gated else 2
    if experts and d.expert_ffn:
        mlp = experts * matrices * hidden * d.expert_ffn
    else:
        mlp = matrices * hidden * (d.ffn or 4 * hidden)
    return layers * (attention + mlp) + (d.vocab or 0) * hidden


#: The multiple Llama-style recipes round a SwiGLU width up to (``multiple_of``).
RECIPE_MULTIPLE = 256


def llama_ffn(hidden: int, multiple_of: int = RECIPE_MULTIPLE, multiplier: float = 1.0) -> int:
    """Llama's FFN width: multiple_of · ceil(int(multiplier · int(8h/3)) / multiple_of)."""
    width = int(multiplier * int(2 * 4 * hidden / 3))
    return multiple_of * math.ceil(width / multiple_of)
