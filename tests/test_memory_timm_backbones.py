"""Types whose default config needs timm, learned where a keyword flips it off
(:mod:`dimlint.tools.popped_flags`): DETR saved by recent transformers states
``use_timm_backbone: false`` beside a ResNet ``backbone_config``. Against transformers on the
meta device; a config the template cannot vouch for must not be labelled exact."""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.tools.popped_flags import popped_flags

pytestmark = pytest.mark.skipif(not templates.row("detr"), reason="no shapes table")

#: facebook/detr-resnet-50 as transformers 4.3x saves it (labels left out).
RESNET = {"model_type": "resnet", "depths": [3, 4, 6, 3], "embedding_size": 64,
          "hidden_sizes": [256, 512, 1024, 2048], "layer_type": "bottleneck",
          "out_features": ["stage4"], "out_indices": [4]}  # fmt: skip
DETR = {"model_type": "detr", "architectures": ["DetrForObjectDetection"],
        "use_timm_backbone": False, "backbone_config": RESNET, "d_model": 256,
        "encoder_layers": 6, "decoder_layers": 6, "num_queries": 100}  # fmt: skip


def _counts(raw: dict[str, Any]) -> tuple[int | None, int | None, bool]:
    import released_ground_truth as truth

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    expected, _ = truth.transformers_count(raw)
    ours, exact, _ = truth.dimlint_count(raw)
    return expected, ours, exact


def test_the_popped_keyword_is_read_from_the_source() -> None:
    transformers = pytest.importorskip("transformers")
    assert popped_flags(transformers.DetrConfig) == {"use_timm_backbone": True}
    assert popped_flags(transformers.LlamaConfig) == {}


def test_the_regime_was_learned() -> None:
    row = templates.row("detr") or {}
    assert ["use_timm_backbone", "=", False] in row.get("regimes", [])
    variant = row.get("variants", {}).get("use_timm_backbone=false", {})
    assert "DetrForObjectDetection" in variant.get("classes", {})


@pytest.mark.parametrize(
    "change",
    [
        {},  # detr-resnet-50
        {"backbone_config": {**RESNET, "depths": [3, 4, 23, 3]}},  # detr-resnet-101
        {"num_queries": 300, "d_model": 512, "encoder_layers": 3},
        {"id2label": {str(i): f"L{i}" for i in range(91)}},
    ],
)
def test_released_layouts_are_exact(change: dict[str, Any]) -> None:
    expected, ours, exact = _counts({**DETR, **change})
    assert (ours, exact) == (expected, True)


@pytest.mark.parametrize(
    "change",
    [
        # ResNet-18 as the backbone: basic blocks, the first stage as wide as the stem
        {
            "backbone_config": {
                **RESNET,
                "layer_type": "basic",
                "depths": [2, 2, 2, 2],
                "hidden_sizes": [64, 128, 256, 512],
            }
        },
        {"backbone_config": {**RESNET, "embedding_size": 256}},
        {"backbone_config": {"model_type": "swin", "out_features": ["stage4"]}},
        {"backbone_config": {**RESNET, "out_features": ["stage3"], "out_indices": [3]}},
        {"use_timm_backbone": True},
    ],
)
def test_no_false_exact_outside(change: dict[str, Any]) -> None:
    expected, ours, exact = _counts({**DETR, **change})
    if exact:
        assert ours == expected
