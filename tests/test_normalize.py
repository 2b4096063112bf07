"""Normalization reads what transformers reads: a known model type's own fields only."""

from __future__ import annotations

from dimlint.memory import count_parameters
from dimlint.normalize import specs_for_document

NEOX = {
    "model_type": "gpt_neox",
    "hidden_size": 512,
    "num_attention_heads": 8,
    "num_hidden_layers": 2,
    "intermediate_size": 2048,
    "vocab_size": 1024,
}


def test_keys_the_model_type_does_not_have_are_ignored() -> None:
    # GPT-NeoX has no grouped-query attention: transformers ignores num_key_value_heads there.
    (plain,) = specs_for_document("config.json", NEOX)
    (with_kv,) = specs_for_document("config.json", {**NEOX, "num_key_value_heads": 2})
    assert with_kv.kv_heads is None
    assert count_parameters(with_kv).total == count_parameters(plain).total


def test_unknown_model_types_read_the_common_spellings() -> None:
    config = {"model_type": "my_remote_model", "n_embd": 768, "n_head": 12, "n_layer": 2}
    (spec,) = specs_for_document("config.json", config)
    assert (spec.hidden, spec.heads, spec.layers) is not None
    assert spec.hidden is not None and spec.hidden.value == 768
    assert spec.heads is not None and spec.heads.value == 12
