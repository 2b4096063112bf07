"""Read safetensors headers — never tensor data.

A ``.safetensors`` file is an 8-byte little-endian header length ``N``, ``N`` bytes of JSON
naming every tensor (dtype, shape, byte range), then the raw data. Everything a config can be
checked against is in the header, so this reader reads exactly ``8 + N`` bytes of each file:
a 140 GB checkpoint costs a few hundred kilobytes of I/O. The file size comes from ``fstat``,
which is enough to tell a truncated download from a whole one without touching the data.

Every way a file can be unreadable becomes an :class:`InputProblem` naming the file and what to
do (reported as DL001), never an exception: a header length that is absurd (more than
:data:`MAX_HEADER_BYTES`, or more than the file holds — what a Git LFS pointer or an HTML error
page saved under the file's name looks like), a truncated header, JSON that is not a header,
tensors whose byte ranges do not match their dtype and shape, or data that ends before the
last tensor does. Git LFS pointer files (a clone without ``git lfs pull``) are recognised and
reported as :data:`LFS_POINTER` so that callers can skip them quietly: the weights are simply
not there.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import IO, Any

from dimlint.records import Record
from dimlint.sources.jsonfile import InputProblem

#: The safetensors format caps headers at 100 MB; anything larger is not a header.
MAX_HEADER_BYTES = 100_000_000
#: Bits per element of every dtype the format defines (F4/F6 are packed sub-byte types).
DTYPE_BITS = {
    "BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8,
    "F8_E5M2FNUZ": 8, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6, "I16": 16, "U16": 16, "F16": 16,
    "BF16": 16, "I32": 32, "U32": 32, "F32": 32, "C64": 64, "F64": 64, "I64": 64, "U64": 64,
}  # fmt: skip
#: Floating-point dtypes: the ones a model's declared ``torch_dtype`` describes.
FLOAT_DTYPES = frozenset({"F16", "BF16", "F32", "F64"})
#: The message of the problem returned for a Git LFS pointer (see :func:`is_lfs_pointer`).
LFS_POINTER = "a Git LFS pointer, not the weights (run git lfs pull)"
_LFS_MAGIC = b"version https://git-lfs"


class TensorInfo(Record):
    """One tensor of a header: where its bytes are is kept only to validate the file."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    #: The shard file it is stored in.
    path: str

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPE_BITS.get(self.dtype, 0) // 8


class Header(Record):
    """The parsed header of one file, and how many bytes reading it took."""

    path: str
    tensors: dict[str, TensorInfo]
    metadata: dict[str, str]
    #: ``8 + N``: the bytes read from the file (the data is never read).
    bytes_read: int
    file_size: int


def _open(path: str) -> IO[bytes]:
    """Where every checkpoint file is opened (tests wrap it to count the bytes read): regular
    files only, so a FIFO or device named ``model.safetensors`` is reported, not read."""
    from dimlint.sources.safeio import open_regular

    return open_regular(path)


def _problem(path: str, message: str) -> InputProblem:
    return InputProblem(f"{os.path.basename(path)}: {message}")


