"""A JSON parser that remembers where every key and value is.

The stdlib ``json`` module gives values but no positions, and it keeps only the last of two equal
keys without saying so. Findings must point at the exact value, and duplicate keys are a finding
of their own, so this module re-reads the text with a tokenizer and an explicit stack (no
recursion: a document nested 200,000 levels deep is fine) and records, for every JSON pointer, the
span of its key and of its value.

It is only run when positions are needed (a file with findings) or when the C parser gives up
(nesting too deep, integers too long for ``int``): the fast path is ``json.loads``.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import sys
from collections.abc import Callable
from typing import Any

from dimlint.config.pointers import escape_pointer_token, unescape_pointer_token
from dimlint.config.values import HugeInt
from dimlint.diagnostics import Position, Span, line_starts, position_of
from dimlint.records import Record

#: Values nested deeper than this get no span: configs are shallow, and pointers to a value
#: 200,000 levels down would cost quadratic memory.
MAX_INDEXED_DEPTH = 64


def max_int_digits() -> int:
    """Python refuses longer decimal strings in int() (CVE-2020-10735); 0 means no limit."""
    limit = sys.get_int_max_str_digits()
    return limit if limit > 0 else 1 << 62


_TOKEN_PATTERN = r"""[ \t\n\r]*(?:
      (?P<str>"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")
    | (?P<num>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)
    | (?P<punct>[{}\[\]:,])
    | (?P<lit>true|false|null|NaN|Infinity|-Infinity)
    )"""


@functools.cache
def _token() -> re.Pattern[str]:
    """The full tokenizer, compiled on first use (most runs only need :class:`LazySpans`)."""
    return re.compile(_TOKEN_PATTERN, re.VERBOSE)


_LITERALS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}


class JsonSyntaxError(ValueError):
    """Raised with the character offset where the document stops being JSON."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


class Member(Record):
    """Where one object member or array item sits (offsets into the text)."""

    key_start: int | None
    key_end: int | None
    value_start: int
    value_end: int


class DuplicateKey(Record):
    """An object member overridden by a later member with the same key."""

    pointer: str
    earlier: Member
    #: Start of the member that follows the earlier one: deleting ``[key_start, next_start)``
    #: removes the earlier member together with its comma and the whitespace after it.
    next_start: int
    later: Member


#: Positions found by scanning the text before building a table of line starts: a few findings
#: per file cost less that way, and a table bounds the work on a huge file with many findings.
_SCANS_BEFORE_TABLE = 16


class SpanIndex:
    """Every pointer's member span, the duplicate keys, and line bookkeeping for positions."""

    __slots__ = ("_line_starts", "_lookups", "duplicates", "members", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.members: dict[str, Member] = {}
        self.duplicates: list[DuplicateKey] = []
        self._line_starts: list[int] | None = None
        self._lookups = 0

    def position(self, offset: int) -> Position:
        """1-based line and column (in code points) of a character offset."""
        if self._line_starts is None:
            text = self.text
            self._lookups += 1
            if "\r" not in text and self._lookups <= _SCANS_BEFORE_TABLE:
                # ``\n`` is then the only line break: two C-level scans of the text before the
                # offset, instead of a table of every line start built in Python.
                line_start = text.rfind("\n", 0, offset) + 1
                return Position(text.count("\n", 0, offset) + 1, offset - line_start + 1)
            self._line_starts = line_starts(text)
        line = bisect.bisect_right(self._line_starts, offset)
        return Position(line, offset - self._line_starts[line - 1] + 1)

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, self.position(start), self.position(end))

    def member(self, pointer: str) -> Member | None:
        return self.members.get(pointer)

    def value_span(self, pointer: str) -> Span | None:
        member = self.member(pointer)
        return None if member is None else self.span(member.value_start, member.value_end)

    def key_span(self, pointer: str) -> Span | None:
        member = self.member(pointer)
        if member is None or member.key_start is None or member.key_end is None:
            return None
        return self.span(member.key_start, member.key_end)


def _string_value(token: str) -> str:
    return token[1:-1] if "\\" not in token else str(json.loads(token))


def _number_value(token: str) -> int | float:
    if "." in token or "e" in token or "E" in token:
        return float(token)
    digits = len(token.lstrip("-"))
    if digits > max_int_digits():
        return HugeInt(digits)
    return int(token)


