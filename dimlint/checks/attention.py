"""Attention geometry: heads, KV heads, head dim, rotary width, MLA (DL101–DL106)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dimlint.checks.coupled import anchor, dims_of, key_names, planned_fix, problem_of
from dimlint.checks.registry import Finding, grades, rule
from dimlint.config import behaviour
from dimlint.config.geometry import MAX_KERNEL_HEAD_DIM, has_mqa_kernel
from dimlint.config.spec import (
    DIVISIBILITY_REQUIRED,
    FRAMEWORK,
    MEGATRON,
    MEGATRON_LM,
    OWN_MODULE,
    T5X,
    ModelSpec,
)
from dimlint.diagnostics import Severity

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment


@rule(
    "DL101",
    "head-divisibility",
    Severity.ERROR,
    "No explicit head dim and the hidden size is not divisible by the number of heads.",
    fix="sometimes",
)
def check_head_divisibility(spec: ModelSpec) -> Iterator[Finding]:
    problem = problem_of(spec, "DL101")
    if problem is None or spec.hidden is None or spec.heads is None:
        return
    names = key_names(spec)
    hidden, heads = spec.hidden.value, spec.heads.value
    fix, alternatives = planned_fix(spec, problem)
    yield Finding(
        "DL101",
        f"{names['hidden']} {hidden} is not divisible by {names['heads']} {heads}"
        f" ({hidden} / {heads} = {hidden / heads:g}): {_what_happens(spec, hidden, heads)}"
        f" Change {names['hidden']} or {names['heads']}, or state {_head_width_name(spec)}"
        " explicitly"
        f" if a head dim of {hidden // heads} is meant.{alternatives}",
        anchor(spec, "hidden", "heads"),
        fix=fix,
    )


def _what_happens(spec: ModelSpec, hidden: int, heads: int) -> str:
    """What the frameworks do with the config, per framework (and, for transformers, per
    model type, as observed by ``tools/generate_head_divisibility``). A config a Megatron front
    end read says what Megatron does, first and alone: transformers never reads it."""
    floor = hidden // heads
    core = f"kv_channels = {hidden} // {heads} = {floor}, an attention {heads * floor} wide"
    framework = spec.memo.get(FRAMEWORK)
    if framework == MEGATRON_LM:
        return (
            "Megatron-LM refuses to start: validate_args asserts hidden_size %"
            " num_attention_heads == 0 when --kv-channels is not given"
            " (megatron/training/arguments.py); megatron-core's TransformerConfig, built"
            f" without those checks, would floor-divide ({core} instead of {hidden})."
        )
    if framework == MEGATRON:
        return (
            "Megatron-LM's validate_args and NeMo's non-mcore models assert the divisibility"
            " when kv_channels is not given, while megatron-core's TransformerConfig (NeMo's"
            f" mcore models) floor-divides and runs ({core} instead of {hidden}): the run is"
            " refused, or the model silently differs from its sizes."
        )
    if framework == OWN_MODULE and spec.memo.get(DIVISIBILITY_REQUIRED):
        return (
            "the module's own code requires the divisibility (an assertion or a raise in this"
            " file, or nn.MultiheadAttention, which asserts it): the model is refused."
        )
    if framework == OWN_MODULE:
        return (
            "the module's own attention code decides: a head width floor-divided runs with"
            f" heads {floor} wide, an attention {heads * floor} wide instead of {hidden}; an"
            " assertion refuses it; or a reshape fails: the model is refused, or silently"
            " differs from its sizes."
        )
    if framework is None and not spec.known_type and key_names(spec)["hidden"] != "hidden_size":
        # no framework, no transformers model type and neither transformers' nor Megatron's
        # name for the width (an mmcv dict's ``width``, an EasyDict's ``dim``): what attention
        # code in general does, no one engine's
        return (
            "the width cannot be split into heads: nn.MultiheadAttention and"
            " timm's Attention assert the divisibility, a reshape to (heads, width // heads)"
            f" fails, and code that floor-divides runs with heads {floor} wide, an attention"
            f" {heads * floor} wide instead of {hidden}: the model is refused, or silently"
            " differs from its sizes."
        )
    kind = spec.model_type
    version = behaviour.transformers_version()
    seen = behaviour.head_divisibility(kind)
    narrower = (
        f"head dim {floor} (floor division), attention {heads * floor} wide instead of {hidden}"
    )
    transformers = {
        "config": f"transformers {version} refuses the config ({kind}'s validate_architecture)",
        "build": f"transformers {version} loads the config but refuses to build the {kind} model",
        "forward": (
            f"transformers {version} builds the {kind} model and its first forward pass fails"
        ),
        "runs": f"transformers {version} builds and runs the {kind} model silently with {narrower}",
        "built": f"transformers {version} builds the {kind} model with {narrower}",
        "accepted": f"transformers {version} loads the config",
    }.get(seen or "", "transformers may floor-divide the head dim or fail, by model type")
    return (
        f"{transformers}; Megatron-LM's validate_args asserts the divisibility, while"
        f" megatron-core's TransformerConfig alone floor-divides (kv_channels {floor}) and runs"
        " narrower: the config is refused, or the model silently differs from its sizes."
    )


def _head_width_name(spec: ModelSpec) -> str:
    """The key that states the head width explicitly, in the config's own dialect."""
    framework = spec.memo.get(FRAMEWORK)
    if framework == MEGATRON_LM:
        return "--kv-channels"
    return "kv_channels" if framework == MEGATRON else "head_dim"


