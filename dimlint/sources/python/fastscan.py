"""The scan of :mod:`dimlint.sources.python.scan`, read from CPython's ``ast`` instead of libcst.

libcst builds a node for every token and every run of whitespace, which costs about ten times
what ``ast.parse`` does for the same file. dimlint reads every Python file with ``ast``:

* :func:`read` walks the ``ast`` tree with exactly the scoping rules of the libcst scan (the
  same statements bind, the same parts of a statement are walked, in the same frames), without
  visiting names and constants, which hold nothing the scan records;
* only the calls and dicts that can matter — a superset of the torch layer calls and of the
  calls and dicts that can become a config (:class:`_Relevance`) — and the class bodies are
  converted to libcst node *classes*, holding only the fields the front ends read (no
  whitespace), so that :mod:`dimlint.sources.python.configs`,
  :mod:`~dimlint.sources.python.values` and :mod:`~dimlint.sources.python.layers` run unchanged
  on them; single assignments stay ``ast`` nodes until a name is looked up (:class:`_LazyFrame`);
* each converted node remembers the ``ast`` node it stands for (``_Converter.origin``), from
  which :mod:`dimlint.sources.python.astspans` places findings and fixes.

libcst reads a file only when CPython cannot, when the complexity guard refuses it, or when a
finding must be placed on a node whose extent ``ast`` does not tell exactly (a parenthesised
tuple) — :mod:`dimlint.lint.python_front`. ``tests/test_python_fastscan.py`` proves on real
corpora and on constructs where the two trees differ that both readings give the same
diagnostics, positions, fixes, configs and layers.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Callable
from typing import Any

import libcst as cst

from dimlint.config.trainingkeys import PAX_RENAMES
from dimlint.sources.python import refused
from dimlint.sources.python.configs import member_name_ok
from dimlint.sources.python.dotted import ast_dotted_name
from dimlint.sources.python.refused import RAISING, expects_raise
from dimlint.sources.python.scan import (
    ENTER_RAISING,
    LEAVE_RAISING,
    AttributeSite,
    Frame,
    FrameKind,
    Frames,
    Scan,
    Site,
    is_config_decorator,
    is_hparams_decorator,
    is_model_function,
)


def _new(cls: type, **fields: Any) -> Any:
    """A libcst node of ``cls`` with only ``fields`` set (no validation, no whitespace)."""
    node: Any = object.__new__(cls)
    for name, value in fields.items():
        object.__setattr__(node, name, value)
    return node


_BINARY: dict[type, Any] = {
    ast.Add: cst.Add,
    ast.Sub: cst.Subtract,
    ast.Mult: cst.Multiply,
    ast.Div: cst.Divide,
    ast.FloorDiv: cst.FloorDivide,
    ast.Mod: cst.Modulo,
    ast.Pow: cst.Power,
    ast.LShift: cst.LeftShift,
    ast.RShift: cst.RightShift,
    ast.BitOr: cst.BitOr,
    ast.BitAnd: cst.BitAnd,
    ast.BitXor: cst.BitXor,
    ast.MatMult: cst.MatrixMultiply,
}
_UNARY: dict[type, Any] = {
    ast.USub: cst.Minus,
    ast.UAdd: cst.Plus,
    ast.Invert: cst.BitInvert,
    ast.Not: cst.Not,
}
_OPERATORS = {kind: _new(cls) for kind, cls in (*_BINARY.items(), *_UNARY.items())}
#: One string literal (after its prefix): what libcst calls a SimpleString, not a concatenation.
_SINGLE_STRING = re.compile(
    r"""[rRbBuU]{0,2}(?:'''(?:[^\\]|\\.)*?'''|\"\"\"(?:[^\\]|\\.)*?\"\"\"|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")""",
    re.DOTALL,
)


class _Converter:
    """ast expressions → libcst-classed nodes, each converted once (identity is kept)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._source: bytes | None = None
        self._line_starts: list[int] | None = None
        self.cache: dict[int, Any] = {}
        #: The ``ast`` node each converted node stands for (by id of the converted node): an
        #: expression, or the ``ast.keyword``, ``ast.ClassDef`` or ``ast.arg`` whose name a
        #: converted ``Name`` is. :mod:`dimlint.sources.python.astspans` places them.
        self.origin: dict[int, ast.AST] = {}

    def _segment(self, node: ast.expr) -> bytes:
        if self._line_starts is None or self._source is None:
            self._source = self.text.encode("utf-8")
            starts = [0]
            starts.extend(m.end() for m in re.finditer(rb"\n", self._source))
            self._line_starts = starts
        starts = self._line_starts
        end_line = node.end_lineno or node.lineno
        start = starts[node.lineno - 1] + node.col_offset
        end = starts[end_line - 1] + (node.end_col_offset or 0)
        return self._source[start:end]

    def expression(self, node: ast.expr) -> Any:
        key = id(node)
        found = self.cache.get(key)
        if found is None:
            found = self.cache[key] = self._convert(node)
            self.origin[id(found)] = node
        return found

    def _name(self, value: str, origin: ast.AST) -> Any:
        """A ``Name`` standing for the identifier of ``origin`` (a keyword, class or parameter)."""
        node = _new(cst.Name, value=value)
        self.origin[id(node)] = origin
        return node

    def _convert(self, node: ast.expr) -> Any:
        kind = node.__class__
        if kind is ast.Name:
            return _new(cst.Name, value=node.id)  # type: ignore[attr-defined]
        if kind is ast.Constant:
            return self._constant(node)  # type: ignore[arg-type]
        if kind is ast.Attribute:
            return _new(
                cst.Attribute,
                value=self.expression(node.value),  # type: ignore[attr-defined]
                attr=_new(cst.Name, value=node.attr),  # type: ignore[attr-defined]
            )
        if kind is ast.Call:
            return self._call(node)  # type: ignore[arg-type]
        if kind is ast.Dict:
            elements = []
            for key, value in zip(node.keys, node.values, strict=True):  # type: ignore[attr-defined]
                if key is None:
                    elements.append(_new(cst.StarredDictElement, value=self.expression(value)))
                else:
                    elements.append(
                        _new(
                            cst.DictElement,
                            key=self._dict_key(key),
                            value=self.expression(value),
                        )
                    )
            return _new(cst.Dict, elements=tuple(elements))
        if kind is ast.BinOp:
            return _new(
                cst.BinaryOperation,
                left=self.expression(node.left),  # type: ignore[attr-defined]
                operator=_OPERATORS[node.op.__class__],  # type: ignore[attr-defined]
                right=self.expression(node.right),  # type: ignore[attr-defined]
            )
        if kind is ast.UnaryOp:
            return _new(
                cst.UnaryOperation,
                operator=_OPERATORS[node.op.__class__],  # type: ignore[attr-defined]
                expression=self.expression(node.operand),  # type: ignore[attr-defined]
            )
        if kind is ast.List or kind is ast.Tuple:
            members = tuple(
                _new(cst.StarredElement, value=self.expression(item.value))
                if item.__class__ is ast.Starred
                else _new(cst.Element, value=self.expression(item))
                for item in node.elts  # type: ignore[attr-defined]
            )
            return _new(cst.List if kind is ast.List else cst.Tuple, elements=members)
        if kind is ast.Subscript:
            return _new(cst.Subscript, value=self.expression(node.value))  # type: ignore[attr-defined]
        if kind is ast.JoinedStr:
            return _new(cst.FormattedString)
        return _new(cst.Ellipsis)  # what the front ends never look into: UNKNOWN

    def _constant(self, node: ast.Constant) -> Any:
        value = node.value
        kind = value.__class__
        if kind is bool or value is None:
            return _new(cst.Name, value=repr(value))
        if kind is int:
            return _new(cst.Integer, value=repr(value))
        if kind is float or kind is complex:
            cls = cst.Float if kind is float else cst.Imaginary
            text = repr(value)
            if "inf" in text or "nan" in text:  # 1e999: repr would not read back
                text = self._segment(node).decode("utf-8")
            return _new(cls, value=text)
        if kind is str or kind is bytes:
            return _new(cst.SimpleString, value=repr(value))
        return _new(cst.Ellipsis)

    def _dict_key(self, node: ast.expr) -> Any:
        """A string key written as one literal is a SimpleString; ``"a" "b"`` is not (libcst
        reads it as a ConcatenatedString, which a config's dict does not take as a key)."""
        converted = self.expression(node)
        if converted.__class__ is cst.SimpleString:
            text = self._segment(node).decode("utf-8", "replace")
            if _SINGLE_STRING.fullmatch(text) is None:
                empty = _new(cst.SimpleString, value="''")
                return _new(cst.ConcatenatedString, left=converted, right=empty)
        return converted

    def _call(self, node: ast.Call) -> Any:
        items: list[ast.expr | ast.keyword] = [*node.args, *node.keywords]
        if node.keywords and any(arg.__class__ is ast.Starred for arg in node.args):
            items.sort(key=lambda item: (item.lineno, item.col_offset))
        args = []
        for item in items:
            if item.__class__ is ast.keyword:
                name = item.arg
                args.append(
                    _new(
                        cst.Arg,
                        value=self.expression(item.value),
                        keyword=self._name(name, item) if name is not None else None,
                        star="" if name is not None else "**",
                    )
                )
            elif item.__class__ is ast.Starred:
                value = self.expression(item.value)
                args.append(_new(cst.Arg, value=value, keyword=None, star="*"))
            else:
                args.append(
                    _new(cst.Arg, value=self.expression(item), keyword=None, star="")  # type: ignore[arg-type]
                )
        return _new(cst.Call, func=self.expression(node.func), args=tuple(args))

    def class_def(self, node: ast.ClassDef) -> Any:
        """The class as :mod:`dimlint.sources.python.configs` reads it: name, bases, decorators
        and the statements of its body (methods reduced to their name and parameters)."""
        bases = tuple(
            _new(cst.Arg, value=self.expression(base), keyword=None, star="") for base in node.bases
        )
        decorators = tuple(
            _new(cst.Decorator, decorator=self.expression(d)) for d in node.decorator_list
        )
        statements = [self._class_statement(statement) for statement in node.body]
        body = _new(cst.IndentedBlock, body=tuple(statements))
        return _new(
            cst.ClassDef,
            name=self._name(node.name, node),
            bases=bases,
            decorators=decorators,
            body=body,
        )

    def _class_statement(self, node: ast.stmt) -> Any:
        """A statement of a class body as :meth:`Extractor._class_body
        <dimlint.sources.python.configs.Extractor._class_body>` reads it: a ``Pass`` for what it
        passes over (several targets, a private, upper-case or metadata name other than Pax's
        model attributes, a method other than ``__init__``: every class's, which the config, module
        and asserted-defaults readers may each read)."""
        kind = node.__class__
        if kind is ast.AnnAssign or kind is ast.Assign:
            targets = [node.target] if kind is ast.AnnAssign else node.targets  # type: ignore[attr-defined]
            target = targets[0] if len(targets) == 1 else None
            if target is None or target.__class__ is not ast.Name:
                return _new(cst.Pass)
            if (
                target.id != "model_type"
                and not member_name_ok(target.id)
                and target.id not in PAX_RENAMES
            ):
                return _new(cst.Pass)
        if kind is ast.AnnAssign:
            target = self.expression(node.target)  # type: ignore[attr-defined]
            annotation = _new(cst.Annotation, annotation=self.expression(node.annotation))  # type: ignore[attr-defined]
            value = node.value  # type: ignore[attr-defined]
            converted = self.expression(value) if value is not None else None
            statement = _new(cst.AnnAssign, target=target, annotation=annotation, value=converted)
        elif kind is ast.Assign:
            targets = tuple(
                _new(cst.AssignTarget, target=self.expression(t))
                for t in node.targets  # type: ignore[attr-defined]
            )
            value = self.expression(node.value)  # type: ignore[attr-defined]
            statement = _new(cst.Assign, targets=targets, value=value)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            name = node.name  # type: ignore[attr-defined]
            if name != "__init__":
                return _new(cst.Pass)
            params = self._parameters(node.args)  # type: ignore[attr-defined]
            return _new(cst.FunctionDef, name=_new(cst.Name, value=name), params=params)
        else:
            return _new(cst.Pass)
        return _new(cst.SimpleStatementLine, body=(statement,))

    def _parameters(self, arguments: ast.arguments) -> Any:
        positional = [*arguments.posonlyargs, *arguments.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
        defaults += arguments.defaults

        def param(arg: ast.arg, default: ast.expr | None) -> Any:
            value = self.expression(default) if default is not None else None
            return _new(cst.Param, name=self._name(arg.arg, arg), default=value)

        params = [param(a, d) for a, d in zip(positional, defaults, strict=True)]
        count = len(arguments.posonlyargs)
        kwonly = tuple(
            param(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True)
        )
        return _new(
            cst.Parameters,
            posonly_params=tuple(params[:count]),
            params=tuple(params[count:]),
            kwonly_params=kwonly,
        )


class _LazyFrame(Frame):
    """A frame whose single assignments stay ``ast`` nodes until the evaluator looks one up."""

    __slots__ = ("_convert",)

    def __init__(self, kind: FrameKind, convert: Callable[[ast.expr], Any], name: str = "") -> None:
        super().__init__(kind, None, name)
        self._convert = convert

    def expression(self, name: str) -> cst.BaseExpression | None:
        node = self.assigned.get(name)
        return None if node is None else self._convert(node)

    def default(self, name: str) -> cst.BaseExpression | None:
        node = self.defaults.get(name)
        return None if node is None else self._convert(node)

    def assignments(self) -> list[tuple[str, cst.BaseExpression]]:
        return [(name, self._convert(node)) for name, node in self.assigned.items()]


def _bind_target(frame: Frame, target: ast.expr) -> None:
    kind = target.__class__
    if kind is ast.Name:
        frame.bind(target.id)  # type: ignore[attr-defined]
    elif kind is ast.Tuple or kind is ast.List:
        for element in target.elts:  # type: ignore[attr-defined]
            _bind_target(frame, element)
    elif kind is ast.Starred:
        _bind_target(frame, target.value)  # type: ignore[attr-defined]


def _bind_params(frame: Frame, arguments: ast.arguments) -> None:
    for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        frame.bind(arg.arg)
        frame.params.add(arg.arg)
    positional = [*arguments.posonlyargs, *arguments.args]
    for arg, default in zip(
        positional[len(positional) - len(arguments.defaults) :], arguments.defaults, strict=True
    ):
        frame.defaults[arg.arg] = default
    for arg, kw_default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        if kw_default is not None:
            frame.defaults[arg.arg] = kw_default
    for star in (arguments.vararg, arguments.kwarg):
        if star is not None:
            frame.bind(star.arg)


def _record_import(result: Scan, frame: Frame, node: ast.Import | ast.ImportFrom) -> None:
    """What :func:`dimlint.sources.python.scan._record_import` records, from ``ast``."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            local = alias.asname or name.split(".")[0]
            frame.bind(local)
            result.module_aliases[local] = name if alias.asname else local
            if name == "torch.nn" and alias.asname:
                result.nn_aliases.add(alias.asname)
            if name == "transformers" or name.startswith("transformers."):
                result.transformers_modules.add(alias.asname or "transformers")
        return
    module = node.module if node.module is not None and not node.level else None
    if len(node.names) == 1 and node.names[0].name == "*":
        return
    for alias in node.names:
        imported = alias.name
        local = alias.asname or imported
        frame.bind(local)
        if module is not None:
            result.imported_from[local] = module
        elif node.level and node.module is not None:
            result.relative_from[local] = node.module.rsplit(".", 1)[-1]
        if module == "torch" and imported == "nn":
            result.nn_aliases.add(local)
        elif module == "torch.nn":
            result.nn_names[local] = imported
        elif module is not None and (
            module == "transformers" or module.startswith("transformers.")
        ):
            result.transformers_names[local] = imported


_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
#: Statements that hold suites of statements (see :func:`_note_blocks`); a def's or class's
#: own statements are its scope's block 0.
_COMPOUND = frozenset(
    {
        ast.If,
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.With,
        ast.AsyncWith,
        ast.Try,
        ast.TryStar,
        ast.Match,
    }
)
#: What the walk never visits: names and constants hold no call, dict or binding (a name's
#: binding is read from the statement that binds it); the others are values of fields that are
#: not nodes (``None``, identifiers, flags).
_LEAVES = frozenset({ast.Name, ast.Constant, type(None), str, int, bool})
#: Fields that never hold code: contexts, operators, identifiers and flags.
_NOT_CODE = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "name", "module", "level", "kind", "type_comment"}
)
#: The fields of each node class that can hold code, last first (the order they are pushed in).
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    found = _CHILD_FIELDS.get(cls)
    if found is None:
        fields: tuple[str, ...] = getattr(cls, "_fields", ())
        found = _CHILD_FIELDS[cls] = tuple(f for f in reversed(fields) if f not in _NOT_CODE)
    return found


#: Statements and expressions the walk treats specially (the others are walked into).
_SPECIAL = frozenset(
    {
        ast.Call,
        ast.Dict,
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.NamedExpr,
        ast.For,
        ast.AsyncFor,
        ast.withitem,
        ast.Try,
        ast.TryStar,
        ast.Import,
        ast.ImportFrom,
        ast.Global,
        ast.FunctionDef,
        ast.AsyncFunctionDef,
        ast.Lambda,
        ast.ClassDef,
        *_COMPREHENSIONS,
    }
)


def _attribute_target(target: ast.expr) -> tuple[str, str] | None:
    """``(receiver, attr)`` of a target ``name.attr`` or ``name.a.attr`` (receiver
    ``name.a``), else None."""
    if not isinstance(target, ast.Attribute):
        return None
    receiver = ast_dotted_name(target.value)
    return (receiver, target.attr) if receiver is not None else None


#: Statements whose fields hold suites (lists of statements) of their own.
_SUITES = ("body", "orelse", "finalbody")


def _note_blocks(blocks: dict[int, int], node: Any) -> None:
    """Record the suite of each assignment among the suites of a compound statement (an
    identity per suite, as the libcst scan's ``IndentedBlock``)."""
    suites = [getattr(node, name, None) for name in _SUITES]
    suites += [handler.body for handler in getattr(node, "handlers", ())]
    suites += [case.body for case in getattr(node, "cases", ())]
    for suite in suites:
        if suite.__class__ is not list:
            continue
        for statement in suite:
            if statement.__class__ is ast.Assign or statement.__class__ is ast.AugAssign:
                blocks[id(statement)] = id(suite)


def _walk(
    result: Scan,
    tree: ast.Module,
    new_frame: Callable[[FrameKind, str], Frame],
    sites: list[tuple[Any, Frames]],
    convert: Callable[[ast.expr], Any],
) -> None:
    """The scan's walk (see :func:`dimlint.sources.python.scan.scan`) over ``ast``: the same
    statements bind, in the same frames, and calls and dicts are found outer ones first.
    Single plain assignments are recorded as ``ast`` nodes (see :class:`_LazyFrame`); calls and
    dicts in ``sites``, with their scopes."""
    root = result.module
    stack: list[tuple[Any, Frames]] = [(statement, ()) for statement in reversed(tree.body)]
    pop, push = stack.pop, stack.append
    leaves, special = _LEAVES, _SPECIAL
    raising = 0  # inside ``with pytest.raises(...)``: calls and dicts there are not configs
    blocks: dict[int, int] = {}  # attribute assignment → its suite (absent: the scope's own)
    attributes = result.attributes
    while stack:
        node, frames = pop()
        if node is ENTER_RAISING or node is LEAVE_RAISING:
            raising += 1 if node is ENTER_RAISING else -1
            continue
        kind = node.__class__
        if kind in _COMPOUND:
            _note_blocks(blocks, node)
        if (kind is ast.With or kind is ast.AsyncWith) and _raising_with(node):
            push((LEAVE_RAISING, frames))
            _push(stack, node.body, frames)
            push((ENTER_RAISING, frames))
            _push(stack, node.items, frames)
            continue
        if kind is ast.Attribute:  # a.b.c: only a call or subscript at its root holds code
            value = node.value
            while value.__class__ is ast.Attribute:
                value = value.value
            if value.__class__ not in leaves:
                push((value, frames))
            continue
        if kind in special:
            if kind is ast.Call and _raising_call(node):  # pytest.raises(E, Config, width=…)
                push((LEAVE_RAISING, frames))
                _push(stack, (*node.args, *node.keywords), frames)
                push((ENTER_RAISING, frames))
                continue
            if kind is ast.Call or kind is ast.Dict:
                if not raising:
                    sites.append((node, frames))
            elif kind is ast.Assign:
                frame = frames[-1] if frames else root
                targets = node.targets
                for target in targets:
                    _bind_target(frame, target)
                if len(targets) == 1 and targets[0].__class__ is ast.Name:
                    frame.assigned[targets[0].id] = node.value
                for target in targets:
                    named = _attribute_target(target)
                    if named is not None:
                        block = blocks.get(id(node), 0)
                        attributes.append(AttributeSite(*named, node.value, frames, block, convert))
                push((node.value, frames))
                continue
            elif kind is ast.AnnAssign:
                if node.value is not None:
                    frame = frames[-1] if frames else root
                    _bind_target(frame, node.target)
                    if node.target.__class__ is ast.Name:
                        frame.assigned[node.target.id] = node.value
                    push((node.value, frames))
                continue
            elif kind is ast.AugAssign or kind is ast.NamedExpr:
                _bind_target(frames[-1] if frames else root, node.target)
                named = _attribute_target(node.target) if kind is ast.AugAssign else None
                if named is not None:
                    block = blocks.get(id(node), 0)
                    attributes.append(AttributeSite(*named, None, frames, block, convert))
            elif kind is ast.For or kind is ast.AsyncFor:
                _bind_target(frames[-1] if frames else root, node.target)
                _push(stack, (node.target, node.iter, *node.body, *node.orelse), frames)
                continue
            elif kind is ast.withitem:
                if node.optional_vars is not None:
                    _bind_target(frames[-1] if frames else root, node.optional_vars)
            elif kind is ast.Try or kind is ast.TryStar:
                frame = frames[-1] if frames else root
                children: list[Any] = [*node.body]
                for handler in node.handlers:
                    if kind is ast.Try and handler.name is not None:
                        frame.bind(handler.name)
                    if handler.type is not None:
                        children.append(handler.type)
                    children.extend(handler.body)
                children += [*node.orelse, *node.finalbody]
                _push(stack, children, frames)
                continue
            elif kind is ast.Import or kind is ast.ImportFrom:
                _record_import(result, frames[-1] if frames else root, node)
                continue
            elif kind is ast.Global:
                result.globals.update(node.names)
                continue
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                (frames[-1] if frames else root).bind(node.name)
                inner = new_frame("function", node.name)
                if not frames and any(
                    is_config_decorator(ast_dotted_name(d)) for d in node.decorator_list
                ):
                    result.config_functions.append(inner)
                elif not frames and is_model_function(node.name):
                    result.model_functions.append(inner)
                if not frames and any(
                    is_hparams_decorator(ast_dotted_name(d)) for d in node.decorator_list
                ):
                    result.hparams_functions.append(inner)
                arguments = node.args
                _bind_params(inner, arguments)
                defaults = [*arguments.defaults, *(d for d in arguments.kw_defaults if d)]
                _push(stack, node.body, (*frames, inner))
                _push(stack, [*node.decorator_list, *defaults], frames)
                continue
            elif kind is ast.Lambda:
                inner = new_frame("function", "")
                _bind_params(inner, node.args)
                push((node.body, (*frames, inner)))
                continue
            elif kind is ast.ClassDef:
                (frames[-1] if frames else root).bind(node.name)
                inner = new_frame("class", "")
                result.classes.append(Site(node, (*frames, inner)))
                _push(stack, node.body, (*frames, inner))
                _push(stack, [*node.decorator_list, *node.bases, *node.keywords], frames)
                continue
            else:  # a comprehension: its own scope, binding its loop targets
                inner = new_frame("function", "")
                for generator in node.generators:
                    _bind_target(inner, generator.target)
                frames = (*frames, inner)
        # the children that can hold calls, dicts or bindings, pushed so that they pop in order
        fields = _CHILD_FIELDS.get(kind)
        if fields is None:
            fields = _child_fields(kind)
        for name in fields:  # last field first: the first pops first
            value = getattr(node, name)
            if value.__class__ is list:
                for item in reversed(value):
                    if item.__class__ not in leaves:
                        push((item, frames))
            elif value.__class__ not in leaves:
                push((value, frames))


def _raising_with(node: ast.With | ast.AsyncWith) -> bool:
    """``with pytest.raises(...)`` (see :data:`dimlint.sources.python.refused.RAISING`)."""
    for item in node.items:
        call = item.context_expr
        if call.__class__ is ast.Call and expects_raise(ast_dotted_name(call.func)):
            return True
    return False


def _raising_call(node: ast.Call) -> bool:
    """A call that expects its arguments to raise (``self.assertRaises(E, f, config)``)."""
    function = node.func
    kind = function.__class__
    if kind is ast.Attribute:
        return function.attr in RAISING  # type: ignore[attr-defined]
    return kind is ast.Name and function.id in RAISING  # type: ignore[attr-defined]


def _push(stack: list[tuple[Any, Frames]], children: Any, frames: Frames) -> None:
    stack.extend((child, frames) for child in reversed(children) if child.__class__ not in _LEAVES)


def parse(text: str) -> ast.Module | None:
    """CPython's tree of ``text``; None when CPython cannot read it (libcst then decides)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


class _Relevance:
    """Which calls and dicts can matter to the front ends: a superset of the torch layer calls
    (:func:`dimlint.sources.python.layers.layer_kind`) and of the calls and dicts that can
    become a config candidate (:meth:`dimlint.sources.python.configs.Extractor._call`,
    ``_dict``, ``_table``). The others — most calls of model code, ``self.proj(x)`` — are
    never converted; leaving them out changes no result, only what is looked at."""

    def __init__(self, result: Scan) -> None:
        from dimlint.config.torch_layers import LAYERS
        from dimlint.sources.python.configs import (
            ALL_DIMENSION_KEYS,
            HEAD_WIDTH_KEYS,
            has_dimensions,
        )

        self.layers = LAYERS
        self.dimension_keys = ALL_DIMENSION_KEYS
        self.has_dimensions = has_dimensions
        #: A head width a helper function's body states (``Extractor._helper_width``).
        self.head_width_keys = HEAD_WIDTH_KEYS
        self.result = result
        self.class_names = {site.node.name for site in result.classes}

    def call(self, node: ast.Call) -> bool:
        function = node.func
        kind = function.__class__
        if kind is ast.Name:
            head = last = function.id  # type: ignore[attr-defined]
        elif kind is ast.Attribute:
            last = function.attr  # type: ignore[attr-defined]
            root = function.value  # type: ignore[attr-defined]
            while root.__class__ is ast.Attribute:
                root = root.value
            if root.__class__ is not ast.Name:
                # ``super().__init__(parent, hidden_size=64)``: a test helper's sizes handed to
                # its parent (dimlint.sources.python.testers); otherwise neither a layer nor
                # a config
                return bool(last == "__init__")
            head = root.id
        else:
            return False
        result = self.result
        if last in self.layers or last in result.nn_names:
            return True
        keywords = [keyword.arg for keyword in node.keywords]
        if not self.head_width_keys.isdisjoint(keywords):
            return True
        if None in keywords:  # **kwargs: only written sizes of an unknown class (configs)
            return bool(self.has_dimensions([k for k in keywords if k is not None]))
        if last in self.class_names or last in {"from_name", "for_model"}:
            return True
        if kind is ast.Name and last == "dict":  # a key of its own, or the ViT family's names
            return not self.dimension_keys.isdisjoint(keywords) or self.has_dimensions(keywords)
        if head in result.transformers_names or head in result.transformers_modules:
            return True
        if result.imported_from.get(head, "").startswith("x_transformers"):
            return True
        return bool(keywords) and bool(self.has_dimensions(keywords))

    def dict(self, node: ast.Dict) -> bool:
        names = []
        for key in node.keys:
            if not isinstance(key, ast.Constant) or key.value.__class__ is not str:
                return False
            names.append(key.value)
        # the ViT family's ``width`` / ``heads`` / ``layers`` are no key of their own
        return not self.dimension_keys.isdisjoint(names) or bool(self.has_dimensions(names))


def scan(tree: ast.Module, text: str) -> Scan:
    """The :class:`Scan` of a module read by ``ast``, with libcst-classed nodes on demand."""
    return read(tree, text)[0]


def read(tree: ast.Module, text: str) -> tuple[Scan, _Converter]:
    """The :class:`Scan` of a module read by ``ast``, and the converter that made its nodes
    (which knows the ``ast`` node each came from: :mod:`dimlint.sources.python.astspans`)."""
    converter = _Converter(text)
    convert = converter.expression

    def new_frame(kind: FrameKind, name: str = "") -> Frame:
        return _LazyFrame(kind, convert, name)

    result = Scan()
    result.module = new_frame("module")
    found: list[tuple[Any, Frames]] = []
    _walk(result, tree, new_frame, found, convert)
    if refused.may_refuse(text):
        dropped = refused.in_ast(tree, text)
        found = [site for site in found if id(site[0]) not in dropped]
    relevance = _Relevance(result)
    result.sites = [
        Site(convert(node), frames)
        for node, frames in found
        if (relevance.call(node) if node.__class__ is ast.Call else relevance.dict(node))
    ]
    for site in result.classes:
        site.node = converter.class_def(site.node)
    return result, converter
