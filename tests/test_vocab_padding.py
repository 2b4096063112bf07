"""DL202's grading (issue 9, item 6): info on a finished model, a warning while it is designed.

A released model's vocabulary is fixed by its trained embedding, so DL202 is info by default; a
training target (``megatron:…``, ``deepspeed:…``) says the shape is still being chosen and makes
it a warning. A CTC alphabet (wav2vec2: 32 characters, no token embedding) never gets it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main

GPT2 = {
    "model_type": "gpt2",
    "n_embd": 768,
    "n_head": 12,
    "n_layer": 12,
    "n_positions": 1024,
    "vocab_size": 50257,
}

WAV2VEC2_CTC = {
    "model_type": "wav2vec2",
    "architectures": ["Wav2Vec2ForCTC"],
    "hidden_size": 768,
    "num_attention_heads": 12,
    "num_hidden_layers": 12,
    "intermediate_size": 3072,
    "vocab_size": 32,
    "ctc_loss_reduction": "sum",
}


def check(tmp_path: Path, config: dict[str, Any], *extra: str) -> list[dict[str, Any]]:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    main(["check", str(path), "--output-format", "json", "--no-config", *extra], out, err)
    found: list[dict[str, Any]] = json.loads(out.getvalue())
    return [f for f in found if f["code"] == "DL202"]


def test_info_by_default(tmp_path: Path) -> None:
    [finding] = check(tmp_path, GPT2)
    assert finding["severity"] == "info"
    assert "50304" in finding["message"]


@pytest.mark.parametrize("target", ["megatron:tp=2", "deepspeed:ep=1"])
def test_warning_under_a_training_target(tmp_path: Path, target: str) -> None:
    [finding] = check(tmp_path, GPT2, "--target", target)
    assert finding["severity"] == "warning"
    assert target in finding["message"]


def test_serving_targets_keep_it_info(tmp_path: Path) -> None:
    [finding] = check(tmp_path, GPT2, "--target", "vllm:tp=1")
    assert finding["severity"] == "info"


def test_info_does_not_fail_a_warning_fail_level(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(GPT2), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(path), "--fail-level", "warning", "--no-config"], out, err) == 0
    assert main(["check", str(path), "--fail-level", "info", "--no-config"], out, err) == 1


@pytest.mark.parametrize(
    "config",
    [
        WAV2VEC2_CTC,
        {k: v for k, v in WAV2VEC2_CTC.items() if k != "ctc_loss_reduction"},  # from the class
        {k: v for k, v in WAV2VEC2_CTC.items() if k != "architectures"},  # from the field
    ],
)
def test_never_on_a_ctc_alphabet(tmp_path: Path, config: dict[str, Any]) -> None:
    assert check(tmp_path, config) == []
    assert check(tmp_path, config, "--target", "megatron:tp=1") == []
