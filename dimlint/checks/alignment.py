"""GEMM alignment of widths and vocab (DL201, DL202) and the opt-in power-of-two note (DL203)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dimlint.checks.coupled import anchor, dims_of, key_names, planned_fix, problem_of, problems_of
from dimlint.checks.registry import Finding, grades, rule
from dimlint.config.geometry import ALIGN_BEST, ALIGN_MIN, VOCAB_MULTIPLE, Field, alignment_targets
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment

_WIDTH_LABEL: dict[Field, str] = {
    "heads": "query projection width (heads × head_dim)",
    "kv_heads": "key/value projection width (kv_heads × head_dim)",
}


@rule(
    "DL201",
    "dim-alignment",
    Severity.WARNING,
    "A GEMM width (hidden, FFN, q/kv projection) is not a multiple of 8 (warning) or 64 (info).",
    fix="sometimes",
)
def check_alignment(spec: ModelSpec) -> Iterator[Finding]:
    return _alignment_findings(spec, fp8=None)


#: TransformerEngine's FP8 GEMMs assert every dimension % 16 (``assert_dim_for_fp8_exec``).
FP8_ALIGN = 16


@grades("DL201")
def check_alignment_for(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    """DL201 under targets: an ``fp8`` target makes widths that are not multiples of 16 errors."""
    fp8 = deployment.has("fp8")
    return _alignment_findings(spec, fp8=fp8.text if fp8 is not None else None)


def _alignment_findings(spec: ModelSpec, fp8: str | None) -> Iterator[Finding]:
    if problem_of(spec, "DL201") is None:
        return  # most configs: nothing to word
    dims = dims_of(spec)
    widths = dict(alignment_targets(dims))
    names = key_names(spec)
    for problem in sorted(problems_of(spec), key=lambda p: p.field):
        if problem.code != "DL201" or problem.field not in widths:
            continue
        value = widths[problem.field]
        label = _WIDTH_LABEL.get(problem.field, names[problem.field])
        if problem.severity is Severity.WARNING:
            why = (
                f"{label} {value} is not a multiple of {ALIGN_MIN}: fp16/bf16 Tensor Core GEMMs"
                f" need multiples of {ALIGN_MIN} elements, so every matmul of this width runs"
                " on slower, padded or non-Tensor-Core paths"
            )
        else:
            why = (
                f"{label} {value} is a multiple of {ALIGN_MIN} but not of {ALIGN_BEST}: GEMM"
                " tiles of 64/128 leave a partly empty tile on this dimension (tile"
                " quantization), a few percent slower than the nearest multiple of 64"
            )
        severity = problem.severity
        if fp8 is not None and value % FP8_ALIGN:
            severity = Severity.ERROR
            why += _fp8_sentence(fp8, value)
        fix, alternatives = planned_fix(spec, problem)
        yield Finding(
            "DL201",
            f"{why} (NVIDIA, Matrix Multiplication Background).{alternatives}",
            anchor(spec, problem.field, "hidden", "heads"),
            severity=severity,
            fix=fix,
        )


def _fp8_sentence(target: str, value: int) -> str:
    return (
        f". Under the {target} target this is an error: FP8 GEMMs need every dimension to be a"
        f" multiple of {FP8_ALIGN} (TransformerEngine assert_dim_for_fp8_exec), and {value} %"
        f" {FP8_ALIGN} = {value % FP8_ALIGN}"
    )


#: Targets that mean the model is being trained (its vocabulary is still a design choice).
TRAINING_ENGINES = ("megatron", "deepspeed")


@rule(
    "DL202",
    "vocab-padding",
    Severity.INFO,
    "The vocabulary size is not a multiple of 64 (info; a warning under a training target).",
    fix="always",
)
def check_vocab(spec: ModelSpec) -> Iterator[Finding]:
    return _vocab_findings(spec, None)


@grades("DL202")
def check_vocab_for(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    """DL202 under targets: a training target (``megatron:…``, ``deepspeed:…``) makes it a
    warning, since the vocabulary of a model about to be trained can still be padded."""
    training = deployment.has(*TRAINING_ENGINES)
    return _vocab_findings(spec, training.text if training is not None else None)


def is_ctc_vocabulary(spec: ModelSpec) -> bool:
    """A CTC output alphabet (wav2vec2, HuBERT, WavLM…: ``ctc_loss_reduction`` is a field of
    the config, or the class is ``…ForCTC``): the vocab is a few dozen characters read by one
    small head, with no token embedding to align, so padding it is pointless."""
    if "ctc_loss_reduction" in spec.raw:
        return True
    names = spec.raw.get("architectures")
    if isinstance(names, list) and any(isinstance(n, str) and n.endswith("ForCTC") for n in names):
        return True
    from dimlint.config import architectures

    arch = architectures.lookup(spec.model_type) if spec.model_type else None
    return arch is not None and "ctc_loss_reduction" in arch.defaults


def _vocab_findings(spec: ModelSpec, training: str | None) -> Iterator[Finding]:
    problem = problem_of(spec, "DL202")
    if problem is None or spec.vocab is None or is_ctc_vocabulary(spec):
        return
    vocab = spec.vocab.value
    padded = -(-vocab // VOCAB_MULTIPLE) * VOCAB_MULTIPLE
    fix, _ = planned_fix(spec, problem)
    severity = Severity.INFO
    when = (
        " A released model's vocabulary is fixed by its trained embedding: this matters when"
        " the shape is still being designed."
    )
    if training is not None:
        severity = Severity.WARNING
        when = f" Under the {training} training target the vocabulary can still be padded."
    yield Finding(
        "DL202",
        f"{spec.vocab.key} {vocab} is not a multiple of {VOCAB_MULTIPLE}: the embedding and LM"
        f" head GEMMs run on a misaligned width (nanoGPT padded GPT-2's 50257 to 50304 for a"
        f" ~25% faster training step). Pad it to {padded} (+{padded - vocab} unused rows; the"
        f" tokenizer is unchanged).{when}",
        anchor(spec, "vocab"),
        severity=severity,
        fix=fix,
    )


def _is_power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


@rule(
    "DL203",
    "power-of-two",
    Severity.INFO,
    "A dimension is not a power of two (folklore: opt-in, no framework requires it).",
    enabled_by_default=False,
)
def check_power_of_two(spec: ModelSpec) -> Iterator[Finding]:
    for located in (spec.hidden, spec.ffn, spec.heads):
        if located is None or not located.in_file or _is_power_of_two(located.value):
            continue
        lower = 1 << (located.value.bit_length() - 1)
        yield Finding(
            "DL203",
            f"{located.key} {located.value} is not a power of two (nearest: {lower} or"
            f" {lower * 2}). No framework or kernel requires powers of two — Llama-2-13B (5120),"
            " Falcon-7B (4544) and Qwen2-7B (3584) are not — so this is a style note: alignment"
            " to 64 (DL201) is what matters for speed.",
            located.pointer,
        )
