"""Run the rules on the configs and torch layers of one parsed Python module.

Each finding comes back as a :class:`Pending`: the :class:`Finding` (JSON-pointer anchors into
the candidate's synthetic pointers) with the members those pointers stand for. Positions are
resolved later (:mod:`dimlint.lint.python_locate`) and only for findings that survive, so a clean
file
never pays for them.

A candidate that builds on a base (a call over its class's defaults, a subclass, a transformers
call over the model type's defaults) reports only what the base alone does not: the base's own
findings belong to the base. Its fix then edits the candidate's own text, because inherited
values are marked as defaults (:mod:`dimlint.sources.python.specs`).
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

from dimlint.checks.registry import REGISTRY, Finding
from dimlint.config.spec import (
    DIVISIBILITY_REQUIRED,
    FIXTURE,
    FRAMEWORK,
    INT_FIELD_NAMES,
    OWN_MODULE,
    Located,
    ModelSpec,
)
from dimlint.diagnostics import Severity
from dimlint.lint.run_rules import spec_findings
from dimlint.lint.selection import Selection
from dimlint.sources.python.configs import is_test_module

if TYPE_CHECKING:
    import libcst as cst

    from dimlint.sources.python.configs import Candidate
    from dimlint.sources.python.scan import Scan
    from dimlint.sources.python.specs import CandidateSpecs
    from dimlint.sources.python.values import Member

#: Rules that do not apply to Python candidates. DL005 (missing dimension): code states a
#: config partially and takes the rest from elsewhere, so absence is normal.
NOT_FOR_PYTHON = frozenset({"DL005"})
#: DL004 (near-miss keys) applies only to keywords of a known transformers config: a class of
#: the user's own defines its fields, it has none to misspell.
KEY_RULES = frozenset({"DL004"})
#: What a partial table of a model type gets (``Candidate.typed``): its keys and values only.
VALUE_RULES = frozenset({"DL003", "DL004"})


class Pending:
    """A finding waiting to be located: the members its pointers stand for."""

    __slots__ = ("anchor", "brace", "finding", "members", "pins", "readers")

    def __init__(
        self,
        finding: Finding,
        members: dict[str, Member],
        anchor: cst.CSTNode,
        brace: bool,
        pins: tuple[str, ...] = (),
        readers: dict[int, int] | None = None,
    ) -> None:
        self.finding = finding
        self.members = members
        #: What a finding about the whole candidate points at; ``brace``: its first character.
        self.anchor = anchor
        self.brace = brace
        #: Pointers of values read from module constants, which its fix assumes unchanged
        #: (see :func:`dimlint.lint.python_locate.resolve_fix`).
        self.pins = pins if finding.fix is not None else ()
        #: How many places of the file's configs and layers read each literal (by node id):
        #: a finding sits on a literal only one place reads (see :func:`sole_literal`).
        self.readers = readers if readers is not None else {}

    def sole_literal(self, member: Member) -> cst.CSTNode | None:
        """The literal ``member`` stands for when no other config or layer of the file reads it
        (``embed_dim = 773`` … ``Model(embed_dim=embed_dim)``); None when it is written at the
        use itself, or shared (``D_MODEL`` in several layers: the finding stays on the use that
        breaks, the fix still edits the literal)."""
        edit = member.value.edit
        if edit is None or edit is member.use or self.readers.get(id(edit), 0) != 1:
            return None
        return edit

    @property
    def key(self) -> tuple[str, str]:
        return (self.finding.code, self.finding.message)

    def without_fix(self) -> Pending:
        finding = self.finding._replace(fix=None)
        return Pending(finding, self.members, self.anchor, self.brace, readers=self.readers)

    def replaced_values(self) -> dict[int, Any]:
        """The literals its fix rewrites (by node id) and their new values."""
        changes: dict[int, Any] = {}
        fix = self.finding.fix
        for pointer, content in fix.replacements if fix is not None else ():
            member = self.members.get(pointer)
            if member is not None and member.value.edit is not None:
                changes[id(member.value.edit)] = _number(content)
        return changes

    def edits_a_constant(self) -> bool:
        """Whether its fix rewrites a module constant (a literal away from the use)."""
        fix = self.finding.fix
        for pointer, _ in fix.replacements if fix is not None else ():
            member = self.members.get(pointer)
            if member is not None and member.value.edit not in (None, member.use):
                return True
        return False


def _number(text: str) -> int | float | str:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _from_constant(member: Member | None) -> bool:
    """An integer whose literal is a module constant's, away from this use."""
    if member is None:
        return False
    edit, value = member.value.edit, member.value.value
    if edit is None or edit is member.use:
        return False
    return isinstance(value, int) and not isinstance(value, bool)


