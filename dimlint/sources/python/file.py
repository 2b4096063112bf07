"""Read a Python file with libcst and tell where its nodes are.

libcst keeps every byte of the source (comments, formatting, parentheses), which is what lets a
fix replace one literal and nothing else. Its ``PositionProvider`` computes a position for every
node of the module, which costs about twice the parse; dimlint needs the positions of a few dozen
nodes (the values of config keys, their keywords, noqa comments), so :func:`locate` runs one plain
code generation pass that counts characters and records only the nodes asked for. The offsets are
character offsets into the decoded text — what :class:`dimlint.diagnostics.Edit` uses.

This module imports libcst; the linter imports it only for files that pass the cheap pre-filter
(:mod:`dimlint.sources.python.prefilter`), so JSON-only runs never load libcst.
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

from dimlint.diagnostics import Position, Span, line_starts, position_of
from dimlint.sources.jsonfile import InputProblem


class PythonDocument:
    """A decoded Python file: its text, and positions of character ranges.

    This is what :class:`dimlint.lint.pipeline.FileResult` keeps for fixing and for code frames (the
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
            self._line_starts = line_starts(self.text)
        line = bisect.bisect_right(self._line_starts, offset)
        return Position(line, offset - self._line_starts[line - 1] + 1)

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, self.position(start), self.position(end))


def decode(data: bytes) -> tuple[str | None, bool, InputProblem | None]:
    """The text of a Python file, whether it had a UTF-8 BOM, and why it cannot be decoded.

    Python source is UTF-8 unless a coding cookie says otherwise (PEP 263); files in another
    encoding are decoded for checking but come back with a problem marked recoverable, so that
    they are linted and never rewritten. A cookie Python would refuse — an encoding it does not
    know, one that is not a text encoding (``rot13``, ``zlib``), ``undefined``, bytes the
    encoding cannot decode, or a decoded text Python cannot compile (a lone surrogate from
    ``unicode_escape``) — is the problem CPython's ``SyntaxError`` would name, at the cookie.
    """
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    cookie = _cookie_at(body)
    refused = _refused_codec(cookie) if cookie is not None else None
    if refused is not None:
        return None, bom, refused
    declared: str | None = None
    if cookie is not None:  # what Python reads the file as, whatever else it would be
        encoding, line = cookie
        try:
            declared = body.decode(encoding)
        except UnicodeError as error:  # UnicodeDecodeError, and the codec "undefined"
            reason = _first_clause(error)
            message = f"the file cannot be decoded as {encoding}, its coding declaration: {reason}"
            return None, bom, InputProblem(message, Position(line, 1))
    try:
        return body.decode("utf-8"), bom, None
    except UnicodeDecodeError as error:
        failure = error
    if cookie is not None and declared is not None:
        encoding, text = cookie[0], declared
        surrogate = _lone_surrogate(text)
        if surrogate is not None:
            where, character = surrogate
            message = (
                f"decoded as {encoding} (its coding declaration) the file holds the lone"
                f" surrogate U+{ord(character):04X}, which Python cannot compile"
            )
            return None, bom, InputProblem(message, position_of(text, where))
        message = f"the file is {encoding}-encoded; fixes are written only to UTF-8 files"
        return text, bom, InputProblem(message, recoverable=True)
    prefix = body[: failure.start].decode("utf-8", errors="replace")
    line, column = position_of(prefix, len(prefix))
    byte = body[failure.start : failure.start + 1].hex()
    message = (
        f"invalid UTF-8 (byte 0x{byte} at offset {failure.start}) and no coding declaration:"
        " Python reads source files as UTF-8; re-save the file as UTF-8"
    )
    return None, bom, InputProblem(message, Position(line, column))


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _cookie_at(data: bytes) -> tuple[str, int] | None:
    """The PEP 263 encoding declared in the first two lines and its line, if any (not UTF-8)."""
    for number, line in enumerate(data.splitlines()[:2], start=1):
        match = _COOKIE.match(line)
        if match is not None:
            name = match.group(1).decode("ascii").lower()
            return None if name.replace("_", "-") in ("utf-8", "utf8") else (name, number)
    return None


def _refused_codec(cookie: tuple[str, int]) -> InputProblem | None:
    """Why Python refuses to read a file with this coding declaration at all, if it does."""
    name, line = cookie
    try:
        info = codecs.lookup(name)
    except LookupError:
        reason = "Python knows no such encoding"
    else:
        if getattr(info, "_is_text_encoding", True):
            return None
        reason = "it is not a text encoding"
    message = (
        f"the coding declaration names {name!r}: {reason}, so Python refuses to run the file"
        " (SyntaxError: encoding problem); declare utf-8 or remove the declaration"
    )
    return InputProblem(message, Position(line, 1))


