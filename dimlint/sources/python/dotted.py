"""Dotted names of attribute chains, in both readings of a Python file.

``torch.nn.Linear`` for ``torch.nn.Linear(...)``'s callee, ``Linear`` for a bare name, None for
anything else (a call, a subscript): how the scans recognise config classes, layer calls and
``pytest.raises``, whichever tree they walk — libcst's (:func:`dotted_name`) or CPython's
(:func:`ast_dotted_name`, on the fast path: exact class tests, no ``isinstance``).
"""

from __future__ import annotations

import ast

import libcst as cst


def dotted_name(node: cst.BaseExpression) -> str | None:
    """``torch.nn.Linear`` for an attribute chain of names, ``Linear`` for a name; else None."""
    parts: list[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


def ast_dotted_name(node: ast.expr) -> str | None:
    """:func:`dotted_name` of an ``ast`` expression."""
    parts: list[str] = []
    while node.__class__ is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if node.__class__ is not ast.Name:
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