@rule(
    "DL102",
    "kv-head-divisibility",
    Severity.ERROR,
    "The number of heads is not a multiple of the number of KV heads, or KV heads exceed heads.",
    fix="sometimes",
)
def check_kv_heads(spec: ModelSpec) -> Iterator[Finding]:
    problem = problem_of(spec, "DL102")
    if problem is None or spec.heads is None or spec.kv_heads is None:
        return
    names = key_names(spec)
    heads, kv = spec.heads.value, spec.kv_heads.value
    reason = (
        f"{names['kv_heads']} {kv} exceeds {names['heads']} {heads}"
        if kv > heads
        else f"{names['heads']} {heads} is not a multiple of {names['kv_heads']} {kv}"
    )
    fix, alternatives = planned_fix(spec, problem)
    yield Finding(
        "DL102",
        f"{reason}: grouped-query attention shares each KV head among heads / kv_heads query"
        " heads, so the group size must be a whole number (FlashAttention: 'Number of heads in"
        " key/value must divide number of heads in query'; repeat_kv fails the same way)."
        f" transformers loads such a config and crashes at the first forward.{alternatives}",
        anchor(spec, "kv_heads", "heads"),
        fix=fix,
    )


@rule(
    "DL103",
    "rotary-dim-odd",
    Severity.ERROR,
    "The rotary dimension (head dim × partial rotary factor) is odd or not a whole number.",
    fix="sometimes",
)
def check_rotary(spec: ModelSpec) -> Iterator[Finding]:
    problem = problem_of(spec, "DL103")
    rotary = dims_of(spec).rotary_width
    if problem is None or rotary is None:
        return
    names = key_names(spec)
    head_width = dims_of(spec).head_width
    if spec.rotary_dim is not None:
        how = f"{names['rotary']} is {spec.rotary_dim.value}"
    else:
        factor = spec.partial_rotary_factor.value if spec.partial_rotary_factor else 1.0
        how = f"head dim {head_width} × {names['rotary']} {factor:g} = {rotary:g}"
    fix, alternatives = planned_fix(spec, problem)
    if _rounded_up(spec, rotary, head_width):
        yield Finding(
            "DL103",
            f"the rotary dimension is odd ({how}): transformers' {spec.model_type} builds its"
            f" rotary table over even steps ({rotary + 1} channels) and slices the query by the"
            f" table, so the model runs rotating {rotary + 1} channels, not the {rotary} stated."
            f" State a fraction that gives an even width.{alternatives}",
            anchor(spec, "rotary", "head_dim"),
            fix=fix,
            severity=Severity.WARNING,
        )
        return
    yield Finding(
        "DL103",
        f"the rotary dimension is odd or fractional ({how}): rotary embeddings rotate channel"
        " pairs (rotate_half splits the rotated slice in two), so it must be an even integer;"
        f" the cos/sin tables and the query slice get different widths and the forward pass"
        f" fails.{alternatives}",
        anchor(spec, "rotary", "head_dim"),
        fix=fix,
    )


