"""Resolve OmegaConf/Hydra interpolations that stay inside one YAML file.

NeMo, llm-foundry and every Hydra-based trainer write one value and refer to it elsewhere:
``hidden_size: ${model.encoder.hidden_size}``, ``ffn_hidden_size: ${.hidden_size}``. Read as a
literal, the reference is a string where a number belongs, a false DL003 in every such file. A
reference to a value of the same file is resolved here, and the value's span becomes the span of
the definition, as for a YAML alias: a finding points at the number that takes effect and a fix
edits it there.

Why not OmegaConf itself: it is not a dependency, and it would resolve *everything*: custom
resolvers (``${oc.env:WIDTH}``, ``${mul:${a},2}``), which run code or read the environment. A
linter knows only what the file says, so only plain references are followed; anything else —
a resolver, a string with text around a reference, ``???`` (OmegaConf's "must be given"), a
reference to a key the file lacks or a cycle — becomes
:class:`~dimlint.config.values.Unresolved`: treated as absent, and said under ``--verbose``.

The grammar followed is OmegaConf's for node references: ``${a.b.c}`` from the root,
``${.x}`` a sibling, each further leading dot one level up; ``a.0`` or ``a[0]`` index a list.
"""

from __future__ import annotations

import re
from typing import Any

from dimlint.config.pointers import escape_pointer_token
from dimlint.config.values import Unresolved

#: A whole value that is one node reference: dots (relative), then dotted/indexed names.
_REFERENCE = re.compile(r"\$\{\s*(\.*)([\w\-]+(?:(?:\.[\w\-]+)|(?:\[\d+\]))*)\s*\}")
#: How many references a chain may follow (a → b → c …) before it is taken for a cycle.
MAX_CHAIN = 16
#: How many references one file may resolve: the walk is bounded like the alias expansion.
MAX_REFERENCES = 10_000
_MISSING = "???"


class _Tree:
    """The value tree with each container's pointer, for walking up and down by name."""

    def __init__(self, root: Any, values: dict[str, Any], notes: list[str]) -> None:
        self.root = root
        self.values = values
        self.notes = notes
        self.resolved = 0

    def get(self, pointer: str) -> tuple[bool, Any]:
        """(found, value) at a JSON pointer of the tree."""
        node = self.root
        if not pointer:
            return True, node
        for token in pointer[1:].split("/"):
            name = token.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and name in node:
                node = node[name]
            elif isinstance(node, list) and name.isdigit() and int(name) < len(node):
                node = node[int(name)]
            else:
                return False, None
        return True, node


def resolve(root: Any, values: dict[str, Any], notes: list[str]) -> None:
    """Replace, in place, every interpolation of ``root`` by what it refers to (see the module).

    ``values`` maps pointers to where each value is written (a span, or a composed value's
    origin): a resolved reference takes its definition's."""
    tree = _Tree(root, values, notes)
    pending: list[tuple[str, Any]] = [("", root)]
    while pending:
        pointer, node = pending.pop()
        if isinstance(node, dict):
            items: list[tuple[Any, Any]] = list(node.items())
        elif isinstance(node, list):
            items = list(enumerate(node))
        else:
            continue
        for key, child in items:
            child_pointer = f"{pointer}/{escape_pointer_token(str(key))}"
            if isinstance(child, str) and ("${" in child or child == _MISSING):
                node[key] = _value(tree, child_pointer, child)
            elif isinstance(child, dict | list):
                pending.append((child_pointer, child))


def _value(tree: _Tree, pointer: str, text: str) -> Any:
    """The value a reference at ``pointer`` stands for, following chains; Unresolved if none."""
    seen = {pointer}
    current_pointer, current = pointer, text
    for _ in range(MAX_CHAIN):
        tree.resolved += 1
        if tree.resolved > MAX_REFERENCES:
            return _unresolved(tree, pointer, text, "too many interpolations in one file")
        if current == _MISSING:
            return _unresolved(tree, pointer, text, "a value the launcher must supply (???)")
        match = _REFERENCE.fullmatch(current.strip())
        if match is None:
            why = "an interpolation with a resolver or text around it"
            return _unresolved(tree, pointer, text, why)
        target = _target(current_pointer, match.group(1), match.group(2))
        found, value = tree.get(target)
        if not found:
            return _unresolved(tree, pointer, text, f"{match.group(0)} names no key of this file")
        if target in seen:
            return _unresolved(tree, pointer, text, "the references form a cycle")
        seen.add(target)
        if isinstance(value, str) and ("${" in value or value == _MISSING):
            current_pointer, current = target, value
            continue
        if isinstance(value, Unresolved):
            return _unresolved(tree, pointer, text, value.reason)
        span = tree.values.get(target)
        if span is not None:
            tree.values[pointer] = span  # a finding and its fix go to the definition
        return value
    return _unresolved(tree, pointer, text, "the references form a chain too long to follow")


def _target(pointer: str, dots: str, path: str) -> str:
    """The JSON pointer an OmegaConf reference names, seen from the value at ``pointer``."""
    tokens = [t for t in re.split(r"\.|\[(\d+)\]", path) if t]
    if dots:
        # ``.x`` is a sibling: start from the containing node, one more level up per dot
        base = pointer.rsplit("/", len(dots))[0] if pointer.count("/") >= len(dots) else ""
    else:
        base = ""
    return base + "".join(f"/{escape_pointer_token(token)}" for token in tokens)


def _unresolved(tree: _Tree, pointer: str, text: str, reason: str) -> Unresolved:
    shown = text if len(text) <= 60 else text[:57] + "..."
    tree.notes.append(f"{pointer}: {shown} not read ({reason})")
    return Unresolved(shown, reason)
