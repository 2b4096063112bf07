"""Repeated modules under numbered names fold like layer indices (Switch Transformers'
``experts.expert_0`` … ``expert_7``), modules that only carry numbers do not."""

from __future__ import annotations

import pytest

from dimlint.tools import numbered_modules


def test_a_repeated_numbered_container_folds() -> None:
    names = [
        (f"block.{layer}.mlp.experts.expert_{expert}.{part}.weight", (4, 8))
        for layer in range(2)
        for expert in range(3)
        for part in ("wi", "wo")
    ]
    folded = numbered_modules.folded(names)
    assert (
        folded["block.1.mlp.experts.expert_2.wo.weight"] == "block.1.mlp.experts.expert_*.wo.weight"
    )
    assert len(set(folded.values())) == 4  # two layers, two parts: the experts are one group


def test_numbered_modules_that_differ_or_skip_numbers_keep_their_names() -> None:
    differing = [("conv_0.weight", (4, 3)), ("conv_1.weight", (8, 4))]
    assert numbered_modules.folded(differing) == {name: name for name, _ in differing}
    skipping = [("stage_1.weight", (4,)), ("stage_2.weight", (4,))]  # not 0 … n-1
    assert numbered_modules.folded(skipping) == {name: name for name, _ in skipping}
    alone = [("expert_0.weight", (4,)), ("norm.weight", (4,))]
    assert numbered_modules.folded(alone) == {name: name for name, _ in alone}


def test_switch_experts_are_one_group_whatever_their_number() -> None:
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    from dimlint.tools import generate_shapes

    config = transformers.AutoConfig.for_model("switch_transformers")
    model_class = transformers.SwitchTransformersModel
    groups = {}
    for experts in (4, 8):
        config.num_experts = experts
        groups[experts] = generate_shapes._groups(generate_shapes._build(model_class, config))
    assert set(groups[4]) == set(groups[8])
    counts = {
        key: groups[8][key][1] / groups[4][key][1] for key in groups[4] if "expert_*" in key[0]
    }
    assert counts
    assert set(counts.values()) == {2.0}


def test_a_checkpoint_name_folds_into_the_template_that_folded_it() -> None:
    """``fold_into`` folds a numbered module only where the template holds it folded."""
    from dimlint.memory.checkpoint.load_names import fold_into

    known = {"encoder.block.*.layer.*.DenseReluDense.wi_*.weight", "conv_1.weight"}
    assert (
        fold_into("encoder.block.3.layer.1.DenseReluDense.wi_1.weight", known)
        == "encoder.block.*.layer.*.DenseReluDense.wi_*.weight"
    )
    assert fold_into("conv_1.weight", known) == "conv_1.weight"
    assert fold_into("conv_2.weight", known) == "conv_2.weight"  # unknown either way
    assert fold_into("layers.2.conv_1.weight", set()) == "layers.*.conv_1.weight"
