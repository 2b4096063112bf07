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


def test_a_head_width_declared_under_another_name_is_the_default_head_dim() -> None:
    """SwitchTransformersConfig declares ``d_kv`` (64) without T5's ``head_dim`` alias, and its
    attention is ``num_heads × d_kv`` wide whatever ``d_model``: transformers' own router test
    builds ``SwitchTransformersConfig(hidden_size=8)`` (12 heads) and runs it. The head width
    is explicit, so DL101 has nothing to say; a written ``d_kv`` still wins."""
    config = {"model_type": "switch_transformers", "d_model": 8}
    (spec,) = specs_for_document("config.json", config)
    assert spec.heads is not None
    assert spec.head_dim is not None
    assert (spec.heads.value, spec.head_dim.value) == (12, 64)
    assert (spec.head_dim.key, spec.head_dim.origin) == ("d_kv", "default")
    (written,) = specs_for_document("config.json", {**config, "d_kv": 4})
    assert written.head_dim is not None
    assert written.head_dim.value == 4


def test_other_fields_take_no_default_from_a_spelling() -> None:
    """Swin declares ``embed_dim`` (the first stage's width, not the model's ``hidden_size``):
    a spelling's default is the head width's alone."""
    (spec,) = specs_for_document("config.json", {"model_type": "swin"})
    assert spec.hidden is None or spec.hidden.key != "embed_dim"


def test_heads_a_class_does_not_declare_are_not_the_models() -> None:
    """SwiftFormer has no attention heads: a ``num_attention_heads`` given to its config is a
    stray attribute (transformers' own config test passes 12 with a width of 32), so no rule
    reads it. A composite class still reads the flat legacy heads of its text model."""
    stray = {"model_type": "swiftformer", "hidden_size": 32, "num_attention_heads": 12}
    (spec,) = specs_for_document("config.json", stray)
    assert spec.heads is None
    flat = {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28}
    composite = specs_for_document("config.json", flat)[0]
    assert composite.heads is not None
    assert composite.heads.value == 28


def test_a_rotated_fraction_the_class_sets_by_default_is_the_default() -> None:
    """Phi's and GLM-4's configs set ``partial_rotary_factor`` 0.5 in ``__post_init__`` (no
    dataclass field): a config that leaves it out rotates half of each head, not all of it."""
    (spec,) = specs_for_document("config.json", {"model_type": "glm4_moe"})
    assert spec.partial_rotary_factor is not None
    assert spec.partial_rotary_factor.value == 0.5
    (llama,) = specs_for_document("config.json", {"model_type": "llama"})
    assert llama.partial_rotary_factor is None


def test_the_generator_reads_only_literal_fractions() -> None:
    from dimlint.tools.generate_architectures import _BC_FRACTION

    def found(line: str) -> list[str]:
        return list(_BC_FRACTION.findall(line))

    assert found('kwargs.setdefault("partial_rotary_factor", 0.5)  # BC') == ["0.5"]
    legacy = (
        'self.rope_parameters.setdefault("partial_rotary_factor", kwargs.pop("rotary_pct", 0.25))'
    )
    assert found(legacy) == ["0.25"]
    assert found('kwargs.setdefault("partial_rotary_factor", rotary_dim / self.head_dim)') == []
    assert found('text_config.setdefault("partial_rotary_factor", 0.5)') == []  # a sub-config's
