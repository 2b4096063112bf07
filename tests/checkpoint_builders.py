"""Small real checkpoints for the checkpoint tests, built the way users get them.

Each family is a real transformers architecture scaled down (2 layers, hidden 64), built on the
CPU with ``AutoModelForCausalLM.from_config`` and written with ``save_pretrained`` — in one file,
or sharded with ``max_shard_size`` — so the tensor names and shapes come from the library, not
from dimlint's tables. The helpers then corrupt copies of them the way checkpoints go wrong.
"""

from __future__ import annotations

import io
import json
import shutil
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dimlint.cli import main

SMALL: dict[str, Any] = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 256,
    "max_position_embeddings": 128,
}
MOE = {"moe_intermediate_size": 32, "num_experts_per_tok": 2}

#: model type → config overrides: the families the issue names, scaled down.
FAMILIES: dict[str, dict[str, Any]] = {
    "llama": SMALL,
    "mistral": SMALL,
    "qwen2": SMALL,
    "qwen3": {**SMALL, "head_dim": 16},
    "mixtral": {**SMALL, "num_local_experts": 4, "num_experts_per_tok": 2},
    "qwen2_moe": {**SMALL, **MOE, "num_experts": 4, "shared_expert_intermediate_size": 64},
    "qwen3_moe": {**SMALL, **MOE, "num_experts": 4, "head_dim": 16},
    "gemma": {**SMALL, "head_dim": 16},
    "gemma2": {**SMALL, "head_dim": 16},
    "gemma3_text": {**SMALL, "head_dim": 16},
    "phi3": {**SMALL, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2},
    "phi": SMALL,
    "gpt2": {
        "n_embd": 64,
        "n_layer": 2,
        "n_head": 4,
        "vocab_size": 256,
        "n_positions": 128,
        "bos_token_id": 0,
        "eos_token_id": 0,
    },
    "gpt_neox": {k: v for k, v in SMALL.items() if k != "num_key_value_heads"},
    "falcon": {
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "vocab_size": 256,
    },
    "deepseek_v3": {
        **SMALL,
        **MOE,
        "n_routed_experts": 4,
        "n_shared_experts": 1,
        "first_k_dense_replace": 1,
        "q_lora_rank": 32,
        "kv_lora_rank": 16,
        "qk_rope_head_dim": 8,
        "qk_nope_head_dim": 8,
        "v_head_dim": 16,
        "n_group": 2,
        "topk_group": 1,
    },
}
#: Families also saved sharded (index + several shards).
SHARDED = ("llama", "qwen2", "mixtral", "gemma2", "gpt2", "deepseek_v3")
#: Codes of the rules that read the files beside a config (and DL001 for unreadable ones).
CHECKPOINT_CODES = "DL001,DL503,DL605,DL610,DL611,DL612"


def build(model_type: str, folder: Path, *, sharded: bool = False, **overrides: Any) -> int:
    """Save a scaled-down ``model_type`` into ``folder``; return its parameter count."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    torch.manual_seed(0)
    config = AutoConfig.for_model(model_type, **{**FAMILIES[model_type], **overrides})
    model = AutoModelForCausalLM.from_config(config)
    model.save_pretrained(folder, max_shard_size="60KB" if sharded else "5GB")
    return sum(p.numel() for p in model.parameters())


def copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target


def read_config(folder: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    return result


def edit_config(folder: Path, **changes: Any) -> None:
    config = read_config(folder)
    config.update(changes)
    (folder / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def header(path: Path) -> dict[str, Any]:
    with path.open("rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        result: dict[str, Any] = json.loads(handle.read(length))
    return result


def rewrite_header(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """Edit a safetensors header in place, keeping its length (padded with spaces)."""
    with path.open("r+b") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        value = json.loads(handle.read(length))
        change(value)
        encoded = json.dumps(value, separators=(",", ":")).encode("utf-8")
        assert len(encoded) <= length, "the edited header no longer fits"
        handle.seek(8)
        handle.write(encoded + b" " * (length - len(encoded)))


def shard_holding(folder: Path, tensor: str) -> Path:
    index = folder / "model.safetensors.index.json"
    if index.exists():
        shard = json.loads(index.read_text(encoding="utf-8"))["weight_map"][tensor]
        return folder / str(shard)
    return folder / "model.safetensors"


class _CountedFile:
    """A binary file whose reads are added to a :class:`Counting`."""

    def __init__(self, path: str, counter: Counting) -> None:
        self._handle = open(path, "rb")  # noqa: SIM115  (closed by __exit__)
        self._counter = counter

    def read(self, size: int = -1) -> bytes:
        chunk = self._handle.read(size)
        self._counter.read += len(chunk)
        self._counter.files.add(self._handle.name)
        return chunk

    def fileno(self) -> int:
        return self._handle.fileno()

    def __enter__(self) -> _CountedFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


class Counting:
    """Stands in for ``dimlint.sources.safetensors._open``: counts every byte read."""

    def __init__(self) -> None:
        self.read = 0
        self.files: set[str] = set()

    def __call__(self, path: str) -> _CountedFile:
        return _CountedFile(path, self)


def check(*argv: str) -> tuple[int, list[dict[str, Any]]]:
    """``dimlint check ARGV --output-format json`` in-process: exit code and findings."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", *argv, "--output-format", "json", "--no-config"], out, err)
    assert "Traceback" not in err.getvalue(), err.getvalue()
    findings: list[dict[str, Any]] = json.loads(out.getvalue()) if out.getvalue() else []
    return code, findings


def checkpoint_findings(folder: Path | str, *extra: str) -> list[dict[str, Any]]:
    """The findings of the checkpoint rules (and DL001) for a folder."""
    _, found = check(str(folder), "--select", CHECKPOINT_CODES, *extra)
    return found
