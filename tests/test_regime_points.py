"""Regimes only other switches open, and their combinations (issue 19): the mechanisms of
:mod:`dimlint.tools.regime_points` and :mod:`dimlint.memory.parameters.split_strings` on
small fake classes whose tensors follow DeBERTa's rules (a relative embedding of
``2 · position_buckets`` rows once ``relative_attention`` is on and the buckets positive;
a position key projection per ``"c2p"`` in ``pos_att_type`` unless keys are shared)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dimlint.memory.parameters import split_strings, template_plans
from dimlint.tools import regime_points

_DEFAULTS: dict[str, Any] = {
    "relative_attention": False,
    "position_buckets": -1,
    "max_position_embeddings": 512,
    "pos_att_type": None,
    "share_att_key": False,
    "hidden": 64,
}


def _build(changes: Mapping[str, object]) -> tuple[dict[str, Any], Any]:
    values = {**_DEFAULTS, **changes}
    kinds = values["pos_att_type"]
    kinds = kinds.split("|") if isinstance(kinds, str) else list(kinds or [])
    if values["position_buckets"] == -3:
        raise ValueError("rejected")
    groups: dict[tuple[str, int], tuple[tuple[int, ...], int]] = {
        ("query", 0): ((values["hidden"], values["hidden"]), 1)
    }
    if values["relative_attention"]:
        buckets = values["position_buckets"]
        rows = 2 * buckets if buckets > 0 else values["max_position_embeddings"]
        groups[("rel_embeddings", 0)] = ((rows, values["hidden"]), 1)
        if "c2p" in kinds and not values["share_att_key"]:
            groups[("pos_key_proj", 0)] = ((values["hidden"], values["hidden"]), 1)
    return values, groups


def test_a_sentinel_inert_at_the_default_switches_in_a_flipped_regime() -> None:
    found = regime_points.sentinels_in_flipped(
        {"position_buckets": -1, "hidden": 64, "relative_attention": False},
        {"relative_attention": True},
        set(),
        _build,
        8,
    )
    assert found == {"position_buckets": 8}
    # no flag opens a regime: nothing is probed there
    assert regime_points.sentinels_in_flipped({"position_buckets": -1}, {}, set(), _build, 8) == {}
    # a field the caller skips (already a regime) is not probed again
    skipped = regime_points.sentinels_in_flipped(
        {"position_buckets": -1}, {"relative_attention": True}, {"position_buckets"}, _build, 8
    )
    assert skipped == {}


def test_a_string_inert_at_the_default_is_judged_where_a_flipped_flag_reads_it() -> None:
    spent = [0]
    toggled = {"relative_attention": True}
    assert not regime_points.alike_in_flipped("pos_att_type", "c2p", {}, toggled, _build, spent)
    assert regime_points.alike_in_flipped("pos_att_type", "p2c", {}, toggled, _build, spent)
    assert spent == [2]
    # past the budget a value is not shown alike: outside
    spent = [regime_points.REGIME_STRING_BUILDS]
    assert not regime_points.alike_in_flipped("pos_att_type", "p2c", {}, toggled, _build, spent)


def test_a_split_field_is_learned_as_the_set_of_its_values() -> None:
    def splits(value: str) -> bool:
        return "|" in value

    joined = regime_points.joined("pos_att_type", ["p2c", "c2p"], _build, splits)
    assert joined == "c2p|p2c"
    assert regime_points.joined("pos_att_type", ["c2p"], _build, splits) is None
    assert regime_points.joined("pos_att_type", ["p2c", "c2p"], _build, lambda v: False) is None


def test_the_run_time_reads_a_list_or_joined_string_as_the_learned_set() -> None:
    assert split_strings.normalized(["p2c", "c2p"]) == "c2p|p2c"
    assert split_strings.normalized("p2c | c2p") == "c2p|p2c"
    assert split_strings.normalized("c2p") == "c2p"
    assert split_strings.normalized(3) == 3
    learned = {"stated": {"pos_att_type": "c2p|p2c"}}
    assert template_plans._learned_stated(learned, "pos_att_type", ["p2c", "c2p"])
    assert not template_plans._learned_stated(learned, "pos_att_type", ["c2p"])
    # a single value stated in a variant says nothing of a list
    assert not template_plans._learned_stated({"stated": {"x": "a"}}, "x", ["a"])


def test_each_combination_of_regimes_is_learned_along_one_path() -> None:
    assert regime_points.nests("position_buckets", {})
    assert regime_points.nests("position_buckets", {"norm_rel_ebd": "layer_norm"})
    assert not regime_points.nests("norm_rel_ebd", {"position_buckets": 8})
    assert not regime_points.nests("norm_rel_ebd", {"norm_rel_ebd": "layer_norm"})


def test_a_number_left_unset_that_an_unbuilt_class_needs_is_a_regime() -> None:
    import dataclasses

    from dimlint.tools import unset_numbers

    @dataclasses.dataclass
    class Config:
        vocab_size: int | None = None
        pad_token_id: int | None = None
        name: str | None = None
        hidden: int = 8

    def skip(name: str) -> bool:
        return name.endswith("_id")

    assert unset_numbers.unset_numbers(Config, skip) == ["vocab_size"]

    def builds(class_name: str, changes: Mapping[str, object]) -> bool:
        return class_name == "ForCTC" and "vocab_size" in changes

    found = unset_numbers.required_numbers(["ForCTC"], ["vocab_size"], builds, 8)
    assert found == {"vocab_size": 8}
    assert unset_numbers.required_numbers(["Other"], ["vocab_size"], builds, 8) == {}


def test_a_flag_inert_at_the_default_that_drops_a_regime_s_tensors() -> None:
    on = {"relative_attention": True, "pos_att_type": "c2p"}

    def build(changes: Mapping[str, object]) -> tuple[dict[str, Any], Any]:
        return _build({**on, **changes})

    regime = build({})[1]
    base = {"relative_attention": False, "share_att_key": False, "hidden": 64}
    drops, unexplained = regime_points.flags_in_flipped(
        base, {"relative_attention": (True, regime)}, set(), build
    )
    assert unexplained == set()
    assert drops == {"share_att_key": [("relative_attention", True, {("pos_key_proj", (64, 64))})]}

    def adds(changes: Mapping[str, object]) -> tuple[dict[str, Any], Any]:
        values, groups = build(changes)
        if values["share_att_key"]:
            groups = {**groups, ("shared", 0): ((1,), 1)}
        return values, groups

    drops, unexplained = regime_points.flags_in_flipped(
        base, {"relative_attention": (True, regime)}, set(), adds
    )
    assert (drops, unexplained) == ({}, {"share_att_key"})


def test_a_number_left_unset_that_adds_tensors_when_stated_is_a_regime() -> None:
    """Nemotron-H's ``moe_latent_size``: None builds no latent projection, a number adds one;
    the first probe the class accepts is kept, and a field the class rejects at every probe,
    or whose value changes nothing, is no regime."""
    from dimlint.tools import unset_numbers

    def changes_tensors(path: str, probe: int) -> bool | None:
        if path == "moe_latent_size":
            return None if probe < 64 else True  # must divide by the heads: 8 is rejected
        if path == "rejected":
            return None
        return False

    found = unset_numbers.switching_numbers(
        ["moe_latent_size", "rejected", "inert_size"], changes_tensors
    )
    assert found == {"moe_latent_size": 64}


def test_real_unset_numbers_that_switch_tensors_are_found() -> None:
    """On transformers' own classes: Nemotron-H's ``moe_latent_size`` at the default, and
    wav2vec2's ``adapter_attn_dim``, which adds adapters only in the stable-layer-norm encoder
    (a flag flipped)."""
    import warnings

    import pytest

    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    from dimlint.tools import generate_shapes

    transformers.logging.set_verbosity_error()
    for model_type, class_name, expected in (
        ("nemotron_h", "NemotronHForCausalLM", "moe_latent_size"),
        ("wav2vec2", "Wav2Vec2ForCTC", "adapter_attn_dim"),
    ):
        config = transformers.AutoConfig.for_model(model_type)
        model_class = getattr(transformers, class_name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            base = generate_shapes._groups(generate_shapes._build(model_class, config))
            found = generate_shapes._switching_unset_regimes(model_class, config, base, {}, {})
        assert (expected, ">", 0, 8) in found, (model_type, found)
