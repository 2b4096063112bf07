"""``torch.nn`` layer checks, reported under the codes of the config rules (DL101, DL201).

These are the "few checks over Python syntax" of DESIGN.md: a layer call such as
``nn.MultiheadAttention(1000, 16)`` is a tiny config of its own. The Python front end
(:mod:`dimlint.sources.python.layers`) hands over the arguments whose values are statically known;
a check stays silent about anything else. This module imports no libcst: it works on plain
integers and the synthetic pointers (``/embed_dim``) the linter maps back to the source.

* DL101: ``embed_dim`` (``d_model``) not divisible by ``num_heads`` (``nhead``) — PyTorch
  asserts it when the layer is built. The fix changes the head count (unsafe) to a nearby
  divisor, never the width: the width is shared with the layers around it.
* DL201: a width of 256 or more that is not a multiple of 8 (warning). Narrower layers are
  classifier heads and toy models, where a padded GEMM tile costs nothing measurable, so they
  are left alone; the info grade (multiple of 8 but not 64) is not reported for layers either —
  too many real layers (1000-class heads) would carry it. No fix: a layer width is coupled to
  the tensors around it, which the code computes.
"""

from __future__ import annotations

from collections.abc import Iterator

from dimlint.checks.registry import Finding, PlannedFix
from dimlint.config.geometry import ALIGN_MIN, MAX_KERNEL_HEAD_DIM
from dimlint.config.torch_layers import LAYERS, Layer, LayerKind
from dimlint.diagnostics import Applicability, Severity

#: Layers whose widths DL201 checks, narrower ones being heads or toys.
MIN_CHECKED_WIDTH = 256


def check_layer(path: str, layer: Layer, enabled: frozenset[str]) -> Iterator[Finding]:
    """DL101 and DL201 findings for one layer call."""
    kind = LAYERS[layer.kind]
    if "DL101" in enabled:
        yield from _head_divisibility(path, layer, kind)
    if "DL201" in enabled:
        yield from _width_alignment(layer, kind)


def _head_divisibility(path: str, layer: Layer, kind: LayerKind) -> Iterator[Finding]:
    del path
    if kind.width is None or kind.heads is None:
        return
    values = {**kind.defaults, **layer.stated}
    width, heads = values.get(kind.width), values.get(kind.heads)
    if width is None or heads is None or width % heads == 0:
        return
    if kind.width not in layer.stated and kind.heads not in layer.stated:
        return  # torch's own defaults
    choices = head_counts(width, heads)
    fix = None
    if choices and kind.heads in layer.editable:
        best = choices[0]
        fix = PlannedFix(
            Applicability.UNSAFE,
            f"set {kind.heads} {heads} → {best} (head width {width // best})",
            ((f"/{kind.heads}", str(best)),),
        )
    others = ", ".join(f"{c} (head width {width // c})" for c in choices[1:])
    anchor = kind.width if kind.width in layer.stated else kind.heads
    yield Finding(
        "DL101",
        f"nn.{layer.kind}: {kind.width} {width} is not divisible by {kind.heads} {heads}"
        f" ({width} / {heads} = {width / heads:g}): the layer splits {kind.width} into {heads}"
        " heads of equal width, and PyTorch refuses to build it ('embed_dim must be divisible"
        f" by num_heads'). Use a head count that divides {width}"
        + (f"; other choices: {others}." if others else "."),
        f"/{anchor}",
        fix=fix,
    )


def head_counts(width: int, heads: int, limit: int = 3) -> list[int]:
    """Head counts near ``heads`` that divide ``width``, best first.

    The width is kept (it is shared with the layers around it); a head width that fast
    attention kernels take (a multiple of 8, at most 256) comes first, then closeness. The
    candidates are found from the head width (at most 256 of them), never by counting up to
    ``2 * heads``: ``num_heads=10**12`` costs what ``num_heads=12`` does.
    """
    found = sorted(
        {
            width // head_width
            for head_width in range(1, MAX_KERNEL_HEAD_DIM + 1)
            if width % head_width == 0 and 0 < width // head_width <= 2 * heads
        }
    )
    found.sort(key=lambda c: ((width // c) % ALIGN_MIN != 0, abs(c - heads), -c))
    return found[:limit]


def _width_alignment(layer: Layer, kind: LayerKind) -> Iterator[Finding]:
    for name in kind.widths:
        value = layer.stated.get(name)
        if value is None or value < MIN_CHECKED_WIDTH or value % ALIGN_MIN == 0:
            continue
        lower = value // ALIGN_MIN * ALIGN_MIN
        yield Finding(
            "DL201",
            f"nn.{layer.kind} {name} {value} is not a multiple of {ALIGN_MIN}: fp16/bf16 Tensor"
            f" Core GEMMs need multiples of {ALIGN_MIN} elements, so this layer's matmuls run on"
            f" slower, padded paths (NVIDIA, Matrix Multiplication Background). Nearest aligned"
            f" widths: {lower} or {lower + ALIGN_MIN}.",
            f"/{name}",
            severity=Severity.WARNING,
        )