def layer_pins(members: dict[str, Member]) -> tuple[str, ...]:
    """A layer fix reads all of the layer's arguments (there are few)."""
    return tuple(p for p, member in members.items() if _from_constant(member))


def spec_pins(finding: Finding, spec: ModelSpec, members: dict[str, Member]) -> tuple[str, ...]:
    """Constants the fix of ``finding`` relies on: those of the dimensions searched together
    with the ones it changes (:data:`dimlint.deploy.dimension_search.GROUPS`)."""
    if finding.fix is None or not finding.fix.replacements:
        return ()
    from dimlint.checks.coupled import located
    from dimlint.deploy.dimension_search import GROUPS

    by_pointer: dict[str, str] = {}
    for group in GROUPS:
        for field in group:
            source = located(spec, field)
            if source is not None and source.pointer is not None:
                by_pointer[source.pointer] = field
    changed = {by_pointer.get(pointer) for pointer, _ in finding.fix.replacements}
    searched = {field for group in GROUPS if changed & set(group) for field in group}
    return tuple(
        pointer
        for pointer, field in by_pointer.items()
        if field in searched and _from_constant(members.get(pointer))
    )


def collect(
    path: str,
    scan: Scan,
    enabled: frozenset[str],
    selection: Selection,
    overrides: dict[int, Any] | None = None,
    *,
    rounding: str | None = None,
    tally: dict[str, int] | None = None,
    models: list[list[ModelSpec]] | None = None,
    notes: list[str] | None = None,
    per_head: frozenset[tuple[str, str]] = frozenset(),
    asserted: frozenset[tuple[str, str]] = frozenset(),
    fused_attention: bool = True,
) -> list[Pending]:
    """Every finding of every candidate and layer call of a scanned module.

    ``overrides`` assumes new values for some literals: :func:`dimlint.lint.python_front` asks
    "what would the file report if this fix were applied" without editing anything.
    ``rounding``: the module rounds the vocabulary up in code (``next_multiple_of_n(vocab_size,
    n=128)``): its configs' embeddings are padded there, DL202 has nothing to say and no fix may
    rewrite the tokenizer's ``vocab_size``. ``tally`` receives how many configs and layer calls
    were read (``--verbose``); ``models`` the specs of each config that states a dimension,
    classes first, then module constants, then calls (what ``mem``/``plan``/``shapes`` compute
    from); ``notes`` what a reader left unread and why (``--verbose``). ``per_head``: (width,
    heads) names the module multiplies; ``asserted``: those whose divisibility its code
    requires, which makes a class's ``__init__`` defaults a model whatever its base
    (:mod:`dimlint.sources.python.asserted`).
    """
    import libcst as cst

    from dimlint.checks.layers import check_layer
    from dimlint.sources.python import attrconfigs, modelfunctions, moduledefaults, testers
    from dimlint.sources.python import configs as pyconfigs
    from dimlint.sources.python import layers as pylayers
    from dimlint.sources.python import named as pynamed
    from dimlint.sources.python.values import Evaluator

    in_tests = pyconfigs.is_test_module(path)
    # a test helper's ``self.hidden_size`` is its __init__ default (transformers' ModelTester)
    evaluator = Evaluator(scan, overrides, instance=in_tests)
    extractor = pyconfigs.Extractor(scan, evaluator)
    extractor.named = functools.partial(pynamed.lookup, path)
    extractor.in_tests = in_tests
    layer_calls = {
        id(site.node): (site, kind)
        for site in scan.sites
        if isinstance(site.node, cst.Call)
        and (kind := pylayers.layer_kind(site.node, scan)) is not None
    }
    candidates = extractor.class_candidates()
    candidates += moduledefaults.candidates(scan, evaluator, asserted)
    candidates += modelfunctions.candidates(scan, evaluator)
    if in_tests and testers.CAUSAL_LM_TESTER in (*scan.imported_from, *scan.relative_from):
        found_testers = testers.Testers(scan, evaluator)
        candidates += found_testers.candidates()
        if notes is not None:
            notes.extend(found_testers.notes)
    module_config = extractor.module_candidate()
    if module_config is not None:
        candidates.append(module_config)
    candidates += extractor.config_function_candidates()
    calls = extractor.site_candidates(lambda call: id(call) in layer_calls)
    candidates += calls
    candidates += attrconfigs.candidates(extractor, calls)
    found: list[Pending] = []
    readers: dict[int, int] = {}  # literal → how many places read it (filled as they are read)
    seen: set[tuple[int, int]] = set()

    def read(members: dict[str, Member]) -> None:
        for member in members.values():
            edit = member.value.edit
            if edit is not None and (id(edit), id(member.use)) not in seen:
                seen.add((id(edit), id(member.use)))
                readers[id(edit)] = readers.get(id(edit), 0) + 1

    checker = _CandidateChecker(path, enabled, selection, rounding)
    checker.per_head = per_head
    checker.asserted = asserted
    checker.fused_attention = fused_attention
    checker.own_classes = frozenset(
        site.node.name.value for site in scan.classes if isinstance(site.node, cst.ClassDef)
    )
    if tally is not None:
        tally["configs"] = sum(1 for c in candidates if _states_a_dimension(c))
        tally["layers"] = len(layer_calls)
    for candidate in candidates:
        specs = checker.specs_of(candidate)
        if models is not None and _states_a_dimension(candidate) and specs.specs:
            models.append(list(specs.specs))
        read(specs.members)
        for spec, finding in checker.new_findings(candidate, specs):
            constants = spec_pins(finding, spec, specs.members)
            anchor, brace = candidate.anchor, candidate.brace
            found.append(Pending(finding, specs.members, anchor, brace, constants, readers))
    for site, kind in layer_calls.values():
        layer = pylayers.layer_site(site.node, kind, site.frames, evaluator)
        read(layer.members)
        constants = layer_pins(layer.members)
        for finding in check_layer(path, layer.layer, enabled):
            anchor = site.node.func
            found.append(Pending(finding, layer.members, anchor, False, constants, readers))
    return found


