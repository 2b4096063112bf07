"""Which paths git tracks, read from a repository's index, so a walk never prunes them.

git applies ``.gitignore`` only to untracked files: a folder committed despite a pattern that
names it (THUDM/CogVideo commits ``sat/`` beside a ``.gitignore`` saying ``**/sat``) is part
of the repository, and a walk that prunes it skips the repository's model configs without a
word. The index (``.git/index``, versions 2 to 4) lists every tracked path; reading it needs no
``git`` program. What cannot be read (no index, an unknown version, a truncated file) gives
None, and the walk then honours the ``.gitignore`` patterns as before.
"""

from __future__ import annotations

import os

from dimlint.records import Record

#: The most of an index read (a repository of a million files has an index of ~100 MB).
MAX_INDEX_BYTES = 256 << 20
#: Bytes of one entry before its flags: ctime, mtime, dev, ino, mode, uid, gid, size, object id.
_FIXED = 40 + 20


class Tracked(Record):
    """The tracked files and the folders holding them, relative to the repository's top."""

    top: str
    files: frozenset[str]
    folders: frozenset[str]

    def holds(self, path: str, is_dir: bool) -> bool:
        """Whether ``path`` is a tracked file or a folder holding one."""
        relative = os.path.relpath(os.path.abspath(path), self.top).replace(os.sep, "/")
        return relative in (self.folders if is_dir else self.files)


def git_dir(top: str) -> str | None:
    """The git directory of the work tree at ``top``: ``.git``, or where a ``.git`` file
    points (``gitdir: …``, as worktrees and submodules have)."""
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            line = handle.readline(4096).strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    return os.path.join(top, line[len("gitdir:") :].strip())


def tracked(top: str) -> Tracked | None:
    """The paths the index of the repository at ``top`` tracks (None: no readable index)."""
    directory = git_dir(top)
    if directory is None:
        return None
    try:
        with open(os.path.join(directory, "index"), "rb") as handle:
            data = handle.read(MAX_INDEX_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_INDEX_BYTES:
        return None
    names = entry_names(data)
    if names is None:
        return None
    folders = {"."}
    for name in names:
        slash = name.rfind("/")
        while slash > 0 and name[:slash] not in folders:
            folders.add(name[:slash])
            slash = name.rfind("/", 0, slash)
    return Tracked(os.path.abspath(top), frozenset(names), frozenset(folders))


def entry_names(data: bytes) -> list[str] | None:
    """The path of each entry of an index file's bytes (None: not an index this reads)."""
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4) or count > len(data) // (_FIXED + 2):
        return None
    names: list[str] = []
    previous = b""
    offset = 12
    for _ in range(count):
        start = offset
        offset += _FIXED
        if offset + 2 > len(data):
            return None
        flags = int.from_bytes(data[offset : offset + 2], "big")
        offset += 2
        if version >= 3 and flags & 0x4000:
            offset += 2  # extended flags
        if version == 4:
            strip, offset = _varint(data, offset)
            end = data.find(b"\0", offset)
            if strip is None or end < 0 or strip > len(previous):
                return None
            name = previous[: len(previous) - strip] + data[offset:end]
            offset = end + 1
        else:
            end = data.find(b"\0", offset)
            if end < 0:
                return None
            name = data[offset:end]
            # entries are padded with 1-8 NULs to a multiple of 8 bytes
            offset = start + ((end - start) // 8 + 1) * 8
        previous = name
        names.append(name.decode("utf-8", errors="surrogateescape"))
    return names


def _varint(data: bytes, offset: int) -> tuple[int | None, int]:
    """git's offset varint (the index v4 prefix length): 7 bits a byte, each continuation
    adding one before the shift."""
    value = -1
    for _ in range(10):
        if offset >= len(data):
            return None, offset
        byte = data[offset]
        offset += 1
        value = (value + 1 << 7) | (byte & 0x7F) if value >= 0 else byte & 0x7F
        if not byte & 0x80:
            return value, offset
    return None, offset
