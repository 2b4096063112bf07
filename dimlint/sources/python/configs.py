"""Config candidates in Python code: class definitions, constructor calls and dict tables.

A *candidate* is one set of config keys with their values and where each is written. It comes
from

* a class body's defaults — dataclass configs (nanoGPT's ``GPTConfig``, Meta's ``ModelArgs``,
  litgpt's ``Config``), transformers 5's annotated class attributes — and, for config classes,
  the defaults of ``__init__`` (transformers 4's ``def __init__(self, vocab_size=32000, …)``);
* a call: a config class of the same file (``GPTConfig(n_head=16)``, checked as the merge of the
  class defaults and the call), a transformers config (``LlamaConfig(hidden_size=…)``,
  ``AutoConfig.for_model("llama", …)``), ``dict(…)``, or any call whose keywords name two kinds of
  dimension (``Transformer(dim=…, n_heads=…)``);
* a dict literal whose keys do the same.

A candidate built on defaults it does not state itself — a call over its class's defaults, a
subclass over its parent's, a transformers call over the model type's defaults — records that
*base*, so that the linter reports only what the call itself adds: a finding already in the base
belongs to the base, and a fix edits the call's own values, never the shared defaults.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Literal

import libcst as cst

from dimlint.config import architectures
from dimlint.config.normalize import INT_FIELDS, field_keys
from dimlint.config.trainingkeys import (
    PAX_MARKERS,
    PAX_RENAMES,
    prefixed_models,
    width_is_width,
)
from dimlint.sources.python.dotted import dotted_name
from dimlint.sources.python.scan import Frames, Scan, Site
from dimlint.sources.python.values import UNKNOWN, Evaluator, Member, Value

CandidateKind = Literal["class", "call", "dict"]

#: Class attributes of transformers configs that describe the class, not the model.
CLASS_METADATA = frozenset(
    {
        "attribute_map",
        "base_config_key",
        "base_model_tp_plan",
        "base_model_pp_plan",
        "base_model_ep_plan",
        "base_model_fsdp_plan",
        "sub_configs",
        "sub_configs_defaults",
        "keys_to_ignore_at_inference",
        "ignore_keys_at_rope_validation",
        "default_theta",
        "default_rope_type",
        "default_partial_rotary_factor",
        "is_composition",
        "has_no_defaults_at_init",
    }
)
#: nanoGPT's config class (karpathy/nanoGPT ``model.py``) and the fields that name its dialect
#: together: ``block_size`` learned positions and the ``bias`` switch of its Linears and
#: LayerNorms are nanoGPT's (minGPT's ``GPTConfig`` has no ``bias``; modded-nanogpt's and
#: llm.c's have neither, and build other models). See :mod:`dimlint.sources.python.specs`.
NANOGPT_CLASS = "GPTConfig"
NANOGPT_FIELDS = frozenset({"n_layer", "n_head", "n_embd", "block_size", "bias"})
#: Name endings of classes whose ``__init__`` defaults are a config (not a layer's arguments).
CONFIG_CLASS_SUFFIXES = ("Config", "Configuration", "Args", "Arguments", "HParams", "Params")
#: Modules whose config classes are megatron-core ``TransformerConfig`` subclasses.
MEGATRON_MODULES = ("megatron.", "nemo.")
#: x-transformers' layer stacks, whose keywords (``dim``, ``depth``, ``heads``) are a model.
X_LAYER_STACKS = frozenset({"Decoder", "Encoder", "CrossAttender", "AttentionLayers"})
#: Attribute bags a test builds to stand in for a config (``SimpleNamespace(hidden_size=…,
#: layer_types=[…])`` returned by a mocked ``AutoConfig.from_pretrained``): in a test module they
#: hold what the code under test should see, and no framework ever builds a model from them.
TEST_DOUBLES = frozenset(
    {"SimpleNamespace", "Namespace", "Mock", "MagicMock", "NonCallableMock", "NonCallableMagicMock"}
)
#: The keyword of a test helper that checks a config class's attributes, not a model:
#: transformers' ``ConfigTester(self, config_class=SwiftFormerConfig, hidden_size=32,
#: num_attention_heads=12)`` (in its test suites and those that vendor them) sets each keyword
#: on the class and round-trips it through JSON and ``from_pretrained``; values are chosen to be
#: odd (``hidden_size=37`` over BERT's 12 heads) and no model is ever built from them.
CONFIG_TEST_KEYWORD = "config_class"
#: Keywords that make a call or dict a config when two of these groups are present.
DIMENSION_GROUPS = tuple(field_keys(field) for field in ("hidden", "heads", "layers"))
#: The spellings of a head width (``head_dim``, ``d_kv``, ``kv_channels``…).
HEAD_WIDTH_KEYS = field_keys("head_dim")
ALL_DIMENSION_KEYS = frozenset(
    key for standard, spellings in INT_FIELDS.values() for key in (standard, *spellings)
) | {"multiple_of", "ffn_dim_multiplier", "n_query_groups", "padded_vocab_size"}


class Candidate:
    """One config found in the code: its keys, where they are written, and what it builds on."""

    __slots__ = (
        "anchor",
        "base",
        "base_model_type",
        "brace",
        "check_keys",
        "fields",
        "fixture",
        "framework",
        "inherited",
        "kind",
        "members",
        "model_type",
        "name",
        "typed",
    )

    def __init__(
        self,
        kind: CandidateKind,
        name: str,
        anchor: cst.CSTNode,
        members: dict[str, Member],
        model_type: str | None = None,
        *,
        brace: bool = False,
        base: Candidate | None = None,
        inherited: frozenset[str] = frozenset(),
        check_keys: bool = False,
        fields: tuple[str, ...] = (),
    ) -> None:
        self.kind: CandidateKind = kind
        #: How messages and ``--verbose`` name it: ``GPTConfig``, ``LlamaConfig(...)``.
        self.name = name
        #: What a finding about the whole candidate points at (class name, callee, ``{``).
        self.anchor = anchor
        self.brace = brace
        self.members = members
        self.model_type = model_type
        self.base = base
        #: A transformers model type whose defaults this candidate builds on (calls).
        self.base_model_type: str | None = None
        #: Keys whose member comes from the base, not from this candidate's own text.
        self.inherited = inherited
        #: Whether DL004 (near-miss keys) applies: keywords of a transformers config.
        self.check_keys = check_keys
        #: Field names in positional order (dataclass fields or ``__init__`` parameters).
        self.fields = fields
        #: Whether the geometry rules judge it (False for a partial dict of a model type, in a
        #: file that never imports transformers: only its keys and values are judged).
        self.typed = True
        #: The training framework whose config class this is ("megatron" for megatron-core's
        #: ``TransformerConfig`` family and NeMo's subclasses), by what the file imports.
        self.framework: str | None = None
        #: A test helper's model (a transformers tester's): a fixture, no performance advice.
        self.fixture = False


def _nested_uses(members: Iterable[Member], into: set[int]) -> None:
    """The written values of every key nested in these members' dict values (not their own)."""
    stack = [member.value.members for member in members]
    while stack:
        for member in stack.pop():
            into.add(id(member.use))
            stack.append(member.value.members)


