"""dimlint's positions (1-based lines, code-point columns) to LSP's, and back.

LSP counts lines from 0 and characters in the code units the client and server agreed on at
``initialize``: UTF-16 unless the client offers another (``general.positionEncodings``). A
character outside the Basic Multilingual Plane (an emoji in a comment, a CJK extension
ideograph in a key) is one code point to dimlint and two UTF-16 units to the editor, so every
column after it on its line shifts; getting this wrong puts squiggles one character off.

Lines are split where dimlint's front ends split them (``\\n``, with a ``\\r`` before it belonging
to the line ending), so a finding's line is the editor's line. Kept free of pygls so that it can
be tested without the optional extra.
"""

from __future__ import annotations

import bisect
from typing import Literal, NamedTuple

Encoding = Literal["utf-8", "utf-16", "utf-32"]


class LspPosition(NamedTuple):
    """0-based line, character in the negotiated code units."""

    line: int
    character: int


def units(text: str, encoding: Encoding) -> int:
    """Length of ``text`` in code units of ``encoding``."""
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


class LineIndex:
    """Line starts of one text, for converting in both directions."""

    __slots__ = ("encoding", "starts", "text")

    def __init__(self, text: str, encoding: Encoding = "utf-16") -> None:
        self.text = text
        self.encoding = encoding
        self.starts = [0]
        find = text.find
        at = find("\n")
        while at != -1:
            self.starts.append(at + 1)
            at = find("\n", at + 1)

    def line_text(self, line: int) -> str:
        """The 0-based ``line`` without its line ending ("" past the end)."""
        if line >= len(self.starts):
            return ""
        start = self.starts[line]
        end = self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].removesuffix("\r")

    def to_lsp(self, line: int, column: int) -> LspPosition:
        """dimlint's 1-based ``line`` and code-point ``column`` in LSP terms.

        A column past the end of its line (DL001 at the end of a truncated file points one past
        the last character) becomes the end of the line, as LSP defines such positions.
        """
        text = self.line_text(line - 1)
        return LspPosition(max(0, line - 1), units(text[: max(0, column - 1)], self.encoding))

    def offset_of(self, position: LspPosition) -> int:
        """The character offset into the text of an LSP position (clamped to its line)."""
        if position.line >= len(self.starts):
            return len(self.text)
        text = self.line_text(position.line)
        counted = 0
        for index, char in enumerate(text):
            if counted >= position.character:
                return self.starts[position.line] + index
            counted += units(char, self.encoding)
        return self.starts[position.line] + len(text)

    def offset_to_lsp(self, offset: int) -> LspPosition:
        """The LSP position of a character offset."""
        line = bisect.bisect_right(self.starts, offset) - 1
        column = offset - self.starts[line] + 1
        return self.to_lsp(line + 1, column)


def encoding_of(name: object) -> Encoding:
    """The encoding pygls negotiated (``PositionEncodingKind`` values), UTF-16 by default."""
    text = str(getattr(name, "value", name) or "utf-16").lower()
    if text in ("utf-8", "utf-32"):
        return text  # type: ignore[return-value]
    return "utf-16"
