"""Exact only inside the learned domain (issue 19, item 1): the causes found on released configs.

Each case is a small config in the shape of a released one, counted by ``mem`` and built by
transformers on the meta device (``tests/released_ground_truth.py``'s two functions). A count
labelled exact must equal transformers'; a config outside what a template learned must say so.

- an undeclared ``head_dim`` the modeling code reads (``getattr(config, "head_dim", hidden //
  heads)``: Qwen3-MoE), learned like a field, derived from its fallback when left out;
- a legacy key the config class maps (Qwen3-Next's ``full_attention_interval``): exact at the
  value the class falls back to, outside the domain at any other;
- a layer-kind count the default has none of (DeepSeek-V2's ``first_k_dense_replace`` = 0);
- shapes a single-field fit cannot express: CLIP's ``(image / patch)² + 1`` positions and
  MobileBERT's ``hidden_size - embedding_size`` (a true difference, checked with both moved);
- a ``null`` the class keeps where its default is a number (DeepSeek-V2-Lite's
  ``q_lora_rank``), and a per-layer list with an item the default never held (Granite-4's
  ``layer_types`` naming attention layers among Mamba ones): outside the domain.
"""

from __future__ import annotations

from typing import Any

import pytest
import released_ground_truth as truth

from dimlint.memory.parameters import templates

pytest.importorskip("transformers")
pytest.importorskip("torch")


def _agree(document: dict[str, Any]) -> tuple[bool, str]:
    """(whether mem says exact, its notes); a count labelled exact equals transformers'."""
    expected, why = truth.transformers_count(document)
    assert expected is not None, why
    ours, exact, notes = truth.dimlint_count(document)
    assert ours is not None, notes
    assert not exact or ours == expected, f"false exact: {ours} vs {expected}"
    return exact, notes


QWEN3_MOE = {
    "model_type": "qwen3_moe",
    "architectures": ["Qwen3MoeForCausalLM"],
    "hidden_size": 256,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "moe_intermediate_size": 64,
    "num_experts": 8,
    "num_hidden_layers": 3,
    "vocab_size": 1000,
}


@pytest.mark.parametrize("head_dim", [None, 32, 64])
def test_an_undeclared_head_dim_is_learned(head_dim: int | None) -> None:
    """Qwen3-235B states head_dim 128 over 64 heads of a 4096 width (64 wide by the
    fallback); here 64 over 8 heads of 256, the fallback's 32, and none."""
    document = dict(QWEN3_MOE)
    if head_dim is not None:
        document["head_dim"] = head_dim
    exact, notes = _agree(document)
    assert exact, notes


QWEN3_NEXT = {
    "model_type": "qwen3_next",
    "architectures": ["Qwen3NextForCausalLM"],
    "hidden_size": 256,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 64,
    "intermediate_size": 512,
    "moe_intermediate_size": 64,
    "shared_expert_intermediate_size": 64,
    "num_experts": 8,
    "num_hidden_layers": 8,
    "linear_num_key_heads": 4,
    "linear_num_value_heads": 8,
    "linear_key_head_dim": 32,
    "linear_value_head_dim": 32,
    "vocab_size": 1000,
}


def test_a_legacy_key_at_the_value_the_class_falls_back_to_is_exact() -> None:
    document = {**QWEN3_NEXT, "full_attention_interval": 4}
    exact, notes = _agree(document)
    assert exact, notes


def test_a_legacy_key_at_another_value_is_outside_the_domain() -> None:
    """Every second layer full attention: a pattern the template never saw."""
    document = {**QWEN3_NEXT, "full_attention_interval": 2}
    found = templates.learned_tensors(document, "Qwen3NextForCausalLM")
    assert isinstance(found, templates.Refusal)
    assert "full_attention_interval" in found.reason
    _agree(document)


DEEPSEEK_V2 = {
    "model_type": "deepseek_v2",
    "architectures": ["DeepseekV2ForCausalLM"],
    "hidden_size": 256,
    "intermediate_size": 512,
    "moe_intermediate_size": 64,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "kv_lora_rank": 64,
    "q_lora_rank": 96,
    "qk_nope_head_dim": 32,
    "qk_rope_head_dim": 16,
    "v_head_dim": 32,
    "n_routed_experts": 8,
    "n_shared_experts": 1,
    "num_hidden_layers": 5,
    "vocab_size": 1000,
}


@pytest.mark.parametrize("dense", [0, 1, 3])
def test_dense_layers_before_the_experts(dense: int) -> None:
    """DeepSeek-V2-Lite's first_k_dense_replace = 1; the class default is 0 (no dense layer,
    the build the template was once learned from alone)."""
    exact, notes = _agree({**DEEPSEEK_V2, "first_k_dense_replace": dense})
    assert exact, notes


