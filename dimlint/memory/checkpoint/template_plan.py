"""The tensors a config implies for any model type, from the learned shape templates.

The hand-written plans of :mod:`dimlint.memory.checkpoint.expected_tensors` know a few decoder
families tensor by tensor. Every other model type transformers builds — encoders, encoder-decoders,
vision-language and audio models, MoE models — has a shape template
(:mod:`dimlint.memory.parameters.templates`): each parameter tensor of the class ``architectures``
names, its layer indices folded to ``*``, how many times it repeats and each dimension as an
expression over config fields. A :class:`TemplatePlan` is that template evaluated for one config,
together with what loading does to a checkpoint's names
(:mod:`dimlint.memory.checkpoint.load_names`), so that ``dimlint check`` can compare the headers of
the weights with it tensor by tensor (DL610/DL611).

No plan is made — and the checkpoint is compared by its parameter total only — when the
template does not apply to the config (a field the generator could not learn is changed), when
the weights are quantized in a way that changes their shapes (FP8 keeps them, and its scale
tensors are set aside), or when the class's loading renames were not verified against
transformers when the table was generated.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from dimlint.config import architectures
from dimlint.config.spec import ModelSpec
from dimlint.memory.checkpoint import load_names
from dimlint.memory.checkpoint.stored_extras import keeps_shapes, unquantized
from dimlint.memory.parameters import derived_lists, templates
from dimlint.records import Record


class Expected(Record):
    """``count`` tensors named ``name`` (folded) of ``shape``, and the expressions behind them."""

    name: str
    repeats: int
    shape: tuple[int, ...]
    count_expression: list[Any]
    dims: list[Any]
    conditions: list[Any]

    @property
    def trusted(self) -> tuple[bool, ...]:
        """Per axis, whether its expression is one a wrong fit cannot hide in (see
        :func:`trusted`): the other axes are not compared."""
        return tuple(trusted(dim) for dim in self.dims)

    def matches(self, stored: tuple[int, ...]) -> bool:
        """Whether ``stored`` is this tensor's shape on every trusted axis."""
        if len(stored) != len(self.shape):
            return False
        return all(
            not sure or want == have
            for sure, want, have in zip(self.trusted, self.shape, stored, strict=True)
        )


def trusted(expression: list[Any]) -> bool:
    """Whether a fitted expression can be relied on away from the builds it was fitted to.

    The generator fits each dimension over a handful of builds. A sum of terms that divides
    by a field (ViT's position embeddings fitted as ``-685 + 49·image/patch + 2744·patch/image``
    where the truth is ``(image/patch)² + 1``) can agree on every build and be wrong
    elsewhere; a polynomial in the fields, or a single ratio (``hidden / heads``), cannot
    without the fit having seen it. Untrusted axes are not compared (no DL610 from them).
    """
    if len(expression) <= 1:
        return True
    return all(exponent >= 0 for _, _, factors in expression for _, exponent in factors)


class TemplatePlan(Record):
    """The expected tensors of one config, and how to read a checkpoint against them."""

    model_type: str
    class_name: str
    tensors: list[Expected]
    #: Folded names of the class's tensors that this config's flags switch off → conditions.
    switched_off: dict[str, list[Any]]
    #: Folded name → (conditions, dimension expressions) of each variant of a tensor that
    #: this config's flags do not select (Falcon's fused QKV with and without multi-query).
    alternatives: dict[str, list[tuple[list[Any], list[Any]]]]
    naming: load_names.Naming
    #: A config field's value as transformers would hold it (None: unknown).
    value: Callable[[str], int | None]
    #: Field values of the default build the template was fitted on.
    defaults: dict[str, Any]

    @property
    def names(self) -> frozenset[str]:
        return frozenset(tensor.name for tensor in self.tensors)

    def count_trusted(self, name: str) -> bool:
        """Whether the number of tensors of ``name`` can be compared with a checkpoint.

        A count fitted as a constant (Evolla's eight adapter layers) was seen at the default
        layer count only; when a sibling under the same stack counts with fields this config
        changes (``num_hidden_layers`` 2 instead of 32), the constant may no longer hold."""
        entries = [tensor for tensor in self.tensors if tensor.name == name]
        if not all(trusted(entry.count_expression) for entry in entries):
            return False
        if any(templates_fields(entry.count_expression) for entry in entries):
            return True
        stack = name.split("*", 1)[0]
        if "*" not in name:
            return True
        for tensor in self.tensors:
            if tensor.name.split("*", 1)[0] != stack:
                continue
            for field in templates_fields(tensor.count_expression):
                if self.value(field) != self.defaults.get(field):
                    return False
        return True

    def evaluate(self, expression: list[Any], overrides: dict[str, int]) -> int | None:
        """``expression`` with the config's values, ``overrides`` replacing some."""
        fields = templates_fields(expression)
        values = {field: overrides.get(field, self.value(field)) for field in fields}
        return templates.evaluate_expression(expression, values)


