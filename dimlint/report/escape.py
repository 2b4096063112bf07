"""Text from the input made safe to print: one helper for every command and format.

A config is data from anywhere: a ``model_type`` of ``"\\u001b[2J"``, a folder whose name holds
a BEL, a Python comment with a C1 control. Printed raw, those bytes drive the terminal (clear
the screen, retitle the window, fake a line of output) or, as lone surrogates from a JSON escape,
cannot be encoded at all. So every output passes through one of these two functions on its way
out:

* :func:`for_terminal` — the human formats (``full``, ``concise``, ``github``, the tables of
  ``mem``/``plan``/``shapes``, messages on stderr): each control character other than newline
  and tab becomes its Python escape (``\\x1b``), each lone surrogate ``\\ud800``;
* :func:`for_json` — text that is already JSON (``json``, ``sarif``): C1 controls and DEL,
  which JSON writes raw, become ``\\u009b``; lone surrogates ``\\ud800`` (valid JSON escapes, so
  the document still parses to the same strings).
"""

from __future__ import annotations

import io
import re
from typing import TextIO, cast

#: C0 controls except tab and newline, DEL and the C1 controls.
_TERMINAL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
#: Inside serialized JSON, C0 controls are already escaped; DEL and C1 are not.
_JSON = re.compile(r"[\x7f-\x9f]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _no_surrogates(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def for_terminal(text: str) -> str:
    """``text`` with control characters (but newline and tab) and lone surrogates escaped."""
    if _TERMINAL.search(text) is not None:
        text = _TERMINAL.sub(_escaped, text)
    return text if text.isascii() else _no_surrogates(text)


def for_json(text: str) -> str:
    """Serialized JSON with DEL, C1 controls and lone surrogates written as JSON escapes."""
    if text.isascii():
        return text if "\x7f" not in text else _JSON.sub(_json_escaped, text)
    return _no_surrogates(_JSON.sub(_json_escaped, text))


class TerminalStream(io.TextIOBase):
    """A stream that writes :func:`for_terminal` of every text (stderr: always for people)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(for_terminal(text))
        return len(text)

    def flush(self) -> None:
        self.stream.flush()

    def writable(self) -> bool:
        return True


def terminal_stream(stream: TextIO) -> TextIO:
    """``stream`` wrapped in a :class:`TerminalStream` (once)."""
    if isinstance(stream, TerminalStream):
        return stream
    return cast(TextIO, TerminalStream(stream))