def is_test_module(path: str) -> bool:
    """Whether ``path`` names a test module by pytest's and unittest's conventions."""
    parts = path.replace("\\", "/").split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or any(part in ("tests", "test") for part in parts[:-1])
    )


def has_dimensions(keys: Any) -> bool:
    """Two of hidden / heads / layers are named: the same test JSON configs pass."""
    present = set(keys)
    if width_is_width(present):  # the ViT family's width, depth and heads
        return True
    return sum(1 for group in DIMENSION_GROUPS if group & present) >= 2


def sized_keys(members: dict[str, Member]) -> list[str]:
    """Keys whose value may be a size: not a string (``attribute_map`` maps names to names) and
    not a dict (transformers' docstring tables describe each field in a dict)."""
    return [
        key for key, member in members.items() if not isinstance(member.value.value, str | dict)
    ]


@functools.cache
def _compact_model_types() -> dict[str, str]:
    """Model types by their name without separators: ``gptneox`` → ``gpt_neox``."""
    return {
        name.replace("_", "").replace("-", ""): name for name in architectures.model_type_names()
    }


def model_type_of_class(name: str) -> str | None:
    """The transformers model type a config class name stands for (``GPTNeoXConfig``)."""
    if not name.endswith("Config") or name in ("Config", "PretrainedConfig", "PreTrainedConfig"):
        return None
    stem = name[: -len("Config")].lower()
    table = _compact_model_types()
    return table.get(stem) or table.get(stem + "model")


