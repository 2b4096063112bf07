"""Memory numbers by value (issue 25: mutants the suite let through).

Each test states a number the modeling code implies — the per-head width transformers falls back
to, the KV heads one tensor-parallel rank holds, a value head narrower than the key head, the
tensors a shape template builds — computed here from the formula, and compares it with what
``dimlint.memory`` or the template reports. The existing oracles scale both head widths to one
value and use divisible head counts, which is why these cases went unchecked.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

import dimlint
from dimlint.memory.parameters.templates import Tensor, template_tensors

BF16 = 2


def _llama(**overrides: Any) -> dict[str, Any]:
    config = {
        "model_type": "llama",
        "hidden_size": 3072,
        "num_attention_heads": 24,
        "num_key_value_heads": 4,
        "num_hidden_layers": 2,
        "vocab_size": 1000,
        "intermediate_size": 1024,
        "torch_dtype": "bfloat16",
    }
    config.update(overrides)
    return config


def _kv_per_token(config: dict[str, Any], **options: Any) -> int:
    found: int = dimlint.mem(config, context=1, **options)["kv_cache"]["bytes_per_token"]
    return found


def test_head_dim_falls_back_to_floor_division() -> None:
    """LlamaAttention: ``head_dim = hidden_size // num_attention_heads`` (4100 // 32 = 128).

    The config is invalid (DL101), so ``mem`` refuses it unless forced."""
    config = _llama(hidden_size=4100, num_attention_heads=32, num_key_value_heads=8)
    with pytest.raises(dimlint.RejectedInput, match="DL101"):
        _kv_per_token(config)
    expected = 2 * 8 * 2 * (4100 // 32) * BF16  # layers × kv heads × (k, v) × width × bytes
    assert _kv_per_token(config, force=True) == expected


def test_stated_head_dim_wins_over_the_fallback() -> None:
    config = _llama(head_dim=96)
    assert _kv_per_token(config) == 2 * 4 * 2 * 96 * BF16


def test_value_head_narrower_than_the_key_head() -> None:
    """MiMo-V2-Flash: keys of ``head_dim`` 192, values of ``v_head_dim`` 128 (or as stated)."""
    base = {
        "model_type": "mimo_v2_flash",
        "num_hidden_layers": 2,
        "layer_types": ["full_attention", "full_attention"],
    }
    layers, kv_heads, head_dim = 2, 4, 192  # the class defaults
    for v_head_dim in (128, 64):
        config = {**base, "v_head_dim": v_head_dim}
        assert _kv_per_token(config) == layers * kv_heads * (head_dim + v_head_dim) * BF16


@pytest.mark.parametrize(
    ("kv_heads", "heads", "tp"), [(4, 24, 3), (8, 48, 3), (4, 24, 8), (3, 24, 2)]
)
def test_kv_heads_per_rank_round_up(kv_heads: int, heads: int, tp: int) -> None:
    """A rank holds ``ceil(kv / tp)`` KV heads, at least one (replicated past ``tp > kv``)."""
    config = _llama(
        num_key_value_heads=kv_heads, num_attention_heads=heads, hidden_size=heads * 128
    )
    report = dimlint.mem(config, context=4096, tp=tp)
    whole = report["kv_cache"]["bytes"]
    per_rank = report["per_gpu"]["kv_cache"]
    assert per_rank * kv_heads == whole * max(1, math.ceil(kv_heads / tp))


# --- the shape templates ------------------------------------------------------------------------


def _by_name(tensors: list[Tensor] | None) -> dict[str, Tensor]:
    assert tensors is not None
    return {t.name: t for t in tensors}


def test_ast_position_embeddings_from_the_spectrogram_patches() -> None:
    """ASTEmbeddings: (f × t + 2) positions, f = (mel - patch) // 10 + 1, t = (length - patch)
    // 10 + 1 with the default strides of 10."""
    mel, length, patch, hidden = 128, 1024, 16, 768  # the class defaults
    positions = ((mel - patch) // 10 + 1) * ((length - patch) // 10 + 1) + 2
    found = _by_name(template_tensors({"model_type": "audio-spectrogram-transformer"}, "ASTModel"))
    assert found["embeddings.position_embeddings"].shape == (1, positions, hidden)


@pytest.mark.parametrize(("field", "value"), [("max_length", 512), ("num_mel_bins", 64)])
def test_a_pinned_tensor_refuses_the_template_when_its_fields_move(field: str, value: int) -> None:
    """The generator saw the position table only at its default size: no expression explains
    it, so another size must not reuse the default's shape."""
    raw = {"model_type": "audio-spectrogram-transformer", field: value}
    assert template_tensors(raw, "ASTModel") is None


def test_deit_mlp_is_the_stated_intermediate_size() -> None:
    hidden, inner, layers = 384, 1000, 12
    raw = {"model_type": "deit", "hidden_size": hidden, "intermediate_size": inner}
    found = _by_name(template_tensors(raw, "DeiTModel"))
    assert (found["layers.*.mlp.fc1.weight"].repeats, found["layers.*.mlp.fc1.weight"].shape) == (
        layers,
        (inner, hidden),
    )
    assert found["layers.*.mlp.fc2.weight"].shape == (hidden, inner)


def test_composite_text_fields_stated_at_the_top_level() -> None:
    """Older composite configs state the language model's fields beside ``vision_config``.
    Whether the config class builds its ``text_config`` from them is the class's own (Ovis2 does
    not: its top-level ``vocab_size`` sizes another tensor than the text tower's); each spelling
    is counted as transformers builds it, against a meta build."""
    from released_ground_truth import compared

    vocab = 151_680
    for raw in (
        {"model_type": "ovis2", "vocab_size": vocab},
        {"model_type": "ovis2", "text_config": {"vocab_size": vocab}},
    ):
        raw["architectures"] = ["Ovis2ForConditionalGeneration"]
        expected, ours, exact = compared(raw)
        assert (ours, exact) == (expected, True), raw


def _mimo(layer_type: str, **extra: Any) -> dict[str, Any]:
    return {
        "model_type": "mimo_v2_flash",
        "num_hidden_layers": 2,
        "layer_types": [layer_type, layer_type],
        **extra,
    }


def test_sliding_layers_of_mimo_keep_twice_the_kv_heads() -> None:
    """MiMoV2FlashAttention gives its sliding-window layers 2 × num_key_value_heads: within
    the window (16 tokens < 129) a sliding layer keeps twice a full layer's cache."""
    sliding = dimlint.mem(_mimo("sliding_attention"), context=16)["kv_cache"]["bytes"]
    full = dimlint.mem(_mimo("full_attention"), context=16)["kv_cache"]["bytes"]
    assert sliding == 2 * full


@pytest.mark.parametrize(
    "extra",
    [
        {"swa_num_key_value_heads": 2},
        {"swa_head_dim": 64, "swa_v_head_dim": 32},
        {"swa_head_dim": 64},
    ],
)
def test_sliding_layers_ignore_the_legacy_swa_keys(extra: dict[str, Any]) -> None:
    """MiMoV2FlashAttention sizes a sliding layer by 2 × num_key_value_heads, head_dim and
    v_head_dim; the ``swa_*`` keys released configs carry (equal to those in every release) are
    read by no code of transformers' (its cache tensors: ``test_memory_kv_released.py``)."""
    base = dimlint.mem(_mimo("sliding_attention"), context=1000)["kv_cache"]["bytes"]
    found = dimlint.mem(_mimo("sliding_attention", **extra), context=1000)["kv_cache"]["bytes"]
    assert found == base
