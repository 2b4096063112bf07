"""Configs a test builds only to see them refused: not configs to judge.

A test that checks validation writes the invalid config on purpose. When it builds it inside
``with pytest.raises(...)`` the scans drop it as they walk (:data:`RAISING`); often it builds
it first and only passes it in there::

    def test_value_error():
        config_dict = {"hidden_size": 128, "num_attention_heads": 12}
        with pytest.raises(ValueError):
            construct_pretrained_config(config_dict, EnCodonConfig)

Such a value is dropped too, and only when nothing else can see it:

* it is assigned to a plain local name of a function (module names can be imported, class
  attributes read through ``self``), and the function declares that name neither ``global``
  nor ``nonlocal``;
* every read of the name in the function is inside a block that expects a raise, or an
  argument of a call that does (``self.assertRaises(ValueError, build, config_dict)``), and
  there is at least one;
* a read in a nested function, lambda, class or comprehension counts as a read elsewhere: when
  it runs is not known there.

A value also read anywhere else (printed, passed to a function outside the block, updated
through a subscript) is judged: the test may build a model from it.

Both readings answer alike: :func:`in_ast` over CPython's tree, :func:`in_cst` over libcst's.
"""

from __future__ import annotations

import ast
from typing import Any

import libcst as cst

from dimlint.sources.python.dotted import ast_dotted_name, dotted_name

#: The calls that say the block they open must raise (``with pytest.raises(ValueError):``):
#: a config built in there is one the test expects to be refused, not a config to check.
RAISING = frozenset({"raises", "assertRaises", "assertRaisesRegex"})


def expects_raise(name: str | None) -> bool:
    """Whether a ``with`` item's call (``pytest.raises``, ``self.assertRaises``) names one."""
    return name is not None and name.rsplit(".", 1)[-1] in RAISING


def may_refuse(text: str) -> bool:
    """Whether ``text`` can hold a block or call that expects a raise (a cheap first test)."""
    return any(name in text for name in RAISING)


class _LocalUses:
    """One function's plain local assignments of calls and dicts, and where each name is read."""

    __slots__ = ("assigned", "declared", "elsewhere", "raising")

    def __init__(self) -> None:
        self.assigned: dict[str, list[Any]] = {}
        self.declared: set[str] = set()
        self.raising: set[str] = set()
        self.elsewhere: set[str] = set()

    def read(self, name: str, raising: bool) -> None:
        if name in self.assigned:
            (self.raising if raising else self.elsewhere).add(name)

    def refused(self) -> list[Any]:
        """The values whose name is read only where a raise is expected."""
        names = self.raising - self.elsewhere - self.declared
        return [value for name in names for value in self.assigned[name]]


# --- CPython's tree ---------------------------------------------------------------------------

