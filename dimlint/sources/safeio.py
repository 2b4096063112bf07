"""Open only regular files; write only through unique temporary files beside the target.

dimlint's input is untrusted (pre-commit hooks, CI on pull requests from strangers), so every
file it reads goes through :func:`open_regular`: a named pipe named ``config.json`` or
``model.safetensors`` would block a plain ``open`` forever, and ``/dev/stdin`` or a device named by
a checkpoint index would be read. The file is opened with ``O_NONBLOCK`` (which makes opening a
FIFO return at once and changes nothing for regular files) and checked with ``fstat`` on the
open descriptor, so there is no window between the check and the open.

Every file dimlint writes (fixed files, baselines, SARIF reports) goes through
:func:`replace_atomically`: a temporary file with a unique name in the target's folder, then
``os.replace``, so that a reader never sees half a file and no fixed name can be pre-planted as a
symlink by someone else.
"""

from __future__ import annotations

import os
import stat
from typing import IO

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


class NotRegularFile(OSError):
    """The path names a FIFO, socket, device or directory: dimlint does not read it."""


def kind_of(mode: int) -> str:
    """A word for what a non-regular file is, for messages."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_regular(path: str) -> IO[bytes]:
    """``open(path, "rb")`` that refuses (``NotRegularFile``) anything but a regular file."""
    descriptor = os.open(path, _FLAGS)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{path} is {kind_of(mode)}, not a regular file")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_regular(path: str, limit: int | None = None) -> bytes:
    """The bytes of a regular file (``NotRegularFile`` otherwise; ``limit`` caps the read)."""
    with open_regular(path) as handle:
        return handle.read() if limit is None else handle.read(limit)


def is_regular(path: str) -> bool:
    """Whether ``path`` (following links) is a regular file; False when it cannot be read."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def replace_atomically(path: str, data: bytes, mode: int | None = None) -> None:
    """Write ``data`` to ``path`` through a uniquely named temporary file beside it.

    ``path`` itself is replaced (a symlink at ``path`` is replaced by the file, never followed);
    callers that want to write through a link resolve it first and decide whether they may.
    A missing folder raises ``FileNotFoundError`` before anything is created.
    """
    import tempfile  # not on the read-only path: it imports random and shutil

    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(path)}.", suffix=".dimlint-tmp", dir=directory
    )
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        if os.path.lexists(temporary):
            os.unlink(temporary)
        raise
