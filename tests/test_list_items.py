"""List items learned as fields (``depths[2]``), stand-in widths and the field budget.

Synthetic: the item names, how a stated list is read item by item, the fit of a stage's block
count on one item, the trials, the folding of items into whole lists, the stage indices kept
in tensor names, the stand-in search and the budget. Real: configs that state per-stage lists
other than the defaults (ResNet-101, Swin-B, ConvNeXt-B, a VideoMAE-small, a TrOCR decoder
with a narrower encoder) are counted through the relearned table and compared with the models
transformers builds from them on the meta device; a list of another length stays refused.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import pytest

from dimlint.memory.parameters import list_items, templates
from dimlint.tools import field_budget, shape_fit, stand_ins


def test_item_names_round_trip() -> None:
    assert list_items.item_path("backbone_config.depths", 2) == "backbone_config.depths[2]"
    assert list_items.split("backbone_config.depths[2]") == ("backbone_config.depths", 2)
    assert list_items.split("depths") is None
    assert list_items.split("image_size//patch_size") is None


def test_a_stated_list_is_read_item_by_item_only_at_the_learned_length() -> None:
    learned = {"items": {"depths": 4}}
    assert list_items.within(learned, "depths", [2, 2, 18, 2])
    assert not list_items.within(learned, "depths", [2, 2, 18])  # another length
    assert not list_items.within(learned, "depths", [2, 2, True, 2])  # not integers
    assert not list_items.within(learned, "num_heads", [4, 8, 16, 32])  # never learned so
    assert not list_items.within({}, "depths", [2, 2, 18, 2])  # a row learned before items
    assert list_items.item_value([2, 2, 18, 2], 2) == 18
    assert list_items.item_value([2, 2], 3) is None


def test_a_stage_count_fits_on_its_item() -> None:
    """Swin's third stage repeats its block ``depths[2]`` times: builds with that item at 12
    and 18 and with the first item moved fit the count to the third item alone."""
    base = {"depths[0]": 2, "depths[1]": 2, "depths[2]": 6, "depths[3]": 2, "embed_dim": 96}
    points = [
        (base, 6),
        ({**base, "depths[2]": 12}, 12),
        ({**base, "depths[2]": 18}, 18),
        ({**base, "depths[0]": 4}, 6),
        ({**base, "embed_dim": 192}, 6),
    ]
    terms = shape_fit.fit(points, frozenset(base))
    assert terms is not None
    assert shape_fit.fields_of(terms) == {"depths[2]"}
    assert shape_fit.evaluate_terms(terms, {**base, "depths[2]": 23}) == Fraction(23)


def test_item_trials_scale_and_never_step_by_one() -> None:
    """``width + 1`` keeps a quarter-width floored where it was (513 // 4 == 512 // 4)."""
    from dimlint.tools import list_items as tool

    assert tool.trials(512) == [1024, 256, 1536, 2048]
    assert tool.trials(3) == [6, 9, 12]
    assert tool.trials(0) == [1, 2]
    assert all(trial // 4 != 512 // 4 for trial in tool.trials(512))


def test_stand_in_search_pairs_a_none_width_with_the_field_it_replaces() -> None:
    """A fake class whose cross-attention input is ``cross`` when stated, else ``d_model``."""

    class Config:
        cross: int | None = None

    def build(stated: Mapping[str, object]) -> tuple[object, ...]:
        d_model = int(str(stated.get("d_model", 1024)))
        cross = stated.get("cross")
        return (d_model, int(str(cross)) if cross is not None else d_model)

    base = build({})
    numbers = {"vocab_size": 50265, "d_model": 1024, "layers": 12}

    def like_base(stated: Mapping[str, object]) -> bool:
        return build(stated) == base

    def alike(first: Mapping[str, object], second: Mapping[str, object]) -> bool:
        return build(first) == build(second)

    found: dict[str, str] = {}
    # the search reads the declared-None fields off a dataclass; a plain fake stands in here
    for name in ["cross"]:
        for other, value in numbers.items():
            if value in {1024, 50265} and like_base({name: value}):
                if alike({other: value * 2, name: value * 2}, {other: value * 2}):
                    found[name] = other
                break
    assert found == {"cross": "d_model"}
    assert stand_ins.derivations({"cross": ["d_model", 1]}) == {"cross": [[1, 1, [["d_model", 1]]]]}


def test_stand_in_search_on_a_dataclass_config() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Config:
        d_model: int = 1024
        cross_attention_hidden_size: int | None = None

    def build(stated: Mapping[str, object]) -> tuple[int, int]:
        d_model = int(str(stated.get("d_model", 1024)))
        cross = stated.get("cross_attention_hidden_size")
        return (d_model, int(str(cross)) if cross is not None else d_model)

    pairs = stand_ins.found(
        Config(),
        {"d_model": 1024},
        {1024},
        lambda stated: build(stated) == build({}),
        lambda first, second: build(first) == build(second),
    )
    assert pairs == {"cross_attention_hidden_size": ["d_model", 1]}
    # a width the class ignores is paired too (learning then finds no tensor reads it); one
    # whose stated value builds another model at every size is not
    never = stand_ins.found(
        Config(),
        {"d_model": 1024},
        {1024},
        lambda stated: "cross_attention_hidden_size" not in stated,
        lambda first, second: first == second,
    )
    assert never == {}


def test_stand_in_search_finds_a_multiple_of_the_other_field() -> None:
    """GPT-2's ``n_inner``: unset, the MLP is ``4 * n_embd`` wide; the pair records the factor,
    and the derivation a config leaving it out gets is that multiple."""
    import dataclasses

    @dataclasses.dataclass
    class Config:
        n_embd: int = 768
        n_inner: int | None = None

    def build(stated: Mapping[str, object]) -> tuple[int, int]:
        n_embd = int(str(stated.get("n_embd", 768)))
        inner = stated.get("n_inner")
        return (n_embd, int(str(inner)) if inner is not None else 4 * n_embd)

    pairs = stand_ins.found(
        Config(),
        {"n_embd": 768},
        {768, 3072},
        lambda stated: build(stated) == build({}),
        lambda first, second: build(first) == build(second),
    )
    assert pairs == {"n_inner": ["n_embd", 4]}
    assert stand_ins.values(Config(n_embd=1024), pairs) == {"n_inner": 4096}
    assert stand_ins.derivations(pairs) == {"n_inner": [[4, 1, [["n_embd", 1]]]]}
    # a class that sizes the MLP at a multiple no factor names is not paired
    odd = stand_ins.found(
        Config(),
        {"n_embd": 768},
        {768, 3 * 768},
        lambda stated: stated.get("n_inner") in (None, 3 * 768),
        lambda first, second: first == second,
    )
    assert odd == {}


def test_field_budget_grows_with_the_cost_of_a_build() -> None:
    def slow() -> None:
        deadline = __import__("time").process_time() + 0.05
        while __import__("time").process_time() < deadline:
            pass

    assert field_budget.field_budget(12.0, lambda: None, 20) == 12.0
    grown = field_budget.field_budget(0.01, slow, 20)
    assert grown >= 0.05 * field_budget.BUILDS_PER_FIELD * 20 * 0.9
    assert field_budget.field_budget(0.01, slow, 10**6) == field_budget.CEILING_S


# --- real: the transformers config classes and the relearned table ---------------------


def _transformers() -> Any:
    return pytest.importorskip("transformers")


def test_items_fold_into_the_whole_list_the_class_takes() -> None:
    transformers = _transformers()
    from dimlint.tools import list_items as tool

    config = transformers.SwinConfig()
    assert tool.item_values(config)["depths[2]"] == 6
    folded = tool.as_lists(config, {"depths[2]": 18, "depths[0]": 4, "embed_dim": 128})
    assert folded == {"depths": [4, 2, 18, 2], "embed_dim": 128}
    assert tool.lengths({"depths[0]": 2, "depths[3]": 2, "embed_dim": 96}) == {"depths": 4}


def test_stage_lists_keep_a_backbone_stage_index_and_fold_its_layers() -> None:
    transformers = _transformers()
    import torch

    from dimlint.tools import list_items as tool

    with torch.device("meta"):
        model = transformers.ResNetModel(transformers.ResNetConfig())
    stages = tool.stage_lists(model)
    assert stages == {"encoder.stages"}
    name = "encoder.stages.2.layers.4.layer.1.convolution.weight"
    assert tool.collapse(name, stages) == "encoder.stages.2.layers.*.layer.*.convolution.weight"


def _build_count(model_type: str, architecture: str, stated: dict[str, Any]) -> int:
    transformers = _transformers()
    import torch

    config = transformers.AutoConfig.for_model(model_type, **stated)
    with torch.device("meta"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = getattr(transformers, architecture)(config)
    return sum(int(parameter.numel()) for parameter in model.parameters())


def _counted(raw: dict[str, Any]) -> tuple[int, bool, str]:
    """What ``mem`` counts for ``raw`` (total, exact, notes), as the ground truth reads it."""
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters

    counted = model_parameters(specs_for_document("config.json", raw))
    return counted.total, counted.exact, "; ".join(counted.notes)


#: Released shapes other than the defaults: per-stage lists of the learned length, widths.
_REAL = [
    ("resnet", "ResNetForImageClassification", {"depths": [3, 4, 23, 3]}),
    ("resnet", "ResNetModel", {"depths": [3, 8, 36, 3], "hidden_sizes": [256, 512, 1024, 2048]}),
    (
        "swin",
        "SwinForImageClassification",
        {"embed_dim": 128, "depths": [2, 2, 18, 2], "num_heads": [4, 8, 16, 32]},
    ),
    (
        "convnext",
        "ConvNextForImageClassification",
        {"depths": [3, 3, 27, 3], "hidden_sizes": [128, 256, 512, 1024]},
    ),
    (
        "videomae",
        "VideoMAEForVideoClassification",
        {"hidden_size": 384, "num_attention_heads": 6, "intermediate_size": 1536},
    ),
    ("trocr", "TrOCRForCausalLM", {"cross_attention_hidden_size": 768}),
]


@pytest.mark.parametrize(("model_type", "architecture", "stated"), _REAL)
def test_released_shapes_count_as_transformers_builds_them(
    model_type: str, architecture: str, stated: dict[str, Any]
) -> None:
    _transformers()
    if templates.row(model_type) is None:
        pytest.skip(f"{model_type} has no row in this table")
    raw = {"model_type": model_type, "architectures": [architecture], **stated}
    total, exact, notes = _counted(raw)
    assert exact, notes
    assert total == _build_count(model_type, architecture, stated)


def test_a_list_of_another_length_stays_refused() -> None:
    _transformers()
    raw = {"model_type": "swin", "depths": [2, 2, 6], "num_heads": [3, 6, 12]}
    found = templates.learned_tensors(raw, "SwinModel")
    assert not isinstance(found, list)
    assert "depths" in found.reason


def test_a_number_stated_as_a_pair_is_inside_only_where_learned() -> None:
    learned = {"examined": ["image_size", "window_size"], "fixed": ["window_size"]}
    assert list_items.read_as_pair(learned, "image_size", [960, 720], 224)
    assert not list_items.read_as_pair(learned, "window_size", [7, 7], 7)  # fixed
    assert not list_items.read_as_pair(learned, "image_size", [960, 720, 3], 224)
    assert not list_items.read_as_pair(learned, "image_size", [960, 720], [224, 224])
    assert not list_items.read_as_pair(learned, "patch_size", [4, 4], 4)  # never examined


def test_a_window_no_size_divides_is_learned_on_its_curve() -> None:
    """Swin's relative position rows grow as ``(2 * window_size - 1) ** 2``: 7 divides no
    tensor size of the default, so learning builds it at four values and fits the curve, and
    Swin-B at 384 pixels (a 12-wide window) is counted, exactly."""
    _transformers()
    row = templates.row("swin")
    if row is None or not row.get("items"):
        pytest.skip("swin was not relearned item by item in this table")
    assert "window_size" not in row.get("fixed", [])
    raw = {"model_type": "swin", "window_size": 12, "image_size": 384, "embed_dim": 128}
    found = templates.learned_tensors(raw, "SwinModel")
    assert isinstance(found, list), found
    stated = {key: value for key, value in raw.items() if key != "model_type"}
    assert sum(t.numel for t in found) == _build_count("swin", "SwinModel", stated)


def test_a_string_compared_only_with_its_default_is_never_a_false_exact() -> None:
    """ResNet builds basic blocks for any ``layer_type`` but ``"bottleneck"``, the default and
    the only literal its code compares with: a ``"basic"`` ResNet-18 is never a false exact
    (``"basic"`` is learned from the values ``ResNetConfig.layer_types`` lists)."""
    _transformers()
    row = templates.row("resnet")
    if row is None or not row.get("items"):
        pytest.skip("resnet was not relearned in this table")
    raw = {
        "model_type": "resnet",
        "architectures": ["ResNetForImageClassification"],
        "layer_type": "basic",
        "depths": [2, 2, 2, 2],
        "hidden_sizes": [64, 128, 256, 512],
    }
    total, exact, _ = _counted(raw)
    stated = {
        key: value for key, value in raw.items() if key not in ("model_type", "architectures")
    }
    truth = _build_count("resnet", "ResNetForImageClassification", stated)
    assert not exact or total == truth


def test_checks_move_each_item_and_the_whole_list() -> None:
    from dimlint.tools import list_items as tool

    moved = tool.checks([8, 4, 2, 1], "sr_ratios")
    assert [8, 4, 1, 1] in moved  # a ratio reaching 1 drops a reduction layer
    assert [9, 4, 2, 1] in moved  # plus one: a floored quotient moves or not
    assert [16, 8, 4, 2] in moved
    assert [8, 4, 2, 1] not in moved
    assert moved == tool.checks([8, 4, 2, 1], "sr_ratios")  # seeded: the same every run


def test_predicted_total_answers_only_where_the_run_time_would() -> None:
    from dimlint.tools import list_items as tool

    defaults = {"depths[0]": 2, "hidden_sizes[0]": 32, "flag": 1}
    rows: list[list[Any]] = [
        # [name, count, dims, conditions, shape, count, toggled_only, pinned]
        [
            "a",
            [[1, 1, [["depths[0]", 1]]]],
            [[[1, 1, [["hidden_sizes[0]", 1]]]]],
            [],
            [32],
            2,
            False,
            [],
        ],
        [
            "b",
            [[1, 1, []]],
            [[[1, 2, [["hidden_sizes[0]", 1]]]]],
            [["flag", 1]],
            [16],
            1,
            False,
            [],
        ],
    ]
    assert tool.predicted_total(rows, defaults, defaults) == 2 * 32 + 16
    assert tool.predicted_total(rows, {**defaults, "depths[0]": 5}, defaults) == 5 * 32 + 16
    assert tool.predicted_total(rows, {**defaults, "flag": 0}, defaults) == 64
    assert tool.predicted_total(rows, {**defaults, "hidden_sizes[0]": 33}, defaults) is None
    pinned = [[*rows[0][:7], ["depths[0]"]]]
    assert tool.predicted_total(pinned, {**defaults, "depths[0]": 3}, defaults) is None
