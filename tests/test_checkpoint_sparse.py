"""Reading a many-gigabyte checkpoint costs its headers, not its data.

A checkpoint with Llama-3-8B's shapes (16 GB in bfloat16, four shards of up to 5 GB, as on the
Hub) is written as sparse files: a valid header, then ``truncate`` to the full size, so the
data takes no disk. Every byte the reader reads is counted (``_open`` is wrapped), and the
count must be exactly the shards' length fields and headers — tens of kilobytes — whether
the config matches or not. No timing is asserted.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from checkpoint_builders import Counting, checkpoint_findings, edit_config

from dimlint.sources import safetensors

pytest.importorskip("transformers", reason="the tensor names come from transformers")

LLAMA_3_8B = {
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rope_theta": 500000.0,
}
SHARD_BYTES = 5 * 10**9


def _meta_shapes() -> tuple[Any, dict[str, list[int]]]:
    """Llama-3-8B built on the meta device: names and shapes, no memory."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    config = AutoConfig.for_model("llama", **LLAMA_3_8B)
    config.architectures = ["LlamaForCausalLM"]
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return config, {name: list(t.shape) for name, t in model.state_dict().items()}


def _write_sparse_checkpoint(folder: Path) -> tuple[int, int]:
    """Write config, index and sparse BF16 shards; return (header bytes, total file bytes)."""
    config, shapes = _meta_shapes()
    config.dtype = "bfloat16"
    config.save_pretrained(folder)
    shards: list[dict[str, list[int]]] = [{}]
    size = 0
    for name, shape in shapes.items():
        nbytes = 2 * math.prod(shape)
        if size + nbytes > SHARD_BYTES and shards[-1]:
            shards.append({})
            size = 0
        shards[-1][name] = shape
        size += nbytes
    weight_map: dict[str, str] = {}
    header_bytes = total = data_total = 0
    for number, tensors in enumerate(shards, start=1):
        file = f"model-{number:05d}-of-{len(shards):05d}.safetensors"
        header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
        offset = 0
        for name, shape in tensors.items():
            nbytes = 2 * math.prod(shape)
            header[name] = {
                "dtype": "BF16",
                "shape": shape,
                "data_offsets": [offset, offset + nbytes],
            }
            offset += nbytes
            weight_map[name] = file
        encoded = json.dumps(header).encode()
        with (folder / file).open("wb") as handle:
            handle.write(len(encoded).to_bytes(8, "little") + encoded)
            handle.truncate(8 + len(encoded) + offset)
        header_bytes += 8 + len(encoded)
        total += 8 + len(encoded) + offset
        data_total += offset
    index = {"metadata": {"total_size": data_total}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index, indent=2))
    return header_bytes, total


def test_reading_a_sparse_16_gb_checkpoint_reads_only_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "llama-3-8b"
    folder.mkdir()
    header_bytes, total = _write_sparse_checkpoint(folder)
    shards = sorted(folder.glob("model-*.safetensors"))
    allocated = sum(os.stat(shard).st_blocks * 512 for shard in shards)
    if allocated > 64 * 2**20:
        message = "this filesystem does not make truncated files sparse"
        if os.environ.get("DIMLINT_REQUIRE_SHARED"):
            pytest.fail(message + "; DIMLINT_REQUIRE_SHARED is set (CI runs where they are)")
        pytest.skip(message)
    assert len(shards) == 4
    assert total > 16 * 10**9
    counter = Counting()
    monkeypatch.setattr(safetensors, "_open", counter)
    assert checkpoint_findings(folder) == []
    assert counter.read == header_bytes  # 8 + N per shard: nothing of the data
    assert counter.files == {str(shard) for shard in shards}
    assert counter.read < 10**6 < total / 10**4
    # a defect is found from the same few kilobytes of headers
    counter.read = 0
    edit_config(folder, num_key_value_heads=32)
    found = checkpoint_findings(folder)
    assert {f["code"] for f in found} == {"DL610"}
    assert "num_key_value_heads 8 would explain it" in found[0]["message"]
    assert counter.read == header_bytes
