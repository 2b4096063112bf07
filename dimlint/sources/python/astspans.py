"""Where the nodes of the ``ast`` reading are: character offsets as libcst's positions bound them.

The Python front end places a finding at a node and writes its fix over a literal
(:mod:`dimlint.lint.python_locate`). With the ``ast`` reading
(:mod:`dimlint.sources.python.fastscan`) every converted node remembers the ``ast`` node it
stands for, and CPython records where each starts and ends, so the offsets come without libcst:

* an expression spans what ``ast`` says (line, UTF-8 byte column → character offset). That is
  libcst's syntactic extent too — both leave out the parentheses around an expression — except
  for a tuple, whose own parentheses ``ast`` includes: ``(1, 2)`` and ``(1), 2`` both start
  with ``(``, and only a bracket count tells them apart. A parenthesised tuple (and a generator
  expression, whose parentheses may be a call's) is therefore not placed here;
* a keyword argument's name, a parameter's name and a class's name start where their
  ``ast.keyword`` / ``ast.arg`` start, or after ``class`` and its whitespace; each is checked
  against the text;
* comments (for ``# noqa``) come from the standard tokenizer, as libcst cuts them: from ``#``
  to the end of the line, trailing whitespace included.

:func:`locate` answers None when some node cannot be placed exactly; the caller then reads the
file with libcst (:func:`dimlint.sources.python.file.locate`). ``tests/test_python_fastscan.py``
compares both placements on real code.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable
from typing import Any

from dimlint.sources.python.file import NodeSpans

_CLASS_KEYWORD = re.compile(r"class(?:[ \t\f]|\\\r?\n)+")


class _Offsets:
    """Character offsets of ``ast`` positions (1-based lines split at ``\\n``, byte columns)."""

    __slots__ = ("ascii", "starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self.starts = [0]
        self.starts.extend(match.end() for match in re.finditer("\n", text))

    def at(self, line: int, column: int) -> int:
        start = self.starts[line - 1]
        if self.ascii:
            return start + column
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        head = self.text[start:end].encode("utf-8")[:column]
        return start + len(head.decode("utf-8", errors="replace"))


def _extent(node: ast.AST, offsets: _Offsets) -> tuple[int, int] | None:
    """Offsets of an expression, a keyword's, parameter's or class's name; None if not exact."""
    kind = node.__class__
    text = offsets.text
    start = offsets.at(node.lineno, node.col_offset)  # type: ignore[attr-defined]
    if kind is ast.keyword or kind is ast.arg:
        name = node.arg  # type: ignore[attr-defined]
        end = start + len(name)
        return (start, end) if text[start:end] == name else None
    if kind is ast.ClassDef:
        keyword = _CLASS_KEYWORD.match(text, start)
        name = node.name  # type: ignore[attr-defined]
        if keyword is None or text[keyword.end() : keyword.end() + len(name)] != name:
            return None
        return keyword.end(), keyword.end() + len(name)
    if kind is ast.GeneratorExp or (kind is ast.Tuple and text[start : start + 1] == "("):
        return None
    end_line, end_column = node.end_lineno, node.end_col_offset  # type: ignore[attr-defined]
    if end_line is None or end_column is None:
        return None
    return start, offsets.at(end_line, end_column)


def locate(origin: dict[int, ast.AST], text: str, nodes: Iterable[Any]) -> NodeSpans | None:
    """Offsets of the converted ``nodes`` (by the ``ast`` nodes in ``origin``), or None when one
    of them cannot be placed exactly from ``ast`` (libcst must read the file)."""
    offsets = _Offsets(text)
    spans: dict[int, tuple[int, int]] = {}
    for node in nodes:
        key = id(node)
        if key in spans:
            continue
        source = origin.get(key)
        found = _extent(source, offsets) if source is not None else None
        if found is None:
            return None
        spans[key] = found
    return NodeSpans(spans, [])


def comments(text: str) -> list[tuple[int, int, str]] | None:
    """(start, end, text) of every comment of ``text``, in order; None if it does not tokenize."""
    offsets = _Offsets(text)
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                line, column = token.start  # tokenize counts characters, not bytes
                start = offsets.starts[line - 1] + column
                found.append((start, start + len(token.string), token.string))
    except (tokenize.TokenError, SyntaxError):
        return None
    return found
