"""The safetensors header reader and the checkpoint loader, on hand-made files.

Every way a file can be unreadable is a clear DL001-style problem naming the file, never an
exception; the reader reads ``8 + header`` bytes and nothing of the data.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from checkpoint_builders import Counting

from dimlint.lint.discovery import Target, companions, discover
from dimlint.sources import checkpoint as files
from dimlint.sources import safetensors
from dimlint.sources.jsonfile import InputProblem
from dimlint.sources.safetensors import Header, read_header


def write(path: Path, tensors: dict[str, Any], *, data: int | None = None, pad: int = 0) -> int:
    """Write a safetensors file with zero data; return the header length."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        count = 1
        for size in shape:
            count *= size
        length = count * safetensors.DTYPE_BITS[dtype] // 8
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + length]}
        offset += length
    encoded = json.dumps(header).encode() + b" " * pad
    with path.open("wb") as handle:
        handle.write(len(encoded).to_bytes(8, "little") + encoded)
        handle.truncate(8 + len(encoded) + (offset if data is None else data))
    return len(encoded)


@pytest.fixture
def counting(monkeypatch: pytest.MonkeyPatch) -> Counting:
    counter = Counting()
    monkeypatch.setattr(safetensors, "_open", counter)
    return counter


def test_reads_the_header_only(tmp_path: Path, counting: Counting) -> None:
    path = tmp_path / "model.safetensors"
    length = write(path, {"a.weight": ("BF16", [1024, 1024]), "b": ("F32", [3])})
    header = read_header(str(path))
    assert isinstance(header, Header)
    assert header.tensors["a.weight"].shape == (1024, 1024)
    assert header.tensors["a.weight"].nbytes == 2 * 1024 * 1024
    assert header.metadata == {"format": "pt"}
    assert header.bytes_read == counting.read == 8 + length
    assert header.file_size == 8 + length + 2 * 1024 * 1024 + 12


def _problem(path: Path) -> str:
    found = read_header(str(path))
    assert isinstance(found, InputProblem), found
    assert found.message.startswith(f"{path.name}: ")
    return found.message


def test_absurd_header_length(tmp_path: Path, counting: Counting) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes((2**40).to_bytes(8, "little") + b"{}")
    assert "more than the 100 MB the format allows" in _problem(path)
    assert counting.read == 8


def test_header_longer_than_the_file(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes((5000).to_bytes(8, "little") + b'{"a": ')
    assert "the header length field says 5,000 bytes but the file has only 6" in _problem(path)


@pytest.mark.parametrize("size", [0, 3, 7])
def test_shorter_than_the_length_field(tmp_path: Path, size: int) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes(b"\x01" * size)
    assert f"the file has {size} bytes" in _problem(path)


def test_truncated_data(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    write(path, {"a": ("F16", [10, 10])}, data=150)
    assert "the file ends 50 bytes before the data of a does" in _problem(path)


def test_trailing_bytes(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    write(path, {"a": ("F16", [10])}, data=30)
    assert "10 bytes follow the last tensor's data" in _problem(path)


def test_header_padding_is_allowed(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    write(path, {"a": ("F16", [10])}, pad=7)
    header = read_header(str(path))
    assert isinstance(header, Header)
    assert [(t.name, t.dtype, t.shape) for t in header.tensors.values()] == [("a", "F16", (10,))]
    assert header.file_size == path.stat().st_size


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"dtype": "Q4", "shape": [2], "data_offsets": [0, 2]}, "unknown dtype 'Q4'"),
        ({"dtype": "F16", "shape": [-1], "data_offsets": [0, 2]}, "invalid shape [-1]"),
        ({"dtype": "F16", "shape": [2], "data_offsets": [0]}, "invalid data_offsets [0]"),
        ({"dtype": "F16", "shape": [2], "data_offsets": [0, 3]}, "needs 4 bytes but its"),
        ([1, 2], "has no dtype/shape/data_offsets object"),
    ],
)
def test_invalid_entries(tmp_path: Path, entry: Any, message: str) -> None:
    path = tmp_path / "model.safetensors"
    encoded = json.dumps({"t": entry}).encode()
    path.write_bytes(len(encoded).to_bytes(8, "little") + encoded + b"\0" * 4)
    assert message in _problem(path)


