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

Two fields can switch it by their equality alone: ELECTRA projects its embeddings to the
hidden width only ``if config.embedding_size != config.hidden_size``. :func:`compared_pairs`
collects the pairs of config fields the code compares with each other.
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
    for node in _comparisons(sources):
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


def _comparisons(sources: Sequence[str]) -> Iterator[ast.Compare]:
    """Every comparison of the sources that parse (one that does not is skipped)."""
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        yield from (node for node in ast.walk(tree) if isinstance(node, ast.Compare))


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


def compared_pairs(sources: Sequence[str]) -> set[tuple[str, str]]:
    """The pairs of config fields the sources compare with each other (``config.a !=
    config.b``, ``==``), each sorted."""
    found: set[tuple[str, str]] = set()
    for node in _comparisons(sources):
        if len(node.ops) != 1 or not isinstance(node.ops[0], ast.Eq | ast.NotEq):
            continue
        left, right = _config_field(node.left), _config_field(node.comparators[0])
        if left is not None and right is not None and left != right:
            found.add((min(left, right), max(left, right)))
    return found


def _config_field(node: ast.expr) -> str | None:
    """The field an operand reads from a config object: ``config.name``, ``self.config.name``."""
    if not isinstance(node, ast.Attribute):
        return None
    owner = node.value
    if isinstance(owner, ast.Name) and owner.id == "config":
        return node.attr
    if isinstance(owner, ast.Attribute) and owner.attr == "config":
        return node.attr
    return None
