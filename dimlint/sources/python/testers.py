"""transformers' ``CausalLMModelTester`` subclasses, read as the config their tests build.

transformers' decoder test suites (and the repositories that vendor them) no longer write a
``get_config``: a model's tester subclasses ``CausalLMModelTester`` (``tests/causal_lm_tester.py``)
and names its classes (``config_class = LlamaConfig``, ``base_model_class = LlamaModel``), and the
parent builds ``self.config_class(**kwargs)`` from its own attributes — each ``__init__``
parameter of the config class the tester has (and ``pad_token_id``). The sizes come from the
parent's ``__init__`` defaults (:data:`CAUSAL_LM_TESTER_DEFAULTS`), overridden by what the
subclass's ``__init__`` hands to ``super().__init__(parent, num_attention_heads=4, …)`` and then
sets itself (``self.hidden_size = 64``). The parent also sets ``self.head_dim = self.hidden_size
// self.num_attention_heads`` from the sizes it was given, so a config class with a ``head_dim``
parameter gets that floor-divided head width explicitly (a hidden size its heads do not divide is
no DL101 there: the tests run it).

Read, each value where it is written (a default's literal, where a fix edits it; the parent's
defaults are defaults of the candidate, not its own text), only when certain:

* the class derives from ``CausalLMModelTester`` imported from a ``causal_lm_tester`` module,
  or from such a tester class of the same file (its values are the parent's);
* the model type comes from ``config_class``, or a model class (``base_model_class``,
  ``causal_lm_class``) transformers registers for one model type, or the parent tester;
* the subclass's ``__init__`` (when it has one) calls ``super().__init__`` exactly once; a value
  handed to it is a literal or a parameter of ``__init__`` with a default it never rebinds; an
  attribute it sets itself is set once in the whole class, in ``__init__``'s own statements.

Anything else — a parent tester defined in another file, a size set twice or computed from
what the code cannot know — leaves the tester unread, with a ``--verbose`` note saying why.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from dimlint.config import architectures, model_classes
from dimlint.config.normalize import field_keys
from dimlint.sources.python.configs import Candidate, model_type_of_class
from dimlint.sources.python.dotted import dotted_name
from dimlint.sources.python.scan import Frame, Frames, Scan, Site
from dimlint.sources.python.values import UNKNOWN, Evaluator, Member, Value

#: The parent class, and the module it is imported from (``from ...causal_lm_tester import``).
CAUSAL_LM_TESTER = "CausalLMModelTester"
TESTER_MODULE = "causal_lm_tester"
#: ``CausalLMModelTester.__init__``'s defaults that a config class can take (transformers'
#: ``tests/causal_lm_tester.py``, from 2025: the sizes every decoder's test model is built with
#: unless its tester says otherwise).
CAUSAL_LM_TESTER_DEFAULTS: dict[str, Any] = {
    "vocab_size": 99,
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "num_key_value_heads": 2,
    "intermediate_size": 37,
    "hidden_act": "gelu",
    "max_position_embeddings": 512,
    "type_vocab_size": 16,
    "pad_token_id": 0,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "moe_intermediate_size": 12,
    "shared_expert_intermediate_size": 36,
    "num_experts_per_tok": 2,
    "num_experts": 8,
    "mamba_n_groups": 1,
    "mamba_n_heads": 16,
    "mamba_d_state": 16,
    "mamba_d_conv": 4,
    "mamba_expand": 2,
    "mamba_chunk_size": 16,
}
#: Arguments ``get_config`` passes even when the config class's signature lacks them.
FORCED_ARGUMENTS = frozenset({"pad_token_id"})
#: Class attributes that name the tester's classes, in the order the model type is taken from.
CLASS_ATTRIBUTES = ("config_class", "causal_lm_class", "base_model_class")
#: Sizes that must be certain for the tester to be read (the geometry rules reason on them).
_COUPLED = field_keys("hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "layers")


class _Tester:
    """What one tester class sets: its values (members by attribute), its model type, and the
    keys the class writes itself (the rest come from its parent)."""

    __slots__ = ("base", "model_type", "own", "values")

    def __init__(
        self,
        values: dict[str, Member],
        model_type: str | None,
        own: frozenset[str],
        base: Candidate | None,
    ) -> None:
        self.values = values
        self.model_type = model_type
        self.own = own
        self.base = base


class Testers:
    """The ``CausalLMModelTester`` subclasses of one module."""

    def __init__(self, scan: Scan, evaluator: Evaluator) -> None:
        self.scan = scan
        self.evaluator = evaluator
        self.notes: list[str] = []
        names: dict[str, int] = {}
        for site in scan.classes:
            names[site.node.name.value] = names.get(site.node.name.value, 0) + 1
        self._sites = {
            site.node.name.value: site for site in scan.classes if names[site.node.name.value] == 1
        }
        self._done: dict[str, _Tester | None] = {}
        self._active: set[str] = set()

    def candidates(self) -> list[Candidate]:
        found: list[Candidate] = []
        for name, site in self._sites.items():
            if not self._is_tester(site, set()):
                continue
            tester = self._tester(name)
            if tester is None:
                continue
            candidate = self._candidate(site, tester)
            if candidate is not None:
                found.append(candidate)
        return found

    # --- which classes are testers --------------------------------------------------------

    def _bases(self, site: Site) -> list[str]:
        node: cst.ClassDef = site.node
        return [dotted_name(arg.value) or "" for arg in node.bases if arg.keyword is None]

    def _is_tester(self, site: Site, seen: set[str]) -> bool:
        for base in self._bases(site):
            if base == CAUSAL_LM_TESTER and self._imported_tester():
                return True
            parent = self._sites.get(base)
            if parent is not None and base not in seen:
                seen.add(base)
                if self._is_tester(parent, seen):
                    return True
        return False

    def _imported_tester(self) -> bool:
        """Whether ``CausalLMModelTester`` comes from a ``causal_lm_tester`` module (transformers'
        ``from ...causal_lm_tester import``, or an absolute import of a vendored copy)."""
        module = self.scan.imported_from.get(CAUSAL_LM_TESTER, "").rsplit(".", 1)[-1]
        return TESTER_MODULE in (module, self.scan.relative_from.get(CAUSAL_LM_TESTER))

    # --- what a tester sets -----------------------------------------------------------------

    def _tester(self, name: str) -> _Tester | None:
        if name in self._done:
            return self._done[name]
        if name in self._active:
            return None  # class A(B), class B(A): never built
        self._active.add(name)
        try:
            built = self._build(name)
        finally:
            self._active.discard(name)
        self._done[name] = built
        return built

    def _build(self, name: str) -> _Tester | None:
        site = self._sites[name]
        anchor = site.node.name
        bases = self._bases(site)
        parent: _Tester | None = None
        if CAUSAL_LM_TESTER in bases:
            values = {
                key: Member(key, None, None, anchor, Value(value))
                for key, value in CAUSAL_LM_TESTER_DEFAULTS.items()
            }
            parent = _Tester(values, None, frozenset(), None)
        else:
            parent_name = next((b for b in bases if b in self._sites), None)
            parent = self._tester(parent_name) if parent_name is not None else None
            if parent is None:
                self.notes.append(f"{name}: not read (its parent tester is not read)")
                return None
        frame: Frame = site.frames[-1]
        if frame.bound.get("get_config"):
            return None  # its own get_config call is read as any config call
        values = dict(parent.values)
        own: set[str] = set()
        if frame.bound.get("__init__"):
            handed = self._super_arguments(name, frame)
            if handed is None:
                return None
            values.update(handed)
            own.update(handed)
        if "head_dim" not in own:
            values["head_dim"] = _floor_head_dim(values, anchor)
        assigned = self._assigned(name, frame)
        if assigned is None:
            return None
        values.update(assigned)
        own.update(assigned)
        model_type = self._model_type(frame) or parent.model_type
        return _Tester(values, model_type, frozenset(own), None)

    def _super_arguments(self, name: str, frame: Frame) -> dict[str, Member] | None:
        """What ``__init__`` hands to ``super().__init__``, by keyword (None: not certain)."""
        calls = [
            site
            for site in self.scan.sites
            if len(site.frames) >= 2
            and site.frames[-2] is frame
            and site.frames[-1].name == "__init__"
            and _is_super_init(site.node)
        ]
        if len(calls) != 1:
            self.notes.append(
                f"{name}: not read (its __init__ does not call super().__init__ once)"
            )
            return None
        site = calls[0]
        call: cst.Call = site.node
        init = site.frames[-1]
        handed: dict[str, Member] = {}
        positional = 0
        for arg in call.args:
            if arg.star in {"**", "*"}:
                continue  # the caller's arguments passed on: the tests pass none
            if arg.keyword is None:
                positional += 1
                if positional > 1:  # the parent's parameters after ``parent``, by position
                    self.notes.append(f"{name}: not read (sizes handed to super() by position)")
                    return None
                continue
            key = arg.keyword.value
            handed[key] = self._member(key, arg.keyword, arg.value, init, site.frames)
        return handed

    def _assigned(self, name: str, frame: Frame) -> dict[str, Member] | None:
        """The attributes the class sets itself (``self.hidden_size = 64``): each set once, in
        ``__init__``'s own statements; a size set otherwise leaves the tester unread."""
        sites: dict[str, list[Any]] = {}
        for site in self.scan.attributes:
            if site.receiver == "self" and len(site.frames) >= 2 and site.frames[-2] is frame:
                sites.setdefault(site.attr, []).append(site)
        assigned: dict[str, Member] = {}
        for attr, found in sites.items():
            site = found[0]
            value = site.value()
            certain = (
                len(found) == 1
                and site.frames[-1].name == "__init__"
                and site.block == 0
                and value is not None
            )
            if not certain:
                if attr in _COUPLED:
                    self.notes.append(f"{name}: not read (self.{attr} is set more than once)")
                    return None
                continue
            assigned[attr] = self._member(attr, None, value, site.frames[-1], site.frames)
        return assigned

    def _member(
        self,
        key: str,
        key_node: cst.CSTNode | None,
        value: cst.BaseExpression,
        init: Frame,
        frames: Frames,
    ) -> Member:
        """``key`` as written: a parameter of ``__init__`` stands for its default (read where
        the ``def`` is, and fixed there), anything else for its own value."""
        if isinstance(value, cst.Name) and value.value in init.params:
            default = init.default(value.value)
            if default is None or init.bound.get(value.value) != 1:
                return Member(key, key_node, "identifier", value, Value(UNKNOWN))
            return Member(
                key, key_node, "identifier", default, self.evaluator.evaluate(default, frames[:-1])
            )
        evaluated = self.evaluator.evaluate(value, frames)
        if key_node is None:
            return Member(key, None, None, value, evaluated)
        return Member(key, key_node, "identifier", value, evaluated)

    def _model_type(self, frame: Frame) -> str | None:
        """The model type its ``config_class`` or model classes name, if one."""
        for attribute in CLASS_ATTRIBUTES:
            if frame.bound.get(attribute) != 1:
                continue
            expression = frame.expression(attribute)
            named = dotted_name(expression) if expression is not None else None
            if named is None:
                continue
            last = named.rsplit(".", 1)[-1]
            if attribute == "config_class":
                found = model_type_of_class(last)
            else:
                found = _model_type_of_model_class(last)
            if found is not None and architectures.lookup(found) is not None:
                return found
        return None

    # --- the config the tests build ---------------------------------------------------------

    def _candidate(self, site: Site, tester: _Tester) -> Candidate | None:
        name = site.node.name.value
        if tester.model_type is None:
            self.notes.append(f"{name}: not read (no config class or model class it names)")
            return None
        arch = architectures.lookup(tester.model_type)
        assert arch is not None
        accepted = set(arch.fields) | FORCED_ARGUMENTS
        members = {key: m for key, m in tester.values.items() if key in accepted}
        unknown = [
            key for key, m in members.items() if key in _COUPLED and m.value.value is UNKNOWN
        ]
        if unknown:
            self.notes.append(f"{name}: not read ({', '.join(sorted(unknown))} not known)")
            return None
        inherited = frozenset(key for key in members if key not in tester.own)
        defaults = {key: members[key] for key in inherited}
        anchor = site.node.name
        base = Candidate(
            "class", f"{CAUSAL_LM_TESTER} defaults", anchor, defaults, tester.model_type
        )
        base.base_model_type = tester.model_type
        candidate = Candidate(
            "class", name, anchor, members, tester.model_type, base=base, inherited=inherited
        )
        candidate.base_model_type = tester.model_type
        candidate.fixture = True
        return candidate


