"""DL006: the installed transformers is asked whether it builds the config (hf extra)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import lint_text

pytest.importorskip("transformers")

LLAMA = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "intermediate_size": 14336,
    "vocab_size": 128256,
}


def dl006(config: dict[str, object]) -> list[str]:
    found = lint_text(json.dumps(config, indent=2), select=("DL006",))
    return [d.message for d in found if d.code == "DL006"]


def test_valid_config_is_accepted() -> None:
    assert dl006(LLAMA) == []


def test_refusal_is_reported_with_transformers_message() -> None:
    (message,) = dl006({**LLAMA, "hidden_size": 4100})
    assert "refuses this config" in message
    assert "not a multiple of the number of attention heads" in message
    assert "known false" not in message


def test_refusal_of_explicit_head_dim_is_marked_known_false() -> None:
    # 40 heads of 128 with hidden 4100: legal (the projections map 4100 → 5120 → 4100),
    # but Llama's validator checks hidden % heads regardless of head_dim.
    (message,) = dl006({**LLAMA, "hidden_size": 4100, "num_attention_heads": 40, "head_dim": 128})
    assert "known false" in message


def test_wrong_type_is_refused() -> None:
    (message,) = dl006({**LLAMA, "hidden_size": 4096.0})
    assert "expected int" in message


def test_opt_in_only() -> None:
    text = json.dumps({**LLAMA, "hidden_size": 4100})
    assert "DL006" not in [d.code for d in lint_text(text)]


def test_unknown_model_types_and_nested_configs_are_not_sent() -> None:
    config = {"model_type": "my_remote_model", "auto_map": {}, "hidden_size": 4100}
    assert dl006(config) == []
