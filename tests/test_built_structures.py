"""Structure that field learning never showed, found by builds of the primary class:
derived fields that switch tensors off their derivation inside a flag's regime
(:mod:`dimlint.tools.relation_regimes`) and per-layer lists that size nothing
(:mod:`dimlint.tools.inert_lists`), each checked against transformers on the meta device."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from dimlint.tools import inert_lists, relation_regimes, shaping_floats

sys.path.insert(0, str(Path(__file__).parent))

# a toggled tensor (only under add_adapter = True) reading the derived output_hidden_size
ROW: dict[str, Any] = {
    "derived": {"output_hidden_size": [[1, 1, [["hidden_size", 1]]]]},
    "defaults": {"add_adapter": False, "hidden_size": 8, "output_hidden_size": 8},
    "classes": {
        "Model": {
            "tensors": [
                [
                    "adapter.conv.weight",
                    [[1, 1, []]],
                    [[[2, 1, [["output_hidden_size", 1]]]]],
                    [["add_adapter", True]],
                ],
                ["encoder.weight", [[1, 1, []]], [[[1, 1, [["hidden_size", 1]]]]], []],
            ]
        }
    },
}


def _names(changes: Mapping[str, object]) -> set[str]:
    """A model that builds adapter.proj when output_hidden_size differs from hidden_size."""
    names = {"encoder.weight"}
    if changes.get("add_adapter"):
        names.add("adapter.conv.weight")
        if changes.get("output_hidden_size", 8) != 8:
            names.add("adapter.proj.weight")
    return names


def test_candidates_are_derived_fields_read_under_a_flipped_flag() -> None:
    assert relation_regimes.candidates(ROW) == [("output_hidden_size", "add_adapter", True)]


def test_a_move_that_builds_other_tensors_is_a_relation() -> None:
    found = relation_regimes.relations(
        ROW, lambda c: {"output_hidden_size": 8}, _names, lambda v: iter([v * 2])
    )
    assert found == [["output_hidden_size", "add_adapter", True, ["adapter.proj.weight"]]]


def test_a_move_that_only_resizes_is_no_relation() -> None:
    def names(changes: Mapping[str, object]) -> set[str]:
        return {"encoder.weight", "adapter.conv.weight"} if changes else {"encoder.weight"}

    assert (
        relation_regimes.relations(
            ROW, lambda c: {"output_hidden_size": 8}, names, lambda v: iter([v * 2])
        )
        == []
    )


def test_inert_lists_need_every_list_to_build_the_defaults_tensors() -> None:
    class Config:
        pass

    import dataclasses

    @dataclasses.dataclass
    class Windowed:
        attention_window: list[int] | int = 512
        eos_token_id: int | list[int] | None = 2
        hidden_size: int = 8

    assert inert_lists.candidates(Windowed) == [("attention_window", 512)]
    assert inert_lists.candidates(Config) == []
    assert inert_lists.inert(Windowed, 4, lambda changes: "same") == ["attention_window"]
    moved = inert_lists.inert(Windowed, 4, lambda changes: changes.get("attention_window", 0))
    assert moved == []
    assert inert_lists.inert(Windowed, None, lambda changes: "same") == []


def test_float_tuples_are_inert_when_moved_items_and_one_more_build_the_same() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Clamped:
        time_step_limit: tuple[float, float] = (0.0, float("inf"))
        quantiles: tuple[float, ...] = (0.1, 0.5, 0.9)
        hidden_size: int = 8

    assert inert_lists.float_candidates(Clamped) == [
        ("time_step_limit", [0.0, float("inf")]),
        ("quantiles", [0.1, 0.5, 0.9]),
    ]

    def tensors(changes: Mapping[str, object]) -> object:
        quantiles = changes.get("quantiles", Clamped.quantiles)
        assert isinstance(quantiles, tuple | list)
        return ("head", len(quantiles))  # one output per quantile: a size

    assert inert_lists.inert_floats(Clamped, tensors) == ["time_step_limit"]


def test_empty_index_lists_are_inert_when_stated_indices_build_the_same() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Blocks:
        depthwise_padding: list[int] | tuple[int, ...] = ()
        residual_block_indices: list[int] | tuple[int, ...] = ()
        hidden_sizes: list[int] | tuple[int, ...] = (8, 16)

    assert inert_lists.index_candidates(Blocks) == ["depthwise_padding", "residual_block_indices"]

    def tensors(changes: Mapping[str, object]) -> object:
        residual = changes.get("residual_block_indices", ())
        assert isinstance(residual, tuple | list)
        return ("blocks", len(residual))  # each named block gains a residual block

    assert inert_lists.inert_index_lists(Blocks, tensors) == ["depthwise_padding"]


def test_efficientnet_padding_list_is_inert_on_the_meta_device() -> None:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import torch

    def tensors(changes: Mapping[str, object]) -> object:
        config = transformers.EfficientNetConfig(
            num_hidden_layers=8, hidden_dim=64, width_coefficient=0.5, depth_coefficient=0.5,
            **changes,
        )  # fmt: skip
        with torch.device("meta"):
            model = transformers.EfficientNetModel(config)
        return sorted((name, tuple(p.shape)) for name, p in model.named_parameters())

    assert inert_lists.inert_index_lists(transformers.EfficientNetConfig, tensors) == [
        "depthwise_padding"
    ]


def test_scaling_floats_that_build_other_tensors_are_recorded() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Scaled:
        width_coefficient: float = 2.0
        mlp_ratio: float = 4.0
        partial_rotary_factor: float = 0.5
        hidden_dropout_ratio: float = 0.1  # a dropout: never probed
        rope_scaling_factor: float = 1.0  # a rope setting: never probed
        hidden_size: int = 8

    assert [name for name, _ in shaping_floats.candidates(Scaled)] == [
        "width_coefficient",
        "mlp_ratio",
        "partial_rotary_factor",
    ]

    def tensors(changes: Mapping[str, object]) -> object:
        if changes.get("mlp_ratio") == 8.0:
            raise ValueError("rejected")
        return ("stem", changes.get("width_coefficient", 2.0))

    # the width moves a tensor; the ratio is rejected elsewhere (unknown: kept); the rotary
    # factor moves none
    assert shaping_floats.shaping(Scaled, tensors) == ["width_coefficient", "mlp_ratio"]


# ---- against transformers, on released shapes ------------------------------------------------


def _counts(raw: dict[str, Any]) -> tuple[int | None, int | None, bool]:
    from released_ground_truth import compared

    return compared(raw)


WAV2VEC2 = {
    "model_type": "wav2vec2",
    "architectures": ["Wav2Vec2ForCTC"],
    "hidden_size": 96,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 128,
    "vocab_size": 32,
    "num_conv_pos_embeddings": 16,
    "num_conv_pos_embedding_groups": 4,
    "add_adapter": True,
}


def test_wav2vec2_adapter_off_its_derivation_is_no_exact_count() -> None:
    """output_hidden_size != hidden_size builds adapter.proj: it was a false exact."""
    truth, ours, exact = _counts({**WAV2VEC2, "output_hidden_size": 128})
    assert not (exact and ours != truth)
    assert not exact


def test_wav2vec2_adapter_at_its_derivation_stays_exact() -> None:
    truth, ours, exact = _counts({**WAV2VEC2, "output_hidden_size": 96})
    assert exact
    assert ours == truth


@pytest.mark.parametrize("model_type", ["longformer", "led"])
def test_a_per_layer_attention_window_is_counted_exactly(model_type: str) -> None:
    layers = {"longformer": "num_hidden_layers", "led": "encoder_layers"}[model_type]
    raw: dict[str, Any] = {"model_type": model_type, layers: 4, "attention_window": [64] * 4}
    truth, ours, exact = _counts(raw)
    assert exact
    assert ours == truth


# ---- items of lists read within their divisions (SegFormer) ---------------------------------


def test_divisions_pair_lists_whose_items_divide_at_the_default() -> None:
    from dimlint.tools.list_items import breaks, divisions

    lists = {
        "hidden_sizes": [32, 64, 160, 256],
        "num_attention_heads": [1, 2, 5, 8],
        "depths": [2, 2, 2, 2],
        "strides": [4, 2, 2, 2],
    }
    pairs = divisions(lists)
    assert ["hidden_sizes", "num_attention_heads"] in pairs
    assert ["num_attention_heads", "hidden_sizes"] not in pairs
    assert breaks(pairs, {**lists, "hidden_sizes": [32, 65, 160, 256]})
    assert not breaks(pairs, {**lists, "hidden_sizes": [64, 128, 320, 512]})


SEGFORMER_B2 = {
    "model_type": "segformer",
    "architectures": ["SegformerForSemanticSegmentation"],
    "hidden_sizes": [64, 128, 320, 512],
    "num_attention_heads": [1, 2, 5, 8],
    "depths": [3, 4, 6, 3],
    "decoder_hidden_size": 768,
    "num_labels": 19,
}


def test_segformer_stage_widths_are_counted_exactly() -> None:
    truth, ours, exact = _counts(SEGFORMER_B2)
    assert exact
    assert ours == truth


def test_segformer_stage_width_its_heads_do_not_divide_is_no_exact_count() -> None:
    _, _, exact = _counts({**SEGFORMER_B2, "hidden_sizes": [64, 129, 320, 512]})
    assert not exact
