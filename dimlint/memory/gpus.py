"""GPUs and budgets: the memory each device *reports*, not the marketing number.

An "80GB" H100 reports 81,559 MiB (85.5 GB) to ``nvidia-smi`` and to the engine, and vLLM sizes
its cache inside ``gpu_memory_utilization`` (default 0.9) of that figure. Each entry records
where its figure comes from; ``estimate`` marks those not read off a device report.
"""

from __future__ import annotations

import re
from decimal import Decimal

from dimlint.records import Record

MIB = 1024 * 1024

#: vLLM's default share of device memory it may use (``--gpu-memory-utilization``).
GPU_MEMORY_UTILIZATION = 0.9


class GPU(Record):
    """One device model: its catalogue name and the memory it reports, in bytes."""

    name: str
    memory_bytes: int
    #: where the figure comes from
    source: str = ""
    #: True when the figure is not a device report (vendor capacity, or unverified)
    estimate: bool = False

    def usable_bytes(self, utilization: float = GPU_MEMORY_UTILIZATION) -> int:
        """The part an engine may use (vLLM: ``gpu_memory_utilization`` of the total)."""
        return int(self.memory_bytes * utilization)


_MODAL = "nvidia-smi totals listed in modal-labs/modal-client PR #2797"

GPUS: dict[str, GPU] = {
    gpu.name: gpu
    for gpu in (
        GPU("A100-40GB", 40_960 * MIB, _MODAL),
        GPU("A100-80GB", 81_920 * MIB, _MODAL),
        GPU("H100-80GB", 81_559 * MIB, _MODAL),
        GPU(
            "H100-94GB",
            95_830 * MIB,
            "nvidia-smi total as commonly reported for H100 NVL; not verified against a device",
            estimate=True,
        ),
        GPU(
            "H200-141GB",
            143_771 * MIB,
            "nvidia-smi total as commonly reported for H200 SXM; not verified against a device",
            estimate=True,
        ),
        GPU("B200", 183_359 * MIB, "nvidia-smi in NVIDIA/TensorRT-LLM issue #10278"),
        GPU("L4", 23_034 * MIB, _MODAL),
        GPU("L40S", 46_068 * MIB, _MODAL),
        GPU("RTX4090-24GB", 24_564 * MIB, "nvidia-smi in RLinf/RLinf issue #255"),
        GPU("RTX3090-24GB", 24_576 * MIB, "nvidia-smi in noonghunna/club-3090 issue #32"),
        GPU(
            "MI300X-192GB",
            206_141_652_992,
            "rocm-smi 'VRAM Total Memory' in ROCm/legacy-rocm-build issue #4750",
        ),
    )
}

#: Spellings users type for catalogue names that are not a prefix of them.
_ALIASES = {
    "A100-40G": "A100-40GB",
    "A100-80G": "A100-80GB",
    "B200-192GB": "B200",
    "L40S-48GB": "L40S",
    "L4-24GB": "L4",
    "H100-NVL": "H100-94GB",
}

#: A card given by its memory alone: ``24GiB``, ``80GB``, ``1.5TB`` (any card not listed).
_MEMORY = re.compile(r"^\s*(\d{1,7}(?:\.\d{1,3})?)\s*(GB|GIB|TB|TIB)\s*$", re.IGNORECASE)
#: Bytes per unit, and how the unit is spelled and explained in output.
_UNITS = {
    "GB": (10**9, "GB", "10^9"),
    "GIB": (2**30, "GiB", "2^30"),
    "TB": (10**12, "TB", "10^12"),
    "TIB": (2**40, "TiB", "2^40"),
}


def memory_gpu(text: str) -> GPU | None:
    """The card a budget names by its memory (``24GiB``: 24 × 2^30 bytes; ``24GB``: 24 × 10^9
    bytes, as drive and GPU vendors count), or None when ``text`` is not one. The name says
    which unit it was, so every output that shows the card shows the unit too."""
    match = _MEMORY.match(text)
    if match is None:
        return None
    number, (scale, unit, power) = match.group(1), _UNITS[match.group(2).upper()]
    memory = int(Decimal(number) * scale)
    if memory < 2**30:
        raise ValueError(f"budget {text!r}: a GPU has at least 1 GiB of memory")
    return GPU(
        f"{number} {unit}, 1 {unit} = {power} bytes",
        memory,
        f"the budget's memory as written: {number} {unit} = {memory:,} bytes",
    )


def gpu_named(name: str) -> GPU:
    """Look a GPU up by name (case and separators ignored), or take a memory size
    (:func:`memory_gpu`); a ValueError lists the known ones, or the catalogue entries an
    ambiguous name matches (``H100``: the 80 and 94 GB cards)."""
    custom = memory_gpu(name)
    if custom is not None:
        return custom
    wanted = _key(name)
    for candidate in (*GPUS, *_ALIASES):
        if _key(candidate) == wanted:
            return GPUS[_ALIASES.get(candidate, candidate)]
    matches = [gpu for gpu in GPUS if wanted and _key(gpu).startswith(wanted)]
    if len(matches) == 1:
        return GPUS[matches[0]]
    if matches:
        raise ValueError(
            f"GPU {name!r} is ambiguous: it matches {', '.join(matches)}; name one of them, or"
            " give the memory per GPU (e.g. 2x80GiB or 2x80GB)"
        )
    known = ", ".join(GPUS)
    raise ValueError(
        f"unknown GPU {name!r}: known GPUs are {known}; another card can be given by its memory"
        " (e.g. 2x24GiB, 2x24GB)"
    )


def _key(name: str) -> str:
    return "".join(char for char in name.upper() if char.isalnum())


def parse_budget(text: str) -> tuple[int, GPU]:
    """``8xH100-80GB`` → ``(8, GPU(H100-80GB…))``; ``2x24GiB`` → two cards of 24 GiB; a bare
    name or memory means one GPU."""
    from dimlint.config.values import MAX_COUNT

    spec = text.strip()
    count = 1
    for separator in ("x", "X", "×", "*"):
        head, sep, tail = spec.partition(separator)
        if sep and head.strip().isascii() and head.strip().isdigit():
            if len(head.strip()) > 16 or int(head) > MAX_COUNT:
                raise ValueError(f"budget {text!r}: at most 10^15 GPUs")
            count, spec = int(head), tail.strip()
            break
    if count < 1:
        raise ValueError(f"budget {text!r}: the GPU count must be at least 1")
    return count, gpu_named(spec)
