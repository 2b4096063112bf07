"""JSON with comments (JSONC): the dialect of configs whose owners read them with a stripper.

Coqui TTS reads its model configs with ``read_json_with_comments`` (``//`` and ``/* */``
comments removed, then ``json.loads``); VS Code, TypeScript and devcontainers read theirs the
same way. Such a file is not JSON, but it is not broken either: its reader accepts it. A
``.json`` file that fails to parse only because of comments is therefore read as its owner
reads it, with the comments blanked out character for character, so every line and column
dimlint reports is the one in the file. ``config.json`` is never read so: transformers'
``from_pretrained`` loads it with ``json.load``, which refuses a comment (DL001 stays true).
Fixes to such a file are shown, never written (:func:`dimlint.lint.pipeline.lint_bytes`): a
reading of it holds the blanked text, and writing that back would delete the comments.
"""

from __future__ import annotations

import json

from dimlint.sources import jsonspans
from dimlint.sources.jsonfile import JsonDocument, decode


def blank_comments(text: str) -> str | None:
    """``text`` with every comment outside strings replaced by spaces (line breaks kept), or
    None when it holds no comment or a block comment is never closed."""
    out: list[str] = []
    found = False
    at, length = 0, len(text)
    in_string = False
    while at < length:
        char = text[at]
        if in_string:
            out.append(char)
            if char == "\\" and at + 1 < length:
                out.append(text[at + 1])
                at += 2
                continue
            in_string = char != '"'
            at += 1
            continue
        pair = text[at : at + 2]
        if pair == "//":
            end = text.find("\n", at)
            end = length if end < 0 else end
            out.append(" " * (end - at))
            found, at = True, end
            continue
        if pair == "/*":
            end = text.find("*/", at + 2)
            if end < 0:
                return None
            out.append("".join(c if c in "\r\n" else " " for c in text[at : end + 2]))
            found, at = True, end + 2
            continue
        in_string = char == '"'
        out.append(char)
        at += 1
    return "".join(out) if found else None


def load(path: str, data: bytes) -> tuple[JsonDocument, str] | None:
    """The document of a JSONC file (its original text, positions from the blanked one) and
    the blanked text, or None when the bytes are not JSON once their comments are blanked."""
    text, problems = decode(data)
    if text is None or problems:
        return None  # an encoding problem is reported as such, comments or not
    blanked = blank_comments(text)
    if blanked is None:
        return None
    try:
        value, index = jsonspans.parse(blanked)
        json.loads(blanked)  # the C parser agrees (what the owner's json.loads accepts)
    except (jsonspans.JsonSyntaxError, ValueError, RecursionError):
        return None
    return JsonDocument(path, text, value, bool(index.duplicates), False, index), blanked