def test_a_null_the_class_keeps_is_a_regime_of_its_own() -> None:
    """DeepSeek-V2-Lite states ``q_lora_rank: null``: the class keeps None and builds a dense
    query projection, not the default 1536-wide low-rank pair (a false exact once, then
    refused; now learned as the ``q_lora_rank=null`` variant)."""
    document = {**DEEPSEEK_V2, "q_lora_rank": None, "first_k_dense_replace": 1}
    found = templates.learned_tensors(document, "DeepseekV2ForCausalLM")
    assert not isinstance(found, templates.Refusal), found.reason
    exact, notes = _agree(document)
    assert exact, notes


def test_patch_positions_with_a_class_token() -> None:
    """CLIP ViT-L/14 at 336: (336 / 14)² + 1 = 577 positions."""
    document = {
        "model_type": "clip_vision_model",
        "architectures": ["CLIPVisionModel"],
        "hidden_size": 128,
        "intermediate_size": 256,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "image_size": 336,
        "patch_size": 14,
    }
    exact, notes = _agree(document)
    assert exact, notes


MOBILEBERT = {
    "model_type": "mobilebert",
    "architectures": ["MobileBertForMaskedLM"],
    "vocab_size": 1024,
    "hidden_size": 128,
    "embedding_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 128,
    "intra_bottleneck_size": 32,
}


@pytest.mark.parametrize("stated", [False, True])
def test_a_true_difference_holds_with_both_fields_moved(stated: bool) -> None:
    """MobileBERT's MLM head: hidden_size - embedding_size rows (128 - 64 here; the default
    is 512 - 128), a difference the generator checked with both fields moved at once. Its
    ``true_hidden_size`` is set by the class, undeclared: the bottleneck width while
    ``use_bottleneck`` (derived so when left out; stated as ``save_pretrained`` writes it)."""
    document = {**MOBILEBERT, **({"true_hidden_size": 32} if stated else {})}
    exact, notes = _agree(document)
    assert exact, notes


def test_a_derivation_holds_only_under_its_flags() -> None:
    """Without the bottleneck ``true_hidden_size`` is the width, not the bottleneck's: the
    derivation learned with ``use_bottleneck`` on does not apply there (no value, so no
    tensor that reads it is sized from it)."""
    learned = templates.row("mobilebert")
    assert learned is not None
    on = templates._Values(dict(MOBILEBERT), learned)
    off = templates._Values({**MOBILEBERT, "use_bottleneck": False}, learned)
    assert on.get("true_hidden_size") == 32
    assert off.get("true_hidden_size") is None
    _agree({**MOBILEBERT, "use_bottleneck": False})


def test_a_fused_projection_is_exact_with_several_fields_moved() -> None:
    """Phi-3's fused QKV was fitted around the default as a tangent (``3·hidden - 192·heads +
    192·kv``), exact only while one field moved; with its undeclared ``head_dim`` learned it is
    ``(heads + 2·kv)·head_dim``, exact with width, heads and KV heads all moved."""
    document = {
        "model_type": "phi3",
        "architectures": ["Phi3ForCausalLM"],
        "hidden_size": 256,
        "intermediate_size": 512,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "num_hidden_layers": 2,
        "vocab_size": 1000,
        "pad_token_id": 0,
    }
    exact, notes = _agree(document)
    assert exact, notes


def test_a_layer_kind_the_default_list_never_held_is_outside_the_domain() -> None:
    """Granite-4's default ``layer_types`` is all Mamba (``"linear_attention"`` as the class
    spells it); a released config puts attention layers among them (a false exact once the
    Mamba fields were learned)."""
    document = {
        "model_type": "granitemoehybrid",
        "architectures": ["GraniteMoeHybridForCausalLM"],
        "hidden_size": 256,
        "intermediate_size": 128,
        "shared_intermediate_size": 256,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "num_hidden_layers": 4,
        "num_local_experts": 4,
        "num_experts_per_tok": 2,
        "mamba_n_heads": 8,
        "mamba_d_head": 64,
        "mamba_d_state": 16,
        "vocab_size": 1000,
        "pad_token_id": 0,
        "layer_types": ["mamba", "attention", "mamba", "mamba"],
    }
    # counted from the variant learned with attention layers among the Mamba ones (plan_kinds),
    # the legacy names read as transformers renames them
    found = templates.learned_tensors(document, "GraniteMoeHybridForCausalLM")
    assert not isinstance(found, templates.Refusal), found
    _agree(document)
    all_mamba = {**document, "layer_types": ["linear_attention"] * 4}
    assert not isinstance(
        templates.learned_tensors(all_mamba, "GraniteMoeHybridForCausalLM"), templates.Refusal
    )
    _agree(all_mamba)