#: transformers model types whose attention slices the query by a rotary width computed from
#: the config (``self.rotary_ndims = int(head_dim * partial_rotary_factor)``, GPT-J's
#: ``rotary_dim``): an odd width there meets a rotary table one channel wider and the forward
#: fails. The others slice by the table itself (``rotary_dim = cos.shape[-1]``: Llama's
#: family, GLM, Nemotron, Moonshine), which ``arange(0, dim, 2)`` rounds up to even.
ROTARY_SLICED_BY_CONFIG = frozenset(
    {"gpt_neox", "gpt_neox_japanese", "gptj", "codegen", "persimmon", "phi", "stablelm", "clvp"}
)


def _rounded_up(spec: ModelSpec, rotary: float, head_width: int | None) -> bool:
    """An odd rotated width that a transformers model rounds up to even and runs: a known
    model type slicing by its table, a fraction (not a stated width), room in the head."""
    return (
        spec.known_type
        and spec.model_type not in ROTARY_SLICED_BY_CONFIG
        and spec.rotary_dim is None
        and spec.memo.get(FRAMEWORK) is None
        and head_width is not None
        and float(rotary).is_integer()
        and rotary + 1 <= head_width
    )


@rule(
    "DL104",
    "head-dim-kernel",
    Severity.WARNING,
    "The head dim exceeds 256 or is not a multiple of 8: fast attention kernels refuse or pad it.",
)
def check_head_dim_kernel(spec: ModelSpec) -> Iterator[Finding]:
    problem = problem_of(spec, "DL104")
    width = dims_of(spec).head_width
    if problem is None or width is None:
        return
    yield _head_dim_finding(spec, width, _head_dim_detail(width))


def _head_dim_detail(width: int) -> str:
    if width > MAX_KERNEL_HEAD_DIM:
        return (
            f"head dim {width} exceeds {MAX_KERNEL_HEAD_DIM}, the largest FlashAttention 2/3 and"
            " vLLM's flash backend support: training falls back to a slower attention"
            " implementation and FlashAttention raises an error"
        )
    return (
        f"head dim {width} is not a multiple of 8: FlashAttention-2 pads it to the next"
        " multiple of 8 (wasted work), vLLM's flash backend refuses it and falls back to a"
        " slower backend"
    )


def _head_dim_finding(
    spec: ModelSpec, width: int, detail: str, severity: Severity | None = None
) -> Finding:
    return Finding(
        "DL104",
        f"{detail}. Prefer a head dim that is a multiple of 8 and at most 256 (64, 80, 96, 128"
        " and 256 are common).",
        anchor(spec, "head_dim", "hidden", "heads"),
        severity=severity,
    )


#: Why a kernel target turns DL104 into an error (flash-attention ``flash_api.cpp``,
#: ``hopper/flash_api.cpp``; vLLM ``v1/attention/backends/flash_attn.py``).
_KERNEL_LIMITS = {
    "fa2": "FlashAttention-2 raises an error above head dim 256",
    "fa3": "FlashAttention-3 checks head_size <= 256 and head_size % 8 == 0 (16 for fp8)",
    "vllm": "vLLM's flash-attention backend has no kernel above head dim 256",
}


