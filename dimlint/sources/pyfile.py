"""Read a Python file with libcst and tell where its nodes are.

libcst keeps every byte of the source (comments, formatting, parentheses), which is what lets a
fix replace one literal and nothing else. Its ``PositionProvider`` computes a position for every
node of the module, which costs about twice the parse; dimlint needs the positions of a few dozen
nodes (the values of config keys, their keywords, noqa comments), so :func:`locate` runs one plain
code generation pass that counts characters and records only the nodes asked for. The offsets are
character offsets into the decoded text — what :class:`dimlint.diagnostics.Edit` uses.

This module imports libcst; the linter imports it only for files that pass the cheap pre-filter
(:mod:`dimlint.sources.pyprefilter`), so JSON-only runs never load libcst.
"""

from __future__ import annotations

import bisect
import codecs
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState

from dimlint.diagnostics import Position, Span
from dimlint.sources.jsonfile import InputProblem

_NEWLINE = re.compile(r"\r\n?|\n")


class PythonDocument:
    """A decoded Python file: its text, and positions of character ranges.

    This is what :class:`dimlint.linter.FileResult` keeps for fixing and for code frames (the
    fixer reads ``text`` and ``bom``); candidates keep their own node → span maps.
    """

    __slots__ = ("_line_starts", "bom", "path", "text")

    def __init__(self, path: str, text: str, bom: bool = False) -> None:
        self.path = path
        self.text = text
        self.bom = bom
        self._line_starts: list[int] | None = None

    def position(self, offset: int) -> Position:
        """1-based line and column (code points) of a character offset; lines end as Python's."""
        if self._line_starts is None:
            self._line_starts = [0, *(m.end() for m in _NEWLINE.finditer(self.text))]
        line = bisect.bisect_right(self._line_starts, offset)
        return Position(line, offset - self._line_starts[line - 1] + 1)

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, self.position(start), self.position(end))


def decode(data: bytes) -> tuple[str | None, bool, InputProblem | None]:
    """The text of a Python file, whether it had a UTF-8 BOM, and why it cannot be decoded.

    Python source is UTF-8 unless a coding cookie says otherwise (PEP 263); files in another
    encoding are decoded for checking but come back with a problem marked recoverable, so that
    they are linted and never rewritten.
    """
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    try:
        return body.decode("utf-8"), bom, None
    except UnicodeDecodeError as error:
        failure = error
    encoding = _cookie(body)
    if encoding is not None:
        try:
            message = f"the file is {encoding}-encoded; fixes are written only to UTF-8 files"
            return body.decode(encoding), bom, InputProblem(message, recoverable=True)
        except (LookupError, UnicodeDecodeError):
            pass
    prefix = body[: failure.start].decode("utf-8", errors="replace")
    line = prefix.count("\n") + 1
    column = len(prefix) - (prefix.rfind("\n") + 1) + 1
    byte = body[failure.start : failure.start + 1].hex()
    message = (
        f"invalid UTF-8 (byte 0x{byte} at offset {failure.start}) and no coding declaration:"
        " Python reads source files as UTF-8; re-save the file as UTF-8"
    )
    return None, bom, InputProblem(message, Position(line, column))


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _cookie(data: bytes) -> str | None:
    """The PEP 263 encoding declared in the first two lines, if any (not UTF-8)."""
    for line in data.splitlines()[:2]:
        match = _COOKIE.match(line)
        if match is not None:
            name = match.group(1).decode("ascii").lower()
            return None if name.replace("_", "-") in ("utf-8", "utf8") else name
    return None


_LIBCST_PREFIX = re.compile(r"^(?:parser error: )?(?:error at \d+:\d+: )?")


def parse(text: str) -> cst.Module | InputProblem:
    """The libcst module of ``text``, or a DL001 problem at libcst's error position.

    libcst's native parser often places a syntax error at the token after the real one (the
    next line's first token for ``def f(:``), so the message adds CPython's own verdict and
    position when they differ: that is what running the file would print.
    """
    from dimlint.sources.pycomplexity import too_complex

    refused = too_complex(text)
    if refused is not None:
        return refused
    try:
        return cst.parse_module(text)
    except cst.CSTValidationError as error:  # 'a' b'b': CPython refuses it too
        return InputProblem(f"invalid Python: {error}")
    except cst.ParserSyntaxError as error:
        message = _LIBCST_PREFIX.sub("", error.message).rstrip(".")
        position = Position(max(error.raw_line, 1), error.raw_column + 1)
        return InputProblem(f"invalid Python: {message}{_cpython(text, position)}", position)
    except (RecursionError, MemoryError):
        return InputProblem("invalid Python: the file nests too deeply for the parser")


def _cpython(text: str, position: Position) -> str:
    """`` (Python: <message> at line L, column C)`` when CPython places the error elsewhere."""
    import ast

    try:
        ast.parse(text)
    except SyntaxError as error:
        line, column = error.lineno or 1, error.offset or 1
        if (line, column) != (position.line, position.column):
            return f" (Python: {error.msg} at line {line}, column {column})"
    except (ValueError, RecursionError, MemoryError):
        pass
    return ""


class _OffsetState(CodegenState):
    """Code generation that only counts characters and notes where the wanted nodes are.

    Expressions report their syntactic extent (without surrounding whitespace or parentheses)
    through ``record_syntactic_position``; only statements hoist positions from child nodes,
    and no statement is ever wanted, so hoisting is not reproduced.
    """

    def __init__(self, module: cst.Module, wanted: set[int]) -> None:
        super().__init__(
            default_indent=module.default_indent, default_newline=module.default_newline
        )
        self.offset = 0
        self.wanted = wanted
        self.found: dict[int, tuple[int, int]] = {}
        self.comments: list[tuple[int, int, str]] = []
        self._comment_start = 0

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)
        self.tokens.extend(self.indent_tokens)

    def add_token(self, value: str) -> None:
        self.offset += len(value)
        self.tokens.append(value)

    def before_codegen(self, node: Any) -> None:
        if node.__class__ is cst.Comment:
            self._comment_start = self.offset

    def after_codegen(self, node: Any) -> None:
        if node.__class__ is cst.Comment:
            self.comments.append((self._comment_start, self.offset, node.value))

    @contextmanager
    def record_syntactic_position(
        self, node: Any, *, start_node: Any = None, end_node: Any = None
    ) -> Iterator[None]:
        start = self.offset
        yield
        if id(node) in self.wanted:
            self.found[id(node)] = (start, self.offset)


class NodeSpans:
    """Where the asked-for nodes and every comment of one module are, as character offsets."""

    __slots__ = ("comments", "spans")

    def __init__(
        self, spans: dict[int, tuple[int, int]], comments: list[tuple[int, int, str]]
    ) -> None:
        self.spans = spans
        #: (start, end, text) of every comment, in source order.
        self.comments = comments

    def of(self, node: cst.CSTNode) -> tuple[int, int] | None:
        return self.spans.get(id(node))


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> NodeSpans:
    """Offsets of the expression ``nodes`` (as libcst's PositionProvider bounds them) and of
    every comment, from one code generation pass."""
    state = _OffsetState(module, {id(node) for node in nodes})
    module._codegen(state)
    return NodeSpans(state.found, state.comments)
