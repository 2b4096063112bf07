"""Structure the default build never shows, learned by the shape generator (issue 19, item 1).

- a default config that does not build: DBRX's attention reads ``attn_config.rope_theta``,
  which ``DbrxAttentionConfig`` does not declare (every released DBRX config states it);

Each relearns a model type with the generator and checks the run-time's count of a config
inside the learned domain against the model transformers builds from it on the meta device.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.tools import generate_shapes


def _transformers() -> Any:
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    transformers.logging.set_verbosity_error()
    return transformers


def _learned(model_type: str) -> dict[str, Any]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate_shapes.learn(model_type)


def _truth(raw: dict[str, Any], architecture: str) -> int:
    import torch

    transformers = _transformers()
    kwargs = {key: value for key, value in raw.items() if key != "model_type"}
    config = transformers.AutoConfig.for_model(raw["model_type"], **kwargs)
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = getattr(transformers, architecture)(config)
    return sum(int(p.numel()) for p in model.parameters())


def _counted(
    monkeypatch: pytest.MonkeyPatch, row: dict[str, Any], raw: dict[str, Any], architecture: str
) -> int | str:
    """The run-time's count of ``raw`` from ``row`` (or its refusal)."""
    monkeypatch.setattr(templates, "row", lambda model_type: row)
    found = templates.learned_tensors(raw, architecture)
    if isinstance(found, templates.Refusal):
        return found.reason
    return sum(tensor.numel for tensor in found)


def test_a_name_the_code_requires_is_given_a_class_default() -> None:
    transformers = _transformers()
    config = transformers.AutoConfig.for_model("dbrx")
    classes = [("DbrxForCausalLM", transformers.DbrxForCausalLM)]
    required = generate_shapes.required_attributes(classes, config)
    assert required == {"attn_config.rope_theta": generate_shapes._REQUIRED_TRIALS[0]}
    assert not hasattr(type(config.attn_config), "rope_theta")  # restored after learning
    # a name the classes build without is not required
    llama = transformers.AutoConfig.for_model("llama", num_hidden_layers=1)
    assert generate_shapes.required_attributes([("x", transformers.LlamaModel)], llama) == {}


def test_dbrx_is_learned_and_exact_inside_its_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    _transformers()
    row = _learned("dbrx")
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
    assert _counted(monkeypatch, row, raw, "DbrxForCausalLM") == _truth(raw, "DbrxForCausalLM")
