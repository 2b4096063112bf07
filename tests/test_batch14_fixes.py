"""Fixes after batch 14's untouched measurement (tests/data/training_repos_more/BATCH14.md)."""

from __future__ import annotations

import json
from pathlib import Path

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def _codes(config: dict[str, object], tmp_path: Path, name: str) -> list[str]:
    path = tmp_path / name
    result = lint_bytes(str(path), json.dumps(config).encode(), Selection())
    return [d.code for d in result.diagnostics]


def test_a_json_with_neither_model_type_nor_architectures_gets_no_dl005(tmp_path: Path) -> None:
    """groundingLMM's GRiT Swin JSON (batch 14): sizes for its own code, no HF config."""
    grit = {
        "ckpt": "pretrain_model/swin_base_patch4_window7_224_22k.pth",
        "vision_width": 1024,
        "window_size": 7,
        "embed_dim": 128,
        "depths": [2, 2, 18, 2],
        "num_heads": [4, 8, 16, 32],
    }
    assert "DL005" not in _codes(grit, tmp_path, "config_swinB_224.json")


def test_a_hugging_face_config_missing_sizes_still_gets_dl005(tmp_path: Path) -> None:
    partial = {"architectures": ["MyModelForCausalLM"], "hidden_size": 64, "num_attention_heads": 4}
    assert "DL005" in _codes(partial, tmp_path, "config.json")