def read_header(path: str) -> Header | InputProblem:
    """The header of ``path``, or why it cannot be read (naming the file)."""
    try:
        with _open(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            prefix = handle.read(8)
            if prefix == _LFS_MAGIC[:8] and handle.read(len(_LFS_MAGIC) - 8) == _LFS_MAGIC[8:]:
                return InputProblem(LFS_POINTER)
            if len(prefix) < 8:
                return _problem(
                    path,
                    f"the file has {size} bytes, fewer than the 8-byte header length"
                    " of a safetensors file: it is empty or truncated; download it again",
                )
            length = int.from_bytes(prefix, "little")
            problem = length_problem(path, length, size)
            if problem is not None:
                return problem
            raw = handle.read(length)
    except OSError as error:
        return _problem(path, f"cannot read the file: {error.strerror or error}")
    if len(raw) < length:
        return _problem(path, f"the header is truncated ({len(raw)} of {length} bytes)")
    return parse_header(path, raw, size)


def length_problem(path: str, length: int, size: int) -> InputProblem | None:
    """Why a header length field of ``length`` cannot be right in a file of ``size`` bytes."""
    if length > MAX_HEADER_BYTES:
        return _problem(
            path,
            f"the header length field says {length:,} bytes, more than the 100 MB the"
            " format allows: this is not a safetensors file (an error page or a"
            " pointer saved under its name?); download it again",
        )
    if length > size - 8:
        return _problem(
            path,
            f"the header length field says {length:,} bytes but the file has only"
            f" {size - 8:,} after it: the header is truncated; download it again",
        )
    return None


def parse_header(path: str, raw: bytes, size: int) -> Header | InputProblem:
    """The header JSON ``raw`` of a file of ``size`` bytes (read here, or fetched remotely)."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        # RecursionError: nesting deeper than the C parser's limit (no real header nests)
        return _problem(path, f"the header is not valid JSON ({error}); download it again")
    if not isinstance(value, dict):
        return _problem(path, "the header is not a JSON object")
    metadata: dict[str, str] = {}
    tensors: dict[str, TensorInfo] = {}
    ranges: list[tuple[int, int, str]] = []
    for name, entry in value.items():
        if name == "__metadata__":
            if isinstance(entry, dict):
                metadata = {str(k): str(v) for k, v in entry.items()}
            continue
        checked = _tensor(path, name, entry)
        if isinstance(checked, InputProblem):
            return checked
        tensor, begin, end = checked
        tensors[name] = tensor
        ranges.append((begin, end, name))
    problem = _check_ranges(path, ranges, size - 8 - len(raw))
    if problem is not None:
        return problem
    return Header(path, tensors, metadata, 8 + len(raw), size)


#: A run of digits this long in a tensor name is no layer or expert index (10**18 layers).
_LONG_NUMBER = re.compile(r"\d{19,}")


def name_problem(name: str) -> str | None:
    """Why a tensor name cannot be compared with a config: a layer or expert "index" of 19 or
    more digits (the comparisons turn indices into integers; a 5,000-digit one is past
    Python's ``int`` conversion limit, a 300-digit one prints as a number of that size)."""
    found = _LONG_NUMBER.search(name)
    if found is None:
        return None
    shown = name if len(name) <= 80 else f"{name[:40]}…{name[-20:]}"
    return (
        f"tensor {shown} holds a {len(found.group()):,}-digit number where a layer or expert"
        " index belongs: no checkpoint has that many"
    )


def _tensor(path: str, name: str, entry: Any) -> tuple[TensorInfo, int, int] | InputProblem:
    """One header entry, checked the way the safetensors loader checks it."""
    wrong_name = name_problem(name)
    if wrong_name is not None:
        return _problem(path, wrong_name)
    if not isinstance(entry, dict):
        return _problem(path, f"tensor {name} has no dtype/shape/data_offsets object")
    dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(dtype, str) or dtype not in DTYPE_BITS:
        return _problem(path, f"tensor {name} has an unknown dtype {dtype!r}")
    if not isinstance(shape, list) or not all(_natural(d) for d in shape):
        return _problem(path, f"tensor {name} has an invalid shape {shape!r}")
    if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_natural, offsets))):
        return _problem(path, f"tensor {name} has invalid data_offsets {offsets!r}")
    tensor = TensorInfo(name, dtype, tuple(shape), path)
    begin, end = offsets
    if (end - begin) * 8 != math.prod(shape) * DTYPE_BITS[dtype]:
        return _problem(
            path,
            f"tensor {name} ({dtype} {list(shape)}) needs {tensor.nbytes:,} bytes but its"
            f" data_offsets span {end - begin:,}: the header is corrupt",
        )
    return tensor, begin, end


def _natural(value: Any) -> bool:
    """A size or offset: the format stores them as u64 (larger is a corrupt header)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64


def _check_ranges(path: str, ranges: list[tuple[int, int, str]], data: int) -> InputProblem | None:
    """Tensors must tile the data exactly: no overlap, no hole, nothing missing at the end."""
    ranges.sort()
    cursor = 0
    for begin, end, name in ranges:
        if begin != cursor:
            kind = "overlaps the previous tensor" if begin < cursor else "leaves a gap before it"
            return _problem(path, f"tensor {name} {kind} (data_offsets): the header is corrupt")
        cursor = end
    if cursor > data:
        last = ranges[-1][2]
        return _problem(
            path,
            f"the file ends {cursor - data:,} bytes before the data of {last} does"
            f" ({data:,} of {cursor:,} data bytes present): a truncated download; download it"
            " again",
        )
    if cursor < data:
        return _problem(
            path,
            f"{data - cursor:,} bytes follow the last tensor's data: the safetensors loader"
            " refuses such a file (incomplete metadata); download it again",
        )
    return None


def is_lfs_pointer(problem: InputProblem) -> bool:
    """Whether a problem from :func:`read_header` only says the weights are not downloaded."""
    return problem.message == LFS_POINTER
