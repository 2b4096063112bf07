"""Read a JSON file into a value plus (lazily) the position of every key and value.

Reading is split in two so that clean files stay cheap: the C ``json`` parser produces the value
and tells whether any object repeated a key; the position index (:mod:`dimlint.sources.jsonspans`)
is built only when a finding needs a line and column, or when the C parser cannot cope (deep
nesting, integers longer than ``int()`` accepts).

Byte-level problems that make transformers fail before JSON parsing even starts (a UTF-8
byte-order mark, UTF-16, invalid UTF-8, binary content) are reported as :class:`InputProblem`
with a position, and the content is still checked when it can be decoded.
"""

from __future__ import annotations

import codecs
import json
from typing import Any

from dimlint.diagnostics import Position, Span, position_of
from dimlint.records import Record
from dimlint.sources import jsonspans


class InputProblem(Record):
    """Why a file is not a readable JSON document (reported as DL001)."""

    message: str
    position: Position = Position(1, 1)
    #: True when the content could still be decoded and checked despite the problem.
    recoverable: bool = False


class JsonDocument:
    """A parsed JSON file: its text, its value, and the spans of its members on demand."""

    __slots__ = ("_index", "_lazy", "bom", "has_duplicates", "path", "text", "value")

    def __init__(
        self,
        path: str,
        text: str,
        value: Any,
        has_duplicates: bool,
        bom: bool = False,
        index: jsonspans.SpanIndex | None = None,
    ) -> None:
        self.path = path
        self.text = text
        self.value = value
        self.has_duplicates = has_duplicates
        self.bom = bom
        self._index = index
        self._lazy: jsonspans.LazySpans | None = None

    @property
    def index(self) -> jsonspans.SpanIndex:
        """The full position index (every member, duplicates), built on first use."""
        if self._index is None:
            _, self._index = jsonspans.parse(self.text)
        return self._index

    def _spans(self) -> jsonspans.SpanIndex | jsonspans.LazySpans:
        if self._index is not None or self.has_duplicates:
            return self.index
        if self._lazy is None:
            self._lazy = jsonspans.LazySpans(self.text, self.value)
        return self._lazy

    def value_span(self, pointer: str) -> Span | None:
        """Where the value at ``pointer`` is (None when absent)."""
        spans = self._spans()
        member = spans.member(pointer)
        if member is None:
            return None
        index = spans if isinstance(spans, jsonspans.SpanIndex) else spans.index
        return index.span(member.value_start, member.value_end)

    def key_span(self, pointer: str) -> Span | None:
        """Where the key of the member at ``pointer`` is (None for array items and the root)."""
        spans = self._spans()
        member = spans.member(pointer)
        if member is None or member.key_start is None or member.key_end is None:
            return None
        index = spans if isinstance(spans, jsonspans.SpanIndex) else spans.index
        return index.span(member.key_start, member.key_end)

    def span(self, start: int, end: int) -> Span:
        """Positions of a character range (for edits that are not a single value)."""
        spans = self._spans()
        index = spans if isinstance(spans, jsonspans.SpanIndex) else spans.index
        return index.span(start, end)


def _pairs_hook(flag: list[bool]) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            flag.append(True)
        return result

    return hook


def decode(data: bytes) -> tuple[str | None, list[InputProblem]]:
    """Decode file bytes as transformers would read them (UTF-8), explaining any failure."""
    problems: list[InputProblem] = []
    if not data.strip():
        return None, [InputProblem("the file is empty: a config must be a JSON object")]
    wide = _wide_encoding(data)
    if wide is not None:
        encoding, label = wide
        message = (
            f"the file is {label}; transformers reads config.json as UTF-8 and fails"
            " (re-save it as UTF-8)"
        )
        try:
            return data.decode(encoding), [InputProblem(message, recoverable=True)]
        except UnicodeDecodeError:
            return None, [InputProblem(message)]
    if data.find(b"\x00", 0, 8192) >= 0:
        return None, [InputProblem("the file is binary (it contains NUL bytes), not JSON")]
    if data.startswith(codecs.BOM_UTF8):
        problems.append(
            InputProblem(
                "the file starts with a UTF-8 byte-order mark, which json.loads rejects"
                " ('Unexpected UTF-8 BOM'): save it without the BOM",
                recoverable=True,
            )
        )
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8"), problems
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8", errors="replace")
        line, column = position_of(prefix, len(prefix))
        byte = data[error.start : error.start + 1].hex()
        return None, [
            *problems,
            InputProblem(
                f"invalid UTF-8 (byte 0x{byte} at offset {error.start}): transformers reads"
                " config.json as UTF-8; re-save the file as UTF-8",
                Position(line, column),
            ),
        ]


def _wide_encoding(data: bytes) -> tuple[str, str] | None:
    """UTF-32/UTF-16 by byte-order mark, or UTF-16 recognised by its zero bytes without one."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return "utf-32", "UTF-32 encoded"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16", "UTF-16 encoded"
    sample = data[:4096]
    # Without a zero among the first two bytes it is neither UTF-16-LE nor -BE (the test below
    # needs every second byte zero): most files are decided here, without slicing.
    if len(sample) >= 4 and len(sample) % 2 == 0 and 0 in sample[:2]:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) == len(odd) and 0 not in even:
            return "utf-16-le", "UTF-16 encoded (without a byte-order mark)"
        if even.count(0) == len(even) and 0 not in odd:
            return "utf-16-be", "UTF-16 encoded (without a byte-order mark)"
    return None


def load(path: str, data: bytes) -> tuple[JsonDocument | None, list[InputProblem]]:
    """Parse file bytes; return the document (when there is one) and the input problems."""
    text, problems = decode(data)
    if text is None:
        return None, problems
    bom = data.startswith(codecs.BOM_UTF8)
    duplicate_flag: list[bool] = []
    index: jsonspans.SpanIndex | None = None
    try:
        value = json.loads(text, object_pairs_hook=_pairs_hook(duplicate_flag))
    except json.JSONDecodeError as error:
        return None, [*problems, _explain_syntax_error(text, error)]
    except (RecursionError, ValueError):
        # Nesting beyond the C parser's recursion limit, or an integer with more digits than
        # int() converts: the span parser handles both without recursion.
        try:
            value, index = jsonspans.parse(text)
        except jsonspans.JsonSyntaxError as error:
            return None, [*problems, _syntax_problem(text, error.offset, error.message)]
        if index.duplicates:
            duplicate_flag.append(True)
    document = JsonDocument(path, text, value, bool(duplicate_flag), bom, index)
    return document, problems


def _explain_syntax_error(text: str, error: json.JSONDecodeError) -> InputProblem:
    """The span parser's account of a syntax error: it names unclosed brackets and bad escapes.

    The C parser's message is kept when the two disagree about whether the text is JSON.
    """
    try:
        jsonspans.parse(text)
    except jsonspans.JsonSyntaxError as ours:
        return _syntax_problem(text, ours.offset, ours.message)
    except (RecursionError, ValueError):
        pass
    return _syntax_problem(text, error.pos, error.msg)


def _syntax_problem(text: str, offset: int, message: str) -> InputProblem:
    return InputProblem(f"invalid JSON: {message}", position_of(text, offset))
