"""A Python config class gets transformers' fields and defaults only when the file imports it
from transformers (issue 20): levanter's and NeMo's classes share its names, not its meaning."""

from __future__ import annotations

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def _codes(source: str) -> list[str]:
    return [d.code for d in lint_bytes("model.py", source.encode(), Selection()).diagnostics]


#: 30 heads do not divide transformers' default LlamaConfig width (4096).
CALL = "config = LlamaConfig(num_attention_heads=30, num_hidden_layers=2)\n"


def test_an_imported_transformers_class_takes_its_defaults() -> None:
    assert "DL101" in _codes("from transformers import LlamaConfig\n" + CALL)
    assert "DL101" in _codes("import transformers\n" + CALL.replace("Llama", "transformers.Llama"))
    aliased = "from transformers import LlamaConfig as LC\n" + CALL.replace("LlamaConfig", "LC")
    assert "DL101" in _codes(aliased)


def test_a_class_of_the_same_name_from_elsewhere_gets_no_defaults() -> None:
    assert "DL101" not in _codes("from levanter.models.llama import LlamaConfig\n" + CALL)
    assert "DL101" not in _codes(CALL)


def test_a_subclass_of_an_unimported_name_is_not_transformers() -> None:
    nemo = (
        "from dataclasses import dataclass\n"
        "from nemo.collections.llm.gpt.model.base import GPTConfig\n"
        "@dataclass\nclass Qwen2Config(GPTConfig):\n"
        "    num_attention_heads: int = 30\n    num_layers: int = 2\n"
    )
    assert "DL101" not in _codes(nemo)


def test_written_values_are_still_judged_without_the_import() -> None:
    call = "cfg = LlamaConfig(hidden_size=4096, num_attention_heads=30, num_hidden_layers=2)\n"
    assert "DL101" in _codes(call)


def test_megatron_mla_names_and_defaults_of_zero() -> None:
    mla = (
        "from megatron.core.transformer import MLATransformerConfig\n"
        "config = MLATransformerConfig(num_layers=2, hidden_size=2048, num_attention_heads=16,"
        " q_lora_rank=32, kv_lora_rank=32, qk_head_dim=128, v_head_dim=128,"
        " qk_pos_emb_head_dim=64)\n"
    )
    assert _codes(mla) == []
    placeholder = (
        "from dataclasses import dataclass\n@dataclass\nclass TransformerConfig:\n"
        "    num_layers: int = 0\n    hidden_size: int = 0\n    num_attention_heads: int = 0\n"
    )
    assert _codes(placeholder) == []


def test_megatron_rounds_the_head_width_down() -> None:
    call = "config = TransformerConfig(num_layers=1, hidden_size=12, num_attention_heads=8)\n"
    megatron = "from megatron.core.transformer.transformer_config import TransformerConfig\n"
    assert "DL101" not in _codes(megatron + call)
    assert "DL101" in _codes("from mylib import TransformerConfig\n" + call)


def test_a_dict_model_type_brings_no_defaults_without_transformers() -> None:
    table = 'PARAMS = {"whisper-base": {"model_type": "whisper", "d_model": 512}}\n'
    assert _codes(table) == []


def test_omegaconf_strings_and_megatron_rope_flags_are_not_values() -> None:
    table = 'cfg = {"hidden_size": "${model_defaults.lm_enc_hidden}", "num_attention_heads": 8,'
    assert _codes(table + ' "num_layers": 2}\n') == []
    nemo = (
        "from dataclasses import dataclass\n"
        "from nemo.collections.llm.gpt.model.base import GPTConfig\n"
        "@dataclass\nclass Llama31Config(GPTConfig):\n"
        "    hidden_size: int = 4096\n    num_attention_heads: int = 32\n"
        "    num_layers: int = 32\n    rope_scaling: bool = True\n"
    )
    assert _codes(nemo) == []


def test_x_transformers_layer_stacks() -> None:
    imports = "from x_transformers import TransformerWrapper, Decoder\n"
    call = "model = TransformerWrapper(num_tokens=256, attn_layers=Decoder(dim=512, depth=6, {}))\n"
    assert _codes(imports + call.format("heads=8, attn_kv_heads=3")) == ["DL102"]
    # each head is attn_dim_head (64) wide: 6 heads need not divide 512
    assert _codes(imports + call.format("heads=6, attn_kv_heads=2")) == []
    assert _codes(call.format("heads=8, attn_kv_heads=3")) == []  # not x-transformers' Decoder


def test_olmo_core_presets() -> None:
    preset = (
        "from olmo_core.nn.transformer import TransformerConfig\n"
        "config = TransformerConfig.llama_like(d_model=4100, vocab_size=100352, n_layers=32,"
        " n_heads=32)\n"
    )
    assert "DL101" in _codes(preset)
