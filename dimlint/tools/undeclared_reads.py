"""Config fields a model's code reads with a fallback although its config class declares none.

Qwen3-MoE's attention sizes its projections by ``getattr(config, "head_dim",
config.hidden_size // config.num_attention_heads)``: ``Qwen3MoeConfig`` declares no ``head_dim``,
yet released configs state one (128 for 64 heads of a 4096 width), and transformers reads it.
About 175 model types read an undeclared ``head_dim`` so. A template learned from the default
config never saw the key, so a config stating it fell outside the learned domain.

This module finds such reads in the modeling source (a ``getattr`` of a shape-like name with a
fallback, or ``getattr(…, None) or fallback``) and evaluates the fallback on a config, so the
shape generator (:mod:`dimlint.tools.generate_shapes`) can state the name at the value the code
falls back to, learn it like a declared field, and record how the fallback derives it from the
declared fields (the run-time uses that derivation when a config leaves the name out). A name
whose fallback is not a plain arithmetic expression over the config (``self.hidden_size //
self.num_heads``), or whose several fallbacks disagree, is not learned: a config stating it
stays outside the domain.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import operator
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from dimlint.memory.parameters.templates import SHAPE_KEY

#: Names that may size a tensor: the run-time's pattern, so the generator learns what it judges.
SHAPE_NAME = SHAPE_KEY
#: Further words of a size (``embedding_size``, GPT-2's ``n_inner``, ``*_embed_dim``): too common
#: in code to take every mention for a read, so only names the code reads off a config count.
SIZE_NAME = re.compile(r"(size|inner|embed)")
#: Operators a fallback may use: what ``hidden_size // num_attention_heads`` needs.
_OPERATORS: dict[type[ast.operator], Callable[[int, int], int]] = {
    ast.FloorDiv: operator.floordiv,
    ast.Mult: operator.mul,
    ast.Add: operator.add,
    ast.Sub: operator.sub,
}


def model_sources(config_module: str) -> list[str]:
    """The source of the modeling module beside a configuration module and of the model
    modules it imports (``from ..llama.modeling_llama import …``); none for a sub-config."""
    modules = {config_module.replace(".configuration_", ".modeling_")}
    seen: set[str] = set()
    sources: list[str] = []
    while modules:
        name = modules.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            text = inspect.getsource(importlib.import_module(name))
        except Exception:  # no modeling module (a sub-config type) or a missing dependency
            continue
        sources.append(text)
        modules |= {
            f"transformers.models.{package}.{module_name}"
            for package, module_name in re.findall(r"from \.\.(\w+)\.(modeling_\w+) import", text)
        }
    return sources


def fallbacks(sources: Sequence[str]) -> dict[str, list[ast.expr | None]]:
    """Per shape-like name read with ``getattr(<…config>, "name", fallback)``: each fallback
    expression (``getattr(…, None) or expr`` gives ``expr``; a bare ``None`` gives None)."""
    found: dict[str, list[ast.expr | None]] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        parents: dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in ast.walk(tree):
            name = _config_getattr(node)
            if name is None:
                continue
            assert isinstance(node, ast.Call)
            fallback: ast.expr | None = node.args[2]
            if isinstance(fallback, ast.Constant) and fallback.value is None:
                parent = parents.get(id(node))
                fallback = (
                    parent.values[1]
                    if isinstance(parent, ast.BoolOp)
                    and isinstance(parent.op, ast.Or)
                    and len(parent.values) == 2
                    and parent.values[0] is node
                    else None
                )
            found.setdefault(name, []).append(fallback)
    return found


def config_reads(sources: Sequence[str]) -> set[str]:
    """Every name the code reads off a config by ``getattr(<…config>, "name"[, fallback])`` or
    tests with ``hasattr(<…config>, "name")``: the only ways code reads a key its config class
    does not declare (DeBERTa-v2's ``getattr(config, "embedding_size", config.hidden_size)``)."""
    found: set[str] = set()
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
            ):
                continue
            target = node.args[0]
            last = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if str(last).endswith("config"):
                found.add(node.args[1].value)
    return found


def _config_getattr(node: ast.AST) -> str | None:
    """``name`` when ``node`` is ``getattr(<something ending in config>, "name", fallback)``
    and ``name`` may size a tensor."""
    name = _getattr_of_config(node)
    return name if name is not None and SHAPE_NAME.search(name) is not None else None


def _getattr_of_config(node: ast.AST) -> str | None:
    """``name`` when ``node`` is ``getattr(<something ending in config>, "name", fallback)``,
    whatever the name."""
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) == 3
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    ):
        return None
    target = node.args[0]
    last = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return node.args[1].value if str(last).endswith("config") else None


def evaluate(expression: ast.expr, config: Any) -> int | None:
    """The integer ``expression`` gives on ``config`` (``config.x`` and ``self.config.x``
    read its fields), or None when it reads anything else or is not an integer."""
    if isinstance(expression, ast.Constant):
        value = expression.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(expression, ast.BinOp):
        apply = _OPERATORS.get(type(expression.op))
        left, right = evaluate(expression.left, config), evaluate(expression.right, config)
        if apply is None or left is None or right is None:
            return None
        if isinstance(expression.op, ast.FloorDiv) and right == 0:
            return None
        return apply(left, right)
    if isinstance(expression, ast.Attribute) and _reads_config(expression.value):
        value = getattr(config, expression.attr, None)
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return None


