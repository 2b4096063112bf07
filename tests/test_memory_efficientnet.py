"""EfficientNet counted as transformers builds it
(:mod:`dimlint.memory.parameters.efficientnet_blocks`): B0–B7 and perturbed configs against
meta-device builds, hostile values refused, and ``mem`` on a B0 config (it used to say "no
hidden size found")."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dimlint.memory.parameters.efficientnet_blocks import block_tensors
from dimlint.memory.parameters.templates import Refusal

CLASSES = ("EfficientNetModel", "EfficientNetForImageClassification")
#: (width coefficient, depth coefficient, hidden_dim) of google/efficientnet-b0 … b7.
RELEASED = {
    "b0": (1.0, 1.0, 1280), "b1": (1.0, 1.1, 1280), "b2": (1.1, 1.2, 1408),
    "b3": (1.2, 1.4, 1536), "b4": (1.4, 1.8, 1792), "b5": (1.6, 2.2, 2048),
    "b6": (1.8, 2.6, 2304), "b7": (2.0, 3.1, 2560),
}  # fmt: skip


def _counts(raw: dict[str, Any], architecture: str) -> tuple[int, int | None, bool]:
    import released_ground_truth as truth

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    document = {"model_type": "efficientnet", "architectures": [architecture], **raw}
    expected, why = truth.transformers_count(document)
    assert expected is not None, why
    ours, exact, _ = truth.dimlint_count(document)
    return expected, ours, exact


@pytest.mark.parametrize("variant", sorted(RELEASED))
@pytest.mark.parametrize("architecture", CLASSES)
def test_released_scalings_are_exact(variant: str, architecture: str) -> None:
    width, depth, hidden = RELEASED[variant]
    raw = {"width_coefficient": width, "depth_coefficient": depth, "hidden_dim": hidden,
           "id2label": {str(i): f"class {i}" for i in range(5)}}  # fmt: skip
    expected, ours, exact = _counts(raw, architecture)
    assert (ours, exact) == (expected, True)


def _perturbed(seed: int) -> dict[str, Any]:
    """A config no release has: other stage counts, widths, kernels, ratios and divisors."""
    draw = random.Random(seed)
    stages = draw.randint(1, 8)

    def per_stage(low: int, high: int) -> list[int]:
        return [draw.randint(low, high) for _ in range(stages)]

    return {
        "width_coefficient": draw.choice([0.5, 1.0, 1.3, 2.2, 3.7]),
        "depth_coefficient": draw.choice([0.4, 1.0, 1.7, 2.5]),
        "depth_divisor": draw.choice([1, 4, 8, 16]),
        "in_channels": per_stage(1, 300),
        "out_channels": per_stage(1, 300),
        "kernel_sizes": [draw.choice([1, 3, 5]) for _ in range(stages)],
        "num_block_repeats": per_stage(0, 3),
        "expand_ratios": [draw.choice([1, 2, 6]) for _ in range(stages)],
        "strides": [draw.choice([1, 2]) for _ in range(stages)],
        "squeeze_expansion_ratio": draw.choice([0.1, 0.25, 0.5]),
        "hidden_dim": draw.randint(100, 3000),
        "num_channels": draw.choice([1, 3, 4]),
        "num_labels": draw.randint(1, 20),
    }


@pytest.mark.parametrize("seed", range(12))
def test_perturbed_configs_are_exact(seed: int) -> None:
    raw = _perturbed(seed)
    for architecture in CLASSES:
        expected, ours, exact = _counts(raw, architecture)
        assert (ours, exact) == (expected, True), (architecture, raw)


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ({"width_coefficient": 1e300}, "wider layers"),
        ({"depth_coefficient": float("inf")}, "not finite"),
        ({"num_block_repeats": [10**40] * 7}, "more blocks"),
        ({"in_channels": []}, "no stage"),
        ({"kernel_sizes": [3]}, "fewer items"),
        ({"hidden_dim": True}, "not a positive integer"),
        ({"expand_ratios": "six"}, "not a list"),
    ],
)
def test_hostile_values_are_refused_with_the_reason(raw: dict[str, Any], why: str) -> None:
    counted = block_tensors({"model_type": "efficientnet", **raw}, "EfficientNetModel")
    assert isinstance(counted, Refusal)
    assert why in counted.reason


def test_mem_counts_an_efficientnet_config(tmp_path: Path) -> None:
    """A convolutional network states no hidden size; ``mem`` still gives its exact count."""
    raw = {"width_coefficient": 1.0, "depth_coefficient": 1.0, "hidden_dim": 1280,
           "id2label": {"0": "cat", "1": "dog"}}  # fmt: skip
    expected, _, _ = _counts(raw, "EfficientNetForImageClassification")
    path = tmp_path / "config.json"
    document = {"model_type": "efficientnet", **raw,
                "architectures": ["EfficientNetForImageClassification"]}  # fmt: skip
    path.write_text(json.dumps(document))
    done = subprocess.run(
        [sys.executable, "-m", "dimlint", "mem", str(path), "--output-format", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    params = json.loads(done.stdout)["params"]
    assert (params["total"], params["exact"]) == (expected, True)
