"""``dimlint.check(hf://…, weights=False)`` reads no weight file, even one already in the HF
cache (issue 25: a mutant the suite let through).

Without ``weights`` no shard header is fetched, so a test against an empty cache cannot tell a
``weights=False`` that is honoured from one that is ignored: the shards are simply not there.
Here they are in the cache, where the checkpoint check would read them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dimlint
from tests.hubserver import SHA, FakeHub, hub, llama

__all__ = ["hub", "llama"]  # fixtures

#: The findings only a weight file can give (the checkpoint against the config).
WEIGHT_CODES = {"DL503", "DL610", "DL611", "DL612"}


def _codes(found: list[dimlint.Diagnostic]) -> set[str]:
    return {d.code for d in found}


def test_weights_false_ignores_shards_in_the_cache(
    hub: FakeHub, llama: Path, tmp_path: Path
) -> None:
    assert _codes(dimlint.check("hf://org/llama", weights=False)) & WEIGHT_CODES == set()
    snapshot = tmp_path / "cache" / "models--org--llama" / "snapshots" / SHA
    assert (snapshot / "config.json").is_file()  # the fixture's cache, as huggingface_hub lays it
    shards = sorted(llama.glob("*.safetensors"))
    assert shards
    for shard in shards:
        shutil.copyfile(shard, snapshot / shard.name)
    # the cached shards are read with weights: the config's 4 KV heads against the weights' 2
    assert "DL610" in _codes(dimlint.check("hf://org/llama"))
    assert _codes(dimlint.check("hf://org/llama", weights=False)) & WEIGHT_CODES == set()
