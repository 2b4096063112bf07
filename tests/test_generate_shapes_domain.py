"""What the shape generator learns beyond numeric fields (issue 19, items 1 and 2).

- the label count: each class is rebuilt at other label counts, so a head's rows read
  ``num_labels`` and the counts at which the head keeps its structure are recorded
  (LayoutLMv3's token classifier becomes a two-layer head from 10 labels on);
- string fields the code compares with literals (T5's ``feed_forward_proj``): the literals are
  collected from the source, so each can be built;
- a flag a secondary class's own build shows, not the primary's (T5's encoder-only class has
  no decoder to gate);
- the perturbation of a field at -1 (``value + 1`` is 0).

The models are built on the meta device from small configs, as the generator builds them.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dimlint.tools import generate_shapes
from dimlint.tools.compared_strings import compared, compared_pairs


def test_trials_of_minus_one_keep_going() -> None:
    # -1 + 1 == 0: a divisibility check by the trial must not divide by it
    trials = list(generate_shapes._trials(-1, [4, 8, 0, -1]))
    assert 0 in trials
    assert -2 in trials


def test_literals_compared_with_a_field() -> None:
    source = """
class Config:
    def __post_init__(self):
        if self.feed_forward_proj == "gated-gelu":
            self.dense_act_fn = "gelu_new"
        if getattr(config, "position_embedding_type", "absolute") in ("relative_key", "rk2"):
            pass
        if mode != "x":
            pass
        if self.hidden_act is None:
            pass
"""
    found = compared([source])
    assert found["feed_forward_proj"] == ["gated-gelu"]
    assert found["position_embedding_type"] == ["relative_key", "rk2"]
    assert found["mode"] == ["x"]
    assert "hidden_act" not in found
    assert compared(["def broken(:"]) == {}


def test_fields_compared_with_each_other() -> None:
    source = """
class Embeddings:
    def __init__(self, config):
        if config.embedding_size != config.hidden_size:
            self.project = Linear(config.embedding_size, config.hidden_size)
        if self.config.hidden_size == config.output_hidden_size:
            pass
        if config.hidden_size == 4 or width != config.hidden_size or a.b != c.d:
            pass