def _model_type_of_model_class(name: str) -> str | None:
    """The model type transformers registers a model class for; where several share the class
    (``LlamaModel`` serves llama, exaone, internlm3…), the one its name spells
    (``LlamaModel`` → ``LlamaConfig`` → llama)."""
    types = model_classes.model_types_of(name)
    if not types:
        return None
    if len(types) == 1:
        return next(iter(types))
    for suffix in ("ForCausalLM", "Model"):
        if name.endswith(suffix):
            spelled = model_type_of_class(name[: -len(suffix)] + "Config")
            return spelled if spelled in types else None
    return None


def _is_super_init(node: Any) -> bool:
    """``super().__init__(...)``."""
    if not isinstance(node, cst.Call):
        return False
    function = node.func
    if not isinstance(function, cst.Attribute) or function.attr.value != "__init__":
        return False
    inner = function.value
    return (
        isinstance(inner, cst.Call)
        and isinstance(inner.func, cst.Name)
        and inner.func.value == "super"
    )


def _floor_head_dim(values: dict[str, Member], anchor: cst.CSTNode) -> Member:
    """The parent's ``self.head_dim = self.hidden_size // self.num_attention_heads``."""
    hidden = values.get("hidden_size")
    heads = values.get("num_attention_heads")
    width: Any = UNKNOWN
    if hidden is not None and heads is not None:
        h, n = hidden.value.value, heads.value.value
        if _positive(h) and _positive(n) and h >= n:
            width = h // n  # (a width of 0 is no head: left unknown, the tester unread)
    return Member("head_dim", None, None, anchor, Value(width))


def _positive(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0
