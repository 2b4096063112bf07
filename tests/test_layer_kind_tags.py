"""Layer tensors tagged with the plan kinds that hold them, and counted from a stated plan.

The generator side (:mod:`dimlint.tools.layer_kind_tags`) is exercised on synthetic parameter
layouts, the run-time side (:mod:`dimlint.memory.parameters.plan_counts`) on hand-made rows;
``tests/test_memory_template_lists.py`` compares relearned rows with transformers' builds.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from dimlint.memory.parameters import plan_counts
from dimlint.tools import layer_kind_tags as tags

_PLAN = ["linear_attention", "full_attention", "linear_attention", "full_attention"]


class _Parameter:
    def __init__(self, *shape: int) -> None:
        self.shape = shape


class _Model:
    """Parameters of a hybrid: a norm in every layer, a query projection of each mixer's own
    shape, a convolution in the linear layers only, an expert bank of two in every layer."""

    def __init__(self, plan: list[str]) -> None:
        self.parameters: list[tuple[str, _Parameter]] = [("embed.weight", _Parameter(10, 4))]
        for index, kind in enumerate(plan):
            prefix = f"model.layers.{index}."
            self.parameters.append((prefix + "norm.weight", _Parameter(4)))
            linear = kind.startswith("linear")
            self.parameters.append(
                (prefix + "attn.q_proj.weight", _Parameter(8 if linear else 6, 4))
            )
            if linear:
                self.parameters.append((prefix + "attn.conv1d.weight", _Parameter(8, 1, 4)))
            for expert in range(2):
                self.parameters.append((f"{prefix}mlp.experts.{expert}.w", _Parameter(4, 4)))

    def named_parameters(self) -> list[tuple[str, _Parameter]]:
        return list(self.parameters)


def _tagged(plan: list[str]) -> tuple[tags.Shapes, dict[Any, list[str]]]:
    counts, where = tags.shapes(_Model(plan))
    return counts, tags.tags(counts, where, plan)


def test_tensors_in_some_layers_are_tagged_with_their_kinds() -> None:
    counts, found = _tagged(_PLAN)
    assert found[("model.layers.*.attn.conv1d.weight", (8, 1, 4))] == ["linear"]
    assert found[("model.layers.*.attn.q_proj.weight", (8, 4))] == ["linear"]
    assert found[("model.layers.*.attn.q_proj.weight", (6, 4))] == ["full"]
    # in every layer: held by every kind (a stated plan counts it once per layer)
    assert found[("model.layers.*.norm.weight", (4,))] == sorted({"full", "linear"})
    # more than once per layer, or outside the layers: counted by their learned expressions
    assert ("model.layers.*.mlp.experts.*.w", (4, 4)) not in found
    assert ("embed.weight", (10, 4)) not in found
    assert counts[("model.layers.*.mlp.experts.*.w", (4, 4))] == 8


def test_tags_predict_a_build_with_another_plan() -> None:
    counts, found = _tagged(_PLAN)
    probe = tags.probe_plan(_PLAN)
    assert probe == ["full_attention", *_PLAN[1:]]
    observed, _ = tags.shapes(_Model(probe))
    assert tags.predicted(counts, found, probe) == observed
    # a plan with no layer of a kind builds none of its tensors
    only_full = ["full_attention"] * 4
    observed, _ = tags.shapes(_Model(only_full))
    assert tags.predicted(counts, found, only_full) == observed


def test_a_coincidental_layer_set_is_not_a_kind() -> None:
    """A tensor in layers 0 and 1 of a plan whose kinds alternate holds no set of kinds."""
    counts = {("model.layers.*.x", (2,)): 2, ("model.layers.*.n", (2,)): 4}
    where = {
        ("model.layers.*.x", (2,)): ("model.layers.", {0, 1}),
        ("model.layers.*.n", (2,)): ("model.layers.", {0, 1, 2, 3}),
    }
    found = tags.tags(counts, where, _PLAN)
    assert ("model.layers.*.x", (2,)) not in found
    assert found == {("model.layers.*.n", (2,)): ["full", "linear"]}  # every layer's
    assert tags.probe_plan(["mamba", "mamba"]) is None


def test_positions_the_class_rewrites() -> None:
    plan = ["sliding_attention", "sliding_attention", "full_attention"]

    def forces_last_full(stated: list[str]) -> list[str]:
        return [*stated[:-1], "full_attention"]

    assert tags.rewritten(plan, forces_last_full) == {"-1": "full"}
    assert tags.rewritten(plan, list) == {}

    def all_full(stated: list[str]) -> list[str]:
        return ["full_attention"] * len(stated)

    assert tags.rewritten(plan, all_full) is None  # a rewrite no record describes
    assert tags.rewritten(plan, lambda stated: None) is None  # rejected: nothing proven


_LEARNED = {
    "plans": {
        "text_config.layer_types": {
            "layers": "text_config.num_hidden_layers",
            "kinds": ["full", "sliding"],
            "rewritten": {"-1": "full"},
        }
    }
}
_RECORD = {
    "layer_kinds": {"text_config.layer_types": {"3": ["sliding"], "4": ["full"]}},
    "kind_counts_at": {"text_config.num_hidden_layers": 30},
}


def _stated(plan: list[str], layers: int | None = None) -> dict[str, Counter[str]]:
    raw = {"text_config": {"layer_types": plan}}
    count = len(plan) if layers is None else layers
    return plan_counts.stated_plans(raw, _LEARNED, _RECORD, lambda path: count)


def test_a_stated_plan_counts_each_tagged_tensor_by_its_kinds() -> None:
    plan = ["sliding_attention"] * 4 + ["full_attention"] + ["sliding_attention"] * 2
    plans = _stated(plan)
    # the class forces the last layer to full attention: 5 sliding, 2 full
    assert plans == {"text_config.layer_types": Counter({"sliding": 5, "full": 2})}
    assert plan_counts.recount(3, _RECORD, plans) == 5
    assert plan_counts.recount(4, _RECORD, plans) == 2
    assert plan_counts.recount(0, _RECORD, plans) is None  # untagged: its expression counts
    assert plan_counts.lengths(plans) == {7}


def test_plans_the_tags_cannot_count_are_left_to_the_list_guard() -> None:
    assert _stated(["sliding_attention", "conv", "full_attention"]) == {}  # a kind never built
    assert _stated(["sliding_attention", "full_attention"], layers=3) == {}  # another length
    assert _stated(["sliding_attention", 5, "full_attention"]) == {}  # type: ignore[list-item]
    raw = {"text_config": {"layer_types": ["sliding_attention", "full_attention"]}}
    assert plan_counts.stated_plans(raw, _LEARNED, {}, lambda path: 2) == {}  # no tags
    untold = {"layer_kinds": _RECORD["layer_kinds"]}  # no build said what else moves counts
    assert plan_counts.stated_plans(raw, _LEARNED, untold, lambda path: 2) == {}


def test_a_plan_is_not_counted_while_another_field_moved_a_kinds_count() -> None:
    """Gemma-4's ``num_kv_shared_layers`` drops the keys of the last layers whatever their
    kind: the stated plan alone no longer says how many each kind has."""
    record = {**_RECORD, "kind_counts_at": {"text_config.num_kv_shared_layers": 0}}
    raw = {"text_config": {"layer_types": ["sliding_attention", "full_attention"]}}

    def values(shared: int) -> Any:
        return lambda path: shared if path.endswith("num_kv_shared_layers") else 2

    assert plan_counts.stated_plans(raw, _LEARNED, record, values(0)) != {}
    assert plan_counts.stated_plans(raw, _LEARNED, record, values(1)) == {}
