"""Find and read the checkpoint beside a config: one file, or an index and its shards.

The layouts ``save_pretrained`` and the Hub produce:

* ``model.safetensors`` — one file;
* ``model.safetensors.index.json`` + ``model-0000k-of-0000n.safetensors`` — an index whose
  ``weight_map`` names the shard of every tensor and whose ``metadata.total_size`` declares the
  bytes of all tensors;
* the HuggingFace cache, ``models--org--name/snapshots/<rev>/``, whose files are symlinks into
  ``../../blobs/`` — read through the links like any other folder.

Only index files named ``model*.safetensors.index.json`` count: Mistral's repositories also ship
``consolidated.safetensors`` in Mistral's own naming, which no transformers config describes.
A shard the index names but the folder lacks (a download of the JSON files only, an
incomplete cache snapshot, a Git LFS pointer) is *absent*, not an error: the index alone
still gives every tensor name and the declared size, which is worth checking before
downloading the rest.
"""

from __future__ import annotations

import json
import os
from typing import Any

from dimlint.records import Record
from dimlint.sources.confine import within_any
from dimlint.sources.filenames import is_weight_file
from dimlint.sources.folder import Beside, LocalFiles
from dimlint.sources.jsonfile import InputProblem
from dimlint.sources.safetensors import TensorInfo, is_lfs_pointer, name_problem

#: Index files larger than this are not read (DeepSeek-V3's, with 91k tensors, is 9 MB).
MAX_INDEX_BYTES = 256 * 1024 * 1024


class Index(Record):
    """A parsed ``*.safetensors.index.json``."""

    path: str
    text: str
    weight_map: dict[str, str]
    #: ``metadata.total_size`` and transformers 5's ``metadata.total_parameters``, if declared.
    total_size: int | None
    total_parameters: int | None


class Checkpoint(Record):
    """What the headers (and the index) say about the weights beside a config."""

    folder: str
    #: Tensors whose header was read, by name.
    tensors: dict[str, TensorInfo]
    #: Every tensor name known: the index's weight_map, else the headers'.
    names: frozenset[str]
    index_json: Index | None
    #: Shard files the index names that are not in the folder (not downloaded).
    absent: tuple[str, ...]
    #: Files that cannot be read (DL001): (path, problem).
    problems: tuple[tuple[str, InputProblem], ...]
    #: weight_map entries whose shard header does not hold the tensor: (name, shard).
    unmapped: tuple[tuple[str, str], ...]
    #: Bytes read from safetensors files: 8 + header length each, never tensor data.
    bytes_read: int

    @property
    def complete(self) -> bool:
        """Whether every tensor's header was read (all shards present and readable)."""
        return not self.absent and not self.problems and self.names <= self.tensors.keys()


def _choose_index(names: list[str]) -> str | None:
    indexes = sorted(name for name in names if name.endswith(".safetensors.index.json"))
    if "model.safetensors.index.json" in indexes:
        return "model.safetensors.index.json"
    return indexes[0] if indexes else None


def read_index(path: str) -> Index | InputProblem:
    """Parse an index file; a problem (DL001) when it is not one."""
    from dimlint.sources.safeio import open_regular

    name = os.path.basename(path)
    try:
        with open_regular(path) as handle:
            if os.fstat(handle.fileno()).st_size > MAX_INDEX_BYTES:
                return InputProblem(f"{name}: the file is too large for a checkpoint index")
            text = handle.read().decode("utf-8")
        value: Any = json.loads(text)
    except OSError as error:
        return InputProblem(f"{name}: cannot read the file: {error.strerror or error}")
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        return InputProblem(f"{name}: not valid JSON ({str(error)[:200]})")
    weight_map = value.get("weight_map") if isinstance(value, dict) else None
    if not isinstance(weight_map, dict) or not all(
        isinstance(shard, str) for shard in weight_map.values()
    ):
        return InputProblem(f"{name}: no weight_map object mapping tensor names to shard files")
    for tensor in weight_map:
        wrong_name = name_problem(str(tensor))
        if wrong_name is not None:
            return InputProblem(f"{name}: {wrong_name}")
    metadata = value.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    return Index(
        path,
        text,
        {str(key): shard for key, shard in weight_map.items()},
        _integer(metadata.get("total_size")),
        _integer(metadata.get("total_parameters")),
    )