def _reads_config(node: ast.expr) -> bool:
    """``config`` or ``self.config``."""
    if isinstance(node, ast.Name):
        return node.id == "config"
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "config"
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def absent_value(found: Sequence[ast.expr | None], config: Any) -> int | None:
    """The one value every fallback of a name gives on ``config``, or None (one cannot be
    evaluated, or two disagree: the code's behaviour without the name is not one size)."""
    values = {evaluate(expression, config) if expression else None for expression in found}
    if len(values) != 1:
        return None
    (value,) = values
    return value if value is not None and value > 0 else None


@functools.cache
def _type_fallbacks(config_module: str) -> dict[str, list[ast.expr | None]]:
    """:func:`fallbacks` of the modeling code beside a configuration module (parsed once)."""
    return fallbacks(model_sources(config_module))


def candidates(config: Any, sub_configs: Mapping[str, Any]) -> dict[str, int]:
    """Paths (``head_dim``, ``text_config.head_dim``) the type's code reads although the
    config (or sub-config) there holds no such field, or holds it at ``None`` (Mixtral
    declares ``head_dim = None`` and its attention reads ``getattr(config, "head_dim", None)
    or hidden_size // num_attention_heads``), each with the value the code falls back to at
    ``config``: the caller keeps it only where stating it at that value builds the same
    model."""
    found = _type_fallbacks(type(config).__module__)
    result: dict[str, int] = {}
    for prefix, obj in [("", config), *((f"{key}.", sub) for key, sub in sub_configs.items())]:
        held = set(obj.to_dict()) | set(getattr(obj, "attribute_map", {}) or {})
        for name, expressions in sorted(found.items()):
            if getattr(obj, name, None) is not None:
                continue  # held at a value: a field like any other
            if name not in held and hasattr(type(obj), name):
                continue  # a method or property of the class, not a field
            value = absent_value(expressions, obj)
            if value is not None:
                result[prefix + name] = value
    return result


def fallback_of(config: Any, sub_configs: Mapping[str, Any], path: str) -> int | None:
    """The value the code falls back to for ``path`` on ``config`` (a perturbed config)."""
    found = _type_fallbacks(type(config).__module__)
    key, _, name = path.rpartition(".")
    obj = sub_configs.get(key) if key else config
    expressions = found.get(name)
    if obj is None or not expressions:
        return None
    return absent_value(expressions, obj)


def constant_fallbacks(sources: Sequence[str]) -> dict[str, list[object]]:
    """Per name read with ``getattr(<…config>, "name", <constant>)``, whatever the name: each
    constant fallback (an integer, boolean or string), in order of appearance. DeBERTa-v2
    reads ``position_buckets`` (-1), ``share_att_key`` (False), ``norm_rel_ebd`` ("none") and
    ``conv_kernel_size`` (3, and 0 where it decides whether the convolution exists) so: none
    is declared, none sounds like a size, and each changes the tensors."""
    found: dict[str, list[object]] = {}
    for source in sources:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            name = _getattr_of_config(node)
            if name is None or not isinstance(node, ast.Call):
                continue
            constant = _constant(node.args[2])
            if constant is None:
                continue
            values = found.setdefault(name, [])
            if not any(v == constant and type(v) is type(constant) for v in values):
                values.append(constant)
    return found


def _constant(node: ast.expr) -> int | str | None:
    """An integer, boolean or string constant (``-1`` included), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return -inner if isinstance(inner, int) and not isinstance(inner, bool) else None
    if isinstance(node, ast.Constant) and isinstance(node.value, int | str):
        return node.value
    return None


@functools.cache
def _type_constants(config_module: str) -> dict[str, list[object]]:
    """:func:`constant_fallbacks` of the modeling code beside a configuration module."""
    return constant_fallbacks(model_sources(config_module))


def constant_candidates(config: Any, sub_configs: Mapping[str, Any]) -> dict[str, list[object]]:
    """Paths the type's code reads with a constant fallback although the config (or the
    sub-config) there holds no such field, each with its fallbacks: a config stating another
    value builds a model no build of the default showed."""
    found = _type_constants(type(config).__module__)
    result: dict[str, list[object]] = {}
    for prefix, obj in [("", config), *((f"{key}.", sub) for key, sub in sub_configs.items())]:
        held = set(obj.to_dict()) | set(getattr(obj, "attribute_map", {}) or {})
        for name, values in sorted(found.items()):
            if name in held or hasattr(type(obj), name) or name in _RUNTIME_READS:
                continue
            result[prefix + name] = list(values)
    return result


#: Names read with a fallback that choose runtime behaviour or labels, never a tensor shape
#: by themselves (the label count is learned on its own).
_RUNTIME_READS = frozenset(
    {"num_labels", "use_cache", "output_attentions", "output_hidden_states", "return_dict",
     "gradient_checkpointing", "_attn_implementation", "pad_token_id", "torchscript"}
)  # fmt: skip
