"""Configs set attribute by attribute: ``config.hidden_size = 4096`` after the config is built.

Training code often builds a config and then sets its sizes one by one (FlagScale's and verl's
``get_vision_model_config(config)`` turn a decoder's megatron-core ``TransformerConfig`` into
the vision tower's: ``config.num_attention_heads = 16``, ``config.hidden_size = 1280``; tests do
``config = LlamaConfig(); config.hidden_size = 4100``). The assignments a scope makes to one
name in one statement block are one config:

* the object must be identified, or nothing is read: the name is bound in the same scope to a
  call that is a config (a config call of the file, a transformers config class, a class of
  this file, megatron-core's classes), or it is a parameter of a function in a file that imports
  megatron or NeMo (their ``TransformerConfig``: megatron-core's semantics, head width
  floor-divided, apply), or an attribute dict (easydict's ``EasyDict``, ml_collections'
  ``ConfigDict``: Wan2.1's ``t2v_14B = EasyDict(); t2v_14B.dim = 5120``), whose config is
  the keys the code writes, its constructor's keywords and the attributes set. A mock
  (``MagicMock()``) in a test, a ``SimpleNamespace`` or a name bound any other way is not a
  config dimlint knows. In a function registered as a
  hyperparameter set (tensor2tensor's ``@registry.register_hparams def transformer_big():
  hparams = transformer_base(); hparams.hidden_size = 1024; hparams.num_heads = 16``) the
  object bound to a call and set attribute by attribute is the set itself: read from the values
  the function writes (its base's are another function's, not read);
* each assignment is a block's: the arms of an ``if`` are separate configs (FlagScale's
  ``if vision_model_type == "clip": … elif "siglip": …``); an attribute assigned twice in a
  block with different values, or changed by ``+=``, is not read; where several blocks of a
  scope set sizes of one receiver, each is read on its own (which run, and in what order, is
  not known), not over the constructor's values;
* an assigned value overrides the constructor's (the call's members are the base: a finding
  the call alone raises stays the call's, a finding about an assigned value sits at the
  assignment's line, where a fix edits its literal); an assignment computed from earlier ones
  (``config.kv_channels = config.hidden_size // config.num_attention_heads``) is read with
  their values, as the code computes it, and is never rewritten by a fix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from dimlint.sources.python.configs import (
    ALL_DIMENSION_KEYS,
    MEGATRON_MODULES,
    TEST_DOUBLES,
    Candidate,
    has_dimensions,
)
from dimlint.sources.python.dotted import dotted_name
from dimlint.sources.python.values import UNKNOWN, Member, Value, arithmetic, is_number

if TYPE_CHECKING:
    from dimlint.sources.python.configs import Extractor
    from dimlint.sources.python.scan import AttributeSite, Frame, Frames, Scan


#: Receivers that are never a config built in the scope (the instance and the class).
_NOT_RECEIVERS = frozenset({"self", "cls"})
#: Packages of attribute dicts, a config's keys set as attributes: easydict's ``EasyDict``
#: (Wan2.1's ``t2v_14B = EasyDict(); t2v_14B.dim = 5120; t2v_14B.num_heads = 40``),
#: ml_collections' ``ConfigDict``, addict's ``Dict``, munch's ``Munch``. What they hold is
#: what the code writes, as a ``dict(...)``'s keywords: no class and no defaults.
ATTRIBUTE_DICT_MODULES = frozenset({"easydict", "ml_collections", "addict", "munch"})


def candidates(extractor: Extractor, calls: list[Candidate]) -> list[Candidate]:
    """The configs the file sets attribute by attribute (``calls``: the file's call
    candidates, whose anchors identify a receiver's constructor)."""
    scan = extractor.scan
    groups: dict[tuple[int, int, str], list[AttributeSite]] = {}
    for site in scan.attributes:
        if site.receiver in _NOT_RECEIVERS:
            continue
        scope = site.frames[-1] if site.frames else scan.module
        groups.setdefault((id(scope), site.block, site.receiver), []).append(site)
    by_callee = {id(c.anchor): c for c in calls if c.kind == "call"}
    sizing: dict[tuple[int, str], int] = {}  # blocks that assign a size, by scope and receiver
    for (scope_id, _, receiver), sites in groups.items():
        if any(site.attr in ALL_DIMENSION_KEYS for site in sites):
            sizing[(scope_id, receiver)] = sizing.get((scope_id, receiver), 0) + 1
    found = []
    for (scope_id, _, receiver), sites in groups.items():
        alone = sizing.get((scope_id, receiver), 0) <= 1
        candidate = _group(extractor, sites, by_callee, alone)
        if candidate is not None:
            found.append(candidate)
    return found


def _group(
    extractor: Extractor,
    sites: list[AttributeSite],
    by_callee: dict[int, Candidate],
    alone: bool,
) -> Candidate | None:
    """One block's assignments as a config: over the constructor's values only when no other
    block of the scope sets a size of the receiver (which of them runs, and in what order, is
    not known), else on their own."""
    receiver, frames = sites[0].receiver, sites[0].frames
    scope = frames[-1] if frames else extractor.scan.module
    identified = _identify(extractor, scope, receiver, frames, by_callee)
    if identified is None:
        return None
    base, framework = identified
    if not alone:
        base = None
    own = _assigned(extractor, sites)
    sized = [key for key, member in own.items() if _is_size(member.value.value)]
    if base is None and not has_dimensions(sized):
        return None
    if base is not None and not ALL_DIMENSION_KEYS & set(sized):
        return None
    first = next(iter(own.values()))
    name = f"{receiver} (attributes)" if base is None else f"{receiver} = {base.name}"
    if base is None:
        candidate = Candidate("call", name, first.use, own)
    else:
        members = {**base.members, **own}
        inherited = frozenset(key for key in members if key not in own)
        candidate = Candidate(
            "call", name, first.use, members, base.model_type, base=base, inherited=inherited
        )
        candidate.base_model_type = base.base_model_type
        candidate.typed = base.typed
    candidate.framework = framework
    return candidate


def _is_size(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _identify(
    extractor: Extractor,
    scope: Frame,
    receiver: str,
    frames: Frames,
    by_callee: dict[int, Candidate],
) -> tuple[Candidate | None, str | None] | None:
    """What the receiver is: (the config it was built as, its framework), or None when it is
    not a config dimlint knows (then nothing is read)."""
    scan = extractor.scan
    if "." in receiver:  # ``config.model.width = 768``
        return (None, None) if _nested_attribute_dict(extractor, scope, receiver) else None
    if scope.bound.get(receiver) != 1:
        return None
    if receiver in scope.params:
        megatron = any(
            module.startswith(MEGATRON_MODULES) for module in scan.imported_from.values()
        )
        return (None, "megatron") if megatron and scope.kind == "function" else None
    expression = scope.expression(receiver)
    if not isinstance(expression, cst.Call):
        return None
    if any(scope is frame for frame in scan.hparams_functions):
        return None, None  # a registered hyperparameter set: the object it builds is a config
    known = by_callee.get(id(expression.func))
    if known is not None and (
        known.base_model_type is not None or known.framework is not None or known.base is not None
    ):  # a transformers or Megatron config, or an override of a config class of the file
        return known, known.framework
    callee = dotted_name(expression.func)
    if callee is None:
        return None
    last = callee.rsplit(".", maxsplit=1)[-1]
    if last in TEST_DOUBLES:
        return None
    if any(arg.star for arg in expression.args):
        return None  # **kwargs: the built config is not known
    if last in extractor.classes:
        return extractor.classes[last], extractor.classes[last].framework
    model_type = extractor.transformers_model_type(callee)
    if model_type is not None:
        base = Candidate("call", f"{last}(...)", expression.func, {}, model_type)
        base.base_model_type = model_type
        return base, None
    if attribute_dict(callee, scan):  # its config is the values written
        written = extractor.evaluator.keyword_members(expression, frames) or []
        if not ALL_DIMENSION_KEYS & {member.key for member in written}:
            return None, None
        own = {member.key: member for member in written}
        return Candidate("call", f"{last}(...)", expression.func, own), None
    framework = extractor.framework_of(callee)
    return (None, framework) if framework == "megatron" else None


def attribute_dict(callee: str, scan: Scan) -> bool:
    """Whether ``callee`` builds an attribute dict (:data:`ATTRIBUTE_DICT_MODULES`): a class
    imported from one of those packages (``from easydict import EasyDict as edict``) or named
    through the package (``ml_collections.ConfigDict``, ``mlc.ConfigDict`` after ``import
    ml_collections as mlc``)."""
    head = callee.split(".", maxsplit=1)[0]
    module = scan.imported_from.get(head)
    if module is None and "." in callee:
        module = scan.module_aliases.get(head)
    return (module or "").split(".", maxsplit=1)[0] in ATTRIBUTE_DICT_MODULES


def _nested_attribute_dict(extractor: Extractor, scope: Frame, receiver: str) -> bool:
    """Whether ``receiver`` (``config.model``) is an attribute dict built in the scope: its
    parent is one (a name bound once to an attribute dict's call, or such a path itself), and
    the scope sets it once, to an empty attribute dict (``config.model = mlc.ConfigDict()``),
    ``dict()`` or ``{}``: ml_collections makes a dict set on a ``ConfigDict`` one."""
    parent, _, attr = receiver.rpartition(".")
    if "." in parent:
        if not _nested_attribute_dict(extractor, scope, parent):
            return False
    else:
        if scope.bound.get(parent) != 1:
            return False
        built = scope.expression(parent)
        callee = dotted_name(built.func) if isinstance(built, cst.Call) else None
        if callee is None or not attribute_dict(callee, extractor.scan):
            return False
    sets = [
        site
        for site in extractor.scan.attributes
        if site.receiver == parent
        and site.attr == attr
        and (site.frames[-1] if site.frames else extractor.scan.module) is scope
    ]
    if len(sets) != 1:
        return False
    value = sets[0].value()
    if isinstance(value, cst.Dict):
        return not value.elements
    if not isinstance(value, cst.Call) or value.args:
        return False
    callee = dotted_name(value.func)
    return callee is not None and (callee == "dict" or attribute_dict(callee, extractor.scan))


def _assigned(extractor: Extractor, sites: list[AttributeSite]) -> dict[str, Member]:
    """The attributes a block assigns and their values (conflicting or changed ones left
    out), each computed with the values assigned before it."""
    evaluator = extractor.evaluator
    members: dict[str, Member] = {}
    dropped: set[str] = set()
    receiver = sites[0].receiver
    for site in sites:
        expression = site.value()
        if site.attr in dropped:
            continue
        if expression is None:  # ``x.n += 1``
            dropped.add(site.attr)
            members.pop(site.attr, None)
            continue
        value = _evaluate(expression, site.frames, receiver, members, evaluator)
        earlier = members.get(site.attr)
        if earlier is not None and earlier.value.value != value.value:
            dropped.add(site.attr)
            del members[site.attr]
            continue
        members[site.attr] = Member(site.attr, None, None, expression, value)
    return {key: m for key, m in members.items() if m.value.value not in (UNKNOWN, None)}


def _evaluate(
    expression: cst.BaseExpression,
    frames: Frames,
    receiver: str,
    members: dict[str, Member],
    evaluator: Any,
) -> Value:
    """``expression``'s value, ``receiver.attr`` read as the block assigned it before."""
    if (
        isinstance(expression, cst.Attribute)
        and isinstance(expression.value, cst.Name)
        and expression.value.value == receiver
    ):
        earlier = members.get(expression.attr.value)
        return Value(earlier.value.value) if earlier is not None else Value(UNKNOWN)
    if isinstance(expression, cst.BinaryOperation):
        left = _evaluate(expression.left, frames, receiver, members, evaluator).value
        right = _evaluate(expression.right, frames, receiver, members, evaluator).value
        if is_number(left) and is_number(right):
            return Value(arithmetic(expression.operator.__class__, left, right))
        return Value(UNKNOWN)
    found: Value = evaluator.evaluate(expression, frames)
    return found