def _integer(value: Any) -> int | None:
    """A declared size; past 2**63 it is no size at all (and would overflow every float)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**63:
        return value
    return None


def load(folder: str, names: list[str], beside: Beside | None = None) -> Checkpoint | None:
    """The checkpoint made of the files ``names`` in ``folder``; None when there is none.

    ``beside`` reads the files (default: the local folder); a Hub model's come from the cache
    and from range requests, and are named ``hf://…``.
    """
    files = beside if beside is not None else LocalFiles(folder)
    problems: list[tuple[str, InputProblem]] = []
    index: Index | None = None
    index_name = _choose_index([name for name in names if is_weight_file(name)])
    if index_name is not None:
        index_path = files.display(index_name)
        local = files.local(index_name)
        parsed = (
            read_index(local)
            if local is not None
            else InputProblem(f"{index_name}: cannot read the file: it is not there")
        )
        if isinstance(parsed, InputProblem):
            problems.append((index_path, parsed))
        else:
            index = parsed._replace(path=index_path)
    if index is not None:
        shards = sorted(set(index.weight_map.values()))
    else:
        shards = sorted(n for n in names if is_weight_file(n) and n.endswith(".safetensors"))
    if not shards and index is None:
        return None if not problems else _empty(folder, problems)
    tensors: dict[str, TensorInfo] = {}
    absent: list[str] = []
    bytes_read = 0
    read: dict[str, set[str]] = {}
    for shard in shards:
        path = files.display(shard)
        outside = shard_outside(folder, shard, local=beside is None)
        if outside is not None:
            problems.append((index.path if index is not None else path, InputProblem(outside)))
            continue
        header = files.header(shard)
        if header is None:  # not downloaded (or a dangling cache symlink)
            absent.append(shard)
            continue
        if isinstance(header, InputProblem):
            if is_lfs_pointer(header):
                absent.append(shard)
            else:
                problems.append((path, header))
            continue
        bytes_read += header.bytes_read
        tensors.update(header.tensors)
        read[shard] = set(header.tensors)
    unmapped: list[tuple[str, str]] = []
    if index is not None:
        for name, shard in index.weight_map.items():
            if shard in read and name not in read[shard]:
                unmapped.append((name, shard))
        known = frozenset(index.weight_map)
    else:
        known = frozenset(tensors)
    return Checkpoint(
        folder,
        tensors,
        known,
        index,
        tuple(absent),
        tuple(problems),
        tuple(unmapped),
        bytes_read,
    )


def shard_outside(folder: str, shard: str, local: bool = True) -> str | None:
    """Why a shard name must not be opened (None when it may be).

    ``save_pretrained`` writes plain file names; a name that is absolute, climbs with ``..`` or
    whose file resolves outside the model folder would make a stranger's index read any file
    on the machine (``/etc/passwd``, ``/dev/stdin``). Symlinks of the HuggingFace cache
    (``snapshots/<rev>/x.safetensors`` → ``../../blobs/<sha>``) stay inside the repository's
    cache folder, which is allowed.
    """
    label = shard.encode("utf-8", "backslashreplace").decode("utf-8")[:200]
    parts = shard.replace("\\", "/").split("/")
    if not shard or "\0" in shard or os.path.isabs(shard) or shard.startswith("\\"):
        return (
            f"the index names the shard {label!r}, an absolute path: not read (shard names"
            " are file names in the model folder)"
        )
    if ".." in parts:
        return (
            f"the index names the shard {label!r}, which climbs out of the model folder"
            " with '..': not read"
        )
    if not local:
        return None  # a Hub repository's files: names only, no links to follow
    real = os.path.realpath(os.path.join(folder, shard))
    allowed = [os.path.realpath(folder)]
    if os.path.basename(os.path.dirname(allowed[0])) == "snapshots":
        allowed.append(os.path.dirname(os.path.dirname(allowed[0])))  # the HF cache: blobs/
    if real in allowed or not within_any(real, allowed):
        return f"the shard {label!r} resolves to {real}, outside the model folder: not read"
    return None


def _empty(folder: str, problems: list[tuple[str, InputProblem]]) -> Checkpoint:
    return Checkpoint(folder, {}, frozenset(), None, (), tuple(problems), (), 0)
