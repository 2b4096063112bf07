"""One pass over a libcst module: scopes, class definitions, calls, dict literals, imports.

The config front end needs to know, for every call and dict literal, which names are visible
there and whether each one is a constant: ``HIDDEN = 4096`` at module level is, a parameter or a
loop variable of the same name is not. libcst's ``ScopeProvider`` answers that in general but
costs several times the parse; the approximation here is enough for values that are *statically
known*, and errs towards "unknown" (a rule then stays silent):

* a module-level name is a constant when the module binds it exactly once, by a plain
  assignment, and no function declares it ``global``;
* inside a function, lambda or comprehension, a name that scope binds is never a constant;
* a class body's own assignments are visible in the class body only (not in its methods).

The walk uses an explicit stack and the node fields that can hold code (never whitespace), which
is about fifteen times faster than a libcst visitor, whose traversal rebuilds every node.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

import libcst as cst

from dimlint.sources.python.dotted import dotted_name
from dimlint.sources.python.refused import expects_raise, in_cst

FrameKind = Literal["module", "function", "class"]


class Frame:
    """The names one scope binds, and the expression of each single plain assignment.

    Read assignments through :meth:`expression` and :meth:`assignments`: a reading may keep
    them in another form until asked (:mod:`dimlint.sources.python.fastscan` keeps ``ast``
    nodes and converts the few that are looked up).
    """

    __slots__ = ("assigned", "bound", "defaults", "kind", "name", "node", "params")

    def __init__(self, kind: FrameKind, node: cst.CSTNode | None, name: str = "") -> None:
        self.kind: FrameKind = kind
        self.node = node
        #: A function's name (``__init__``), empty for other scopes.
        self.name = name
        self.bound: dict[str, int] = {}
        self.assigned: dict[str, Any] = {}
        #: A function's parameters that have a default, and the default's expression.
        self.defaults: dict[str, Any] = {}
        #: A function's parameter names.
        self.params: set[str] = set()

    def bind(self, name: str) -> None:
        self.bound[name] = self.bound.get(name, 0) + 1

    def expression(self, name: str) -> cst.BaseExpression | None:
        """The expression last assigned to ``name`` by a single plain assignment, if any."""
        found: cst.BaseExpression | None = self.assigned.get(name)
        return found

    def assignments(self) -> list[tuple[str, cst.BaseExpression]]:
        """Every name with such an assignment and its expression, in order of first binding."""
        return list(self.assigned.items())

    def default(self, name: str) -> cst.BaseExpression | None:
        """The default of a function's parameter ``name``, if it has one."""
        found: cst.BaseExpression | None = self.defaults.get(name)
        return found


Frames = tuple[Frame, ...]


class AttributeSite:
    """An assignment to an attribute of a name: ``config.hidden_size = 4096`` (``receiver``,
    ``attr``), in the statement block ``block`` (0: a scope's own statements outside any
    compound statement; otherwise an identity shared by the statements of one suite, so that
    two arms of an ``if`` are two blocks). An augmented assignment (``x.n += 1``) has no
    value: it only says the attribute changes."""

    __slots__ = ("_raw", "attr", "block", "convert", "frames", "receiver")

    def __init__(
        self,
        receiver: str,
        attr: str,
        raw: Any,
        frames: Frames,
        block: int,
        convert: Any = None,
    ) -> None:
        self.receiver = receiver
        self.attr = attr
        self._raw = raw
        self.frames = frames
        self.block = block
        #: Turns the recorded value into a libcst-classed node (the ``ast`` reading's converter).
        self.convert = convert

    def value(self) -> cst.BaseExpression | None:
        """The assigned expression (None for an augmented assignment)."""
        if self._raw is None or self.convert is None:
            found: cst.BaseExpression | None = self._raw
            return found
        converted: cst.BaseExpression = self.convert(self._raw)
        return converted


class Site:
    """A node of interest and the scopes around it (innermost last; the module is implicit)."""

    __slots__ = ("frames", "node")

    def __init__(self, node: Any, frames: Frames) -> None:
        self.node = node
        self.frames = frames


