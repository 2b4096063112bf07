"""The language server's hover figures: ``dimlint mem``'s, compared only between valid configs.

Each hover is computed in process (the hover code has no pygls) on a config written to disk,
and its totals are compared with ``dimlint mem --output-format json`` on the same file; the
per-unit costs are hand derivations written next to each assertion.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from dimlint.cli import main
from dimlint.commands.server.hover import _bytes, _count
from dimlint.commands.server.targets_at import hover_text

ROOT = Path(__file__).resolve().parents[1]

MISTRAL = {
    "architectures": ["MistralForCausalLM"],
    "model_type": "mistral",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 32768,
    "sliding_window": 4096,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
PHI3_V = {
    "model_type": "phi3_v",
    "hidden_size": 3072,
    "intermediate_size": 8192,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32064,
    "max_position_embeddings": 131072,
    "original_max_position_embeddings": 4096,
    "sliding_window": 262144,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
QWEN = {
    "model_type": "qwen",
    "architectures": ["QWenLMHeadModel"],
    "hidden_size": 4096,
    "intermediate_size": 22016,
    "num_attention_heads": 32,
    "kv_channels": 128,
    "num_hidden_layers": 32,
    "vocab_size": 151936,
    "seq_length": 8192,
    "max_position_embeddings": 8192,
    "no_bias": True,
    "torch_dtype": "bfloat16",
}


def _write(tmp_path: Path, config: dict[str, Any]) -> tuple[Path, str]:
    path = tmp_path / "config.json"
    text = json.dumps(config, indent=2) + "\n"
    path.write_text(text, encoding="utf-8")
    return path, text


def _mem(path: Path) -> dict[str, Any]:
    out = io.StringIO()
    assert main(["mem", str(path), "--output-format", "json"], out, io.StringIO()) == 0
    found: dict[str, Any] = json.loads(out.getvalue())
    return found


def _hover(path: Path, text: str, key: str) -> str:
    found = hover_text(str(path), text, text.index(f'"{key}"') + 2, None)
    assert found is not None
    return found[0]


def test_mistral_kv_cache_is_mems_and_moves_with_kv_heads_and_window(tmp_path: Path) -> None:
    path, text = _write(tmp_path, MISTRAL)
    mem = _mem(path)
    kv, gpu = mem["kv_cache"], mem["per_gpu"]
    assert kv["bytes_per_token"] == 0  # every layer windowed: the window bounds the cache
    shown = _hover(path, text, "num_key_value_heads")
    # 4096 window tokens × 2 (K, V) × 32 layers × 128 head dim × 2 B = 64 MiB per KV head
    assert f"KV cache: {_bytes(kv['bytes'])} (100.0% of" in shown
    assert "64 MiB per unit" in shown
    assert "0 B, not changed" not in shown
    assert f"memory per GPU (tp 1, pp 1): {_bytes(gpu['total'])} — an estimate" in shown
    window = _hover(path, text, "sliding_window")
    # 2 (K, V) × 32 layers × 8 KV heads × 128 × 2 B = 128 KiB per token of the window (the
    # cache is allocated in blocks: the neighbours that change it are a block apart)
    assert f"- KV cache: {_bytes(kv['bytes'])} (100.0% of" in window
    assert "128 KiB per unit" in window
    assert "not changed" in window.split("parameters")[1].split("\n")[0]


def test_marginal_costs_only_between_valid_configs(tmp_path: Path) -> None:
    config = json.loads((ROOT / "examples" / "qwen2-7b" / "config.json").read_text())
    path, text = _write(tmp_path, config)
    mem = _mem(path)
    shown = _hover(path, text, "num_attention_heads")
    costs = shown.split("as `dimlint mem` reports it")[1]
    # 3584 wide, 4 KV heads: 29…31 heads divide neither; 32 (head dim 112) and 16 do
    assert " at 32" in costs
    assert " at 16" in costs
    assert not any(f" at {heads}" in costs for heads in (27, 29, 30, 31))
    assert f"parameters: {_count(mem['params']['total'])};" in costs


def test_a_value_halved_in_the_model_is_probed_two_apart(tmp_path: Path) -> None:
    path, text = _write(tmp_path, QWEN)
    mem = _mem(path)
    shown = _hover(path, text, "intermediate_size")
    # Qwen's MLP is intermediate_size // 2 wide: 3 × 4096 × 32 = 393,216 parameters per unit of
    # that width, 196,608 per unit of intermediate_size; × 22016 = 4,328,521,728
    assert f"parameters: 4.33B (56.1% of {_count(mem['params']['total'])}), 197K per unit" in shown


def test_phi3_v_has_a_kv_cache(tmp_path: Path) -> None:
    path, text = _write(tmp_path, PHI3_V)
    mem = _mem(path)
    # 131,072 tokens (the window is longer) × 2 × 32 layers × 32 KV heads × 96 × 2 B = 48 GiB
    assert mem["kv_cache"]["bytes"] == 48 * 2**30
    for key in ("hidden_size", "num_key_value_heads", "num_hidden_layers"):
        shown = _hover(path, text, key)
        assert "KV cache: 48 GiB" in shown
        assert "0 B," not in shown
        assert "parameters (estimate" in shown  # mem counts phi3_v approximately


def test_yaml_training_config_hover(tmp_path: Path) -> None:
    path = tmp_path / "train.yaml"
    text = (
        "model:\n"
        "  hidden_size: 4096\n"
        "  num_layers: 24\n"
        "  num_attention_heads: 32\n"
        "  ffn_hidden_size: 11008\n"
    )
    path.write_text(text, encoding="utf-8")
    found = hover_text(str(path), text, text.index("num_layers") + 2, None)
    assert found is not None
    shown, start, end = found
    assert text[start:end] in ("num_layers", "24")
    assert "**num_layers** = 24 in config at /model" in shown
    # mem's default context without a stated maximum is 2048 tokens; per layer and token
    # 2 (K, V) × 4096 × 2 B = 16 KiB: 32 MiB per layer, 768 MiB for 24
    assert "KV cache: 768 MiB (100.0% of 768 MiB), 32 MiB per unit" in shown
    # mem reads the YAML as check does (the one reading): the hover shows its figures
    assert "as `dimlint mem` reports it" in shown
    parameters = next(line for line in shown.splitlines() if line.startswith("- parameters"))
    assert _count(_mem(path)["params"]["total"]) in parameters


def test_an_invalid_model_is_labelled(tmp_path: Path) -> None:
    """A config with an error-level finding (DL101: 4100 is not divisible by 32 heads) is
    refused by ``mem``; the hover still shows its figures, labelled as an invalid model's."""
    path, text = _write(tmp_path, {**MISTRAL, "hidden_size": 4100})
    assert main(["mem", str(path)], io.StringIO(), io.StringIO()) == 1
    shown = _hover(path, text, "num_hidden_layers")
    assert "INVALID MODEL: the config has 1 error (DL101)" in shown
    assert "INVALID MODEL" not in _hover(*_write(tmp_path, MISTRAL), "num_hidden_layers")


