"""Static values of Python expressions, and the literal a fix would edit.

A config value in code is a literal (``4096``), a module constant (``HIDDEN``), simple arithmetic
on them (``4 * HIDDEN``, ``HIDDEN // 64``), or something only running the code can tell
(``config.n_embd``, ``get_size()``). :meth:`Evaluator.evaluate` returns the value when it is
known and :data:`UNKNOWN` otherwise, so that rules can stay silent about what they cannot see.

Each value also records the literal node a fix may rewrite: the literal itself, or — for a
name — the literal at the constant's definition, so that a constant used in several places is
fixed once, where it is defined. Computed values (arithmetic) have no such literal: rewriting
``4 * HIDDEN`` as a number would throw away the author's formula.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections.abc import Callable
from typing import Any, Literal

import libcst as cst

from dimlint.records import Record
from dimlint.sources.python.instance import InstanceAttributes
from dimlint.sources.python.scan import Frame, Frames, Scan


class Unknown:
    """The value of an expression that cannot be known without running the code."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __reduce__(self) -> str:
        return "UNKNOWN"


UNKNOWN = Unknown()

KeyKind = Literal["identifier", "string"]


class Value(Record):
    """A static value (or UNKNOWN), the literal a fix edits, and the members of a dict value."""

    value: Any
    edit: cst.CSTNode | None = None
    members: tuple[Member, ...] = ()


class Member(Record):
    """One key of a config: where its key and value are written, and what the value is.

    ``use`` is the expression written at this place (a finding points at it); ``value.edit`` is
    the literal a fix rewrites, which is elsewhere when ``use`` names a constant.
    """

    key: str
    key_node: cst.CSTNode | None
    key_kind: KeyKind | None
    use: cst.CSTNode
    value: Value


_NUMBER_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Divide: operator.truediv,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,  # 1 << 12
    cst.RightShift: operator.rshift,
}
#: Lists built by repetition (``["full_attention"] * 48``) longer than this are not built.
MAX_SEQUENCE = 4096
MAX_EXPONENT = 64
#: Products whose operands hold more bits than this together are not computed (UNKNOWN): no
#: size has a thousand digits, and squaring a constant forty times over would never finish.
MAX_PRODUCT_BITS = 4096


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def arithmetic(kind: type, left: Any, right: Any) -> Any:
    """``left op right`` for numbers (and list/str repetition and concatenation); else UNKNOWN."""
    if is_number(left) and is_number(right):
        function = _NUMBER_OPERATORS.get(kind)  # shifts, bit operations, @: not sizes
        if function is None:
            return UNKNOWN
        if kind is cst.Power and (abs(right) > MAX_EXPONENT or abs(left) > 2**32):
            return UNKNOWN
        if kind in (cst.LeftShift, cst.RightShift) and not (
            type(left) is int and type(right) is int and 0 <= right <= MAX_EXPONENT
        ):
            return UNKNOWN
        if (
            kind is cst.Multiply
            and type(left) is int
            and type(right) is int
            and left.bit_length() + right.bit_length() > MAX_PRODUCT_BITS
        ):
            return UNKNOWN
        try:
            return function(left, right)
        except (ZeroDivisionError, OverflowError, ValueError):
            return UNKNOWN
    if kind is cst.Add and type(left) is type(right) and isinstance(left, list | str | tuple):
        return left + right if len(left) + len(right) <= MAX_SEQUENCE else UNKNOWN
    if kind is cst.Multiply:
        sequence, count = (left, right) if isinstance(right, int) else (right, left)
        if (
            isinstance(sequence, list | tuple)
            and isinstance(count, int)
            and not isinstance(count, bool)
            and 0 <= count * len(sequence) <= MAX_SEQUENCE
        ):
            return sequence * count
    return UNKNOWN


def _literal(node: cst.Integer | cst.Float | cst.Imaginary) -> Any:
    """A number literal's value; one longer than ``int()`` converts (4,300 digits) is kept as
    a :class:`HugeInt` that DL003 reports by its length."""
    return _number(node.__class__, node.value)


@functools.lru_cache(maxsize=4096)
def _number(kind: type, text: str) -> Any:
    """The value of a number literal's text (libcst's ``evaluated_value`` compiles the text
    with ``ast.literal_eval`` each time: most of what evaluating a layer call cost)."""
    try:
        return ast.literal_eval(text)
    except (SyntaxError, ValueError):
        from dimlint.config.values import HugeInt

        digits = sum(char.isdigit() for char in text)
        return HugeInt(digits) if kind is cst.Integer else UNKNOWN