def _from_instance(candidate: Candidate) -> bool:
    """Whether the candidate reads a size through ``self`` (a test helper's ``self.hidden_size``,
    read only in test modules: :mod:`dimlint.sources.python.instance`)."""
    import libcst as cst

    for member in candidate.members.values():
        use = member.use
        if (
            isinstance(use, cst.Attribute)
            and isinstance(use.value, cst.Name)
            and use.value.value == "self"
            and isinstance(member.value.value, int)
        ):
            return True
    return False


def _states_a_dimension(candidate: Candidate) -> bool:
    """Whether a candidate gives any dimension a number (``dict(hidden_size=None)`` does not),
    itself or in a sub-config (``LlavaConfig(text_config=self.text_config)`` over a tester's
    dict default)."""
    from dimlint.config.trainingkeys import (
        OPENMMLAB_RENAMES,
        PAX_RENAMES,
        VIT_RENAMES,
        embed_dims_is_width,
        prefixed_models,
        width_is_width,
    )
    from dimlint.sources.python.configs import ALL_DIMENSION_KEYS

    members = candidate.members
    keys: frozenset[str] | set[str] = ALL_DIMENSION_KEYS
    if width_is_width(members):
        keys = ALL_DIMENSION_KEYS | VIT_RENAMES.keys()
    elif embed_dims_is_width({key: m.value.value for key, m in members.items()}):
        keys = ALL_DIMENSION_KEYS | OPENMMLAB_RENAMES.keys()
    elif candidate.framework == "pax":
        keys = ALL_DIMENSION_KEYS | PAX_RENAMES.keys()
    prefixed = prefixed_models(members)
    if prefixed:
        keys = set(keys).union(*(group.values() for group in prefixed.values()))
    stack = [tuple(members.values())]
    while stack:
        for m in stack.pop():
            value = m.value.value
            sized = isinstance(value, int) and not isinstance(value, bool)
            if sized and m.key in keys:
                return True
            stack.append(m.value.members)
    return False