def test_the_hover_computes_the_model_under_the_cursor(tmp_path: Path) -> None:
    """A file holding several models (a class's defaults and a call overriding them; two YAML
    sections): the hover's figures are those of the model whose value is hovered, as read by
    the one reading of the file."""
    from dimlint.commands.server.hover import mem_figures
    from dimlint.commands.server.targets_at import hover_model

    python = tmp_path / "model.py"
    text = (
        "from dataclasses import dataclass\n\n@dataclass\nclass GPTConfig:\n"
        "    block_size: int = 1024\n    vocab_size: int = 50304\n    n_layer: int = 12\n"
        "    n_head: int = 12\n    n_embd: int = 768\n    bias: bool = True\n\n"
        "medium = GPTConfig(n_layer=24, n_head=16, n_embd=1024)\n"
    )
    python.write_text(text)
    # nanoGPT's GPT-2 small and medium at 50,304 tokens (tests/test_memory_nanogpt.py)
    for needle, total in (("n_embd: int", 124_475_904), ("n_embd=1024", 354_871_296)):
        found = hover_model(str(python), text, text.index(needle) + 1)
        assert found is not None
        assert found[1] is not None
        figures = mem_figures(str(python), found[1].specs)
        assert figures is not None
        assert figures.report["params"]["total"] == total
    yaml = tmp_path / "train.yaml"
    section = "  model_config:\n    hidden_size: {}\n    num_attention_heads: 16\n"
    text = "model:\n" + section.format(2048) + "draft:\n" + section.format(1024)
    yaml.write_text(text)
    for width in (2048, 1024):
        found = hover_model(str(yaml), text, text.index(f"hidden_size: {width}") + 1)
        assert found is not None
        assert found[1] is not None
        assert found[1].specs[0].hidden is not None
        assert found[1].specs[0].hidden.value == width
