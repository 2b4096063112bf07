"""Refuse, before libcst sees it, Python code that would take libcst minutes to parse.

libcst's parser is far from linear on long chains: an expression ``1+1+…`` of 2,000 terms takes
16 s, ``a.b.b…`` or ``f()()…`` of 2,000 links 15–25 s, and 5,000 nested parentheses crash the
process (a native stack overflow). Real code nests a few dozen levels at most, and CPython itself
refuses more than 200 nested brackets. So a cheap textual scan looks for a dense run of the
characters that build such chains; only when it finds one does CPython's ``ast`` (about ten
times faster than libcst) measure the deepest expression, and a file nested deeper than
:data:`MAX_DEPTH` is reported as DL001 instead of being parsed. Files without such a run (every
real one measured) pay one regular-expression scan.
"""

from __future__ import annotations

import re

from dimlint.diagnostics import Position
from dimlint.sources.jsonfile import InputProblem

#: Deepest expression nesting parsed: libcst reads 200 levels in about a tenth of a second.
MAX_DEPTH = 200
#: A run of this many chain characters within :data:`WINDOW` characters asks ``ast`` to measure.
DENSE = 150
WINDOW = 1000
_CHAIN = re.compile(r"[-+*/%&|^~.(\[{<>@]")


#: Runs are sampled every STRIDE chain characters: a run of DENSE + STRIDE of them (every chain
#: deeper than MAX_DEPTH has at least that many) always holds a sampled start and its end.
STRIDE = MAX_DEPTH - DENSE


def _dense(text: str) -> bool:
    """Whether some :data:`WINDOW` characters hold :data:`DENSE` chain characters."""
    positions = [match.start() for match in _CHAIN.finditer(text)]
    starts, ends = positions[::STRIDE], positions[DENSE::STRIDE]
    return any(end - start < WINDOW for start, end in zip(starts, ends, strict=False))


def too_complex(text: str) -> InputProblem | None:
    """Why ``text`` is not handed to libcst (None: parse it)."""
    if len(text) < DENSE or not _dense(text):
        return None
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        position = Position(error.lineno or 1, error.offset or 1)
        return InputProblem(f"invalid Python: {error.msg}", position)
    except (RecursionError, MemoryError, ValueError):
        return InputProblem("invalid Python: the file nests too deeply for the parser")
    # depth-first, with an explicit stack: the tree itself may be thousands of levels deep
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            line = getattr(node, "lineno", 1)
            column = getattr(node, "col_offset", 0) + 1
            return InputProblem(
                f"an expression nested more than {MAX_DEPTH} levels deep (a chain of operators,"
                " attributes, calls or brackets): too complex to read in bounded time; no real"
                " code nests so deep",
                Position(line, column),
            )
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return None
