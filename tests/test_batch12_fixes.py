"""Fixes after batch 12's untouched measurement (tests/data/training_repos_more/BATCH12.md)."""

from __future__ import annotations

import json
from pathlib import Path

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

# InternImage's Hugging Face config (remote code): a convolutional network, no transformer sizes
INTERNIMAGE = {
    "architectures": ["InternImageModel"],
    "auto_map": {"AutoConfig": "configuration_internimage.InternImageConfig"},
    "model_type": "internimage",
    "channels": 64,
    "depths": [4, 4, 18, 4],
    "groups": [4, 8, 16, 32],
    "core_op": "DCNv3",
}


def _codes(config: dict[str, object], tmp_path: Path) -> list[str]:
    path = tmp_path / "config.json"
    result = lint_bytes(str(path), json.dumps(config).encode(), Selection())
    return [d.code for d in result.diagnostics]


def test_a_config_of_an_unknown_type_stating_no_transformer_size_gets_no_dl005(
    tmp_path: Path,
) -> None:
    assert "DL005" not in _codes(INTERNIMAGE, tmp_path)


def test_a_remote_code_config_missing_one_size_still_gets_dl005(tmp_path: Path) -> None:
    partial = {
        "architectures": ["InternLM2ForCausalLM"],
        "auto_map": {"AutoConfig": "configuration_internlm2.InternLM2Config"},
        "model_type": "internlm2",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "vocab_size": 92544,
    }
    assert "DL005" in _codes(partial, tmp_path)


# RecurrentGemma's examples/simple_run_pytorch.py: a config call with Griffin's names, the depth
# stated as block_types (one per layer), the MLP as mlp_expanded_width
GRIFFIN = """import recurrentgemma

config = recurrentgemma.GriffinConfig(
    vocab_size=100,
    width={width},
    mlp_expanded_width=3 * 128,
    lru_width=256,
    num_heads=2,
    block_types=(
        recurrentgemma.TemporalBlockType.RECURRENT,
        recurrentgemma.TemporalBlockType.ATTENTION,
    ),
)
"""


def _python(text: str) -> list[tuple[str, int]]:
    result = lint_bytes("simple_run.py", text.encode(), Selection())
    return [(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span is not None]


def test_griffin_width_beside_its_heads_and_mlp_width_is_read() -> None:
    assert _python(GRIFFIN.format(width=128)) == []
    assert ("DL101", 5) in _python(GRIFFIN.format(width=129))


def test_a_width_beside_heads_alone_is_not_read_as_a_model_width() -> None:
    text = "from x import Overlay\n\nbox = Overlay(width=129, num_heads=2, color=3)\n"
    assert _python(text) == []
