"""Fields that add a layer kind the default builds none of, and sub-config structures the class
derives itself (issue 19: interleave steps and layer counts that switch structure).

:func:`kind_rebase.switching` and :func:`kind_rebase.reproduces` are exercised on synthetic
builds; :func:`rederived.undeclared_structures` on transformers' Gemma-4 text config, whose
``per_layer_config`` (derived from ``layer_types``) made every other layer count unbuildable.
"""

from __future__ import annotations

import pytest

from dimlint.tools import kind_rebase, rederived

_LAYERS = 8


def _build(step: int, layers: int = _LAYERS) -> dict[tuple[str, int], tuple[tuple[int, ...], int]]:
    """A decoder whose every ``step``-th layer holds experts, the others a dense MLP."""
    moe = len(range(step - 1, layers, step))
    groups = {("embed.weight", 0): ((100, 4), 1), ("layers.*.norm.weight", 0): ((4,), layers)}
    groups[("layers.*.experts.weight", 0)] = ((16, 4, 4), moe)
    if layers - moe:
        groups[("layers.*.mlp.weight", 0)] = ((4, 4), layers - moe)
    return groups


def test_a_field_adding_a_layer_kind_is_rebased_at_twice_its_default() -> None:
    base = _build(1)
    values = {"step": 1, "hidden": 4}

    def groups_at(path: str, value: int) -> dict[tuple[str, int], tuple[tuple[int, ...], int]]:
        if path == "hidden":
            raise ValueError("rejected")
        return _build(value)

    assert kind_rebase.switching(["hidden", "step"], values, base, groups_at) == {"step": 2}
    # a field whose change removes tensors, or adds ones outside the layers, is no kind
    assert kind_rebase.switching(["step"], values, _build(2), lambda p, v: _build(1)) == {}

    def adds_a_head(path: str, value: int) -> dict[tuple[str, int], tuple[tuple[int, ...], int]]:
        return {**base, ("head.weight", 0): ((value, 4), 1)}

    assert kind_rebase.switching(["step"], values, base, adds_a_head) == {}


_FLOOR = "layers//step"
_FOUR = [[4, 1, []]]
_TENSORS = [
    ["embed.weight", [[1, 1, []]], [[[100, 1, []]], _FOUR], []],
    ["layers.*.norm.weight", [[1, 1, [["layers", 1]]]], [_FOUR], []],
    ["layers.*.experts.weight", [[1, 1, [[_FLOOR, 1]]]], [[[16, 1, []]], _FOUR, _FOUR], []],
    ["layers.*.mlp.weight", [[1, 1, [["layers", 1]]], [-1, 1, [[_FLOOR, 1]]]], [_FOUR, _FOUR], []],
    ["layers.*.mlp.bias", [[1, 1, [["layers", 1]]]], [_FOUR], [["mlp_bias", True]]],
]


def test_a_rebased_row_must_reproduce_the_default_build() -> None:
    values = {"layers": _LAYERS, "step": 1, "mlp_bias": False}
    assert kind_rebase.reproduces(_TENSORS, values, _build(1))
    assert kind_rebase.reproduces(_TENSORS, {**values, "step": 2}, _build(2))
    assert not kind_rebase.reproduces(_TENSORS, {**values, "step": 2}, _build(1))
    # a row counting the dense layers as every layer would give the default dense tensors
    wrong = [*_TENSORS[:3], ["layers.*.mlp.weight", [[1, 1, [["layers", 1]]]], _TENSORS[3][2], []]]
    assert not kind_rebase.reproduces(wrong, values, _build(1))


def test_structures_the_sub_config_class_derives_are_not_restated() -> None:
    transformers = pytest.importorskip("transformers")
    config = transformers.AutoConfig.for_model("gemma4")
    derived = rederived.undeclared_structures(config.text_config)
    assert "per_layer_config" in derived
    assert "layer_types" not in derived  # a declared field: left out as declared None already
    # a stated structure the bare class would not derive stays stated
    stated = transformers.AutoConfig.for_model(
        "gemma4", text_config={"per_layer_config": {"0": {"head_dim": 128}}}
    )
    assert "per_layer_config" not in rederived.undeclared_structures(stated.text_config)


def test_the_hand_plan_follows_an_interleave_step() -> None:
    """Without ``moe_layers`` Llama-4's class makes every ``interleave_moe_layer_step``-th
    layer a mixture of experts; the hand recipes and the KV cache read the same plan."""
    from dimlint.config.normalize import normalize
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.parameters import layer_kinds

    raw = {"model_type": "llama4_text", "num_hidden_layers": 12, "num_local_experts": 4}
    for step, layers in ((1, 12), (2, 6), (3, 4), (5, 2)):
        cfg = Cfg(normalize("x", "", {**raw, "interleave_moe_layer_step": step}, "llama4_text"))
        assert layer_kinds.moe_count(cfg) == layers
        assert layer_kinds.moe_layers(cfg) == [(i + 1) % step == 0 for i in range(12)]
    stated = {**raw, "interleave_moe_layer_step": 2, "moe_layers": [0, 7]}
    cfg = Cfg(normalize("x", "", stated, "llama4_text"))
    assert layer_kinds.moe_count(cfg) == 2  # a stated list wins, as in the class


@pytest.mark.parametrize(
    "raw",
    [
        {"model_type": "llama4"},
        {"model_type": "llama4", "vision_config": {}},
        {"model_type": "llama4", "text_config": {"interleave_moe_layer_step": 2}},
    ],
    ids=["nothing stated", "no text_config", "step stated"],
)
def test_a_sub_config_left_out_has_the_rebased_fields_class_default(raw: dict[str, object]) -> None:
    # Llama-4's row is learned at interleave_moe_layer_step 2; a config stating no text_config
    # has the class's 1 (every layer experts), once counted exact at 2 (45 billion short)
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    import released_ground_truth as truth

    built, why = truth.transformers_count(dict(raw))
    assert built is not None, why
    ours, exact, notes = truth.dimlint_count(dict(raw))
    assert not exact or ours == built, notes
    assert exact  # inside the learned domain: the rebased row counts every step
