"""A config stating both names of an ``attribute_map`` pair is read as transformers reads it.

transformers sets a config class's declared dataclass fields first and every other keyword
afterwards, through the map, so where both names are stated the one that is not a declared
field wins: BART's ``num_hidden_layers`` (an alias) over its field ``encoder_layers``, and
Qwen3-MoE's ``num_local_experts`` (the attribute its field ``num_experts`` maps to) over
``num_experts``. A probe stating ``num_local_experts`` 129 beside a released Qwen3-30B-A3B's
``num_experts`` 128 found 128 experts counted and labelled exact. Each count is compared with the
model transformers builds on the meta device.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")

import released_ground_truth as truth  # noqa: E402

QWEN3_MOE = Path(__file__).parent / "data/released_configs/tune"
QWEN3_MOE /= "casys-kaist__LLMServingSim__configs__model__Qwen__Qwen3-30B-A3B-Instruct-2507.json"


def _qwen3_moe(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(QWEN3_MOE.read_text(encoding="utf-8"))
    raw.update(num_hidden_layers=2, **changes)
    return raw


@pytest.mark.parametrize(
    "changes",
    [
        {"num_local_experts": 129},  # beside the stated num_experts 128: it wins
        {"num_local_experts": 64, "num_experts": None},  # alone
        {"num_local_experts": 128},  # equal to the field: nothing changes
    ],
)
def test_qwen3_moe_expert_count_as_transformers_reads_it(changes: dict[str, Any]) -> None:
    raw = _qwen3_moe(**changes)
    raw = {key: value for key, value in raw.items() if value is not None}
    expected, ours, exact = truth.compared(raw)
    assert (ours, exact) == (expected, True)


@pytest.mark.parametrize(("encoder_layers", "num_hidden_layers"), [(24, 12), (12, 24)])
def test_bart_alias_wins_over_its_field(encoder_layers: int, num_hidden_layers: int) -> None:
    raw = transformers.AutoConfig.for_model("bart").to_dict()
    raw.update(
        architectures=["BartModel"],
        encoder_layers=encoder_layers,
        num_hidden_layers=num_hidden_layers,
    )
    expected, ours, exact = truth.compared(raw)
    assert (ours, exact) == (expected, True)


def test_checks_read_the_alias_that_wins() -> None:
    # every door reads one model: the layer count the checks and KV see is transformers' too
    from dimlint.config.normalize import specs_for_document

    raw = transformers.AutoConfig.for_model("bart").to_dict()
    raw.update(encoder_layers=24, num_hidden_layers=12)
    spec = specs_for_document("config.json", raw)[0]
    assert spec.layers is not None
    assert (spec.layers.value, spec.layers.key) == (12, "num_hidden_layers")
    raw.pop("model_type")
    built = transformers.AutoConfig.for_model("bart", **raw)
    assert built.encoder_layers == 12