def _statements(node: cst.ClassDef) -> Iterator[cst.CSTNode]:
    """The statements of a class body, with ``a = 1; b = 2`` lines split."""
    body = node.body
    if isinstance(body, cst.SimpleStatementSuite):
        yield from body.body
        return
    for statement in body.body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        else:
            yield statement


def _field_default(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """``field(default=4096)`` → ``4096``; other ``field(...)`` calls have no static default."""
    if isinstance(value, cst.Call):
        name = dotted_name(value.func) or ""
        if name.split(".")[-1] in ("field", "Field"):
            for arg in value.args:
                if arg.keyword is not None and arg.keyword.value == "default":
                    return arg.value
            return None
    return value


def _is_class_var(annotation: cst.Annotation) -> bool:
    inner = annotation.annotation
    if isinstance(inner, cst.Subscript):
        inner = inner.value
    return (dotted_name(inner) or "").split(".")[-1] == "ClassVar"


def member_name_ok(name: str) -> bool:
    """Whether a class attribute of this name can be a config field (not private, not a
    constant, not class metadata)."""
    return not name.startswith("_") and not name.isupper() and name not in CLASS_METADATA


class Extractor:
    """Builds the candidates of one scanned module."""

    def __init__(self, scan: Scan, evaluator: Evaluator) -> None:
        self.scan = scan
        self.evaluator = evaluator
        #: Config-like classes of this file by name (names defined twice are left out).
        self.classes: dict[str, Candidate] = {}
        self._class_names: dict[str, int] = {}
        self._consumed: set[int] = set()
        #: Module functions of this file by name → the head width their body states itself.
        self._helper_widths: dict[str, Member | None] | None = None
        #: Looks up a named table entry (``from_name``'s base) by receiver and name.
        self.named: Callable[[str, str], dict[str, Any] | None] | None = None
        #: Whether the module is a test module (``test_*.py``, ``*_test.py``, under ``tests/``),
        #: where :data:`TEST_DOUBLES` are stand-ins, not configs.
        self.in_tests = False

    # --- module-level assignment files ------------------------------------------------------

    def module_candidate(self) -> Candidate | None:
        """nanoGPT's config files: plain module-level assignments that ``configurator.py``
        executes over the training script's globals (``n_layer = 6; n_head = 6; n_embd = 384``).

        Recognized by the names the normalizer knows (``n_embd``, ``n_head``, ``n_layer``,
        ``vocab_size``…) when they state two kinds of dimension; each name must be assigned
        exactly once, so a value that a later branch changes is not taken for the config.
        """
        module = self.scan.module
        members: dict[str, Member] = {}
        # a nanoGPT script's settings include the fields of its dialect that are no size
        nanogpt = NANOGPT_FIELDS if NANOGPT_CLASS in self.scan.imported_from else frozenset()
        for name in module.assigned:
            wanted = name in ALL_DIMENSION_KEYS or name in nanogpt
            if not wanted or module.bound.get(name) != 1:
                continue
            expression = module.expression(name)
            if expression is None:
                continue
            value = self.evaluator.evaluate(expression, ())
            members[name] = Member(name, None, None, expression, value)
        if not has_dimensions(sized_keys(members)):
            return None
        first = min(members.values(), key=lambda m: self._order(m.use))
        candidate = Candidate("dict", "module assignments", first.use, members)
        candidate.framework = self._nanogpt_settings(members)
        return candidate

    def config_function_candidates(self) -> list[Candidate]:
        """sacred's config functions (``@ex.config def config(): hidden_size = 768;
        num_heads = 12``): the local variables a run's configuration is made of, read as
        :meth:`module_candidate` reads a module's (each name assigned once, two kinds of
        dimension)."""
        found = []
        for frame in self.scan.config_functions:
            members: dict[str, Member] = {}
            for name in frame.assigned:
                if name not in ALL_DIMENSION_KEYS or frame.bound.get(name) != 1:
                    continue
                expression = frame.expression(name)
                if expression is None:
                    continue
                value = self.evaluator.evaluate(expression, ())
                members[name] = Member(name, None, None, expression, value)
            if has_dimensions(sized_keys(members)):
                first = next(iter(members.values()))
                found.append(Candidate("dict", f"{frame.name}() config", first.use, members))
        return found

    def _order(self, node: cst.CSTNode) -> int:
        """Source order of a module-level assignment's value (for the candidate's anchor)."""
        for index, (_, expression) in enumerate(self.scan.module.assignments()):
            if expression is node:
                return index
        return 0

    # --- classes ---------------------------------------------------------------------------

    def class_candidates(self) -> list[Candidate]:
        for site in self.scan.classes:
            name = site.node.name.value
            self._class_names[name] = self._class_names.get(name, 0) + 1
        found = []
        for site in self.scan.classes:
            built = self._class(site)
            if built is None:
                continue
            candidate, config_like = built
            eligible = self._eligible(candidate)
            if self._class_names[candidate.name] == 1 and (config_like or eligible):
                self.classes[candidate.name] = candidate
            if eligible:
                found.append(candidate)
        return found

    def _class(self, site: Site) -> tuple[Candidate, bool] | None:
        """The class's candidate, and whether the class is a config by its declaration
        (a dataclass, a ``...Config``/``...Args`` name, or a ``...Config`` base)."""
        node: cst.ClassDef = site.node
        bases = [dotted_name(arg.value) or "" for arg in node.bases if arg.keyword is None]
        base_names = [base.split(".")[-1] for base in bases]
        decorators = [
            (dotted_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator))
            or ""
            for d in node.decorators
        ]
        is_dataclass = any(d.split(".")[-1] == "dataclass" for d in decorators)
        config_like = (
            is_dataclass
            or node.name.value.endswith(CONFIG_CLASS_SUFFIXES)
            or any(b.endswith(("Config", "Configuration")) for b in base_names)
        )
        own, fields, model_type, constants = self._class_body(node, site.frames, config_like)
        parent = next((self.classes[b] for b in base_names if b in self.classes), None)
        pax = constants.keys() >= PAX_MARKERS or (
            parent is not None and parent.framework == "pax" and bool(constants)
        )
        if pax:
            own.update(constants)  # Pax's upper-case model attributes (PAX_RENAMES)
        members: dict[str, Member] = {}
        inherited: frozenset[str] = frozenset()
        if parent is not None:
            members.update(parent.members)
            inherited = frozenset(k for k in parent.members if k not in own)
            fields = (*parent.fields, *(f for f in fields if f not in parent.fields))
            model_type = model_type or parent.model_type
        members.update(own)
        if model_type is None:
            model_type = next(filter(None, map(self.transformers_model_type, bases)), None)
        if not members:
            return None
        candidate = Candidate(
            "class",
            node.name.value,
            node.name,
            members,
            model_type,
            base=parent,
            inherited=inherited,
            fields=fields,
        )
        if model_type is not None and architectures.lookup(model_type) is not None:
            candidate.base_model_type = model_type  # absent fields take the type's defaults
        candidate.framework = next(filter(None, map(self.framework_of, bases)), None)
        if pax:
            candidate.framework = "pax"
        if candidate.framework is None and parent is not None:
            candidate.framework = parent.framework
        if candidate.framework is None and node.name.value == NANOGPT_CLASS:
            candidate.framework = "nanogpt" if set(members) >= NANOGPT_FIELDS else None
        return candidate, config_like

    def _class_body(
        self, node: cst.ClassDef, frames: Frames, config_like: bool
    ) -> tuple[dict[str, Member], tuple[str, ...], str | None, dict[str, Member]]:
        """The class's members, its fields in order, its model type, and the upper-case
        attributes Pax states its model in (:data:`PAX_RENAMES`; kept apart: constants)."""
        annotated: dict[str, Member] = {}
        plain: dict[str, Member] = {}
        init: dict[str, Member] = {}
        constants: dict[str, Member] = {}
        model_type: str | None = None
        for statement in _statements(node):
            if isinstance(statement, cst.AnnAssign) and isinstance(statement.target, cst.Name):
                name = statement.target.value
                if not member_name_ok(name) or _is_class_var(statement.annotation):
                    continue
                annotated[name] = self._attribute(statement.target, statement.value, frames)
            elif (
                isinstance(statement, cst.Assign)
                and len(statement.targets) == 1
                and isinstance(statement.targets[0].target, cst.Name)
            ):
                target = statement.targets[0].target
                if target.value == "model_type":
                    value = self.evaluator.evaluate(statement.value, frames).value
                    model_type = value if isinstance(value, str) and value else None
                elif member_name_ok(target.value):
                    plain[target.value] = self._attribute(target, statement.value, frames)
                elif target.value in PAX_RENAMES:
                    constants[target.value] = self._attribute(target, statement.value, frames)
            elif (
                isinstance(statement, cst.FunctionDef)
                and statement.name.value == "__init__"
                and config_like
            ):
                init = self._init_params(statement, frames)
        # Dataclass-like classes declare fields with annotations; their unannotated class
        # attributes are class-level settings (transformers' tp plans, nanoGPT has none).
        members = dict(annotated) if annotated else dict(plain)
        members.update(init)
        fields = tuple(init) if init else tuple(annotated)
        return members, fields, model_type, constants

    def _attribute(
        self, target: cst.Name, value: cst.BaseExpression | None, frames: Frames
    ) -> Member:
        expression = _field_default(value) if value is not None else None
        if expression is None:
            return Member(target.value, target, "identifier", value or target, Value(UNKNOWN))
        evaluated = self.evaluator.evaluate(expression, frames)
        return Member(target.value, target, "identifier", expression, evaluated)

    def _init_params(self, function: cst.FunctionDef, frames: Frames) -> dict[str, Member]:
        params = (*function.params.posonly_params, *function.params.params)[1:]  # skip self
        found: dict[str, Member] = {}
        for param in (*params, *function.params.kwonly_params):
            name = param.name.value
            if param.default is None:
                found[name] = Member(name, param.name, "identifier", param.name, Value(UNKNOWN))
            else:
                value = self.evaluator.evaluate(param.default, frames)
                found[name] = Member(name, param.name, "identifier", param.default, value)
        return found

    @staticmethod
    def _eligible(candidate: Candidate) -> bool:
        """Enough dimensions to be worth checking (two kinds, or one of a known model type)."""
        keys = sized_keys(candidate.members)
        if candidate.framework == "pax":
            return set(keys) >= PAX_MARKERS
        if has_dimensions(keys) or prefixed_models(keys):
            return True
        return candidate.model_type is not None and bool(ALL_DIMENSION_KEYS & set(keys))

    # --- calls and dict literals ------------------------------------------------------------

    def site_candidates(self, is_layer: Callable[[cst.Call], bool]) -> list[Candidate]:
        """Candidates of calls and dict literals; ``is_layer(call)`` marks torch.nn layers."""
        found: list[Candidate] = []
        nested: set[int] = set()  # the values a call reads as its sub-configs' keys
        for site in self.scan.sites:
            node = site.node
            if id(node) in self._consumed:
                continue
            if isinstance(node, cst.Call):
                if is_layer(node):
                    continue
                candidate = self._call(node, site.frames)
            else:
                candidate = self._dict(node, site.frames)
            if candidate is not None:
                self._consume(candidate.members.values())
                if candidate.kind == "call":
                    _nested_uses(candidate.members.values(), nested)
                found.append(candidate)
        # A dict a later call reads as a sub-config through a name (transformers' testers:
        # ``text_config={…}`` as an ``__init__`` default, ``Glm4vMoeConfig(text_config=
        # self.text_config)``) is that call's, read with its sub-config's type and defaults:
        # not a second, untyped config of its own.
        return [
            candidate
            for candidate in found
            if candidate.kind != "dict"
            or not all(id(member.use) in nested for member in candidate.members.values())
        ]

    def _consume(self, members: Iterable[Member]) -> None:
        """Dicts nested in a candidate are part of it (sub-configs), not candidates of their own."""
        for member in members:
            if isinstance(member.use, cst.Dict | cst.Call) and member.value.members:
                self._consumed.add(id(member.use))
            self._consume(member.value.members)

    def _call(self, node: cst.Call, frames: Frames) -> Candidate | None:
        callee = dotted_name(node.func)
        if callee is None:
            return None
        last = callee.split(".")[-1]
        members_list = self.evaluator.keyword_members(node, frames)
        if members_list is None:
            return self._spread_call(node, frames, callee)
        own = {m.key: m for m in members_list}
        if last == "from_name" and "." in callee:
            return self._from_name(callee, node, own, frames)
        if last in self.classes:
            return self._override(self.classes[last], node, own, frames)
        framework = self.framework_of(callee)
        if not own:
            return None
        if callee == "dict":
            if any(arg.keyword is None for arg in node.args):
                return None
            return self._table("dict", "dict(...)", node.func, own)
        if last == "for_model" and callee.split(".")[-2:-1] == ["AutoConfig"]:
            positional = [a for a in node.args if a.keyword is None]
            model_type = (
                self.evaluator.evaluate(positional[0].value, frames).value if positional else None
            )
            if not isinstance(model_type, str):
                return None
            return self._transformers_call(f"{callee}(...)", node.func, own, model_type)
        model_type = self.transformers_model_type(callee)
        if model_type is not None and architectures.lookup(model_type) is not None:
            return self._transformers_call(f"{last}(...)", node.func, own, model_type)
        if framework == "x-transformers" and "dim" in own and {"heads", "depth"} & set(own):
            candidate = Candidate("call", f"{last}(...)", node.func, own)
            candidate.framework = framework
            return candidate
        if self.in_tests and (last in TEST_DOUBLES or CONFIG_TEST_KEYWORD in own):
            return None
        if has_dimensions(sized_keys(own)):
            helper = self._helper_width(callee, own)
            if helper is False:
                return None
            inherited: frozenset[str] = frozenset()
            if isinstance(helper, Member):
                own = {**own, helper.key: helper}
                inherited = frozenset({helper.key})
            candidate = Candidate("call", f"{last}(...)", node.func, own, inherited=inherited)
            candidate.framework = framework
            if framework is None and last == NANOGPT_CLASS:  # ``GPTConfig`` imported
                candidate.framework = self._nanogpt_settings(own)
            return candidate
        return None

    def _helper_width(self, callee: str, own: dict[str, Member]) -> Member | bool:
        """The head width a helper function of this file states itself, for a call to it that
        does not pass one: gemma's ``_gemma4_config(embed_dim=2560, num_heads=8)`` returns a
        ``TransformerConfig(embed_dim=embed_dim, num_heads=num_heads, head_dim=256)``, so the
        heads are 256 wide whatever the width. The member (a default of the call: findings and
        fixes stay on what the call writes) when it is a known value; False when the helper
        computes it (the call's head width is then unknown, and the call is not read); True
        when no helper of this file states one."""
        if "." in callee or HEAD_WIDTH_KEYS & own.keys():
            return True
        if self._helper_widths is None:
            self._helper_widths = self._function_head_widths()
        if callee not in self._helper_widths or self.scan.module.bound.get(callee) != 1:
            return True
        member = self._helper_widths[callee]
        return member if member is not None else False

    def _function_head_widths(self) -> dict[str, Member | None]:
        """Each module-level function of this file whose body states a head width in a call
        or dict (not one of its own parameters passed on): the first such member, or None when
        its value is not known without running the code."""
        found: dict[str, Member | None] = {}
        for site in self.scan.sites:
            frames = site.frames
            if not frames or frames[0].kind != "function" or not frames[0].name:
                continue
            name = frames[0].name
            if name in found:
                continue
            node = site.node
            if isinstance(node, cst.Call):
                members = self.evaluator.keyword_members(node, frames, written=True) or []
            else:
                value = self.evaluator.dict_literal(node, frames)
                members = list(value.members) if value.value is not UNKNOWN else []
            for member in members:
                if member.key not in HEAD_WIDTH_KEYS:
                    continue
                use = member.use
                if isinstance(use, cst.Name) and use.value in frames[0].params:
                    continue  # the caller's own value, passed on
                known = member.value.value
                if known is None:
                    continue  # ``head_dim=None``: derived from the width, as if not stated
                usable = isinstance(known, int) and not isinstance(known, bool) and known > 0
                found[name] = member if usable else None
                break
        return found

    def _spread_call(self, node: cst.Call, frames: Frames, callee: str) -> Candidate | None:
        """A model built with ``**kwargs`` spread over its written sizes: timm-style factories
        (``VisionTransformer(embed_dim=768, depth=12, num_heads=12, **kwargs)``, MAE's and
        DeiT's ``vit_base_patch16``). The written keywords hold (a spread cannot give one of them
        again); the spread may add any other key, so a class with defaults of its own (a
        transformers config, a config class of this file) is not read: its defaults could be
        overridden. An unknown class is read in its written values only, as any other call.
        Only a class (a CapWords name): a function or method the spread passes through
        (OLMo-core's ``cls.v1(d_model=640, hidden_size=640 * 8, **kwargs)``, whose
        ``hidden_size`` is the MLP's) may give its parameters any meaning."""
        last = callee.rsplit(".", maxsplit=1)[-1]
        if not last[:1].isupper() or last.isupper():
            return None
        if last in self.classes or last in TEST_DOUBLES or callee == "dict":
            return None
        if self.transformers_model_type(callee) is not None or last == "from_name":
            return None
        members_list = self.evaluator.keyword_members(node, frames, written=True) or []
        own = {m.key: m for m in members_list}
        if not has_dimensions(sized_keys(own)):
            return None
        candidate = Candidate("call", f"{last}(...)", node.func, own)
        candidate.framework = self.framework_of(callee)
        return candidate

    def framework_of(self, callee: str) -> str | None:
        """The framework of a config class by its import: ``megatron`` for megatron-core's and
        NeMo's classes (both are megatron-core ``TransformerConfig`` subclasses),
        ``x-transformers`` for its layer stacks (``Decoder(dim=, depth=, heads=)``)."""
        module = self.scan.imported_from.get(callee.split(".", maxsplit=1)[0], "")
        if module.startswith(MEGATRON_MODULES):
            return "megatron"
        if (
            module.startswith("x_transformers")
            and callee.rsplit(".", maxsplit=1)[-1] in X_LAYER_STACKS
        ):
            return "x-transformers"
        return None

    def transformers_model_type(self, callee: str) -> str | None:
        """The model type of a transformers config class the file imports from transformers.

        levanter's ``LlamaConfig(hidden_dim=…)`` and NeMo's ``Qwen2Config`` dataclass share
        transformers' class names, not its fields or defaults: a class is transformers' only
        when this file imports it from transformers (``from transformers import LlamaConfig``,
        ``transformers.LlamaConfig``)."""
        parts = callee.split(".")
        if len(parts) == 1:
            imported = self.scan.transformers_names.get(callee)
            return model_type_of_class(imported) if imported is not None else None
        if parts[0] in self.scan.transformers_modules:
            return model_type_of_class(parts[-1])
        return None

    def _from_name(
        self, callee: str, node: cst.Call, own: dict[str, Member], frames: Frames
    ) -> Candidate | None:
        """``Config.from_name("gemma-2-9b", n_head=16)``: the named table entry, overridden.

        Without the entry (no table found, a name built at run time) the call is not checked:
        the overrides alone are a patch on an unknown base, not a config.
        """
        positional = [arg for arg in node.args if arg.keyword is None]
        if len(positional) != 1 or self.named is None:
            return None
        name = self.evaluator.evaluate(positional[0].value, frames).value
        entry = self.named(callee.rsplit(".", 1)[0], name) if isinstance(name, str) else None
        if entry is None:
            return None
        inherited_members = {
            key: Member(key, None, None, node.func, Value(value))
            for key, value in entry.items()
            if key not in own and key != "hf_config"
        }
        base = Candidate("call", f"{name} (table entry)", node.func, inherited_members)
        members = {**inherited_members, **own}
        return Candidate(
            "call",
            f"{callee}({name!r}, ...)",
            node.func,
            members,
            base=base,
            inherited=frozenset(inherited_members),
        )

    def _transformers_call(
        self, name: str, anchor: cst.CSTNode, own: dict[str, Member], model_type: str
    ) -> Candidate:
        candidate = Candidate("call", name, anchor, own, model_type, check_keys=True)
        candidate.base_model_type = model_type
        return candidate

    def _override(
        self, base: Candidate, node: cst.Call, own: dict[str, Member], frames: Frames
    ) -> Candidate | None:
        """``GPTConfig(n_head=16)``: the class defaults, overridden by the call's arguments."""
        positional = [arg for arg in node.args if arg.keyword is None]
        if any(arg.star for arg in positional) or len(positional) > len(base.fields):
            return None
        stated: dict[str, Member] = {}
        for field, arg in zip(base.fields, positional, strict=False):
            stated[field] = Member(
                field, None, None, arg.value, self.evaluator.evaluate(arg.value, frames)
            )
        stated.update(own)
        if not stated:
            return None
        members = {**base.members, **stated}
        inherited = frozenset(k for k in members if k not in stated)
        candidate = Candidate(
            "call",
            f"{base.name}(...)",
            node.func,
            members,
            base.model_type,
            base=base,
            inherited=inherited,
            fields=base.fields,
        )
        if base.framework == "nanogpt":  # ``GPTConfig(n_layer=...)``: the class's dialect
            candidate.framework = base.framework
        return candidate if self._eligible(candidate) else None

    def _nanogpt_settings(self, members: dict[str, Member]) -> str | None:
        """``"nanogpt"`` for the settings of a nanoGPT training script — module assignments
        (``train.py``, ``config/*.py``) or ``dict(n_layer=n_layer, ...)`` — in a file that
        imports or defines nanoGPT's ``GPTConfig``, stating all the fields of its dialect."""
        named = NANOGPT_CLASS in self.scan.imported_from or (
            NANOGPT_CLASS in self.classes and self.classes[NANOGPT_CLASS].framework == "nanogpt"
        )
        return "nanogpt" if named and set(members) >= NANOGPT_FIELDS else None

    def _table(
        self, kind: CandidateKind, name: str, anchor: cst.CSTNode, own: dict[str, Member]
    ) -> Candidate | None:
        """A dict of config keys: an override of a config class of this file whose fields
        include all its keys (litgpt's tables of ``Config`` arguments), or a config of its own."""
        base = next(
            (c for c in self.classes.values() if set(own) <= set(c.members) and c.fields),
            None,
        )
        model_type = own["model_type"].value.value if "model_type" in own else None
        if not isinstance(model_type, str):
            model_type = None
        if (
            base is not None
            and has_dimensions(base.members)
            and ALL_DIMENSION_KEYS & set(sized_keys(own))
        ):
            members = {**base.members, **own}
            inherited = frozenset(k for k in members if k not in own)
            table = Candidate(
                kind,
                name,
                anchor,
                members,
                model_type or base.model_type,
                brace=kind == "dict",
                base=base,
                inherited=inherited,
            )
            table.framework = "nanogpt" if base.framework == "nanogpt" else None
            return table
        sized = sized_keys(own)
        if has_dimensions(sized) or (model_type and ALL_DIMENSION_KEYS & set(sized)):
            known = model_type is not None and architectures.lookup(model_type) is not None
            candidate = Candidate(
                kind, name, anchor, own, model_type, brace=kind == "dict", check_keys=known
            )
            candidate.framework = self._nanogpt_settings(own)
            # a partial table of one model type (a size or two beside ``model_type``) in a
            # file that never imports transformers: its keys and values are judged, not the
            # geometry the type's defaults would complete
            candidate.typed = has_dimensions(sized) or self._imports_transformers()
            return candidate
        return None

    def _imports_transformers(self) -> bool:
        """Whether the file imports anything from transformers (see ``Candidate.typed``)."""
        return bool(self.scan.transformers_names or self.scan.transformers_modules)

    def _dict(self, node: cst.Dict, frames: Frames) -> Candidate | None:
        value = self.evaluator.dict_literal(node, frames)
        if value.value is UNKNOWN or not value.members:
            return None
        own = {m.key: m for m in value.members}
        return self._table("dict", "{...}", node, own)
