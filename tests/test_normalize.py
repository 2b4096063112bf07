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


def test_an_object_under_a_key_the_config_class_does_not_declare_is_no_model() -> None:
    """cohere_asr's released config carries NeMo's ``transf_encoder`` (``num_layers: 0``, legal
    there); CohereAsrConfig does not declare it, transformers reads no layer from it."""
    document = {
        "model_type": "cohere_asr",
        "transf_encoder": {"num_layers": 0, "hidden_size": 1024, "num_attention_heads": 8},
        "text_config": {"hidden_size": 1024, "num_attention_heads": 8},
    }
    pointers = [spec.pointer for spec in specs_for_document("config.json", document)]
    assert "/transf_encoder" not in pointers
    assert "/text_config" in pointers


def test_untyped_nested_objects_with_dimensions_are_still_read() -> None:
    """Without a known config class (a NeMo or Megatron file) nested sections are the models."""
    document = {"model": {"num_layers": 2, "hidden_size": 1024, "num_attention_heads": 8}}
    pointers = [spec.pointer for spec in specs_for_document("config.json", document)]
    assert "/model" in pointers
