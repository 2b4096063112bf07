"""Sub-configs the default config leaves unset (``absent_towers``): a stated one is outside."""

from __future__ import annotations

import pytest

from dimlint.memory.parameters.absent_towers import stated_absent

ROW = {"absent": ["audio_config", "vision_config"]}


def test_a_stated_absent_sub_config_is_outside() -> None:
    why = stated_absent({"model_type": "gemma4", "audio_config": {}}, ROW, {})
    assert why is not None
    assert why.startswith("audio_config is stated")


def test_an_absent_sub_config_stated_null_or_left_out_is_inside() -> None:
    assert stated_absent({"model_type": "gemma4", "vision_config": None}, ROW, {}) is None
    assert stated_absent({"model_type": "gemma4", "text_config": {}}, ROW, {}) is None
    assert stated_absent({"audio_config": {}}, {}, {}) is None  # a row recording none


def test_a_tower_the_chosen_variant_was_learned_stating_is_inside() -> None:
    raw = {"model_type": "gemma4", "vision_config": {"hidden_size": 1152}}
    assert stated_absent(raw, ROW, {"vision_config": {}}) is None
    both = {**raw, "audio_config": {}}
    why = stated_absent(both, ROW, {"vision_config": {}})
    assert why is not None
    assert why.startswith("audio_config is stated")


def test_the_table_records_the_towers_gemma4s_default_leaves_unset() -> None:
    pytest.importorskip("transformers")
    from transformers import AutoConfig

    from dimlint.memory.parameters import templates

    config = AutoConfig.for_model("gemma4")
    unset = sorted(key for key in config.sub_configs if getattr(config, key) is None)
    assert unset == ["audio_config", "vision_config"]
    learned = templates.row("gemma4")
    assert learned is not None
    assert learned.get("absent") == unset
