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


# DeiT's patchconvnet_models.py: a single-head attention pooling computed by explicit matmuls
OWN_ATTENTION = """import torch.nn as nn


class Pooling(nn.Module):
    def __init__(self, dim: int = 768, num_heads: int = 1):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.num_heads = num_heads

    def forward(self, x):
        q = self.q(x).reshape(1, 1, self.num_heads, -1)
        return (q @ q.transpose(-2, -1)).softmax(dim=-1)


def S60():
    return Pooling(dim=384, num_heads=1)
{extra}"""


def _python_codes(text: str) -> list[str]:
    result = lint_bytes("patchconvnet_models.py", text.encode(), Selection())
    return [d.code for d in result.diagnostics]


def test_no_kernel_head_dim_warning_on_a_module_computing_its_own_attention() -> None:
    assert "DL104" not in _python_codes(OWN_ATTENTION.format(extra=""))


def test_a_module_calling_a_fused_kernel_keeps_dl104() -> None:
    sdpa = (
        "\n\ndef attend(q, k, v):\n    return nn.functional.scaled_dot_product_attention(q, k, v)\n"
    )
    assert "DL104" in _python_codes(OWN_ATTENTION.format(extra=sdpa))
