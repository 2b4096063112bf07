"""``dimlint shapes``: stage shapes and parameters that add up to the model's count."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dimlint.cli import main
from dimlint.config.normalize import specs_for_document
from dimlint.memory import model_parameters
from dimlint.memory.parameters.shapes import walk

#: Decoder families whose every parameter is in a stage (no family-specific extras).
FAMILIES = [
    "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "gemma",
    "gemma2", "gemma3_text", "phi3", "falcon", "gpt2", "gpt_neox", "deepseek_v2",
    "deepseek_v3", "olmoe", "granitemoe", "qwen3_next", "glm4_moe", "gpt_oss", "minicpm3",
]  # fmt: skip


@pytest.mark.parametrize("model_type", FAMILIES)
def test_stages_add_up_to_the_parameter_count(model_type: str) -> None:
    spec = specs_for_document("config.json", {"model_type": model_type})[0]
    result = walk(spec, batch=2, seq=64)
    assert result.total == model_parameters([spec]).total
    model_level = sum(stage.params for stage in result.model_stages)
    assert result.all_layers_params + model_level == result.total
    assert not any(stage.name == "family-specific parameters" for stage in result.model_stages)
    assert result.layer_params == sum(stage.params for stage in result.stages)


def test_gqa_heads_and_shapes() -> None:
    spec = specs_for_document(
        "c.json",
        {"model_type": "llama", "num_key_value_heads": 8, "hidden_size": 4096},
    )[0]
    stages = {stage.name: stage for stage in walk(spec, batch=2, seq=16).stages}
    assert stages["q_proj"].shape == (2, 16, 4096)
    assert stages["k_proj"].shape == (2, 16, 1024)
    assert stages["split heads: K, V"].shape == (2, 8, 16, 128)
    assert "4 query heads per KV head" in stages["split heads: K, V"].note
    assert stages["scores Q·Kᵀ, softmax"].shape == (2, 32, 16, 16)


def test_mla_stages_show_the_latent() -> None:
    spec = specs_for_document("c.json", {"model_type": "deepseek_v3"})[0]
    result = walk(spec, seq=16)
    assert result.layer == 3  # the first MoE layer
    names = [stage.name for stage in result.stages]
    assert "kv_a_proj (latent + rope key)" in names
    latent = next(stage for stage in result.stages if stage.name.startswith("kv_a_proj"))
    assert latent.shape == (1, 16, 512 + 64)
    router = next(stage for stage in result.stages if stage.name == "router logits")
    assert "top-8 of 256" in router.note


def test_sliding_layer_scores_are_windowed() -> None:
    spec = specs_for_document("c.json", {"model_type": "mistral", "sliding_window": 8})[0]
    stages = {stage.name: stage for stage in walk(spec, seq=32).stages}
    assert stages["scores Q·Kᵀ, softmax"].shape[-1] == 8


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), out, err), out.getvalue(), err.getvalue()


def test_cli_table_and_json(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "qwen2_moe"}), encoding="utf-8")
    code, out, _ = run("shapes", str(path), "--seq", "128", "--batch", "4")
    assert code == 0
    assert "router logits" in out
    assert "shared expert" in out
    assert "model total" in out
    code, out, _ = run("shapes", str(path), "--output-format", "json", "--layer", "0")
    document = json.loads(out)
    assert (
        document["total"]
        == model_parameters(specs_for_document("c", {"model_type": "qwen2_moe"})).total
    )
    assert document["stages"][1]["name"] == "q_proj"


def test_cli_refuses_non_decoder_layouts(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "mamba"}), encoding="utf-8")
    code, _, err = run("shapes", str(path))
    assert code == 2
    assert "not a Llama-like decoder" in err