def _first_clause(error: UnicodeError) -> str:
    text = str(error).strip() or type(error).__name__
    return " ".join(text.encode("ascii", "backslashreplace").decode("ascii").split())[:200]


def _lone_surrogate(text: str) -> tuple[int, str] | None:
    """The offset and character of the first lone surrogate in ``text``, if any."""
    if text.isascii():
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        return error.start, text[error.start]
    return None


_LIBCST_PREFIX = re.compile(r"^(?:parser error: )?(?:error at \d+:\d+: )?")


def parse(text: str) -> cst.Module | InputProblem:
    """The libcst module of ``text``, or a DL001 problem where the error is.

    libcst's native parser often places a syntax error at the token after the real one (the
    next line's first token for ``def f(:``), so the finding takes CPython's verdict and
    position when CPython rejects the file too — that is what running the file would print —
    and libcst's otherwise.
    """
    from dimlint.sources.python.complexity import too_complex

    refused = too_complex(text)
    if refused is not None:
        return refused
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        message = _LIBCST_PREFIX.sub("", error.message).rstrip(".")
        cpython = _cpython(text)
        if cpython is not None:
            verdict, where = cpython
            if verdict == "invalid syntax":  # CPython's generic verdict: libcst says what it wanted
                verdict = f"invalid syntax ({message})"
            return InputProblem(f"invalid Python: {verdict}", where)
        position = Position(max(error.raw_line, 1), error.raw_column + 1)
        return InputProblem(f"invalid Python: {message}", position)
    except (RecursionError, MemoryError):
        return InputProblem("invalid Python: the file nests too deeply for the parser")
    except cst.CSTValidationError as error:  # 'a' b'b': parsed, then refused by libcst (and Python)
        cpython = _cpython(text)
        if cpython is not None:
            return InputProblem(f"invalid Python: {cpython[0]}", cpython[1])
        return InputProblem(f"invalid Python: {str(error).rstrip('.')}")


def _cpython(text: str) -> tuple[str, Position] | None:
    """CPython's message and position for a file it cannot compile, else None."""
    import ast

    try:
        ast.parse(text)
    except SyntaxError as error:
        line = max(error.lineno or 1, 1)
        return error.msg, Position(line, max(error.offset or 1, 1))
    except (ValueError, RecursionError, MemoryError):
        pass
    return None


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


def locate(module: cst.Module, nodes: Iterable[cst.CSTNode], text: str | None = None) -> NodeSpans:
    """Offsets of the expression ``nodes`` (as libcst's PositionProvider bounds them) and of
    every comment, from one code generation pass.

    With ``text`` (the source parsed), offsets are offsets into ``text`` even where libcst does
    not reproduce it byte for byte: it drops a form feed or a lone ``\\`` line before the first
    statement and a file's last ``\\r``. The generated code is then aligned with the source,
    and a node whose characters are not found unchanged there is left unlocated (its finding
    points at the statement, and it gets no fix) rather than placed a few characters off.
    """
    state = _OffsetState(module, {id(node) for node in nodes})
    module._codegen(state)
    if text is None:
        return NodeSpans(state.found, state.comments)
    generated = "".join(state.tokens)
    if generated == text or text.startswith(generated):
        return NodeSpans(state.found, state.comments)
    mapper = _Realign(generated, text)
    spans = {key: mapped for key, span in state.found.items() if (mapped := mapper.span(*span))}
    comments = [
        (*mapped, value)
        for start, end, value in state.comments
        if (mapped := mapper.span(start, end)) is not None
    ]
    return NodeSpans(spans, comments)


class _Realign:
    """Map offsets of libcst's generated code to offsets of the source it was parsed from."""

    def __init__(self, generated: str, text: str) -> None:
        self.generated = generated
        self.text = text
        if text.endswith(generated):
            self.blocks = [(0, len(text) - len(generated), len(generated))]
        else:
            import difflib

            matcher = difflib.SequenceMatcher(None, generated, text, autojunk=False)
            self.blocks = [(a, b, size) for a, b, size in matcher.get_matching_blocks() if size]

    def _offset(self, offset: int, end: bool) -> int | None:
        for a, b, size in self.blocks:
            if a <= offset < a + size or (end and offset == a + size):
                return b + offset - a
        return None

    def span(self, start: int, end: int) -> tuple[int, int] | None:
        if start == end:
            mapped = self._offset(start, end=False)
            mapped = self._offset(start, end=True) if mapped is None else mapped
            return (mapped, mapped) if mapped is not None else None
        first, last = self._offset(start, end=False), self._offset(end, end=True)
        if first is None or last is None:
            return None
        if self.text[first:last] != self.generated[start:end]:
            return None
        return first, last