class _Frame:
    """An open object or array on the parser's stack."""

    __slots__ = (
        "container", "expect", "key", "key_end", "key_start", "pointer", "positions", "start"
    )  # fmt: skip

    def __init__(
        self, container: dict[str, Any] | list[Any], pointer: str | None, start: int
    ) -> None:
        self.container = container
        self.pointer = pointer  # None below MAX_INDEXED_DEPTH
        self.start = start
        self.key: str | None = None
        self.key_start = 0
        self.key_end = 0
        self.expect = "first"  # first | key | colon | value | comma
        #: Below MAX_INDEXED_DEPTH, the members of this object only (for duplicate keys).
        self.positions: dict[str, Member] | None = None


#: Duplicate keys reported below MAX_INDEXED_DEPTH, each costing a pointer as long as its depth.
MAX_DEEP_DUPLICATES = 100


def _deep_member(frame: _Frame, member: Member, stack: list[_Frame], index: SpanIndex) -> None:
    """Remember a member below the indexed depth and report it if its key repeats: duplicates
    are found at any depth, while the index keeps no pointer for every deep member."""
    if frame.positions is None:
        frame.positions = {}
    assert frame.key is not None
    earlier = frame.positions.get(frame.key)
    if earlier is not None and len(index.duplicates) < MAX_DEEP_DUPLICATES:
        tokens = (
            escape_pointer_token(f.key or "")
            if isinstance(f.container, dict)
            else str(len(f.container))
            for f in stack
        )
        pointer = "".join(f"/{token}" for token in tokens)
        following = _next_member_start(index.text, earlier.value_end)
        index.duplicates.append(DuplicateKey(pointer, earlier, following, member))
    frame.positions[frame.key] = member


def parse(text: str) -> tuple[Any, SpanIndex]:
    """Parse ``text`` into (value, index); raise :class:`JsonSyntaxError` at the bad offset."""
    index = SpanIndex(text)
    members = index.members
    stack: list[_Frame] = []
    root: Any = None
    have_root = False
    pos = 0
    length = len(text)
    match = _token().match

    def child_pointer(frame: _Frame) -> str | None:
        if frame.pointer is None:
            return None
        if isinstance(frame.container, list):
            return f"{frame.pointer}/{len(frame.container)}"
        assert frame.key is not None
        return f"{frame.pointer}/{escape_pointer_token(frame.key)}"

    def place(value: Any, start: int, end: int) -> None:
        nonlocal root, have_root
        if not stack:
            root, have_root = value, True
            members[""] = Member(None, None, start, end)
            return
        frame = stack[-1]
        pointer = child_pointer(frame)
        if isinstance(frame.container, list):
            frame.container.append(value)
            if pointer is not None:
                members[pointer] = Member(None, None, start, end)
        else:
            assert frame.key is not None
            member = Member(frame.key_start, frame.key_end, start, end)
            if pointer is None:
                _deep_member(frame, member, stack, index)
                frame.container[frame.key] = value
            elif frame.key in frame.container:
                earlier = members[pointer]
                following = _next_member_start(text, earlier.value_end)
                index.duplicates.append(DuplicateKey(pointer, earlier, following, member))
            if pointer is not None:
                frame.container[frame.key] = value
                members[pointer] = member
        frame.expect = "comma"

    while True:
        token = match(text, pos)
        if token is None or token.lastgroup is None:
            rest = text[pos:].lstrip(" \t\n\r")
            if not rest:
                if have_root and not stack:
                    return root, index
                raise _end_of_file(text, stack)
            offset = length - len(rest)
            if rest[0] == '"':
                raise _bad_string(text, offset)
            raise JsonSyntaxError(f"unexpected character {rest[0]!r}", offset)
        kind = token.lastgroup
        start, end = token.start(kind), token.end()
        pos = end
        char = text[start]
        if have_root and not stack:
            raise JsonSyntaxError("extra data after the top-level value", start)
        frame = stack[-1] if stack else None
        in_object = frame is not None and isinstance(frame.container, dict)
        if frame is not None and frame.expect == "colon":
            if char != ":" or kind != "punct":
                raise JsonSyntaxError("expected ':' after an object key", start)
            frame.expect = "value"
            continue
        if kind == "punct" and char in "]}":
            if frame is None or (char == "}") != in_object:
                raise JsonSyntaxError(f"unexpected {char!r}", start)
            if frame.expect == "value":
                raise JsonSyntaxError(f"expected a value before {char!r}", start)
            if frame.expect not in ("comma", "first"):
                raise JsonSyntaxError(f"unexpected {char!r} after ','", start)
            stack.pop()
            place(frame.container, frame.start, end)
            continue
        if kind == "punct" and char == ",":
            if frame is None or frame.expect != "comma":
                raise JsonSyntaxError("unexpected ','", start)
            frame.expect = "key" if in_object else "value"
            continue
        if frame is not None and in_object and frame.expect in ("first", "key"):
            if kind != "str":
                raise JsonSyntaxError("expected an object key (a string in double quotes)", start)
            frame.key = _string_value(text[start:end])
            frame.key_start, frame.key_end = start, end
            frame.expect = "colon"
            if frame.pointer is not None and frame.key in frame.container:
                # a repeated key: the overridden value's members stop describing the document
                prefix = f"{frame.pointer}/{escape_pointer_token(frame.key)}/"
                for stale in [p for p in members if p.startswith(prefix)]:
                    del members[stale]
            continue
        if frame is not None and frame.expect not in ("value", "first"):
            raise JsonSyntaxError("expected ',' or a closing bracket", start)
        if kind == "punct":
            if char == ":":
                raise JsonSyntaxError("unexpected ':'", start)
            pointer = "" if frame is None else child_pointer(frame)
            if len(stack) >= MAX_INDEXED_DEPTH:
                pointer = None
            container: dict[str, Any] | list[Any] = {} if char == "{" else []
            stack.append(_Frame(container, pointer, start))
            continue
        raw = text[start:end]
        value: Any
        if kind == "str":
            value = _string_value(raw)
        elif kind == "num":
            value = _number_value(raw)
        else:
            value = _LITERALS[raw]
        place(value, start, end)


