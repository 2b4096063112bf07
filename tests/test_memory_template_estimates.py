"""A config outside what its template learned is estimated from the template (issue 19, item 7).

Outside the learned domain the template is still evaluated, with the sizes it learned standing
where the config leaves them; the count is labelled an estimate whose first note says why. A
hand recipe answers only where no template can be evaluated (an unlearned class, a type with no
row). One mechanism counts every templated model type, exact or not.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import model_parameters
from dimlint.memory.parameters import templates

GPT2 = {
    "model_type": "gpt2",
    "architectures": ["GPT2LMHeadModel"],
    "n_embd": 256,
    "n_head": 4,
    "n_layer": 3,
    "vocab_size": 1000,
    "n_positions": 128,
}


def _with_fixed(field: str) -> dict[str, Any]:
    """GPT-2's row, as if the generator had left ``field`` at its default (``fixed``)."""
    row = templates.row("gpt2")
    if row is None:
        pytest.skip("no gpt2 row in the table")
    changed = copy.deepcopy(row)
    changed["fixed"] = [*changed.get("fixed", []), field]
    return changed


def test_inside_the_domain_the_count_is_exact() -> None:
    counted = model_parameters(specs_for_document("config.json", GPT2))
    assert counted.exact, counted.notes


def test_outside_the_domain_the_template_estimates_and_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exact = model_parameters(specs_for_document("config.json", GPT2))
    row = _with_fixed("n_layer")
    monkeypatch.setattr(templates, "row", lambda model_type: row if model_type == "gpt2" else None)
    assert isinstance(templates.learned_tensors(GPT2, "GPT2LMHeadModel"), templates.Refusal)
    estimated = model_parameters(specs_for_document("config.json", dict(GPT2)))
    assert not estimated.exact
    assert estimated.notes[0].startswith("estimated from the template outside what it learned")
    assert "n_layer = 3" in estimated.notes[0]
    # evaluated where the config states its values: the same tensors as inside the domain
    assert estimated.total == exact.total


def test_the_estimate_mode_ends_with_its_block(monkeypatch: pytest.MonkeyPatch) -> None:
    row = _with_fixed("n_layer")
    monkeypatch.setattr(templates, "row", lambda model_type: row)
    with templates.estimated() as reasons:
        found = templates.learned_tensors(GPT2, "GPT2LMHeadModel")
    assert not isinstance(found, templates.Refusal)
    assert reasons
    assert "n_layer" in reasons[0]
    assert isinstance(templates.learned_tensors(GPT2, "GPT2LMHeadModel"), templates.Refusal)


def test_an_unlearned_class_is_still_refused_in_the_estimate_mode() -> None:
    with templates.estimated() as reasons:
        found = templates.learned_tensors(GPT2, "NoSuchClassForCausalLM")
    assert isinstance(found, templates.Refusal)
    assert reasons == []
