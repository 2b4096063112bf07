"""A config outside what its template learned is estimated from the template (issue 19, item 7).

Outside the learned domain the template is still evaluated, with the sizes it learned standing
where the config leaves them; the count is labelled an estimate whose first note says why: a
class remote code names is counted as the learned class nearest to it, a tower the default
config leaves unset by its own type's template, a string value never learned at its default.
The decoder recipe answers only where no template can be evaluated (a type with no row, a class
of another model type). One mechanism counts every templated model type, exact or not.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import model_parameters
from dimlint.memory.parameters import class_names, templates

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


def _count(raw: dict[str, Any]) -> Any:
    return model_parameters(specs_for_document("config.json", raw))


BERT = {
    "model_type": "bert",
    "hidden_size": 128,
    "num_attention_heads": 2,
    "num_hidden_layers": 2,
    "intermediate_size": 256,
    "vocab_size": 1000,
}


@pytest.mark.parametrize(
    ("architecture", "stand_in"),
    [
        ("HF_ColBERT", "BertModel"),  # no head in the name: the base model
        ("BertForSpeechClassification", "BertForSequenceClassification"),
        ("MyBertForMaskedLMWithExtras", "BertForMaskedLM"),  # the head the name begins with
        ("BERTForMaskedLM", "BertForMaskedLM"),  # another spelling, remote code (auto_map)
    ],
)
def test_an_unlearned_class_is_estimated_as_the_nearest_learned_one(
    architecture: str, stand_in: str
) -> None:
    raw = {**BERT, "architectures": [architecture], "auto_map": {"AutoModel": "m.M"}}
    counted = _count(raw)
    assert not counted.exact
    assert f"counted as {stand_in}" in counted.notes[0]
    assert counted.total == _count({**BERT, "architectures": [stand_in]}).total


def test_another_spelling_without_remote_code_is_the_class_itself() -> None:
    """``LLaMAForCausalLM`` (the name before release): with no ``auto_map`` the auto classes
    build transformers' own class for the model type, so the count is exact."""
    raw = {**BERT, "architectures": ["BERTForMaskedLM"]}
    counted = _count(raw)
    assert counted.exact, counted.notes
    assert counted.total == _count({**BERT, "architectures": ["BertForMaskedLM"]}).total


def test_a_class_of_another_model_type_is_counted_by_that_types_template() -> None:
    """A ``glm`` config naming ``Glm4MoeForCausalLM``: no glm class stands in for it; the
    estimate is glm4_moe's template, evaluated with this config's values."""
    raw = {
        "model_type": "glm",
        "architectures": ["Glm4MoeForCausalLM"],
        "hidden_size": 256,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "intermediate_size": 512,
        "vocab_size": 1000,
    }
    row = templates.row("glm")
    assert row is not None
    assert class_names.stand_in(row, "glm", "Glm4MoeForCausalLM") is None
    assert isinstance(templates.learned_tensors(raw, "Glm4MoeForCausalLM"), templates.Refusal)
    counted = _count(raw)
    assert not counted.exact
    assert "counted by glm4_moe's template" in counted.notes[0]
    owner = {**raw, "model_type": "glm4_moe"}
    with templates.estimated():
        found = templates.learned_tensors(owner, "Glm4MoeForCausalLM")
    assert not isinstance(found, templates.Refusal)
    assert counted.total == sum(tensor.numel for tensor in found)


def test_flags_whose_alternatives_were_never_built_together_are_outside() -> None:
    """Falcon learned its fused QKV under ``multi_query = false`` and, apart, under
    ``new_decoder_architecture = true``: both flipped, either row would match."""
    raw = {
        "model_type": "falcon",
        "hidden_size": 64,
        "num_attention_heads": 4,
        "num_hidden_layers": 2,
        "vocab_size": 1000,
        "multi_query": False,
        "new_decoder_architecture": True,
    }
    refused = templates.learned_tensors(raw, "FalconForCausalLM")
    assert isinstance(refused, templates.Refusal)
    assert "never learned together" in refused.reason
    counted = _count(raw)
    assert not counted.exact
    from learned_rows_support import truth

    assert counted.total == truth(raw, "FalconForCausalLM")


def test_a_string_never_learned_is_estimated_at_its_default() -> None:
    # the activations transformers registers were built and learned inside (conv_act
    # "gelu"); a name no registry holds was never built
    raw = {**BERT, "model_type": "deberta-v2", "conv_act": "tanhshrink"}
    assert not isinstance(
        templates.learned_tensors({**raw, "conv_act": "gelu"}, ""), templates.Refusal
    )
    refused = templates.learned_tensors(raw, "")
    assert isinstance(refused, templates.Refusal)
    counted = _count(raw)
    assert not counted.exact
    assert "conv_act = 'tanhshrink'" in counted.notes[0]
    assert counted.total == _count({**raw, "conv_act": "tanh"}).total