def _end_of_file(text: str, stack: list[_Frame]) -> JsonSyntaxError:
    """The error for a document that stops early, naming the bracket never closed."""
    if not stack:
        return JsonSyntaxError("the file ends before any value", len(text))
    end = len(text.rstrip(" \t\n\r"))  # report at the last character, not blank lines below
    opened = stack[-1].start
    line, column = position_of(text, opened)
    return JsonSyntaxError(
        f"unexpected end of file: the {text[opened]!r} opened at line {line}, column {column}"
        " is never closed",
        end,
    )


def _bad_string(text: str, quote: int) -> JsonSyntaxError:
    """Point at the character that makes a string literal invalid."""
    position = quote + 1
    while position < len(text):
        char = text[position]
        if char == '"':
            break
        if char == "\\":
            escape = text[position + 1 : position + 2]
            if escape == "u":
                digits = text[position + 2 : position + 6]
                if len(digits) < 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
                    return JsonSyntaxError("invalid \\u escape in a string", position)
                position += 6
                continue
            if escape not in ('"', "\\", "/", "b", "f", "n", "r", "t"):
                return JsonSyntaxError(f"invalid escape \\{escape} in a string", position)
            position += 2
            continue
        if ord(char) < 0x20:
            return JsonSyntaxError(f"control character {char!r} in a string", position)
        position += 1
    return JsonSyntaxError("unterminated string", quote)


def _next_member_start(text: str, after_value: int) -> int:
    """Offset of the first key after the comma that follows an object member's value."""
    comma = text.index(",", after_value)
    offset = comma + 1
    while offset < len(text) and text[offset] in " \t\n\r":
        offset += 1
    return offset


#: A member's key up to the first character of its value (whitespace on both sides of ``:``).
_MEMBER_KEY = re.compile(
    r'[ \t\n\r]*("(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*")[ \t\n\r]*:[ \t\n\r]*'
)
_SEPARATOR = re.compile(r"[ \t\n\r]*([,\]}])")
#: The colon after a key and the whitespace around it.
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
#: The C scanner behind ``json.JSONDecoder.raw_decode``, called directly: ``(value, end)`` of the
#: value starting at an offset (the text is known to be JSON, so its error wrapping is not needed).
_SKIP_VALUE: Callable[[str, int], tuple[Any, int]] = vars(json.JSONDecoder())["scan_once"]
_WHITESPACE = re.compile(r"[ \t\n\r]*")


