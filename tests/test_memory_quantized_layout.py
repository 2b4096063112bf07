"""Quantized checkpoints: what their ``quantization_config`` leaves unquantized keeps its dtype.

The released check: DeepSeek-V3's FP8 config against the bytes of its published safetensors
files (``tests/data/released_quantized/deepseek_v3.json`` says where both come from). The
checkpoint also stores one multi-token-prediction module that loading skips (layer 61, with
``eh_proj``, three norms and copies of the embedding and head — DeepSeek's README_WEIGHTS.md);
it is taken off the published total before comparing.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.memory.quantized_layout import matches, skipped_modules

DATA = Path(__file__).parent / "data" / "released_quantized"

LLAMA_70B = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def _weights(tmp_path: Path, config: dict[str, Any], name: str = "config.json") -> int:
    path = tmp_path / name
    path.write_text(json.dumps(config), encoding="utf-8")
    report = dimlint.mem(str(path), context=4096)
    return int(report["weights"]["bytes"])


def _llama_linears(layers: int = 80) -> list[tuple[int, int]]:
    """(rows, cols) of every linear weight of Llama-3-70B's decoder layers."""
    h, kv, f = 8192, 1024, 28672
    per_layer = [(h, h), (kv, h), (kv, h), (h, h), (f, h), (f, h), (h, f)]
    return per_layer * layers


def test_deepseek_v3_fp8_within_one_percent_of_the_released_checkpoint(tmp_path: Path) -> None:
    entry = json.loads((DATA / "deepseek_v3.json").read_text(encoding="utf-8"))
    config = entry["config"]
    loaded = _weights(tmp_path, config)
    one_more_layer = _weights(tmp_path, {**config, "num_hidden_layers": 62}, "more.json") - loaded
    h, vocab = config["hidden_size"], config["vocab_size"]
    eh_proj = h * 2 * h + 4 * math.ceil(h / 128) * math.ceil(2 * h / 128)  # FP8 + block scales
    mtp = one_more_layer + eh_proj + 3 * h * 2 + 2 * vocab * h * 2  # norms, embed/head copies
    expected = entry["checkpoint_bytes"] - mtp
    assert abs(loaded / expected - 1) < 0.01, (loaded, expected)


def test_compressed_tensors_fp8_keeps_the_ignored_head_in_bf16(tmp_path: Path) -> None:
    scheme = {"num_bits": 8, "type": "float", "strategy": "tensor", "symmetric": True}
    quantization = {
        "quant_method": "compressed-tensors",
        "config_groups": {"group_0": {"targets": ["Linear"], "weights": scheme}},
        "ignore": ["lm_head"],
    }
    got = _weights(tmp_path, {**LLAMA_70B, "quantization_config": quantization})
    h, vocab = 8192, 128256
    linears = _llama_linears()
    norms = 80 * 2 * h + h
    # one byte per weight and one 16-bit per-tensor scale; embeddings, head and norms in bf16
    expected = sum(r * c + 2 for r, c in linears) + 2 * (2 * vocab * h + norms)
    assert got == expected
    report = dimlint.mem(str(tmp_path / "config.json"), context=4096)
    assert report["weights"]["dtype"] == "fp8"  # stated by the config group, not torch_dtype


def test_modules_to_not_convert_keep_their_dtype(tmp_path: Path) -> None:
    base = {"quant_method": "fp8", "activation_scheme": "dynamic"}
    plain = _weights(tmp_path, {**LLAMA_70B, "quantization_config": base})
    skipped = {**base, "modules_to_not_convert": ["lm_head", "model.layers.0.mlp"]}
    got = _weights(tmp_path, {**LLAMA_70B, "quantization_config": skipped}, "skip.json")
    mlp = 3 * 8192 * 28672
    assert got - plain == mlp  # layer 0's MLP in bf16: one more byte per weight


def test_compressed_tensors_targets_quantize_only_what_they_name(tmp_path: Path) -> None:
    scheme = {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": True}
    quantization = {
        "quant_method": "compressed-tensors",
        "config_groups": {"g": {"targets": ["re:.*down_proj$"], "weights": scheme}},
        "ignore": ["lm_head"],
    }
    got = _weights(tmp_path, {**LLAMA_70B, "quantization_config": quantization})
    h, f = 8192, 28672
    bf16 = LLAMA_70B_PARAMS - 80 * h * f
    assert got == 2 * bf16 + 80 * (h * f + 2 * h)  # one channel scale per output row


LLAMA_70B_PARAMS = 70_553_706_496


def test_routers_stay_unquantized(tmp_path: Path) -> None:
    mixtral = {
        "model_type": "mixtral",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "num_local_experts": 8,
        "num_experts_per_tok": 2,
        "vocab_size": 32000,
        "torch_dtype": "bfloat16",
    }
    got = _weights(tmp_path, {**mixtral, "quantization_config": {"quant_method": "fp8"}})
    params = dimlint.mem(str(tmp_path / "config.json"), context=4096)["params"]["total"]
    h, kv, f, layers = 4096, 1024, 14336, 32
    linear = layers * (2 * h * h + 2 * kv * h + 8 * 3 * f * h)
    assert got == linear + 2 * (params - linear)  # router 8×4096 per layer stays in bf16


@pytest.mark.parametrize(
    ("pattern", "module", "expected"),
    [
        ("lm_head", "lm_head", True),
        ("mlp", "model.layers.3.mlp.down_proj", True),
        ("model.layers.1", "model.layers.11.mlp.down_proj", False),
        ("re:.*mlp\\.gate$", "model.layers.3.mlp.gate", True),
        ("re:.*mlp\\.gate$", "model.layers.3.mlp.gate_proj", False),
        ("re:[", "model.layers.3.mlp.gate", False),
    ],
)
def test_name_matching(pattern: str, module: str, expected: bool) -> None:
    assert matches(pattern, module) is expected


def test_skip_lists_from_every_tool() -> None:
    config = {
        "modules_to_not_convert": ["lm_head"],
        "ignored_layers": ["model.layers.0"],
        "ignore": ["re:.*gate$"],
        "exclude_modules": ["vision_tower", 3, ""],
    }
    assert skipped_modules(config) == ["lm_head", "model.layers.0", "re:.*gate$", "vision_tower"]


@pytest.mark.parametrize(
    "quantization",
    [
        {"quant_method": "fp8", "weight_block_size": ["a", 0], "modules_to_not_convert": None},
        {"quant_method": "fp8", "ignored_layers": [None, 7, "re:[", "re:.*"]},
        {
            "quant_method": "compressed-tensors",
            "config_groups": {
                "g": {
                    "targets": "Linear",
                    "weights": {
                        "num_bits": True,
                        "strategy": "block",
                        "block_structure": ["x", -1],
                        "group_size": 0,
                    },
                },
                "h": None,
            },
            "ignore": "lm_head",
        },
    ],
)
def test_odd_quantization_configs_give_numbers(tmp_path: Path, quantization: Any) -> None:
    got = _weights(tmp_path, {**LLAMA_70B, "quantization_config": quantization})
    assert 0 < got <= 2 * LLAMA_70B_PARAMS  # "re:.*" skips everything: all in bf16