class Scan:
    """What one pass over a module found."""

    __slots__ = (
        "attributes",
        "classes",
        "config_functions",
        "globals",
        "hparams_functions",
        "imported_from",
        "model_functions",
        "module",
        "module_aliases",
        "nn_aliases",
        "nn_names",
        "relative_from",
        "sites",
        "transformers_modules",
        "transformers_names",
    )

    def __init__(self) -> None:
        self.module = Frame("module", None)
        #: Names some function declares ``global``: never constants.
        self.globals: set[str] = set()
        self.classes: list[Site] = []
        #: Module-level functions whose body is a config (sacred's ``@ex.config``), by frame.
        self.config_functions: list[Frame] = []
        #: Module-level functions named as classes are (Trax's ``TransformerLM``): model
        #: constructors whose defaults are a model (:mod:`dimlint.sources.python.modelfunctions`).
        self.model_functions: list[Frame] = []
        #: Module-level functions registered as hyperparameter sets (tensor2tensor's
        #: ``@registry.register_hparams``): the object they build and return is a config.
        self.hparams_functions: list[Frame] = []
        #: Calls and dict literals, outer ones before the ones nested in them.
        self.sites: list[Site] = []
        #: Assignments to attributes of names (``config.hidden_size = 4096``), in source order.
        self.attributes: list[AttributeSite] = []
        #: Local names of the ``torch.nn`` module (``nn`` after ``from torch import nn``).
        self.nn_aliases: set[str] = set()
        #: Local name → ``torch.nn`` class name, for ``from torch.nn import Linear as L``.
        self.nn_names: dict[str, str] = {}
        #: Local name → name imported from ``transformers`` (``from transformers import
        #: LlamaConfig as LC``): only these classes get transformers' fields and defaults.
        self.transformers_names: dict[str, str] = {}
        #: Local names of the ``transformers`` package itself (``import transformers as tf``).
        self.transformers_modules: set[str] = set()
        #: Local name → the module it is imported from (``from megatron.core… import X``).
        self.imported_from: dict[str, str] = {}
        #: Local name → the module it names (``import ml_collections as mlc``: ``mlc``;
        #: ``import easydict``: ``easydict``).
        self.module_aliases: dict[str, str] = {}
        #: Local name → the last part of the module of a relative import (``from
        #: ...causal_lm_tester import CausalLMModelTester``: ``causal_lm_tester``).
        self.relative_from: dict[str, str] = {}


_SKIPPED_PREFIXES = (
    "whitespace",
    "lpar",
    "rpar",
    "comma",
    "semicolon",
    "leading_lines",
    "lines_after",
    "header",
    "footer",
    "colon",
    "equal",
    "star",
    "dot",
    "operator",
    "trailing_whitespace",
    "first_line",
    "empty_lines",
    "newline",
    "indent",
    "lbrace",
    "rbrace",
    "lbracket",
    "rbracket",
    "default_",
    "encoding",
    "has_trailing_newline",
    "asynchronous",
    "first_colon",
    "second_colon",
)
_FIELDS: dict[type, tuple[str, ...]] = {}


def _code_fields(cls: type) -> tuple[str, ...]:
    """The fields of a node class that can hold code (never whitespace or punctuation)."""
    found = _FIELDS.get(cls)
    if found is None:
        names = (f.name for f in dataclasses.fields(cls))
        found = _FIELDS[cls] = tuple(n for n in names if not n.startswith(_SKIPPED_PREFIXES))
    return found