@pytest.mark.parametrize(
    ("offsets", "message"),
    [([[0, 4], [2, 6]], "overlaps the previous tensor"), ([[0, 4], [6, 10]], "leaves a gap")],
)
def test_overlaps_and_gaps(tmp_path: Path, offsets: list[list[int]], message: str) -> None:
    path = tmp_path / "model.safetensors"
    header = {
        f"t{i}": {"dtype": "F16", "shape": [2], "data_offsets": pair}
        for i, pair in enumerate(offsets)
    }
    encoded = json.dumps(header).encode()
    path.write_bytes(len(encoded).to_bytes(8, "little") + encoded + b"\0" * offsets[-1][1])
    assert message in _problem(path)


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b"\xff\xfe"])
def test_header_that_is_not_a_json_object(tmp_path: Path, raw: bytes) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes(len(raw).to_bytes(8, "little") + raw)
    assert "the header is not" in _problem(path)


def test_lfs_pointer(tmp_path: Path) -> None:
    path = tmp_path / "model.safetensors"
    path.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 9\n")
    found = read_header(str(path))
    assert isinstance(found, InputProblem)
    assert safetensors.is_lfs_pointer(found)


def test_unreadable_file(tmp_path: Path) -> None:
    assert "cannot read the file" in _problem(tmp_path / "model.safetensors")


# --- the loader ---------------------------------------------------------------------------------


def _index(folder: Path, weight_map: dict[str, str], **metadata: int) -> None:
    text = json.dumps({"metadata": metadata, "weight_map": weight_map})
    (folder / "model.safetensors.index.json").write_text(text)


def test_sharded_checkpoint(tmp_path: Path, counting: Counting) -> None:
    first = write(tmp_path / "model-00001-of-00002.safetensors", {"a": ("BF16", [4, 4])})
    second = write(tmp_path / "model-00002-of-00002.safetensors", {"b": ("BF16", [4])})
    shards = {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}
    _index(tmp_path, shards, total_size=40)
    loaded = files.load(str(tmp_path), sorted(p.name for p in tmp_path.iterdir()))
    assert loaded is not None
    assert loaded.complete
    assert set(loaded.tensors) == {"a", "b"} == loaded.names
    assert loaded.index_json is not None
    assert loaded.index_json.total_size == 40
    assert loaded.bytes_read == counting.read == 16 + first + second


def test_absent_shards_and_unmapped_tensors(tmp_path: Path) -> None:
    write(tmp_path / "model-00001-of-00003.safetensors", {"a": ("BF16", [4])})
    shards = {
        "a": "model-00001-of-00003.safetensors",
        "x": "model-00001-of-00003.safetensors",
        "b": "model-00002-of-00003.safetensors",
    }
    _index(tmp_path, shards)
    loaded = files.load(str(tmp_path), sorted(p.name for p in tmp_path.iterdir()))
    assert loaded is not None
    assert loaded.absent == ("model-00002-of-00003.safetensors",)
    assert loaded.unmapped == (("x", "model-00001-of-00003.safetensors"),)
    assert not loaded.complete
    assert loaded.names == {"a", "b", "x"}


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "not valid JSON"), ('{"weight_map": []}', "no weight_map object")],
)
def test_bad_index(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "model.safetensors.index.json").write_text(text)
    loaded = files.load(str(tmp_path), ["model.safetensors.index.json"])
    assert loaded is not None
    ((path, problem),) = loaded.problems
    assert path.endswith("model.safetensors.index.json")
    assert message in problem.message


def test_other_safetensors_are_not_the_checkpoint() -> None:
    names = [
        "config.json",
        "model.safetensors",
        "consolidated.safetensors",
        "adapter_model.safetensors",
        "model.safetensors.index.json",
        "tokenizer.json",
        "special_tokens_map.json",
    ]
    assert companions(names) == (
        "model.safetensors",
        "model.safetensors.index.json",
        "tokenizer.json",
    )


def test_discovery_attaches_companions_to_config_only(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    for name in ("config.json", "generation_config.json", "tokenizer.json", "model.safetensors"):
        (model / name).write_text("{}")
    (model / "modeling.py").write_text("")
    found = {Path(t.path).name: t for t in discover([str(tmp_path)])}
    assert found["config.json"].companions == ("model.safetensors", "tokenizer.json")
    assert found["modeling.py"].companions == ()
    assert "tokenizer.json" not in found
    assert "generation_config.json" not in found
    explicit = list(discover([str(model / "config.json")]))
    assert explicit == [
        Target(str(model / "config.json"), True, ("model.safetensors", "tokenizer.json"))
    ]
    (python,) = discover([str(model / "modeling.py")])
    assert python.companions == ()


def test_git_ignored_weights_are_still_read(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.safetensors\n")
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_text("")
    (target,) = discover([str(tmp_path)])
    assert target.companions == ("model.safetensors",)