"""
    assert compared_pairs([source]) == {
        ("embedding_size", "hidden_size"),
        ("hidden_size", "output_hidden_size"),
    }
    assert compared_pairs(["def broken(:"]) == set()


def _small(model_type: str, **fields: Any) -> Any:
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    transformers.logging.set_verbosity_error()
    return transformers.AutoConfig.for_model(model_type, **fields)


def _domain(config: Any, class_name: str) -> tuple[Any, Any]:
    import transformers

    model_class = getattr(transformers, class_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        groups = generate_shapes._groups(generate_shapes._build(model_class, config))
        return generate_shapes.label_domain(model_class, config, groups)


SMALL_LAYOUTLMV3 = {
    "hidden_size": 32,
    "num_hidden_layers": 1,
    "num_attention_heads": 2,
    "intermediate_size": 37,
    "vocab_size": 99,
}


def test_head_that_switches_structure_past_a_label_count() -> None:
    # LayoutLMv3ForTokenClassification: a linear classifier below 10 labels, a two-layer head
    # from 10 on; learned for 1 to 9 labels only
    config = _small("layoutlmv3", **SMALL_LAYOUTLMV3)
    axes, labels_range = _domain(config, "LayoutLMv3ForTokenClassification")
    assert labels_range == [1, 9]
    assert axes[("classifier.weight", (2, 32))] == [[0, 0]]
    assert axes[("classifier.bias", (2,))] == [[0, 0]]


def test_head_sized_by_the_labels_at_every_tried_count() -> None:
    config = _small("layoutlmv3", **SMALL_LAYOUTLMV3)
    axes, labels_range = _domain(config, "LayoutLMv3ForSequenceClassification")
    assert labels_range == [1, max(generate_shapes._LABEL_TRIALS)]
    assert [[0, 0]] in axes.values()


def test_class_without_a_head_is_not_shaped_by_labels() -> None:
    config = _small("layoutlmv3", **SMALL_LAYOUTLMV3)
    assert _domain(config, "LayoutLMv3Model") == ({}, None)


def test_labelled_dimensions_read_num_labels() -> None:
    row = ["classifier.weight", [[1, 1, []]], [[[2, 1, []]], [[1, 1, [["hidden", 1]]]]], [],
           [2, 32], 1, False, []]  # fmt: skip
    dims = generate_shapes._labelled(row, {("classifier.weight", (2, 32)): [[0, 1]]})
    assert dims[0] == [[1, 1, [["num_labels", 1]]], [1, 1, []]]
    assert dims[1] == row[2][1]
    assert generate_shapes._labelled(row, {("classifier.weight", (3, 32)): [[0, 0]]}) == row[2]


def test_secondary_class_takes_only_the_flagged_tensors_its_own_build_has() -> None:
    # the primary (encoder-decoder) gates both stacks' MLPs; the encoder-only class only its own
    primary = [
        ["encoder.wi.weight", "c", "d", [["gated", False]], [8, 4], 1, False, []],
        ["decoder.wi.weight", "c", "d", [["gated", False]], [8, 4], 1, False, []],
        ["encoder.wi_0.weight", "c", "d", [["gated", True]], [8, 4], 1, True, []],
        ["decoder.wi_0.weight", "c", "d", [["gated", True]], [8, 4], 1, True, []],
    ]
    groups = {("encoder.wi.weight", 0): ((8, 4), 1)}
    flipped: dict[str, Any] = {"gated": {("encoder.wi_0.weight", 0): ((8, 4), 1)}}
    rows, failed = generate_shapes._secondary_rows(groups, primary, flipped)
    assert not failed
    assert [row[0] for row in rows] == ["encoder.wi.weight", "encoder.wi_0.weight"]
    assert generate_shapes.unlearned_flags(groups, rows, flipped) == []
    # a class that does not build with the flag flipped is not learned with it
    assert generate_shapes.unlearned_flags(groups, rows, {"gated": None}) == ["gated"]
    # nor one whose flipped build has a tensor no row yields
    other = {"gated": {("encoder.wi_9.weight", 0): ((8, 4), 1)}}
    assert generate_shapes.unlearned_flags(groups, rows, other) == ["gated"]


def test_activation_names_are_tried_from_the_registry() -> None:
    """An undeclared activation name stated at its fallback (DeBERTa's ``conv_act``) is tried
    at every name transformers' ``ACT2FN`` knows; a declared one, or another name, is not."""
    pytest.importorskip("transformers")
    from transformers.activations import ACT2FN

    learned = generate_shapes._Learned({}, {}, {"conv_act": "tanh", "position_buckets": -1})
    assert generate_shapes._registry_values("conv_act", "conv_act", learned) == sorted(ACT2FN)
    assert generate_shapes._registry_values("hidden_act", "hidden_act", learned) == []
    assert generate_shapes._registry_values("norm_rel_ebd", "norm_rel_ebd", learned) == []


def test_a_suffix_under_an_unrelated_module_is_refitted() -> None:
    """DeBERTa's pooler.dense matched the masked-LM head's cls.predictions.transform.dense by
    its suffix (both 1536 wide at the default); the pooler is ``pooler_hidden_size`` wide, so
    the match is only a guess, refitted from the class's own builds. A base-model prefix
    added or stripped (``deberta.encoder`` and ``encoder``) is the same stack."""
    width = [[1, 1, [["hidden_size", 1]]]]
    head = "cls.predictions.transform.dense.weight"
    body = "deberta.encoder.layer.*.output.dense.weight"
    primary = [
        [head, [[1, 1, []]], [width, width], [], [8, 8], 1, False, []],
        [body, [[2, 1, []]], [width, width], [], [8, 8], 2, False, []],
    ]
    groups = {
        ("pooler.dense.weight", 0): ((8, 8), 1),
        ("encoder.layer.*.output.dense.weight", 0): ((8, 8), 2),
    }
    guessed: set[tuple[str, tuple[int, ...]]] = set()
    rows, failed = generate_shapes._secondary_rows(groups, primary, {}, guessed)
    assert not failed
    assert {row[0] for row in rows} == {name for name, _ in groups}
    assert guessed == {("pooler.dense.weight", (8, 8))}
    assert generate_shapes._elsewhere("bert.pooler.dense.weight", "pooler.dense.weight") is False
