"""Undeclared names a model's code reads with a fallback (:mod:`dimlint.tools.undeclared_reads`).

The source snippets are the forms transformers' modeling code uses (counted over its modeling
modules: 164 ``getattr(config, "head_dim", config.hidden_size // config.num_attention_heads)``,
226 ``getattr(config, "head_dim", None) or …``); the expected values are worked out by hand.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from dimlint.tools.undeclared_reads import absent_value, config_reads, fallbacks

QWEN3_MOE = """
class Qwen3MoeAttention(nn.Module):
    def __init__(self, config, layer_idx):
        self.head_dim = getattr(
            config, "head_dim", config.hidden_size // config.num_attention_heads
        )
        self.sliding_window = getattr(config, "sliding_window", None)
"""
ROPE = """
def compute_default_rope_parameters(config):
    dim = getattr(config, "head_dim", None) or config.hidden_size // config.num_attention_heads
"""
MODULE_STATE = """
class Attention(nn.Module):
    def __init__(self, config):
        self.head_dim = getattr(config, "head_dim", self.hidden_size // self.num_heads)
"""
OTHER = """
def f(text_config):
    width = getattr(text_config, "head_dim", text_config.hidden_size // 8)
    plain = getattr(model, "head_dim", 3)
"""

CONFIG = SimpleNamespace(hidden_size=2048, num_attention_heads=32)


def test_a_fallback_expression_is_evaluated_on_the_config() -> None:
    found = fallbacks([QWEN3_MOE])
    assert set(found) == {"head_dim"}  # sliding_window sizes no tensor: not a shape name
    assert absent_value(found["head_dim"], CONFIG) == 64


def test_none_or_a_fallback_reads_the_fallback() -> None:
    found = fallbacks([ROPE, QWEN3_MOE])
    assert len(found["head_dim"]) == 2
    assert absent_value(found["head_dim"], CONFIG) == 64


def test_a_fallback_on_module_state_is_not_learned() -> None:
    """``self.hidden_size // self.num_heads`` reads the module, not the config: unknown."""
    found = fallbacks([MODULE_STATE])
    assert absent_value(found["head_dim"], CONFIG) is None


def test_fallbacks_that_disagree_are_not_learned() -> None:
    disagreeing = QWEN3_MOE.replace("// config.num_attention_heads", "// 16")
    found = fallbacks([QWEN3_MOE, disagreeing])
    assert absent_value(found["head_dim"], CONFIG) is None


def test_only_reads_of_a_config_count() -> None:
    """``text_config`` is a config (its fallback reads another object: not evaluable); a
    ``getattr`` on anything else is not a config read."""
    found = fallbacks([OTHER])
    assert len(found["head_dim"]) == 1
    assert absent_value(found["head_dim"], CONFIG) is None


def test_a_bare_none_fallback_leaves_the_name_unknown() -> None:
    found = fallbacks(['x = getattr(config, "head_dim", None)\n'])
    assert found == {"head_dim": [None]}
    assert absent_value(found["head_dim"], CONFIG) is None


def test_qwen3_moe_reads_an_undeclared_head_dim() -> None:
    """The installed transformers: Qwen3MoeConfig declares no head_dim, its attention reads
    one, falling back to hidden_size // num_attention_heads (2048 // 32 at the default)."""
    transformers = pytest.importorskip("transformers")
    from dimlint.tools.generate_shapes import _sub_configs
    from dimlint.tools.undeclared_reads import candidates

    config = transformers.AutoConfig.for_model("qwen3_moe")
    assert candidates(config, _sub_configs(config)) == {"head_dim": 64}
    declared = transformers.AutoConfig.for_model("llama")  # LlamaConfig declares head_dim
    assert "head_dim" not in candidates(declared, _sub_configs(declared))


DEBERTA = """
class DisentangledSelfAttention(nn.Module):
    def __init__(self, config):
        self.share_att_key = getattr(config, "share_att_key", False)
        self.position_buckets = getattr(config, "position_buckets", -1)
        self.norm_rel_ebd = getattr(config, "norm_rel_ebd", "none").lower().split("|")
        kernel_size = getattr(config, "conv_kernel_size", 3)
        self.conv = ConvLayer(config) if getattr(config, "conv_kernel_size", 0) > 0 else None
        width = getattr(module, "position_buckets", 7)
        other = getattr(config, "embedding_size", config.hidden_size)
"""


def test_constant_fallbacks_of_any_name_are_collected() -> None:
    from dimlint.tools.undeclared_reads import constant_fallbacks

    found = constant_fallbacks([DEBERTA])
    assert found["share_att_key"] == [False]
    assert found["position_buckets"] == [-1]  # -1 is a unary minus, read as the constant
    assert found["norm_rel_ebd"] == ["none"]
    assert found["conv_kernel_size"] == [3, 0]  # both fallbacks, in order
    assert "embedding_size" not in found  # an expression, not a constant
    assert constant_fallbacks(["def broken(:"]) == {}


def test_deberta_v2_reads_undeclared_names_with_constant_fallbacks() -> None:
    transformers = pytest.importorskip("transformers")
    from dimlint.tools.undeclared_reads import constant_candidates

    config = transformers.AutoConfig.for_model("deberta-v2")
    found = constant_candidates(config, {})
    assert found["position_buckets"] == [-1]
    assert found["norm_rel_ebd"] == ["none"]
    assert "relative_attention" not in found  # declared by the config class
    stated = transformers.AutoConfig.for_model("deberta-v2", position_buckets=256)
    assert "position_buckets" not in constant_candidates(stated, {})  # held: not undeclared


def test_every_name_read_off_a_config_is_collected() -> None:
    # DeBERTa-v2 sizes its embeddings by an undeclared embedding_size; BERT only tests for it
    # (a width its heads do not divide is allowed beside one); module state is no config
    source = """
class Embeddings(nn.Module):
    def __init__(self, config):
        self.embedding_size = getattr(config, "embedding_size", config.hidden_size)
        if config.hidden_size % config.heads and not hasattr(config, "embedding_size"):
            raise ValueError
        self.bias = getattr(self.config, "conv_bias")
        self.other = getattr(self, "image_size", 3)
"""
    assert config_reads([source]) == {"embedding_size", "conv_bias"}
