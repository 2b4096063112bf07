"""Legacy plan spellings folded as their config classes fold them (``legacy_fields``)."""

from __future__ import annotations

from typing import Any

from dimlint.memory.legacy_fields import folded, remapped_kinds


def test_lfm2_attention_indices_become_a_plan() -> None:
    raw: dict[str, Any] = {"model_type": "lfm2", "num_hidden_layers": 4, "full_attn_idxs": [1, 3]}
    read = folded(raw, "lfm2")
    assert read["layer_types"] == ["conv", "full_attention", "conv", "full_attention"]
    assert "full_attn_idxs" not in read
    assert "layer_types" not in raw  # the document itself is not changed
    # a stated plan wins; an index the class cannot read is left as written
    stated = {**raw, "layer_types": ["conv"] * 4}
    assert folded(stated, "lfm2") is stated
    broken = {**raw, "full_attn_idxs": ["1"]}
    assert folded(broken, "lfm2") is broken


def test_lfm2_plan_inside_a_vision_language_config() -> None:
    text = {"model_type": "lfm2", "num_hidden_layers": 2, "full_attn_idxs": [0]}
    read = folded({"model_type": "lfm2_vl", "text_config": text}, "lfm2_vl")
    assert read["text_config"]["layer_types"] == ["full_attention", "conv"]


def test_nemotron_h_pattern_strings_become_plans() -> None:
    raw: dict[str, Any] = {
        "model_type": "nemotron_h",
        "num_hidden_layers": 99,  # the class ignores it: the plan's length counts the layers
        "hybrid_override_pattern": "ME*-",
        "mtp_hybrid_override_pattern": "*E",
    }
    read = folded(raw, "nemotron_h")
    assert read["layers_block_type"] == ["linear_attention", "moe", "full_attention", "mlp"]
    assert read["mtp_layers_block_type"] == ["full_attention", "moe"]
    assert read["num_hidden_layers"] == 4
    assert "hybrid_override_pattern" not in read
    unknown = {"model_type": "nemotron_h", "hybrid_override_pattern": "MX"}
    assert folded(unknown, "nemotron_h") == unknown


def test_legacy_kind_names_take_their_current_names() -> None:
    raw: dict[str, Any] = {
        "layer_types": ["mamba", "attention", "conv"],
        "text_config": {"layers_block_type": ["deepseek_sparse_attention"]},
        "vision_config": {"depths": [2, 2]},
    }
    read = remapped_kinds(raw)
    assert read["layer_types"] == ["linear_attention", "full_attention", "conv"]
    assert read["text_config"]["layers_block_type"] == ["indexed_attention"]
    assert read["vision_config"] is raw["vision_config"]
    assert raw["layer_types"][0] == "mamba"
    plain = {"layer_types": ["full_attention"]}
    assert remapped_kinds(plain) is plain