def templates_fields(expression: list[Any]) -> list[str]:
    """The fields an expression reads, in order of first use."""
    found: dict[str, None] = {}
    for term in expression:
        for name, _ in term[2]:
            found[str(name)] = None
    return list(found)


def architecture_of(spec: ModelSpec) -> str:
    names = spec.raw.get("architectures")
    if isinstance(names, list) and names and isinstance(names[0], str):
        return names[0]
    return ""


#: List-valued keys that may lay out layers or towers (``moe_layers: [1]`` makes layer 0 of a
#: two-layer Llama-4 dense, where the default build had experts in every layer).
_STRUCTURE_LIST = re.compile(r"(layers|experts|blocks|depths|heads|sizes|dims|pattern)$")
#: Layer kinds that differ in their attention mask only, not in their parameters.
_ATTENTION_KINDS = frozenset({"full_attention", "sliding_attention", "chunked_attention"})


def _unlearned_lists(raw: dict[str, Any], learned: dict[str, Any]) -> bool:
    """Whether the config states a structural list the generator did not learn (its row's
    ``lists`` guard names the ones it did): the template was fitted without it. A top-level
    list at the value its config class declares or derives is the one the default build was
    fitted with; an empty one has been judged by the template already (outside where the
    class's default is not empty)."""
    guarded = set(learned.get("lists", {}))
    model_type = raw.get("model_type")
    record = architectures.lookup(model_type) if isinstance(model_type, str) else None
    defaults = dict(record.defaults) if record is not None else {}
    if isinstance(model_type, str):
        defaults.update(derived_lists.defaults(model_type))
    sources = [("", raw)] + [
        (f"{key}.", value) for key, value in raw.items() if isinstance(value, dict)
    ]
    for prefix, source in sources:
        for key, value in source.items():
            if not isinstance(value, list) or not value or f"{prefix}{key}" in guarded:
                continue
            if not prefix and value == defaults.get(key):
                continue
            if key == "layer_types":
                if not set(map(str, value)) <= _ATTENTION_KINDS:
                    return True
            elif _STRUCTURE_LIST.search(key):
                return True
    return False


def template_plan(spec: ModelSpec) -> TemplatePlan | None:
    """The plan of ``spec`` from its model type's template; None when there is none usable."""
    if not keeps_shapes(spec):
        return None
    raw = unquantized(spec.raw)
    model_type = raw.get("model_type")
    if not isinstance(model_type, str):
        return None
    learned = templates.row(model_type)
    if learned is None:
        return None
    architecture = architecture_of(spec)
    class_name = templates.class_for(learned, architecture)
    if class_name is None:
        return None
    naming = load_names.naming(model_type, class_name)
    if naming is None:
        return None
    if _unlearned_lists(raw, learned):
        return None
    tensors = templates.template_tensors(raw, architecture)
    if tensors is None:
        return None
    rows = learned["classes"][class_name].get("tensors")
    if not isinstance(rows, list):
        return None
    expected: list[Expected] = []
    switched_off: dict[str, list[Any]] = {}
    alternatives: dict[str, list[tuple[list[Any], list[Any]]]] = {}
    position = 0
    for name, count_expression, dims, conditions, *_ in rows:
        if position < len(tensors) and tensors[position].name == name:
            tensor = tensors[position]
            position += 1
            if tensor.repeats > 0:
                expected.append(
                    Expected(name, tensor.repeats, tensor.shape, count_expression, dims, conditions)
                )
        elif conditions:
            switched_off[name] = conditions
            alternatives.setdefault(name, []).append((conditions, dims))
    if position != len(tensors):
        return None  # the evaluated tensors do not follow the row: do not guess
    values = templates._Values(templates._as_the_class_reads(raw, model_type), learned)
    defaults = dict(learned.get("defaults", {}))
    return TemplatePlan(
        model_type,
        class_name,
        expected,
        switched_off,
        alternatives,
        naming,
        values.get,
        defaults,
    )


def total_is_exact(spec: ModelSpec) -> bool:
    """Whether the template gives this config's parameter total as transformers builds it —
    the same test that lets ``dimlint mem`` call a count exact: the class is learned, every
    field inside what it learned, and no structural list the template was not fitted with.
    (Whether the names can be compared one by one is :func:`template_plan`'s question.)"""
    raw = unquantized(spec.raw)
    model_type = raw.get("model_type")
    learned = templates.row(model_type) if isinstance(model_type, str) else None
    if learned is None or _unlearned_lists(raw, learned):
        return False
    architecture = architecture_of(spec)
    return (
        templates.class_for(learned, architecture) is not None
        and templates.template_tensors(raw, architecture) is not None
    )
