"""Structure the default build never shows, learned by the shape generator (issue 19, item 1).

- a default config that does not build: DBRX's attention reads ``attn_config.rope_theta``,
  which ``DbrxAttentionConfig`` does not declare (every released DBRX config states it);
- a flag whose flipped build adds tensors with sizes seen once (DINOv2's ``use_swiglu_ffn``):
  refitted from builds with the flag flipped and each field changed;
- a field at -1 that a positive value switches (DeBERTa's undeclared ``position_buckets``);
- a patch grid that floors (SigLIP at 384 / 14);
- the run-time: the deepest variant a config's regimes reach, and undeclared reads it refuses.

Each relearns a model type with the generator and checks the run-time's count of a config
inside the learned domain against the model transformers builds from it on the meta device.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.tools import generate_shapes
from tests.learned_rows_support import count_with_row, learned, transformers_or_skip, truth


def test_a_name_the_code_requires_is_given_a_class_default() -> None:
    transformers = transformers_or_skip()
    config = transformers.AutoConfig.for_model("dbrx")
    classes = [("DbrxForCausalLM", transformers.DbrxForCausalLM)]
    required = generate_shapes.required_attributes(classes, config)
    assert required == {"attn_config.rope_theta": generate_shapes._REQUIRED_TRIALS[0]}
    assert not hasattr(type(config.attn_config), "rope_theta")  # restored after learning
    # a name the classes build without is not required
    llama = transformers.AutoConfig.for_model("llama", num_hidden_layers=1)
    assert generate_shapes.required_attributes([("x", transformers.LlamaModel)], llama) == {}


def test_dbrx_is_learned_and_exact_inside_its_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers_or_skip()
    row = learned("dbrx")
    assert "DbrxForCausalLM" in row["classes"], row.get("unbuilt")
    assert row["required"] == {"attn_config.rope_theta": generate_shapes._REQUIRED_TRIALS[0]}
    raw = {
        "model_type": "dbrx",
        "d_model": 1024,
        "n_heads": 8,
        "n_layers": 3,
        "vocab_size": 5000,
        "tie_word_embeddings": False,
        "attn_config": {"rope_theta": 500000, "kv_n_heads": 1},
        "ffn_config": {"ffn_hidden_size": 3000, "moe_num_experts": 4, "moe_top_k": 2},
    }
    assert count_with_row(monkeypatch, row, raw, "DbrxForCausalLM") == truth(raw, "DbrxForCausalLM")


def test_the_tensors_a_flag_adds_are_fitted_in_its_regime(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers_or_skip()
    row = learned("dinov2")
    record = row["classes"]["Dinov2Model"]
    assert "encoder.layer.*.mlp.up_proj.weight" in record["refit"]
    raw = {
        "model_type": "dinov2",
        "num_hidden_layers": 2,
        "num_attention_heads": 16,
        "image_size": 518,
        "patch_size": 14,
        "use_swiglu_ffn": True,
    }
    assert count_with_row(monkeypatch, row, raw, "Dinov2Model") == truth(raw, "Dinov2Model")
    # the SwiGLU width rounds 2/3 of hidden * ratio up to a multiple of 8: learned as the fit
    # of 2/3, valid where that is a multiple of 8 (a joint build at hidden 771, ratio 5 showed
    # the rounding), so DINOv2-giant's 1536 is exact and 771 · 5 is refused
    giant = {**raw, "hidden_size": 1536}
    assert record["multiple_of"]["encoder.layer.*.mlp.up_proj.weight"] == 8
    assert count_with_row(monkeypatch, row, giant, "Dinov2Model") == truth(giant, "Dinov2Model")
    odd = {**raw, "hidden_size": 771, "num_attention_heads": 3, "mlp_ratio": 5}
    counted = count_with_row(monkeypatch, row, odd, "Dinov2Model")
    assert counted != truth(odd, "Dinov2Model")  # the fit would be wrong here
    assert isinstance(counted, str)
    assert "multiple of 8" in counted
    # outside the regime the default row answers, and exactly
    plain = {**giant, "use_swiglu_ffn": False}
    assert count_with_row(monkeypatch, row, plain, "Dinov2Model") == truth(plain, "Dinov2Model")


def test_a_patch_grid_that_floors(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers_or_skip()
    row = learned("siglip_vision_model")
    raw = {
        "model_type": "siglip_vision_model",
        "hidden_size": 64,
        "intermediate_size": 96,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "image_size": 384,
        "patch_size": 14,
    }
    assert count_with_row(monkeypatch, row, raw, "SiglipVisionModel") == truth(
        raw, "SiglipVisionModel"
    )


def test_a_negative_default_that_a_positive_value_switches_is_fixed_and_a_regime() -> None:
    transformers = transformers_or_skip()
    small = {
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "intermediate_size": 37,
        "vocab_size": 99,
        "relative_attention": True,
    }
    config = transformers.AutoConfig.for_model("deberta-v2", **small)
    model_class = transformers.DebertaV2Model
    base = generate_shapes._groups(generate_shapes._build(model_class, config))
    extras = generate_shapes._stated_extras(model_class, config, base, small)
    assert extras["position_buckets"] == -1  # the undeclared read, at its fallback
    assert extras["conv_kernel_size"] == 0  # the fallback that builds the default's model
    stated = transformers.AutoConfig.for_model("deberta-v2", **small, **extras)
    held = {**small, **extras}
    learned = generate_shapes._Learned(generate_shapes._values(stated), base, held)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        generate_shapes._learn_fields(model_class, stated, learned, float("inf"))
    assert learned.sentinels["position_buckets"] == generate_shapes.SENTINEL_PROBE
    assert {"position_buckets", "conv_kernel_size"} <= learned.fixed
    assert "conv_kernel_size" not in learned.sentinels  # a zero stays fixed: no variant
    regimes = generate_shapes._regimes([], learned, {})
    assert ("position_buckets", ">", 0, generate_shapes.SENTINEL_PROBE) in regimes
    # within a variant that states it, it is not a regime again
    held = {"position_buckets": generate_shapes.SENTINEL_PROBE}
    assert all(
        path != "position_buckets" for path, *_ in generate_shapes._regimes([], learned, held)
    )


def _row(**keys: Any) -> dict[str, Any]:
    return {"classes": {}, **keys}


def test_the_run_time_enters_the_deepest_regime_a_config_states() -> None:
    leaf = _row(name="leaf")
    shallow = _row(name="shallow")
    inner = _row(name="inner", regimes=[["position_buckets", ">", 0]],
                 variants={"position_buckets>0": leaf})  # fmt: skip
    top = _row(
        name="top",
        strings={"norm_rel_ebd": {"default": "none", "inside": {}}},
        regimes=[["relative_attention", "=", True]],
        variants={"norm_rel_ebd=layer_norm": shallow, "relative_attention=true": inner},
    )
    raw = {"relative_attention": True, "position_buckets": 256, "norm_rel_ebd": "layer_norm"}
    assert templates._variant(raw, top)["name"] == "leaf"  # two regimes beat one
    assert templates._variant({"norm_rel_ebd": "layer_norm"}, top)["name"] == "shallow"
    assert templates._variant({"relative_attention": 1}, top)["name"] == "top"  # not a bool
    assert (
        templates._variant({"relative_attention": True, "position_buckets": -1}, top)["name"]
        == "inner"
    )


def test_a_stated_undeclared_read_no_build_learned_is_refused() -> None:
    learned = _row(
        examined=["position_buckets"],
        strings={"norm_rel_ebd": {"default": "none", "inside": {}}},
        reads={"position_buckets": -1, "norm_rel_ebd": "none", "conv_act": None, "x": 0},
    )
    assert templates._unlearned_read({"position_buckets": 256}, "t", learned) is None
    assert templates._unlearned_read({"norm_rel_ebd": "layer_norm"}, "t", learned) is None
    assert templates._unlearned_read({"x": 0}, "t", learned) is None  # the learned value
    refused = templates._unlearned_read({"conv_act": "gelu"}, "t", learned)
    assert refused is not None
    assert "conv_act" in refused
    assert templates._unlearned_read({"x": False}, "t", learned) is not None  # not the int 0


def test_a_field_dividing_no_size_that_changes_no_tensor_is_learned_not_fixed() -> None:
    """Qwen2's ``max_window_layers`` (28 of 32 layers) divides no tensor size, which once made
    it ``fixed`` untried, and every released Qwen2/Qwen3 config stating its own count an
    estimate; with sliding windows off, changing it changes no tensor, so it is learned (in no
    expression). Swin's ``window_size``, which changes its position tables on a curve, is
    learned from four builds (``_unaligned_series``), not fixed either."""
    import time

    transformers = transformers_or_skip()
    for model_type, class_name, path, fixed in (
        ("qwen2", "Qwen2ForCausalLM", "max_window_layers", False),
        ("swin", "SwinModel", "window_size", False),
    ):
        config = transformers.AutoConfig.for_model(model_type)
        model_class = getattr(transformers, class_name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base = generate_shapes._groups(generate_shapes._build(model_class, config))
            learned = generate_shapes._Learned(generate_shapes._values(config), base, {})
            generate_shapes._learn_fields(model_class, config, learned, time.process_time() + 120)
        assert (path in learned.fixed) is fixed, (model_type, sorted(learned.fixed))