def _width_and_heads(spec: ModelSpec) -> tuple[str, str] | None:
    """The keys of the spec's width and head count, when it states both (the pairs
    :mod:`~dimlint.sources.python.perhead` and :mod:`~dimlint.sources.python.asserted` name)."""
    if spec.hidden is None or spec.heads is None:
        return None
    return spec.hidden.key, spec.heads.key


def _is_error(finding: Finding) -> bool:
    return (finding.severity or REGISTRY[finding.code].severity) == Severity.ERROR


def _defaults(spec: ModelSpec) -> list[Located[int]]:
    """The spec's dimensions the file does not write: its class's (or base's) defaults. A
    value derived from written ones (a head width) is the file's and stays judged."""
    values = (getattr(spec, name) for name in INT_FIELD_NAMES)
    return [v for v in values if v is not None and v.origin == "default"]


def names_value(message: str, value: Located[int]) -> bool:
    """Whether a finding's message names ``value`` as the rules write one (``key 5``, ``key
    is 5``, ``key=5``, ``key: 5``): a value the finding is judged on."""
    pattern = rf"(?<![\w.]){re.escape(value.key)}(?: is | |=|: ){value.value}(?!\d|\.\d)"
    return re.search(pattern, message) is not None


def _states(candidate: Candidate, specs: CandidateSpecs, pointer: str | None) -> bool:
    """Whether ``pointer`` names a value the candidate writes itself (not inherited, not
    derived from other values)."""
    if not pointer:
        return False
    member = specs.members.get("/" + pointer.split("/")[1])
    if member is None or member.key in candidate.inherited:
        return False
    return candidate.members.get(member.key) is member


