"""Flags flipped in every class the shape generator learns (issue 19): wav2vec2's
``use_weighted_layer_sum`` adds ``layer_weights`` to the sequence classifier only, and
``do_stable_layer_norm`` keeps every class's tensors; both were refused in heads before because
only the primary (the CTC model, where neither changes a tensor) was built with them flipped.

Each test learns the type with the generator and checks the run-time's count of a config with
the flags flipped against the model transformers builds from it on the meta device."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.tools import class_flags, generate_shapes
from dimlint.tools.shape_fit import evaluate_terms, from_json
from tests.learned_rows_support import transformers_or_skip, truth


@pytest.fixture(scope="module")
def wav2vec2() -> dict[str, Any]:
    transformers_or_skip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # a generous CPU budget: the default (12 s) cuts the head-flag builds on a loaded machine
        return generate_shapes.learn("wav2vec2", budget_s=120.0)


@pytest.mark.parametrize(
    "architecture", ["Wav2Vec2ForSequenceClassification", "Wav2Vec2ForPreTraining"]
)
def test_a_head_flag_the_primary_ignores_is_learned_in_the_head(
    monkeypatch: pytest.MonkeyPatch, wav2vec2: dict[str, Any], architecture: str
) -> None:
    record = wav2vec2["classes"][architecture]
    assert wav2vec2["primary"] != architecture
    # each flag is either checked in this class or conditions the rows it learned: a build
    # of this class with it flipped was seen, or the primary's rows say what it changes
    primary = wav2vec2["classes"][wav2vec2["primary"]]["tensors"]
    conditioned = {condition[0] for row in primary for condition in row[3]}
    checked = set(record["checked_flags"]) | conditioned
    assert {"use_weighted_layer_sum", "do_stable_layer_norm"} <= checked
    monkeypatch.setattr(templates, "row", lambda model_type: wav2vec2)
    raw = {
        "model_type": "wav2vec2",
        "use_weighted_layer_sum": True,
        "do_stable_layer_norm": True,
        "num_hidden_layers": 7,  # layer_weights: one per layer and the embeddings' output
        "hidden_size": 512,
        "num_attention_heads": 8,
        "intermediate_size": 2048,
        "feat_extract_norm": "layer",
        "num_feat_extract_layers": 7,  # released configs state it (the class derives none)
    }
    found = templates.learned_tensors(raw, architecture)
    assert not isinstance(found, templates.Refusal), found
    assert sum(tensor.numel for tensor in found) == truth(raw, architecture)


def test_the_weighted_sum_is_a_row_of_the_head_sized_by_the_layers(
    wav2vec2: dict[str, Any],
) -> None:
    tensors = wav2vec2["classes"]["Wav2Vec2ForSequenceClassification"]["tensors"]
    rows = [row for row in tensors if row[0] == "layer_weights"]
    assert len(rows) == 1
    assert rows[0][3] == [["use_weighted_layer_sum", True]]
    assert "layer_weights" in wav2vec2["classes"]["Wav2Vec2ForSequenceClassification"]["refit"]
    # the pre-training model has no weighted sum whatever the flag
    pretraining = wav2vec2["classes"]["Wav2Vec2ForPreTraining"]["tensors"]
    assert not [row for row in pretraining if row[0] == "layer_weights"]


def _fake_build(added: dict[str, tuple[tuple[int, ...], int]], fails: bool = False) -> Any:
    """A class of one tensor ``w`` of ``[n]``; flipping ``flag`` adds ``added`` (sizes read
    ``n``: ``[n + 1]``), dropping ``w``."""

    def build(changes: dict[str, object]) -> tuple[dict[str, int], Any]:
        values = {"n": 4, "flag": False, **changes}
        n = int(values["n"])  # type: ignore[call-overload]
        if values["flag"]:
            if fails:
                raise ValueError("rejected")
            return values, {(name, 0): ((n + 1,), count) for name, (_, count) in added.items()}
        return values, {("w", 0): ((n,), 1)}

    return build


def _fit(key: tuple[str, int], observations: Any) -> list[object] | None:
    from dimlint.tools.shape_fit import fit, to_json

    dims = fit([(values, groups[key][0][0]) for _, values, groups in observations], frozenset())
    return None if dims is None else [[[1, 1, []]], [to_json(dims)]]


def test_learn_class_flags_conditions_added_and_dropped_rows() -> None:
    build = _fake_build({"v": ((5,), 1)})
    _, groups = build({})
    observations = [("", {"n": 4, "flag": False}, groups)]
    observations += [("n", {"n": n}, build({"n": n})[1]) for n in (8, 2)]
    rows: list[list[Any]] = [["w", [[1, 1, []]], [[[1, 1, [["n", 1]]]]], [], [4], 1, False, []]]
    checked, unlearned = class_flags.learn_class_flags(
        build, groups, observations, set(), rows, _fit, float("inf")
    )
    assert (checked, unlearned) == (["flag"], [])
    assert rows[0][3] == [["flag", False]]  # the flip drops ``w``
    added = rows[1]
    assert added[0] == "v"
    assert added[3] == [["flag", True]]
    assert added[8] is True
    terms = from_json(added[2][0])  # n + 1, refitted at n = 8 and 2
    assert terms is not None
    assert evaluate_terms(terms, {"n": 10}) == 11


def test_a_flip_that_does_not_build_or_past_the_deadline_stays_unchecked() -> None:
    build = _fake_build({"v": ((5,), 1)}, fails=True)
    _, groups = build({})
    observations = [("", {"n": 4, "flag": False}, groups)]
    rows: list[list[Any]] = []
    assert class_flags.learn_class_flags(
        build, groups, observations, set(), rows, _fit, float("inf")
    ) == ([], ["flag"])
    assert class_flags.learn_class_flags(
        _fake_build({}), groups, observations, set(), rows, _fit, -1.0
    ) == ([], [])
    assert class_flags.learn_class_flags(
        build, groups, observations, {"flag"}, rows, _fit, float("inf")
    ) == ([], [])