class LazySpans:
    """Member spans computed on demand, for documents the C parser already accepted.

    Locating ``/text_config/hidden_size`` only needs the members of the two objects on that path,
    and only up to the member wanted: each member's key is matched with a regex and its value is
    skipped by the C decoder (``raw_decode``), so a clean 2 KB config costs a few dozen C calls
    instead of a Python-level walk over every token. Each container is scanned at most once, in
    pieces, resuming where the last lookup stopped. Documents with duplicate keys use the full
    :func:`parse` instead (every object must be scanned to find them).
    """

    __slots__ = ("_progress", "_value", "index")

    def __init__(self, text: str, value: Any = None) -> None:
        self.index = SpanIndex(text)
        #: The parsed document (when given): a key the parsed object has and whose quoted name
        #: occurs once in the object's text is found with ``str.find`` (see :meth:`_find_key`).
        self._value = value
        #: container pointer → (next offset to scan, next array index); absent once finished
        self._progress: dict[str, tuple[int, int] | None] = {}
        start = _WHITESPACE.match(text, 0)
        assert start is not None
        # the C parser accepted the whole text, so the root value ends at its last character
        end = len(text.rstrip(" \t\n\r"))
        self.index.members[""] = Member(None, None, start.end(), end)

    def member(self, pointer: str) -> Member | None:
        """The span of the value at ``pointer`` (None when the document has no such value)."""
        members = self.index.members
        found = members.get(pointer)
        if found is not None or not pointer:
            return found
        parent, _, token = pointer.rpartition("/")
        container = self.member(parent)
        if container is None:
            return None
        found = self._find_key(parent, container, token)
        if found is not None:
            members[pointer] = found
            return found
        self._scan(parent, container, pointer)
        return members.get(pointer)

    def _find_key(self, parent: str, container: Member, token: str) -> Member | None:
        """The member ``token`` of the object at ``parent`` found directly, or None (then the
        container is scanned). Only when the parsed object has that key and the object's text
        holds no backslash: then every string is written literally, the key's quoted name is
        in the text, and if it occurs once in the object's range that occurrence is the key (a
        nested object's own copy would make two; a string followed by ``:`` is always a key).
        """
        if self._value is None:
            return None
        obj = _resolve(self._value, parent)
        name = unescape_pointer_token(token)
        if not isinstance(obj, dict) or name not in obj:
            return None
        text = self.index.text
        start, end = container.value_start, container.value_end
        if text.find("\\", start, end) >= 0:
            return None
        needle = f'"{name}"'
        key_start = text.find(needle, start, end)
        if key_start < 0 or text.find(needle, key_start + 1, end) >= 0:
            return None
        key_end = key_start + len(needle)
        colon = _COLON.match(text, key_end)
        if colon is None:
            return None
        value_start = colon.end()
        _, value_end = _SKIP_VALUE(text, value_start)
        return Member(key_start, key_end, value_start, value_end)

    def _scan(self, pointer: str, container: Member, wanted: str) -> None:
        """Record member spans of the container at ``pointer`` until ``wanted`` is seen."""
        text = self.index.text
        opening = text[container.value_start]
        if opening not in "{[":
            return
        progress = self._progress.get(pointer, (container.value_start + 1, 0))
        if progress is None:
            return  # already scanned to the end
        position, item = progress
        if position == container.value_start + 1:
            closing = _SEPARATOR.match(text, position)
            if closing is not None and closing.group(1) in "]}":
                self._progress[pointer] = None  # an empty container
                return
        # The C parser accepted the text, so after a comma another member always follows.
        decode = _SKIP_VALUE
        members = self.index.members
        prefix = pointer + "/"
        while True:
            if opening == "{":
                key = _MEMBER_KEY.match(text, position)
                if key is None:
                    break
                token = key.group(1)
                name = token[1:-1] if "\\" not in token else _string_value(token)
                if "~" in name or "/" in name:
                    name = escape_pointer_token(name)
                child = prefix + name
                value_start = key.end()
                _, value_end = decode(text, value_start)
                members[child] = Member(key.start(1), key.end(1), value_start, value_end)
            else:
                child = f"{prefix}{item}"
                item += 1
                value = _WHITESPACE.match(text, position)
                assert value is not None
                value_start = value.end()
                _, value_end = decode(text, value_start)
                members[child] = Member(None, None, value_start, value_end)
            separator = _SEPARATOR.match(text, value_end)
            if separator is None or separator.group(1) != ",":
                break
            position = separator.end()
            if child == wanted:
                self._progress[pointer] = (position, item)
                return
        self._progress[pointer] = None


def _resolve(value: Any, pointer: str) -> Any:
    """The parsed value at ``pointer`` (None when there is none)."""
    for token in pointer.split("/")[1:]:
        if isinstance(value, dict):
            value = value.get(unescape_pointer_token(token))
        elif isinstance(value, list) and token.isdigit() and len(token) < 10:
            if int(token) >= len(value):
                return None
            value = value[int(token)]
        else:
            return None
    return value