class _CandidateChecker:
    """Runs the rules on candidates; remembers the findings of bases, to report what is new."""

    def __init__(
        self, path: str, enabled: frozenset[str], selection: Selection, rounding: str | None
    ) -> None:
        self.path = path
        self.selection = selection
        self.rounding = rounding
        self.codes = enabled - NOT_FOR_PYTHON
        self._seen: dict[int, frozenset[tuple[str, str]]] = {}
        #: (width, heads) names the module multiplies (:mod:`dimlint.sources.python.perhead`).
        self.per_head: frozenset[tuple[str, str]] = frozenset()
        #: (width, heads) names whose divisibility the module's code requires
        #: (:mod:`dimlint.sources.python.asserted`).
        self.asserted: frozenset[tuple[str, str]] = frozenset()
        #: Whether the module can reach a fused attention kernel
        #: (:mod:`dimlint.sources.python.kernels`): DL104 on its own modules is about those.
        self.fused_attention = True
        #: The classes the module defines: a call of one builds the module's own code.
        self.own_classes: frozenset[str] = frozenset()

    def specs_of(self, candidate: Candidate) -> CandidateSpecs:
        """The candidate's specs; with a rounding in the code, their embeddings are padded."""
        from dimlint.config.spec import Located
        from dimlint.sources.python import specs as pyspecs

        specs = pyspecs.specs_of(self.path, candidate)
        if candidate.framework == OWN_MODULE:
            for spec in specs.specs:
                spec.memo[FRAMEWORK] = OWN_MODULE
                if _width_and_heads(spec) in self.asserted:
                    spec.memo[DIVISIBILITY_REQUIRED] = True
        if candidate.fixture or _from_instance(candidate):
            for spec in specs.specs:
                spec.memo[FIXTURE] = True  # a test helper's config: a fixture
        if self.rounding is not None:
            for spec in specs.specs:
                if spec.embedding_rows is None and spec.vocab is not None:
                    rows = Located(0, self.rounding, None, "derived")  # 0: aligned, size unknown
                    spec.embedding_rows = rows
        return specs

    def findings(
        self, candidate: Candidate, specs: CandidateSpecs
    ) -> list[tuple[ModelSpec, Finding]]:
        codes = self.codes if candidate.check_keys else self.codes - KEY_RULES
        if not candidate.typed:
            codes &= VALUE_RULES
        if not self.fused_attention and self._builds_own_code(candidate):
            codes -= {"DL104"}  # its own attention, by explicit matmuls: no kernel's limits
        return [
            (spec, finding)
            for spec in specs.specs
            for finding in spec_findings(spec, codes, self.selection)
            if not self._unowed(spec, finding, built=candidate.fixture)
        ]

    def _builds_own_code(self, candidate: Candidate) -> bool:
        """Whether ``candidate`` states the sizes of a model the module's own code builds: its
        ``torch.nn.Module``'s defaults, or a call of a class the module defines (DeiT's
        ``PatchConvnet(embed_dim=384, num_heads=1)``)."""
        if candidate.framework == OWN_MODULE:
            return True
        called = candidate.name.removesuffix("(...)")
        return candidate.kind == "call" and called in self.own_classes

    def _unowed(self, spec: ModelSpec, finding: Finding, *, built: bool = False) -> bool:
        """A finding the module does not ask: a width the module multiplies by the heads (a
        head's width: :mod:`dimlint.sources.python.perhead`), or, in a test module, a finding
        judged on a class default the test does not write. A test's config is a fixture for
        the parts that test builds: TensorRT-LLM's ``LlamaMLP(LlamaConfig(hidden_size=8,
        intermediate_size=20))`` needs no heads, OLMo-core's ``FlexOlmoConfig(num_experts=2)``
        only converts a state dict and never runs the router its default top-k 5 would fail.
        No test is known to build what the default breaks, so no error is judged on it; a
        transformers tester's config (``built``) is one its harness builds and runs, so its
        defaults are judged (a ``CausalLMModelTester``'s 2 KV heads under 3 heads)."""
        if finding.code in ("DL101", "DL104") and _width_and_heads(spec) in self.per_head:
            return True  # a head's width, scaled by the heads in the module
        if built or not is_test_module(self.path):
            return False
        if finding.code == "DL101" and spec.heads is not None and not spec.heads.in_file:
            return True
        return _is_error(finding) and any(
            names_value(finding.message, value) for value in _defaults(spec)
        )

    def new_findings(
        self, candidate: Candidate, specs: CandidateSpecs
    ) -> list[tuple[ModelSpec, Finding]]:
        """The candidate's findings, less those its base raises about values it does not
        restate: those belong to the base (a finding on a value written here stays here)."""
        found = self.findings(candidate, specs)
        self._seen[id(candidate)] = frozenset((f.code, f.message) for _, f in found)
        if candidate.base is None and candidate.base_model_type is None:
            return found
        known = self._base_keys(candidate)
        return [
            (spec, f)
            for spec, f in found
            if (f.code, f.message) not in known or _states(candidate, specs, f.anchor)
        ]

    def _base_keys(self, candidate: Candidate) -> frozenset[tuple[str, str]]:
        """(code, message) of what the base alone raises."""
        from dimlint.sources.python.configs import Candidate

        keys: set[tuple[str, str]] = set()
        base = candidate.base
        if base is not None:
            if id(base) not in self._seen:
                found = self.findings(base, self.specs_of(base))
                self._seen[id(base)] = frozenset((f.code, f.message) for _, f in found)
            keys |= self._seen[id(base)]
        if candidate.base_model_type is not None:
            defaults = Candidate(
                "call", candidate.name, candidate.anchor, {}, candidate.base_model_type
            )
            found = self.findings(defaults, self.specs_of(defaults))
            keys |= {(f.code, f.message) for _, f in found}
        return frozenset(keys)