_AST_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_AST_NESTED = (*_AST_SCOPES, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _ast_raises(node: ast.AST) -> bool:
    """A ``with`` whose item expects a raise, or a call that does."""
    if isinstance(node, ast.Call):
        return expects_raise(ast_dotted_name(node.func))
    if isinstance(node, ast.With | ast.AsyncWith):
        return any(_ast_raises(item.context_expr) for item in node.items)
    return False


def in_ast(tree: ast.Module, text: str) -> set[int]:
    """The ids of the calls and dicts (nested ones included) that a test builds only to be
    refused, in CPython's tree of ``text`` (only functions whose text names a raise are read)."""
    dropped: set[int] = set()
    lines = text.splitlines()
    for function in _ast_functions(tree):
        end = function.end_lineno or function.lineno
        if not may_refuse("\n".join(lines[function.lineno - 1 : end])):
            continue
        uses = _ast_assignments(function)
        if uses.assigned:
            _ast_reads(function, uses)
            for value in uses.refused():
                dropped.update(id(n) for n in ast.walk(value) if _ast_site(n))
    return dropped


def _ast_functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function definition, found through statements only (a ``def`` is a statement:
    expressions, most of a file, are not walked)."""
    found: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append(node)
        stack.extend(
            child
            for child in ast.iter_child_nodes(node)
            if isinstance(child, ast.stmt | ast.excepthandler | ast.match_case)
        )
    return found


def _ast_site(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call | ast.Dict)


def _ast_assignments(function: ast.FunctionDef | ast.AsyncFunctionDef) -> _LocalUses:
    uses = _LocalUses()
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _AST_NESTED):
            continue
        if isinstance(node, ast.Global | ast.Nonlocal):
            uses.declared.update(node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and _ast_site(node.value):
                uses.assigned.setdefault(targets[0].id, []).append(node.value)
        stack.extend(ast.iter_child_nodes(node))
    return uses


def _ast_reads(function: ast.FunctionDef | ast.AsyncFunctionDef, uses: _LocalUses) -> None:
    stack: list[tuple[ast.AST, bool]] = [(statement, False) for statement in function.body]
    while stack:
        node, raising = stack.pop()
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                uses.read(node.id, raising)
            continue
        if isinstance(node, _AST_NESTED):  # a read in there runs at a time not known here
            for child in ast.walk(node):
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                    uses.read(child.id, False)
            continue
        if isinstance(node, ast.With | ast.AsyncWith) and _ast_raises(node):
            stack.extend((item, raising) for item in node.items)
            stack.extend((statement, True) for statement in node.body)
            continue
        if isinstance(node, ast.Call) and _ast_raises(node):
            stack.append((node.func, raising))
            stack.extend((argument, True) for argument in (*node.args, *node.keywords))
            continue
        stack.extend((child, raising) for child in ast.iter_child_nodes(node))


# --- libcst's tree ----------------------------------------------------------------------------


def _cst_raises(node: cst.CSTNode) -> bool:
    if isinstance(node, cst.Call):
        return expects_raise(dotted_name(node.func))
    if isinstance(node, cst.With):
        return any(_cst_raises(item.item) for item in node.items)
    return False


def _cst_site(node: cst.CSTNode | None) -> bool:
    return isinstance(node, cst.Call | cst.Dict)


_CST_NESTED = (
    cst.FunctionDef,
    cst.Lambda,
    cst.ClassDef,
    cst.ListComp,
    cst.SetComp,
    cst.GeneratorExp,
    cst.DictComp,
)


def in_cst(module: cst.Module) -> set[int]:
    """The ids of the calls and dicts that a test builds only to be refused, in libcst's tree
    (what :func:`in_ast` finds in CPython's)."""
    dropped: set[int] = set()
    stack: list[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.FunctionDef):
            uses = _cst_assignments(node)
            if uses.assigned:
                for name, raising in _cst_reads(node.body, False):
                    uses.read(name, raising)
                for value in uses.refused():
                    dropped.update(id(n) for n in _cst_all(value) if _cst_site(n))
        stack.extend(node.children)
    return dropped


def _cst_all(node: cst.CSTNode) -> list[cst.CSTNode]:
    found, stack = [], [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(current.children)
    return found


def _cst_assignments(function: cst.FunctionDef) -> _LocalUses:
    uses = _LocalUses()
    stack: list[cst.CSTNode] = [function.body]
    while stack:
        node = stack.pop()
        if isinstance(node, _CST_NESTED):
            continue
        if isinstance(node, cst.Global | cst.Nonlocal):
            uses.declared.update(item.name.value for item in node.names)
        elif isinstance(node, cst.Assign | cst.AnnAssign):
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            else:
                targets = [node.target]
            value = node.value
            if len(targets) == 1 and isinstance(targets[0], cst.Name) and _cst_site(value):
                uses.assigned.setdefault(targets[0].value, []).append(value)
        stack.extend(node.children)
    return uses


def _cst_reads(root: cst.CSTNode, raising: bool) -> list[tuple[str, bool]]:
    """Every name ``root`` reads (as CPython's ``Load`` context marks them), with whether the
    read is where a raise is expected (never inside a nested scope: when that runs is not known
    here)."""
    found: list[tuple[str, bool]] = []
    # (node, where a raise is expected, inside a nested scope)
    stack: list[tuple[cst.CSTNode, bool, bool]] = [(root, raising, False)]
    while stack:
        node, inside, nested = stack.pop()
        if isinstance(node, cst.Name):
            found.append((node.value, inside and not nested))
            continue
        if isinstance(node, _CST_NESTED):
            nested = True
        elif isinstance(node, cst.With) and _cst_raises(node):
            stack.extend((item, inside, nested) for item in node.items)
            stack.append((node.body, True, nested))
            continue
        elif isinstance(node, cst.Call) and _cst_raises(node):
            stack.append((node.func, inside, nested))
            stack.extend((argument, True, nested) for argument in node.args)
            continue
        stack.extend((child, inside, nested) for child in _cst_loads(node))
    return found


def _cst_loads(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The children of ``node`` that can read names: not a name it binds or an attribute's
    or keyword's identifier (``Load`` names only, as CPython's tree marks them)."""
    if isinstance(node, cst.Attribute):
        return [node.value]
    if isinstance(node, cst.Arg):
        return [node.value]
    if isinstance(node, cst.Param):
        return [n for n in (node.annotation, node.default) if n is not None]
    if isinstance(node, cst.AssignTarget | cst.AnnAssign | cst.AugAssign | cst.NamedExpr):
        stored = node.target
        rest = [c for c in node.children if c is not stored]
        return rest if isinstance(stored, cst.Name) else [*rest, *_stored_reads(stored)]
    if isinstance(node, cst.For | cst.CompFor):
        rest = [c for c in node.children if c is not node.target]
        return [*rest, *_stored_reads(node.target)]
    if isinstance(node, cst.Del):
        return _stored_reads(node.target)
    if isinstance(node, cst.FunctionDef | cst.ClassDef):
        return [c for c in node.children if c is not node.name]
    if isinstance(node, cst.AsName | cst.Import | cst.ImportFrom | cst.Global | cst.Nonlocal):
        return []
    if isinstance(node, cst.ExceptHandler):
        return [c for c in node.children if c is not node.name]
    return list(node.children)


def _stored_reads(target: cst.CSTNode) -> list[cst.CSTNode]:
    """What a store target reads: the object of a subscript or attribute, not its names."""
    if isinstance(target, cst.Name):
        return []
    if isinstance(target, cst.Tuple | cst.List):
        return [n for element in target.elements for n in _stored_reads(element.value)]
    if isinstance(target, cst.StarredElement):
        return _stored_reads(target.value)
    return [target]  # a.b or a[i]: reads a (and i)