def _push_children(stack: list[tuple[Any, Frames]], node: Any, frames: Frames) -> None:
    """Push the children in reverse, so that siblings pop in source order."""
    for name in reversed(_code_fields(node.__class__)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            stack.append((value, frames))
        elif isinstance(value, tuple | list):
            stack.extend(
                (item, frames) for item in reversed(value) if isinstance(item, cst.CSTNode)
            )


def _bind_target(frame: Frame, target: cst.BaseExpression) -> None:
    """Bind every name an assignment target binds (tuples, lists and starred included)."""
    if isinstance(target, cst.Name):
        frame.bind(target.value)
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            _bind_target(frame, element.value)
    elif isinstance(target, cst.StarredElement):
        _bind_target(frame, target.value)


def _bind_params(frame: Frame, params: cst.Parameters) -> None:
    for param in (*params.posonly_params, *params.params, *params.kwonly_params):
        frame.bind(param.name.value)
        frame.params.add(param.name.value)
        if param.default is not None:
            frame.defaults[param.name.value] = param.default
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            frame.bind(star.name.value)


def _record_import(scan: Scan, frame: Frame, node: cst.Import | cst.ImportFrom) -> None:
    if isinstance(node, cst.Import):
        for alias in node.names:
            name = dotted_name(alias.name)
            local = alias.evaluated_alias or (name or "").split(".")[0]
            frame.bind(local)
            if name is not None:
                scan.module_aliases[local] = name if alias.evaluated_alias else local
            if name == "torch.nn" and alias.evaluated_alias:
                scan.nn_aliases.add(alias.evaluated_alias)
            if name == "transformers" or (name or "").startswith("transformers."):
                scan.transformers_modules.add(alias.evaluated_alias or "transformers")
        return
    module = dotted_name(node.module) if node.module is not None and not node.relative else None
    if isinstance(node.names, cst.ImportStar):
        return
    for alias in node.names:
        imported = alias.evaluated_name
        local = alias.evaluated_alias or imported
        frame.bind(local)
        if module is not None:
            scan.imported_from[local] = module
        elif node.relative and node.module is not None:
            scan.relative_from[local] = (dotted_name(node.module) or "").rsplit(".", 1)[-1]
        if module == "torch" and imported == "nn":
            scan.nn_aliases.add(local)
        elif module == "torch.nn":
            scan.nn_names[local] = imported
        elif module is not None and (
            module == "transformers" or module.startswith("transformers.")
        ):
            scan.transformers_names[local] = imported


def _attribute_target(target: Any) -> tuple[str, str] | None:
    """``(receiver, attr)`` of a target ``name.attr`` or ``name.a.attr`` (receiver
    ``name.a``), else None."""
    if not isinstance(target, cst.Attribute):
        return None
    receiver = dotted_name(target.value)
    return (receiver, target.attr.value) if receiver is not None else None


def _note_blocks(
    blocks: dict[int, int], node: cst.IndentedBlock | cst.SimpleStatementSuite
) -> None:
    """Record the block of each attribute assignment among a suite's statements."""
    for statement in node.body:
        small = statement.body if isinstance(statement, cst.SimpleStatementLine) else (statement,)
        for item in small:
            if isinstance(item, cst.Assign | cst.AugAssign):
                blocks[id(item)] = id(node)


#: Stack markers around such a block's body (the walk is depth first: everything between
#: them is inside the block).
ENTER_RAISING, LEAVE_RAISING = object(), object()


def _raising_with(node: cst.With) -> bool:
    return any(
        isinstance(item.item, cst.Call) and expects_raise(dotted_name(item.item.func))
        for item in node.items
    )


#: sacred's decorators of a config function (``@ex.config``, ``@ex.named_config``): the
#: function's local variables, as it leaves them, are the run's configuration.
CONFIG_DECORATORS = ("config", "named_config")


def is_model_function(name: str) -> bool:
    """A module-level function named as a class is (Trax's ``TransformerLM``): a model
    constructor (:mod:`dimlint.sources.python.modelfunctions`)."""
    return name[:1].isupper()


#: Decorators that register a function as a set of hyperparameters (tensor2tensor's
#: ``@registry.register_hparams``).
HPARAMS_DECORATORS = frozenset({"register_hparams"})


def is_hparams_decorator(name: str | None) -> bool:
    """Whether a decorator's dotted name registers a hyperparameter set
    (``registry.register_hparams``)."""
    return bool(name) and str(name).rsplit(".", 1)[-1] in HPARAMS_DECORATORS


def is_config_decorator(name: str | None) -> bool:
    """Whether a decorator's dotted name is sacred's ``<experiment>.config`` (or
    ``named_config``): an attribute of an experiment object, never a bare name."""
    if not name or "." not in name:
        return False
    return name.rsplit(".", 1)[1] in CONFIG_DECORATORS


def scan(module: cst.Module) -> Scan:
    """Walk ``module`` once and collect what the config and layer front ends need."""
    result = Scan()
    root = result.module
    stack: list[tuple[Any, Frames]] = [(statement, ()) for statement in reversed(module.body)]
    raising = 0
    seen_raising = False
    blocks: dict[int, int] = {}  # attribute assignment → its suite (absent: the scope's own)
    scopes: set[int] = set()  # the bodies of defs and classes
    while stack:
        node, frames = stack.pop()
        if node is ENTER_RAISING or node is LEAVE_RAISING:
            raising += 1 if node is ENTER_RAISING else -1
            continue
        frame = frames[-1] if frames else root
        kind = node.__class__
        if kind is cst.Call and expects_raise(dotted_name(node.func)):
            seen_raising = True  # pytest.raises(E, Config, width=…): its arguments must raise
            stack.append((LEAVE_RAISING, frames))
            stack.extend((arg, frames) for arg in reversed(node.args))
            stack.append((ENTER_RAISING, frames))
            continue
        if kind is cst.Call or kind is cst.Dict:
            if not raising:
                result.sites.append(Site(node, frames))
        elif kind is cst.With and _raising_with(node):
            seen_raising = True
            stack.extend([(LEAVE_RAISING, frames), (node.body, frames), (ENTER_RAISING, frames)])
            stack.extend((item, frames) for item in reversed(node.items))
            continue
        elif kind is cst.Assign:
            for target in node.targets:
                _bind_target(frame, target.target)
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                frame.assigned[node.targets[0].target.value] = node.value
            for target in node.targets:
                named = _attribute_target(target.target)
                if named is not None:
                    block = blocks.get(id(node), 0)
                    result.attributes.append(AttributeSite(*named, node.value, frames, block))
            stack.append((node.value, frames))
            continue
        elif kind is cst.IndentedBlock or kind is cst.SimpleStatementSuite:
            if id(node) not in scopes:  # a def's or class's own statements are block 0
                _note_blocks(blocks, node)
        elif kind is cst.AnnAssign:
            if node.value is not None:
                _bind_target(frame, node.target)
                if isinstance(node.target, cst.Name):
                    frame.assigned[node.target.value] = node.value
                stack.append((node.value, frames))
            continue
        elif kind is cst.AugAssign or kind is cst.For or kind is cst.NamedExpr:
            _bind_target(frame, node.target)
            named = _attribute_target(node.target) if kind is cst.AugAssign else None
            if named is not None:
                block = blocks.get(id(node), 0)
                result.attributes.append(AttributeSite(*named, None, frames, block))
        elif kind is cst.WithItem:
            if node.asname is not None:
                _bind_target(frame, node.asname.name)
        elif kind is cst.ExceptHandler:
            if node.name is not None:
                _bind_target(frame, node.name.name)
        elif kind is cst.Import or kind is cst.ImportFrom:
            _record_import(result, frame, node)
            continue
        elif kind is cst.Global:
            result.globals.update(item.name.value for item in node.names)
            continue
        elif kind is cst.FunctionDef:
            frame.bind(node.name.value)
            inner = Frame("function", node, node.name.value)
            if not frames and any(
                is_config_decorator(dotted_name(d.decorator)) for d in node.decorators
            ):
                result.config_functions.append(inner)
            elif not frames and is_model_function(node.name.value):
                result.model_functions.append(inner)
            if not frames and any(
                is_hparams_decorator(dotted_name(d.decorator)) for d in node.decorators
            ):
                result.hparams_functions.append(inner)
            scopes.add(id(node.body))
            _bind_params(inner, node.params)
            stack.append((node.body, (*frames, inner)))
            params = (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
            stack.extend((p.default, frames) for p in reversed(params) if p.default is not None)
            stack.extend((decorator, frames) for decorator in reversed(node.decorators))
            continue
        elif kind is cst.Lambda:
            inner = Frame("function", node)
            _bind_params(inner, node.params)
            stack.append((node.body, (*frames, inner)))
            continue
        elif kind is cst.ClassDef:
            frame.bind(node.name.value)
            inner = Frame("class", node)
            scopes.add(id(node.body))
            result.classes.append(Site(node, (*frames, inner)))
            stack.append((node.body, (*frames, inner)))
            outside = (*node.decorators, *node.bases, *node.keywords)
            stack.extend((expression, frames) for expression in reversed(outside))
            continue
        elif kind in (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp):
            inner = Frame("function", node)
            comp: Any = node.for_in
            while comp is not None:
                _bind_target(inner, comp.target)
                comp = comp.inner_for_in
            frames = (*frames, inner)
        _push_children(stack, node, frames)
    if seen_raising:  # a config built before the block and read only in there
        dropped = in_cst(module)
        result.sites = [site for site in result.sites if id(site.node) not in dropped]
    return result
