"""Gemma-4's released text configs as their config.json states them (google/gemma-4-31B and
google/gemma-4-26B-A4B, ``text_config``): global layers wider (``global_head_dim``) with their
own KV-head count (``num_global_key_value_heads``), keys read as values there
(``attention_k_eq_v``: no ``v_proj``), and for 26B-A4B experts beside each layer's dense MLP
(``enable_moe_block``). The shape template, learned at the default, covers none of these;
``gemma4_layers`` lays the model out layer by layer, and its count, labelled exact, must be
what transformers builds on the meta device."""

from __future__ import annotations

from typing import Any

import pytest
import released_ground_truth as truth

pytest.importorskip("torch")
pytest.importorskip("transformers")

_FIVE_TO_ONE = ["sliding_attention"] * 5 + ["full_attention"]

GEMMA4_31B: dict[str, Any] = {
    "model_type": "gemma4_text",
    "architectures": ["Gemma4ForCausalLM"],
    "hidden_size": 5376,
    "intermediate_size": 21504,
    "num_hidden_layers": 60,
    "num_attention_heads": 32,
    "num_key_value_heads": 16,
    "num_global_key_value_heads": 4,
    "head_dim": 256,
    "global_head_dim": 512,
    "attention_k_eq_v": True,
    "sliding_window": 1024,
    "layer_types": _FIVE_TO_ONE * 10,
    "final_logit_softcapping": 30.0,
    "vocab_size": 262144,
    "hidden_size_per_layer_input": 0,
    "num_kv_shared_layers": 0,
    "tie_word_embeddings": True,
}

GEMMA4_26B_A4B: dict[str, Any] = {
    **GEMMA4_31B,
    "hidden_size": 2816,
    "intermediate_size": 2112,
    "num_hidden_layers": 30,
    "layer_types": _FIVE_TO_ONE * 5,
    "num_attention_heads": 16,
    "num_key_value_heads": 8,
    "num_global_key_value_heads": 2,
    "enable_moe_block": True,
    "num_experts": 128,
    "top_k_experts": 8,
    "moe_intermediate_size": 704,
}


@pytest.mark.parametrize("config", [GEMMA4_31B, GEMMA4_26B_A4B], ids=["31B", "26B-A4B"])
def test_released_text_configs_are_exact(config: dict[str, Any]) -> None:
    built, why = truth.transformers_count(config)
    assert built is not None, why
    assert truth.dimlint_count(config)[:2] == (built, True)


#: Gemma-4 composites whose stated keys the default-only template never saw: a tower the
#: default config leaves unset (``audio_config``, ``vision_config``: the row's ``absent``) and
#: keys its text config class pops from ``**kwargs`` (``global_head_dim``,
#: ``num_global_key_value_heads``). Each was once counted exact at the default's size, then
#: as an estimate; each is now counted as transformers builds it.
OUTSIDE: dict[str, dict[str, Any]] = {
    "audio tower": {"model_type": "gemma4", "audio_config": {}},
    "vision tower": {"model_type": "gemma4", "vision_config": {"model_type": "gemma4_vision"}},
    "global head width": {"model_type": "gemma4", "text_config": {"global_head_dim": 128}},
    "global kv heads": {
        "model_type": "gemma4",
        "text_config": {"attention_k_eq_v": True, "num_global_key_value_heads": 2},
    },
}


@pytest.mark.parametrize("config", list(OUTSIDE.values()), ids=list(OUTSIDE))
def test_composite_keys_the_template_never_saw_are_counted(config: dict[str, Any]) -> None:
    default, _ = truth.transformers_count({"model_type": "gemma4"})
    built, why = truth.transformers_count(config)
    assert built is not None, why
    assert built != default  # the stated key changes the model
    assert truth.dimlint_count(config)[:2] == (built, True)


def test_the_default_tower_less_model_stays_exact() -> None:
    config = {"model_type": "gemma4", "audio_config": None, "text_config": {"global_head_dim": 512}}
    built, why = truth.transformers_count({"model_type": "gemma4"})
    assert built is not None, why
    assert truth.dimlint_count({"model_type": "gemma4", "audio_config": None}) == (built, True, "")
    ours, _, _ = truth.dimlint_count(config)
    assert ours == built  # the fallback width stated: the count holds, labelled or not
