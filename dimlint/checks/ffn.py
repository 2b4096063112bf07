"""FFN sizing: ratio to the hidden size (DL301) and the rounding real recipes use (DL302)."""

from __future__ import annotations

from collections.abc import Iterator

from dimlint.checks.registry import Finding, rule
from dimlint.config.geometry import RECIPE_MULTIPLE, llama_ffn
from dimlint.config.normalize import is_tower
from dimlint.config.remote_semantics import is_fused_ffn
from dimlint.config.spec import COMPUTED, ModelSpec
from dimlint.diagnostics import Severity

#: ffn / hidden ranges seen in released models (DOMAIN.md): gated 2.67 (Llama-3.2-3B) to 8.0
#: (Gemma-2-27B); plain GELU MLPs use 4. Outside these, the width is almost surely a typo.
GATED_RANGE = (2.0, 8.0)
PLAIN_RANGE = (1.0, 8.0)


def _dense_ffn(spec: ModelSpec) -> tuple[int, int] | None:
    """(ffn, hidden) for dense MLPs; MoE configs are skipped (their experts are narrower)."""
    if spec.ffn is None or spec.hidden is None or not spec.ffn.in_file:
        return None
    if spec.experts is not None and spec.experts.value > 0:
        return None
    if is_tower(spec) or _vit_family(spec):
        return None  # ViT MLPs and patch mergers are sized against other widths
    if is_fused_ffn(spec.model_type):
        # Qwen v1 and Molmo state gate and up as one width: the MLP is half of it
        return spec.ffn.value // 2, spec.hidden.value
    return spec.ffn.value, spec.hidden.value


def _gated(spec: ModelSpec) -> bool:
    return bool(spec.gated_mlp) or is_fused_ffn(spec.model_type)


def _width_label(spec: ModelSpec, ffn: int) -> str:
    if spec.ffn is not None and is_fused_ffn(spec.model_type):
        return f"the MLP width {ffn} ({spec.ffn.key} {spec.ffn.value} holds gate and up together)"
    key = spec.ffn.key if spec.ffn is not None else "intermediate_size"
    return f"{key} {ffn}"


def _attention_width(spec: ModelSpec) -> int:
    """The attention's inner width (heads × a stated head width), 0 when not stated. T5 scaled
    its 3B and 11B models by widening the inner dimensions only: ``d_model`` 1024 with 32 and
    128 heads of 128 and ``d_ff`` 16384 and 65536, each 4 × the attention width (64 and 16 ×
    ``d_model``): the FFN is sized against the inner width there, not against the residual."""
    if spec.head_dim is None or not spec.head_dim.in_file or spec.heads is None:
        return 0
    return spec.heads.value * spec.head_dim.value


#: Keys of the width an adapter's MLP projects into, when it is not the config's own: Molmo's
#: image projector (``text_hidden_size``: ``ImageProjectorMLP`` maps the vision features
#: through ``intermediate_size`` into the language model's width, sized as that model's FFN:
#: MolmoAct2's 18944 beside Qwen2-7B's 3584), GLM-4V's patch merger (``out_hidden_size``).
PROJECTION_WIDTH_KEYS = ("text_hidden_size", "out_hidden_size")


def _projected_widths(spec: ModelSpec) -> list[int]:
    """The widths :data:`PROJECTION_WIDTH_KEYS` state (positive integers only)."""
    widths = (spec.raw.get(key) for key in PROJECTION_WIDTH_KEYS)
    return [w for w in widths if isinstance(w, int) and not isinstance(w, bool) and w > 0]


def _vit_family(spec: ModelSpec) -> bool:
    """A config in the ViT family's names (``width`` beside heads and a depth: CLIP's,
    open_clip's, big_vision's towers; ``trainingkeys.width_is_width``): a tower, whose MLP is
    sized by ViT conventions and shape-optimised searches (open_clip's SO150M towers: width
    832, SwiGLU 1408), not by the language models' ratios."""
    return spec.hidden is not None and spec.hidden.key == "width"


@rule(
    "DL301",
    "ffn-ratio",
    Severity.WARNING,
    "The FFN width is outside the ratio to the hidden size that real models use.",
)
def check_ffn_ratio(spec: ModelSpec) -> Iterator[Finding]:
    sizes = _dense_ffn(spec)
    if sizes is None or spec.ffn is None:
        return
    if spec.ffn.pointer in spec.memo.get(COMPUTED, frozenset()):
        return  # computed in code (``int(1792 * 8.5714)``): a ratio chosen, not a typo
    ffn, hidden = sizes
    gated = _gated(spec)
    low, high = GATED_RANGE if gated else PLAIN_RANGE
    ratio = ffn / hidden
    inner = _attention_width(spec)
    if low <= ratio <= high or (inner > hidden and low <= ffn / inner <= high):
        return
    if any(low <= ffn / width <= high for width in _projected_widths(spec)):
        return  # an adapter's MLP sized against the width it projects into
    kind = "gated (SwiGLU/GeGLU)" if gated else "plain"
    usual = (
        "8/3 × hidden rounded up (2.67–5.3 in Llama, Qwen, Mistral; up to 8 in Gemma)"
        if gated
        else "4 × hidden"
    )
    yield Finding(
        "DL301",
        f"{_width_label(spec, ffn)} is {ratio:.2f} × hidden {hidden}, outside the {low:g}–{high:g}"
        f" range real {kind} MLPs use ({usual}); check for a typo or a value copied from"
        " another model.",
        spec.ffn.pointer,
    )


@rule(
    "DL302",
    "ffn-rounding",
    Severity.INFO,
    "A gated FFN width is not on the multiple-of-256 rounding real recipes use.",
)
def check_ffn_rounding(spec: ModelSpec) -> Iterator[Finding]:
    sizes = _dense_ffn(spec)
    if sizes is None or spec.ffn is None or not _gated(spec):
        return
    ffn, hidden = sizes
    if ffn % RECIPE_MULTIPLE == 0:
        return
    lower = ffn // RECIPE_MULTIPLE * RECIPE_MULTIPLE
    upper = lower + RECIPE_MULTIPLE
    nearest = f"{lower} or {upper}" if lower else str(upper)  # never a width of 0
    yield Finding(
        "DL302",
        f"gated {_width_label(spec, ffn)} is not a multiple of {RECIPE_MULTIPLE}: Llama-style"
        f" recipes round the SwiGLU width up to multiple_of = {RECIPE_MULTIPLE} (which also"
        f" satisfies Megatron's 64) — nearest {nearest}; the plain recipe for hidden {hidden}"
        f" gives {llama_ffn(hidden)}.",
        spec.ffn.pointer,
    )
