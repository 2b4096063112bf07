"""The files beside a config, wherever they are: a local folder, or a Hub repository.

The checkpoint and tokenizer checks (DL503, DL605, DL610–DL612) read the files beside a
``config.json``. Locally those are paths in one folder; for a Hub model (:mod:`dimlint.sources.hub`)
the small files sit in the HF cache while the safetensors headers were fetched by range request,
and findings must name the files as ``hf://org/name@sha/…``. This seam lets the checks read
either without knowing which: a name in, a display path, a local file, or a parsed header out.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the tokenizer check alone must not import the safetensors reader
    from dimlint.sources.jsonfile import InputProblem
    from dimlint.sources.safetensors import Header


class Beside(Protocol):
    """Read access to the files beside one config, by file name."""

    def display(self, name: str) -> str:
        """The path findings on ``name`` report."""

    def local(self, name: str) -> str | None:
        """A local file holding the bytes of ``name``; None when it is not here."""

    def header(self, name: str) -> Header | InputProblem | None:
        """The safetensors header of ``name``; None when the file is not here."""


class LocalFiles:
    """The files of a local folder (the usual case)."""

    __slots__ = ("folder",)

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def display(self, name: str) -> str:
        return os.path.join(self.folder, name)

    def local(self, name: str) -> str | None:
        path = os.path.join(self.folder, name)
        return path if os.path.exists(path) else None

    def header(self, name: str) -> Header | InputProblem | None:
        from dimlint.sources.safetensors import read_header

        path = self.local(name)  # a dangling cache symlink counts as not downloaded
        return None if path is None else read_header(path)
