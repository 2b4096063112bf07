"""The kinds a uniform default plan can take (``dimlint.tools.plan_kinds``), on stand-in builds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dimlint.memory.parameters.sub_config_views import with_aliases_read
from dimlint.tools import plan_kinds

_PLAN = ["full_attention"] * 4


def _build(changes: Mapping[str, object]) -> tuple[dict[str, Any], object]:
    """A class that builds a convolution for ``conv`` and ``sliding_attention`` alike, rejects
    ``moe`` and attention for anything else: its tensor groups are the kinds it built."""
    plan = changes.get("layer_types", _PLAN)
    assert isinstance(plan, list)
    if "moe" in plan:
        raise ValueError("rejected")
    built = ["conv" if kind in ("conv", "sliding_attention") else "attn" for kind in plan]
    return {}, sorted(set(built))


def _read_back(changes: Mapping[str, object]) -> object:
    return changes["layer_types"]


def test_plans_are_lists_of_layer_kinds() -> None:
    lists: dict[str, list[object]] = {
        "layer_types": ["full_attention", "full"],  # one kind, two spellings
        "text_config.layer_types": ["conv", "full_attention"],
        "depths": [2, 2],
    }
    assert plan_kinds.plans(lists) == {
        "layer_types": ["full_attention", "full"],
        "text_config.layer_types": ["conv", "full_attention"],
    }


def _by_kind(changes: Mapping[str, object]) -> tuple[dict[str, Any], object]:
    """A class that builds each kind stated as tensors of its own."""
    plan = changes["layer_types"]
    assert isinstance(plan, list)
    return {}, sorted(set(plan))


def test_a_mixed_plan_learns_the_kinds_it_lacks_and_keeps_its_own() -> None:
    kinds = ("conv", "chunked_attention")
    # the seed's two first layers would drop the one sliding layer
    for mixed in (
        ["sliding_attention", "full_attention", "full_attention", "full_attention"],
        ["full_attention", "sliding_attention", "full_attention", "full_attention"],
    ):
        base = sorted(set(mixed))
        assert plan_kinds.regime("layer_types", mixed, base, _by_kind, _read_back, kinds) is None
    mixed = ["full_attention", "full_attention", "sliding_attention", "full_attention"]
    found = plan_kinds.regime("layer_types", mixed, sorted(set(mixed)), _by_kind, _read_back, kinds)
    assert found == (
        ["chunked", "conv", "full", "sliding"],
        ["conv", "chunked_attention", "sliding_attention", "full_attention"],
    )


def test_regime_finds_the_kinds_that_build_other_tensors() -> None:
    kinds = ("full_attention", "conv", "sliding_attention", "moe", "chunked_attention")
    found = plan_kinds.regime("layer_types", _PLAN, ["attn"], _build, _read_back, kinds)
    assert found == (
        ["conv", "full", "sliding"],
        ["conv", "sliding_attention", "full_attention", "full_attention"],
    )


def test_regime_none_when_no_kind_changes_a_tensor_or_the_plan_is_too_short() -> None:
    kinds = ("full_attention", "chunked_attention")
    assert plan_kinds.regime("layer_types", _PLAN, ["attn"], _build, _read_back, kinds) is None
    short = ["full_attention"] * 2
    kinds = ("conv", "sliding_attention")
    assert plan_kinds.regime("layer_types", short, ["attn"], _build, _read_back, kinds) is None


def test_regime_none_when_the_class_rewrites_the_stated_kind() -> None:
    def rewrites(changes: Mapping[str, object]) -> object:
        return ["full_attention"] * 4

    kinds = ("conv",)
    assert plan_kinds.regime("layer_types", _PLAN, ["attn"], _build, rewrites, kinds) is None


def test_held_plans_follow_a_moved_layer_count() -> None:
    kwargs: dict[str, Any] = {
        "layer_types": ["conv", "full_attention"],
        "text_config": {"layer_types": ["conv", "full_attention", "full_attention"]},
    }
    plan_kinds.resized(kwargs, {"num_hidden_layers": 4}, {"layer_types"})
    assert kwargs["layer_types"] == ["conv", *["full_attention"] * 3]
    plan_kinds.resized(kwargs, {"text_config.num_hidden_layers": 1}, {"text_config.layer_types"})
    assert kwargs["text_config"]["layer_types"] == ["conv"]
    # a plan the change states itself, or one no variant holds, is left as stated
    plan_kinds.resized(kwargs, {"num_hidden_layers": 2, "layer_types": ["conv"]}, {"layer_types"})
    assert kwargs["layer_types"] == ["conv", *["full_attention"] * 3]


def test_sub_config_alias_keys_are_read_into_their_fields() -> None:
    rows = {
        "lfm2": {
            "legacy_keys": {"alias": {"block_ff_dim": {"field": "intermediate_size", "wins": True}}}
        }
    }
    raw: dict[str, Any] = {
        "model_type": "lfm2_vl",
        "text_config": {"model_type": "lfm2", "block_ff_dim": 12288, "intermediate_size": 8192},
    }
    read: dict[str, Any] = with_aliases_read(raw, "lfm2_vl", rows.get)
    assert read["text_config"] == {"model_type": "lfm2", "intermediate_size": 12288}
    assert raw["text_config"]["block_ff_dim"] == 12288  # the document itself is not changed
    assert with_aliases_read({"model_type": "lfm2_vl"}, "lfm2_vl", rows.get) == {
        "model_type": "lfm2_vl"
    }
