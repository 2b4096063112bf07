"""Normalization reads what transformers reads."""

from __future__ import annotations

from dimlint.config.normalize import specs_for_document


def test_undeclared_standard_keys_are_read() -> None:
    # Glm4MoeConfig declares no head_dim, but its attention reads getattr(config, "head_dim").
    config = {
        "model_type": "glm4_moe",
        "hidden_size": 4096,
        "num_attention_heads": 96,
        "head_dim": 128,
        "num_hidden_layers": 2,
        "vocab_size": 151552,
    }
    (spec,) = specs_for_document("config.json", config)
    assert spec.head_dim is not None
    assert spec.head_dim.value == 128


def test_unknown_model_types_read_the_common_spellings() -> None:
    config = {"model_type": "my_remote_model", "n_embd": 768, "n_head": 12, "n_layer": 2}
    (spec,) = specs_for_document("config.json", config)
    assert spec.hidden is not None
    assert spec.heads is not None
    assert (spec.hidden.value, spec.heads.value) == (768, 12)
