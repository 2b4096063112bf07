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

One resolver is followed, because it only reads the config: ``${oc.select:a.b,default}`` is
the value at ``a.b`` when the file (or its composition) has that key, as a plain reference is.
When the key is absent its default applies — but only in a composition that gave up nothing
(``complete``): a file checked alone may be one part of a config that sets the key elsewhere,
and its default would then be a guess. The default is read as OmegaConf reads it (a number,
``true``/``false``, ``null``, a quoted string or another reference), and a finding on it points
at the default's characters, so a fix edits the default and keeps the ``oc.select`` around it.
Every other resolver (``oc.env``, ``oc.decode``, ``eval``, ``multiply``, a custom one) runs
code or reads the environment when the config loads: its value is never guessed, and the
``--verbose`` note names it.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from dimlint.config.pointers import escape_pointer_token
from dimlint.config.values import Unresolved

#: A whole value that is one node reference: dots (relative), then dotted/indexed names.
_REFERENCE = re.compile(r"\$\{\s*(\.*)([\w\-]+(?:(?:\.[\w\-]+)|(?:\[\d+\]))*)\s*\}")
#: ``${oc.select:key}`` or ``${oc.select:key,default}`` (the key as in :data:`_REFERENCE`).
_SELECT = re.compile(
    r"\$\{\s*oc\.select\s*:\s*(\.*)([\w\-]+(?:(?:\.[\w\-]+)|(?:\[\d+\]))*)\s*(?:,(.*))?\}",
    re.DOTALL,
)
#: The name of the resolver a whole interpolation calls: ``${oc.env:X,1}`` → ``oc.env``.
_RESOLVER = re.compile(r"\$\{\s*([A-Za-z_][\w.]*)\s*:")
_FLOAT = re.compile(r"[-+]?(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?")
#: How many references a chain may follow (a → b → c …) before it is taken for a cycle.
MAX_CHAIN = 16
#: How many references one file may resolve: the walk is bounded like the alias expansion.
MAX_REFERENCES = 10_000
_MISSING = "???"


class _Tree:
    """The value tree with each container's pointer, for walking up and down by name."""

    def __init__(
        self, root: Any, values: dict[str, Any], notes: list[str], text: str, complete: bool
    ) -> None:
        self.root = root
        self.values = values
        self.notes = notes
        self.text = text
        self.complete = complete
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


def resolve(
    root: Any, values: dict[str, Any], notes: list[str], text: str, *, complete: bool = False
) -> None:
    """Replace, in place, every interpolation of ``root`` by what it refers to (see the module).

    ``values`` maps pointers to where each value is written (a span of ``text``, or a composed
    value's origin): a resolved reference takes its definition's. ``complete``: the tree is a
    whole composed config, so a key it lacks is absent (``oc.select`` takes its default)."""
    tree = _Tree(root, values, notes, text, complete)
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
        match = _REFERENCE.fullmatch(current.strip()) or _SELECT.fullmatch(current.strip())
        if match is None:
            return _unresolved(tree, pointer, text, _why_not(current))
        target = _target(current_pointer, match.group(1), match.group(2))
        found, value = tree.get(target)
        if not found and match.re is _SELECT:
            default = (match.group(3) or "null").strip()
            if not tree.complete:
                why = f"{match.group(2)} is not in this file: its default {default} applies only"
                why += " where no other config sets it"
                return _unresolved(tree, pointer, text, why)
            if "${" in default:  # a reference as the default, seen from the same node
                current = default
                continue
            return _default(tree, pointer, text, current_pointer, default)
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


def _why_not(text: str) -> str:
    """Why an interpolation that is not a reference is not read."""
    resolver = _RESOLVER.match(text.strip())
    if resolver is None or not text.strip().endswith("}"):
        return "an interpolation with text around it"
    return f"the resolver {resolver.group(1)} runs when the config is loaded"


def _default(tree: _Tree, pointer: str, text: str, holder: str, default: str) -> Any:
    """``oc.select``'s default, as OmegaConf reads it, located at its own characters."""
    if default[:1] in "\"'" and default[-1:] == default[:1] and len(default) > 1:
        value: Any = default[1:-1]
    elif default in ("null", "None", "~"):
        value = None
    elif default.lower() in ("true", "false"):
        value = default.lower() == "true"
    elif len(default) > 400 and _FLOAT.fullmatch(default):  # int() refuses > 4300 digits
        return _unresolved(tree, pointer, text, "its default is a number too long to read")
    elif re.fullmatch(r"[-+]?\d[\d_]*", default):
        value = int(default.replace("_", ""))
    elif _FLOAT.fullmatch(default):
        value = float(default.replace("_", ""))
    else:
        value = default
    span = tree.values.get(holder)
    narrowed = _narrow(tree, span, default)
    if narrowed is None and span is not None:
        why = "its default could not be located in the file"
        return _unresolved(tree, pointer, text, why)
    if narrowed is not None:
        tree.values[pointer] = narrowed
    return value


def _narrow(tree: _Tree, span: Any, default: str) -> Any:
    """The span of ``default``'s characters inside the value ``span`` covers, or None."""
    if span is None:
        return None
    if isinstance(span, tuple):
        start, end = span
        source = tree.text
    else:  # a composed value's origin: its document's text, or the linted file's
        start, end = span.start, span.end
        source = span.document.text if span.document is not None else tree.text
    offset = source.rfind(default, start, end)
    if offset < 0:
        return None
    if isinstance(span, tuple):
        return (offset, offset + len(default))
    narrowed = copy.copy(span)
    narrowed.start, narrowed.end = offset, offset + len(default)
    return narrowed


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
