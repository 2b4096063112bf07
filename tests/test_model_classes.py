"""dimlint/data/classes.json (which model types each transformers class serves) and DL606.

The table is generated from transformers' ``MODEL_*_MAPPING_NAMES``; the drift test regenerates
it. DL606's claim — the named class cannot be built from a config of another model type — is
checked by building the issue's case with transformers on the meta device.
"""

from __future__ import annotations

import json

import pytest

from dimlint.config.model_classes import DATA_FILE, classes_of, model_types_of, transformers_version
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection
from dimlint.tools.generate_classes import collect, render


def test_table_matches_installed_transformers() -> None:
    transformers = pytest.importorskip("transformers")
    if transformers.__version__ != transformers_version():
        pytest.skip(f"table from transformers {transformers_version()}")
    with open(DATA_FILE, encoding="utf-8") as handle:
        text = handle.read()
    assert render(*collect()) == text, "run `python -m dimlint.tools.generate_classes`"


def test_lookups() -> None:
    assert model_types_of("Qwen3_5MoeForConditionalGeneration") == {"qwen3_5_moe"}
    assert model_types_of("LlamaForCausalLM") is not None
    assert "llama" in (model_types_of("LlamaForCausalLM") or ())
    assert model_types_of("QWenLMHeadModel") is None  # remote code
    assert "Qwen3_5MoeForCausalLM" in classes_of("qwen3_5_moe_text")


def test_the_named_class_really_cannot_be_built() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = transformers.Qwen3_5MoeTextConfig(num_hidden_layers=1, num_experts=4)
    with pytest.raises(AttributeError, match="vision_config"), torch.device("meta"):
        transformers.Qwen3_5MoeForConditionalGeneration(config)


def codes(config: dict[str, object]) -> list[str]:
    result = lint_bytes("config.json", json.dumps(config).encode(), Selection())
    return [d.code for d in result.diagnostics]


BASE = {
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 128,
    "num_hidden_layers": 4,
    "vocab_size": 151936,
}


@pytest.mark.parametrize(
    ("model_type", "architecture", "fires"),
    [
        ("qwen3_5_moe_text", "Qwen3_5MoeForConditionalGeneration", True),
        ("qwen3_5_moe_text", "Qwen3_5MoeForCausalLM", False),
        ("qwen3_5_moe", "Qwen3_5MoeForCausalLM", False),  # registered for both types
        ("qwen3", "LlamaForCausalLM", True),
        ("llama", "LlamaForCausalLM", False),
        ("llama", "LlamaForSequenceClassification", False),
        ("qwen", "QWenLMHeadModel", False),  # a remote-code type: not judged
        ("llama", "MyLlamaForRewardModel", False),  # a class transformers does not ship
    ],
)
def test_dl606(model_type: str, architecture: str, fires: bool) -> None:
    config = {**BASE, "model_type": model_type, "architectures": [architecture]}
    assert ("DL606" in codes(config)) is fires


def test_dl606_skips_auto_map() -> None:
    config = {
        **BASE,
        "model_type": "qwen3",
        "architectures": ["LlamaForCausalLM"],
        "auto_map": {"AutoModelForCausalLM": "modeling.LlamaForCausalLM"},
    }
    assert "DL606" not in codes(config)
