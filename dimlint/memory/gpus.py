"""GPUs and budgets: the memory each device *reports*, not the marketing number.

An "80GB" H100 reports 81,559 MiB (85.5 GB) to ``nvidia-smi`` and to the engine, and vLLM sizes
its cache inside ``gpu_memory_utilization`` (default 0.9) of that figure. Each entry records
where its figure comes from; ``estimate`` marks those not read off a device report.
"""

from __future__ import annotations

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

#: Spellings users type for the catalogue names.
_ALIASES = {
    "A100": "A100-80GB",
    "A100-40G": "A100-40GB",
    "A100-80G": "A100-80GB",
    "H100": "H100-80GB",
    "H200": "H200-141GB",
    "B200-192GB": "B200",
    "L40S-48GB": "L40S",
    "L4-24GB": "L4",
    "RTX4090": "RTX4090-24GB",
    "RTX3090": "RTX3090-24GB",
    "MI300X": "MI300X-192GB",
}


def gpu_named(name: str) -> GPU:
    """Look a GPU up by name (case and separators ignored); a ValueError lists the known ones."""
    wanted = _key(name)
    for candidate in (*GPUS, *_ALIASES):
        if _key(candidate) == wanted:
            return GPUS[_ALIASES.get(candidate, candidate)]
    known = ", ".join(GPUS)
    raise ValueError(f"unknown GPU {name!r}: known GPUs are {known}")


def _key(name: str) -> str:
    return "".join(char for char in name.upper() if char.isalnum())


def parse_budget(text: str) -> tuple[int, GPU]:
    """``8xH100-80GB`` → ``(8, GPU(H100-80GB…))``; a bare name means one GPU."""
    spec = text.strip()
    count = 1
    for separator in ("x", "X", "×", "*"):
        head, sep, tail = spec.partition(separator)
        if sep and head.strip().isdigit():
            count, spec = int(head), tail.strip()
            break
    if count < 1:
        raise ValueError(f"budget {text!r}: the GPU count must be at least 1")
    return count, gpu_named(spec)
