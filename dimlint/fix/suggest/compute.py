"""``--train-budget 1024xH100-80GB:30d``: GPU time turned into the training FLOPs ``--flops`` takes.

A designer's training budget is usually GPUs for a time, not a FLOP count. The compute a run gets
out of them is C = GPUs × peak dense BF16 tensor FLOP/s × MFU × seconds, where the model FLOPs
utilisation (MFU) is the share of the peak a real run sustains: Llama 3's 405B pre-training
reports 38–43% BF16 MFU on 8,192–16,384 H100s (Dubey et al. 2024, table 4), so 0.40 is the
default and ``--mfu`` changes it. C then sizes the model exactly as ``--flops C`` does
(:func:`dimlint.fix.suggest.request.compute_optimal`: 20 tokens a parameter, C = 6 · N · D).

The peaks are the vendors' dense figures (without 2:4 sparsity, which training does not use),
BF16 inputs with FP32 accumulation, for the catalogue's cards (:data:`dimlint.memory.gpus.GPUS`);
a card given only by its memory (``24GiB``) has no known peak and is refused.
"""

from __future__ import annotations

import re

from dimlint.errors import UsageError
from dimlint.records import Record

#: Peak dense BF16 tensor FLOP/s per catalogue GPU, with the datasheet it is read from.
PEAK_BF16: dict[str, tuple[float, str]] = {
    "A100-40GB": (312e12, "NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOPS (624 sparse)"),
    "A100-80GB": (312e12, "NVIDIA A100 datasheet: BF16 Tensor Core 312 TFLOPS (624 sparse)"),
    "H100-80GB": (989.4e12, "NVIDIA H100 SXM datasheet: BF16 Tensor Core 1,979 TFLOPS sparse"),
    "H100-94GB": (835.5e12, "NVIDIA H100 NVL datasheet: BF16 Tensor Core 1,671 TFLOPS sparse"),
    "H200-141GB": (989.4e12, "NVIDIA H200 SXM datasheet: BF16 Tensor Core 1,979 TFLOPS sparse"),
    "B200": (2.25e15, "NVIDIA HGX B200 datasheet: FP16/BF16 4.5 PFLOPS sparse per GPU"),
    "L4": (121e12, "NVIDIA L4 datasheet: BF16 Tensor Core 242 TFLOPS sparse"),
    "L40S": (362.05e12, "NVIDIA L40S datasheet: BF16 Tensor Core 362.05 TFLOPS (733 sparse)"),
    "RTX4090-24GB": (
        165.2e12,
        "NVIDIA Ada Lovelace architecture whitepaper: RTX 4090 peak BF16 Tensor TFLOPS with"
        " FP32 accumulate 165.2 (330.4 sparse)",
    ),
    "RTX3090-24GB": (
        71e12,
        "NVIDIA Ampere GA102 whitepaper: RTX 3090 peak BF16 Tensor TFLOPS with FP32 accumulate"
        " 71 (142 sparse)",
    ),
    "MI300X-192GB": (1307.4e12, "AMD Instinct MI300X datasheet: peak BF16 1307.4 TFLOPS dense"),
}
#: Model FLOPs utilisation assumed without ``--mfu`` (Llama 3 405B: 38–43% on H100).
DEFAULT_MFU = 0.40
_TIME = re.compile(r"^\s*(\d{1,6}(?:\.\d{1,3})?)\s*([hHdD])\s*$")
_SECONDS = {"h": 3600, "d": 86400}
#: Longest run a budget may name: ten years.
MAX_DAYS = 3650


class TrainBudget(Record):
    """GPUs for a time at an MFU, and the FLOPs they give."""

    text: str
    gpus: int
    gpu: str
    seconds: float
    peak: float
    mfu: float
    source: str

    @property
    def flops(self) -> float:
        return self.gpus * self.peak * self.mfu * self.seconds

    def as_json(self) -> dict[str, object]:
        return {
            "budget": self.text,
            "gpus": self.gpus,
            "gpu": self.gpu,
            "hours": self.seconds / 3600,
            "peak_flops_per_gpu": self.peak,
            "mfu": self.mfu,
            "source": self.source,
        }


def parse_train_budget(text: str, mfu: float | None) -> TrainBudget:
    """``1024xH100-80GB:30d`` (or ``:720h``) at ``mfu`` → the run's GPUs, time and FLOPs."""
    from dimlint.memory import parse_budget

    budget, colon, time = text.rpartition(":")
    match = _TIME.match(time) if colon else None
    if match is None:
        raise UsageError(
            f"--train-budget {text!r} is not NxGPU:TIME (e.g. 1024xH100-80GB:30d or"
            " 8xA100-80GB:720h; TIME in hours h or days d)"
        )
    seconds = float(match.group(1)) * _SECONDS[match.group(2).lower()]
    if not 0 < seconds <= MAX_DAYS * 86400:
        raise UsageError(f"--train-budget {text!r}: the time must be above 0 and at most 10 years")
    try:
        count, gpu = parse_budget(budget)
    except ValueError as error:
        raise UsageError(f"--train-budget {text!r}: {error}") from None
    if gpu.name not in PEAK_BF16:
        raise UsageError(
            f"--train-budget {text!r}: the peak BF16 FLOP/s of {gpu.name} is not known (known:"
            f" {', '.join(PEAK_BF16)}); give the compute itself with --flops"
        )
    if mfu is not None and not 0 < mfu <= 1:
        raise UsageError(f"--mfu {mfu}: a share of the peak, above 0 and at most 1 (e.g. 0.4)")
    peak, source = PEAK_BF16[gpu.name]
    chosen = DEFAULT_MFU if mfu is None else mfu
    return TrainBudget(budget.strip(), count, gpu.name, seconds, peak, chosen, source)
