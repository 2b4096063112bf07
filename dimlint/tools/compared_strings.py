"""String values the code of a model type compares a config field with.

A string field can switch a model's structure: T5's ``feed_forward_proj = "gated-gelu"`` builds
two input projections per MLP instead of one, BERT's ``position_embedding_type =
"relative_key"`` adds a distance embedding. A template learned at the default string knows
nothing of the others. The code that switches on such a field compares it with the values it
knows (``if self.feed_forward_proj == "gated-gelu"``, ``if position_embedding_type in
("relative_key", "relative_key_query")``); this module collects those literals from the config
class's and the modeling code's source, so that the shape generator
(:mod:`dimlint.tools.generate_shapes`) can build the model at each and learn which values keep
the tensors, which only move fields the template already reads, and which switch the structure
(a config stating one of those, or a value never tried, then lies outside the template's domain).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

#: At most this many values are tried per field (the code rarely compares with more).
MAX_VALUES = 6


def compared(sources: Sequence[str]) -> dict[str, list[str]]:
    """Per field name: the string constants the sources compare it with (``==``, ``!=``,
    ``in``, ``not in`` against ``x.name``, ``name`` or ``getattr(x, "name", …)``), in order of
    first appearance, at most :data:`MAX_VALUES` each."""
    found: dict[str, list[str]] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            names = [name for operand in operands if (name := _field(operand)) is not None]
            if not names:
                continue
            literals = [value for operand in operands for value in _strings(operand)]
            for name in names:
                values = found.setdefault(name, [])
                for value in literals:
                    if value not in values and len(values) < MAX_VALUES:
                        values.append(value)
    return {name: values for name, values in found.items() if values}


def _field(node: ast.expr) -> str | None:
    """The field an operand reads: ``config.name``, ``self.name``, a bare ``name`` or
    ``getattr(config, "name", …)``."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return node.args[1].value
    return None


def _strings(node: ast.expr) -> Iterator[str]:
    """String constants of an operand: itself, or the items of a tuple, list or set."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, ast.Tuple | ast.List | ast.Set):
        for item in node.elts:
            if isinstance(item, ast.Constant) and isinstance(item.value, str):
                yield item.value