@grades("DL104")
def check_head_dim_kernel_for(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    """DL104 under targets: an error where the target's kernel cannot run the head dim."""
    width = dims_of(spec).head_width
    kernels = [t for t in deployment.targets if t.engine in _KERNEL_LIMITS]
    if width is None or spec.is_mla or not kernels:
        yield from check_head_dim_kernel(spec)
        return
    fa3 = next((t for t in kernels if t.engine == "fa3"), None)
    fp8 = deployment.has("fp8")
    fatal = None
    if has_mqa_kernel(dims_of(spec)):
        # FlashMLA runs it (vLLM picks that backend); FlashAttention 2/3 still cannot.
        fatal = next((t for t in kernels if t.engine in ("fa2", "fa3")), None)
    elif width > MAX_KERNEL_HEAD_DIM:
        fatal = kernels[0]
    elif fa3 is not None and (width % 8 or (fp8 is not None and width % 16)):
        fatal = fa3
    if fatal is None:
        yield from check_head_dim_kernel(spec)
        return
    if width <= MAX_KERNEL_HEAD_DIM and width % 8 == 0:
        detail = (
            f"head dim {width} is not a multiple of 16: FlashAttention-3 refuses fp8 inputs"
            ' whose head size is not ("head_size should be a multiple of 16")'
        )
    else:
        detail = _head_dim_detail(width)
    detail += f". Under the {fatal.text} target this is an error: {_KERNEL_LIMITS[fatal.engine]}"
    yield _head_dim_finding(spec, width, detail, Severity.ERROR)


@rule(
    "DL105",
    "head-dim-override",
    Severity.INFO,
    "An explicit head dim makes heads × head dim differ from the hidden size (legal).",
)
def check_head_dim_override(spec: ModelSpec) -> Iterator[Finding]:
    if (
        spec.head_dim is None
        or spec.hidden is None
        or spec.heads is None
        or spec.is_mla
        or spec.recurrent
    ):
        return
    if spec.head_dim.origin != "config" or spec.memo.get(FRAMEWORK) == T5X:
        return  # T5X builds num_heads × head_dim by construction: nobody assumes hidden / heads
    projected = spec.heads.value * spec.head_dim.value
    if projected == spec.hidden.value:
        return
    names = key_names(spec)
    yield Finding(
        "DL105",
        f"{names['heads']} {spec.heads.value} × {names['head_dim']} {spec.head_dim.value} ="
        f" {projected} ≠ {names['hidden']} {spec.hidden.value}: the attention projections map"
        f" {spec.hidden.value} → {projected} → {spec.hidden.value}. This is legal (Gemma 2/3,"
        " Qwen3 and Mistral-Nemo do it), but tools that assume head_dim = hidden / heads"
        " (some transformers versions' validators, older converters) get it wrong.",
        spec.head_dim.pointer,
    )


@rule(
    "DL106",
    "mla-geometry",
    Severity.ERROR,
    "Multi-head latent attention ranks and head dims are missing, non-positive or inconsistent.",
)
def check_mla(spec: ModelSpec) -> Iterator[Finding]:
    if spec.kv_lora_rank is None:
        return
    missing = [
        name
        for name, value in (
            ("qk_rope_head_dim", spec.qk_rope_head_dim),
            ("qk_nope_head_dim", spec.qk_nope_head_dim),
        )
        if value is None and name not in spec.invalid
    ]
    if missing:
        yield Finding(
            "DL106",
            f"kv_lora_rank {spec.kv_lora_rank.value} selects multi-head latent attention, but"
            f" {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} not set: MLA needs the"
            " rotary and non-rotary query/key head dims to size its projections.",
            spec.kv_lora_rank.pointer,
        )
        return
    rope = spec.qk_rope_head_dim
    if rope is not None and rope.value % 2:
        yield Finding(
            "DL106",
            f"qk_rope_head_dim {rope.value} is odd: the decoupled rotary part of each MLA head is"
            " rotated in channel pairs, so it must be even (DeepSeek-V2/V3 use 64).",
            rope.pointer,
        )