def test_a_tower_the_default_leaves_unset_is_counted_by_its_own_template() -> None:
    """Gemma-4 learned without an audio tower: a stated one is counted by gemma4_audio's."""
    audio = {"model_type": "gemma4_audio"}
    plain = {"model_type": "gemma4"}
    row = templates.row("gemma4")
    if row is None or "audio_config" not in row.get("absent", []):
        pytest.skip("gemma4's row learned its audio tower")
    with templates.estimated() as reasons:
        found = templates.learned_tensors({**plain, "audio_config": audio}, "")
    assert not isinstance(found, templates.Refusal)
    assert any("audio_config is stated" in reason for reason in reasons)
    tower = templates.learned_tensors(audio, "Gemma4AudioModel")
    assert not isinstance(tower, templates.Refusal)
    towered = sum(t.numel for t in found if t.name.startswith("audio_config."))
    assert towered == sum(t.numel for t in tower) > 0


def test_a_native_sub_config_of_remote_code_is_counted_by_its_template() -> None:
    """A remote-code composite (no template of its own) whose vision tower is a SigLIP one:
    the tower is counted by siglip_vision_model's template, exact where that is."""
    vision = {
        "model_type": "siglip_vision_model",
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_attention_heads": 2,
        "num_hidden_layers": 2,
        "image_size": 32,
        "patch_size": 8,
    }
    raw = {
        "model_type": "my_remote_vlm",
        "architectures": ["MyRemoteVLM"],
        "hidden_size": 128,
        "num_attention_heads": 2,
        "num_hidden_layers": 2,
        "intermediate_size": 256,
        "vocab_size": 1000,
        "vision_config": vision,
    }
    counted = _count(raw)
    parts = dict(counted.components)
    tower = templates.learned_tensors(vision, "")
    assert not isinstance(tower, templates.Refusal)
    assert parts["vision_config"] == sum(t.numel for t in tower)


def test_a_composite_named_by_its_language_model_class_counts_that_model() -> None:
    """``Llama4ForCausalLM`` is registered for ``llama4`` and learned on ``llama4_text``: the
    auto class builds the language model ``text_config`` describes, counted by its template."""
    text = {"model_type": "llama4_text", "num_hidden_layers": 2, "num_local_experts": 4}
    composite = {
        "model_type": "llama4",
        "architectures": ["Llama4ForCausalLM"],
        "text_config": text,
    }
    counted = _count(composite)
    alone = _count({**text, "architectures": ["Llama4ForCausalLM"]})
    assert counted.exact, counted.notes
    assert counted.total == alone.total
    # what ``AutoModelForCausalLM.from_config`` builds from the composite config
    from learned_rows_support import transformers_or_skip

    transformers = transformers_or_skip()
    import torch

    config = transformers.AutoConfig.for_model("llama4", text_config=text)
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    assert type(model).__name__ == "Llama4ForCausalLM"
    assert counted.total == sum(int(p.numel()) for p in model.parameters())


def test_a_flat_language_model_under_a_composite_type_is_not_delegated() -> None:
    """Qwen3.5 fields stated flat under ``model_type: qwen3_5``: the composite class does not
    declare ``hidden_size``, and transformers cannot build its causal LM from it."""
    flat = {
        "model_type": "qwen3_5",
        "architectures": ["Qwen3_5ForCausalLM"],
        "hidden_size": 5120,
        "num_hidden_layers": 4,
        "num_attention_heads": 24,
        "intermediate_size": 17408,
        "vocab_size": 248320,
    }
    counted = _count(flat)
    assert not counted.exact
    assert "hidden_size is not a field of qwen3_5's config class" in counted.notes[0]


def test_stage_names_numbering_the_learned_layers_are_inside() -> None:
    """``stage_names`` a backbone-capable config derives from its layer count (saved by every
    BEiT/ViT-family config): stated for 24 layers, it names the layers the template counts."""
    raw = {
        "model_type": "beit",
        "architectures": ["BeitForImageClassification"],
        "hidden_size": 64,
        "num_attention_heads": 2,
        "intermediate_size": 128,
        "num_hidden_layers": 24,
        "image_size": 32,
        "patch_size": 8,
        "stage_names": ["stem"] + [f"stage{index}" for index in range(1, 25)],
        "out_features": ["stage24"],
        "out_indices": [24],
    }
    counted = _count(raw)
    assert counted.exact, counted.notes
    from learned_rows_support import truth

    assert counted.total == truth(raw, "BeitForImageClassification")
    shorter = {**raw, "stage_names": ["stem", "block1", "block2"]}
    refused = templates.learned_tensors(shorter, "BeitForImageClassification")
    assert isinstance(refused, templates.Refusal)