@functools.lru_cache(maxsize=4096)
def _string(text: str) -> Any:
    """The value of a string literal's text (UNKNOWN for a NUL or an invalid escape)."""
    try:
        return ast.literal_eval(text)
    except (SyntaxError, ValueError):
        return UNKNOWN


class Evaluator:
    """Evaluates expressions of one module, resolving names through the scopes of a scan."""

    __slots__ = ("_active", "_constants", "_instance", "overrides", "scan")

    def __init__(
        self, scan: Scan, overrides: dict[int, Any] | None = None, *, instance: bool = False
    ) -> None:
        self.scan = scan
        #: Values to assume for some literal nodes (by id): "what if this fix were applied".
        self.overrides = overrides or {}
        self._active: set[int] = set()
        #: Values of module constants already evaluated (by id of their expression): each is
        #: evaluated once, so ``A2 = A1 + A1`` forty levels deep costs forty evaluations.
        self._constants: dict[int, Value] = {}
        #: ``self.x`` read as its default (:mod:`dimlint.sources.python.instance`), when asked.
        self._instance: InstanceAttributes | None = InstanceAttributes(scan) if instance else None

    def evaluate(self, node: cst.BaseExpression, frames: Frames) -> Value:
        """The static value of ``node`` written inside ``frames``."""
        if self.overrides and id(node) in self.overrides:
            return Value(self.overrides[id(node)], node)
        kind = node.__class__
        if kind is cst.Integer or kind is cst.Float or kind is cst.Imaginary:
            return Value(_literal(node), node)  # type: ignore[arg-type]
        if kind is cst.SimpleString:
            text = _string(node.value)  # type: ignore[attr-defined]
            return Value(text if isinstance(text, str) else UNKNOWN, node)
        if kind is cst.ConcatenatedString:
            try:
                text = node.evaluated_value  # type: ignore[attr-defined]
            except (SyntaxError, ValueError):  # a NUL, an invalid escape
                return Value(UNKNOWN, node)
            return Value(text if isinstance(text, str) else UNKNOWN, node)
        if kind is cst.Name:
            return self._name(node, frames)  # type: ignore[arg-type]
        if kind is cst.UnaryOperation:
            return self._unary(node, frames)  # type: ignore[arg-type]
        if kind is cst.BinaryOperation:
            return self._binary(node, frames)  # type: ignore[arg-type]
        if kind is cst.List or kind is cst.Tuple:
            return self._sequence(node, frames)  # type: ignore[arg-type]
        if kind is cst.Dict:
            return self.dict_literal(node, frames)  # type: ignore[arg-type]
        if kind is cst.Call:
            return self._call(node, frames)  # type: ignore[arg-type]
        if kind is cst.Attribute and self._instance is not None:
            return self._attribute(node, frames)  # type: ignore[arg-type]
        return Value(UNKNOWN)

    def _attribute(self, node: cst.Attribute, frames: Frames) -> Value:
        """``self.hidden_size``: the value ``__init__`` gives it, where that is known."""
        assert self._instance is not None
        found = self._instance.lookup(node, frames)
        if found is None:
            return Value(UNKNOWN)
        expression, scope = found
        key = id(expression)
        if key in self._active:
            return Value(UNKNOWN)
        self._active.add(key)
        try:
            return self.evaluate(expression, scope)
        finally:
            self._active.discard(key)

    def _name(self, node: cst.Name, frames: Frames) -> Value:
        name = node.value
        if name in ("True", "False", "None"):
            return Value({"True": True, "False": False, "None": None}[name], node)
        found = self.resolve(name, frames)
        if found is None:
            return Value(UNKNOWN)
        expression, scope = found
        key = id(expression)
        cached = self._constants.get(key)
        if cached is not None:
            return cached
        if key in self._active:
            return Value(UNKNOWN)  # A = B; B = A
        self._active.add(key)
        try:
            result = self.evaluate(expression, scope)
        finally:
            self._active.discard(key)
        self._constants[key] = result
        return result

    def _binary(self, node: cst.BinaryOperation, frames: Frames) -> Value:
        """``a op b op c ...``, walked along its left spine without recursion (an expression
        of 10,000 terms nests 10,000 deep)."""
        spine: list[cst.BinaryOperation] = [node]
        while isinstance(spine[-1].left, cst.BinaryOperation):
            spine.append(spine[-1].left)
        value = self.evaluate(spine[-1].left, frames).value
        for operation in reversed(spine):
            if value is UNKNOWN:
                return Value(UNKNOWN)
            right = self.evaluate(operation.right, frames).value
            value = arithmetic(operation.operator.__class__, value, right)
        return Value(value)

    def resolve(self, name: str, frames: Frames) -> tuple[cst.BaseExpression, Frames] | None:
        """The expression a constant name stands for, and the scopes it is written in."""
        innermost = len(frames) - 1
        for index in range(innermost, -1, -1):
            frame = frames[index]
            if frame.kind == "class":
                if index != innermost:
                    continue  # a class body's names are not visible inside its methods
                found = _single(frame, name)
                if found is not None:
                    return found, frames[: index + 1]
                if name in frame.bound:
                    return None
                continue
            found = _single(frame, name)
            if found is not None:
                # a local assigned once (torchtitan: ``dim = 2048; …; return Config(dim=dim)``)
                return found, frames[: index + 1]
            if name in frame.bound:
                return None  # a parameter, loop variable or local assigned more than once
        if name in self.scan.globals:
            return None
        found = _single(self.scan.module, name)
        return (found, ()) if found is not None else None

    def _unary(self, node: cst.UnaryOperation, frames: Frames) -> Value:
        inner = self.evaluate(node.expression, frames)
        value = inner.value
        if not is_number(value):
            return Value(UNKNOWN)
        if isinstance(node.operator, cst.Minus):
            literal = node if inner.edit is node.expression else None
            return Value(-value, literal)
        if isinstance(node.operator, cst.Plus):
            return Value(value, node if inner.edit is node.expression else None)
        return Value(UNKNOWN)

    def _sequence(self, node: cst.List | cst.Tuple, frames: Frames) -> Value:
        items = []
        for element in node.elements:
            if not isinstance(element, cst.Element):
                return Value(UNKNOWN)  # *starred
            item = self.evaluate(element.value, frames).value
            if item is UNKNOWN:
                return Value(UNKNOWN)
            items.append(item)
        return Value(items)  # tuples too: JSON, and so normalization, knows only lists

    def dict_literal(self, node: cst.Dict, frames: Frames) -> Value:
        """A ``{...}`` with string keys; UNKNOWN when a key is not a string or ``**`` spreads."""
        members: list[Member] = []
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                return Value(UNKNOWN)
            key = self.evaluate(element.key, frames).value
            if not isinstance(key, str) or not isinstance(element.key, cst.SimpleString):
                return Value(UNKNOWN)
            value = self.evaluate(element.value, frames)
            members.append(Member(key, element.key, "string", element.value, value))
        return _dict_value(members)

    def keyword_members(
        self, call: cst.Call, frames: Frames, *, written: bool = False
    ) -> list[Member] | None:
        """The ``key=value`` arguments of a call; None when it also spreads ``**kwargs``, unless
        ``written``: then the keywords written in the call (a spread cannot override those:
        Python refuses a keyword given twice)."""
        members: list[Member] = []
        for arg in call.args:
            if arg.star == "**":
                if written:
                    continue
                return None
            if arg.keyword is None:
                continue
            value = self.evaluate(arg.value, frames)
            members.append(Member(arg.keyword.value, arg.keyword, "identifier", arg.value, value))
        return members

    def _call(self, node: cst.Call, frames: Frames) -> Value:
        function = node.func
        if not isinstance(function, cst.Name):
            return Value(UNKNOWN)
        if function.value == "dict" and self.resolve("dict", frames) is None:
            if any(arg.keyword is None for arg in node.args):
                return Value(UNKNOWN)  # dict(other, ...) or dict(**other)
            members = self.keyword_members(node, frames)
            return _dict_value(members) if members is not None else Value(UNKNOWN)
        if function.value == "int" and len(node.args) == 1 and node.args[0].keyword is None:
            inner = self.evaluate(node.args[0].value, frames).value
            if is_number(inner) and (isinstance(inner, int) or math.isfinite(inner)):
                return Value(int(inner))
        return Value(UNKNOWN)


def _single(frame: Frame, name: str) -> cst.BaseExpression | None:
    """The expression of a name the scope binds exactly once, by a plain assignment."""
    if frame.bound.get(name) != 1:
        return None
    return frame.expression(name)


def _dict_value(members: list[Member]) -> Value:
    return Value({m.key: m.value.value for m in members}, None, tuple(members))
