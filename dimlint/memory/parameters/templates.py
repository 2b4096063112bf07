"""Exact parameter tensors from the shape templates learned from transformers.

``data/shapes.json`` (written by ``python -m dimlint.tools.generate_shapes``) holds, per model
type and per class it registers, every parameter tensor of the model transformers builds: its
name (layer indices folded to ``*``), how many times it repeats, each dimension as a small
expression over config fields, and the boolean fields under which it exists (biases, an untied
head). Evaluating a template with a config's values gives the tensors — and so the parameter
count — of that config exactly as transformers would build it, for any family, tower or head,
without importing transformers or torch.

A template is only used when every field it reads has a value (stated, derived as the config
class derives it, or the class default) and every field whose effect the generator could not
learn (``fixed``) still has its default, and every stated list (a per-layer plan such as
``text_config.layer_types``, a list of layer indices, per-stage widths) is one the template
learned (:mod:`~dimlint.memory.parameters.template_plans`); otherwise :func:`template_tensors`
returns None and the hand-written family recipes apply. The row says what lies inside:
``undeclared`` names the modeling code reads without a declared field (Qwen3-MoE's
``head_dim``, learned, derived from the code's fallback when left out), ``legacy`` keys at the
value the class falls back to, ``joint`` expressions with a negative term seen to hold with all
their fields moved, and ``rebased`` layer-kind counts learned from a build that has the kind.
A config in a regime the generator learned as a row of its own (a string value, a field at -1
stated positive) is counted by that ``variants`` row; a stated key the modeling code reads
with a constant fallback (``reads``) is inside only where a build learned it; ``a//b`` factors
floor a quotient; ``refit`` tensors of a flag carry learned sizes, ``multiple_of`` ones hold
only where their size is that multiple; a field moved with the lists that count what it
counts (``counted_lists``: GPT-Neo's ``num_layers`` with ``attention_types``) is inside only
with those lists stated as it moved them. Keys the generator probed (``legacy_keys``:
:mod:`~dimlint.memory.parameters.probed_keys`) are read as the class reads them: an alias as
its field, an inert key at any value; a ``fixed`` field stated at the value the class derives
is inside, and a numeric field stated null picks its ``"path=null"`` variant.

Like ``architectures.json``, the file is one model type per line and only the row asked for is
parsed, so looking up a template costs a fraction of a millisecond.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import json
import os
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from fractions import Fraction
from typing import Any

from dimlint.config import architectures
from dimlint.config.model_classes import auto_class, model_types_of
from dimlint.config.rowtable import RowTable
from dimlint.memory.legacy_fields import folded, remapped_kinds
from dimlint.memory.parameters import (
    class_names,
    counted_lists,
    list_items,
    plan_counts,
    split_strings,
    sub_config_views,
)
from dimlint.memory.parameters.absent_towers import absent_keys, stated_absent
from dimlint.memory.parameters.domain_probes import (
    SIZES_NOTHING,
    inert_unset,
    outside_move,
    outside_pair,
)
from dimlint.memory.parameters.domain_probes import learned_paths as all_learned_paths
from dimlint.memory.parameters.nested_configs import unlearned_nested
from dimlint.memory.parameters.probed_keys import accepted, aliased, stated_as_derived, stated_null
from dimlint.memory.parameters.stated import stated_at
from dimlint.memory.parameters.template_plans import is_plan, unlearned_list
from dimlint.records import Record

#: ``dimlint/data``: two packages up from this module.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_FILE = os.path.join(_PACKAGE_DIR, "data", "shapes.json")
_TABLE = RowTable(DATA_FILE)

Term = tuple[Fraction, tuple[tuple[str, int], ...]]
#: A factor ``a//b`` of a learned expression is the floor quotient of two fields.
_FLOOR = "//"


class Tensor(Record):
    """One parameter tensor family of a model: ``repeats`` tensors of ``shape``."""

    name: str
    repeats: int
    shape: tuple[int, ...]
    fields: frozenset[str]

    @property
    def numel(self) -> int:
        total = self.repeats
        for size in self.shape:
            total *= size
        return total


def transformers_version() -> str:
    """The transformers release the templates were learned from ("" without the file)."""
    match = re.search(rb'"transformers_version": "([^"]*)"', _TABLE.data[:200])
    return match.group(1).decode() if match else ""


@functools.cache
def generic_mentions() -> frozenset[str]:
    """Shape-like names transformers' generic model and config code mentions (recorded once
    beside the rows): a stated key among them may be read for any model type."""
    match = re.search(rb'\n  "generic_mentions": (\[[^\n]*\]),\n', _TABLE.data[:1_000_000])
    if match is None:
        return frozenset()
    return frozenset(str(name) for name in json.loads(match.group(1)))


@functools.cache
def row(model_type: str) -> dict[str, Any] | None:
    """The learned row of ``model_type``, or None when there is none."""
    found = _TABLE.row(model_type)
    return found if isinstance(found, dict) else None


def model_type_names() -> list[str]:
    """Every model type with a row."""
    return list(_TABLE.offsets)


def _terms(expression: Any) -> list[Term] | None:
    if not isinstance(expression, list):
        return None
    terms: list[Term] = []
    for term in expression:
        if not (isinstance(term, list) and len(term) == 3 and isinstance(term[2], list)):
            return None
        numerator, denominator, factors = term
        if not (isinstance(numerator, int) and isinstance(denominator, int) and denominator):
            return None
        parsed = tuple((str(name), int(exponent)) for name, exponent in factors)
        terms.append((Fraction(numerator, denominator), parsed))
    return terms


def sized_by_any(dims: Any, fields: Collection[str]) -> bool:
    """Whether one of ``dims`` has one of ``fields`` as a factor of every term (the tensors
    :mod:`dimlint.tools.zero_counts` saw a zero of that field drop)."""
    return any(
        dim and all(any(f in fields and p > 0 for f, p in factors) for _, _, factors in dim)
        for dim in dims
    )


def evaluate_expression(
    expression: Any, values: Mapping[str, int | None], zero: bool = False
) -> int | None:
    """The integer value of ``expression``, or None (a field missing, zero, or a fraction).
    With ``zero`` (a layer count), a zero field multiplies its term by zero: DeepSeek-V2's
    ``first_k_dense_replace`` of 0 counts no dense layer."""
    terms = _terms(expression)
    if terms is None:
        return None
    total = Fraction(0)
    for coefficient, factors in terms:
        product = Fraction(coefficient)
        for name, exponent in factors:
            value = values.get(name)
            if value == 0 and zero and exponent > 0:
                product = Fraction(0)
                continue
            if value is None or value == 0:
                return None
            product *= Fraction(value) ** exponent
        total += product
    if total.denominator != 1 or total < 0:
        return None
    return int(total)


def _stated(obj: dict[str, Any], name: str, model_type: Any) -> object:
    """``obj[name]``, also under a standard name the model type aliases to ``name``."""
    if name in obj:
        return obj[name]
    record = architectures.lookup(model_type) if isinstance(model_type, str) else None
    if record is not None:
        for standard, stored in record.aliases.items():
            if stored == name and standard in obj:
                return obj[standard]
    return None


class _Values:
    """Field values of one config as transformers would hold them after ``__post_init__``."""

    def __init__(
        self, raw: dict[str, Any], learned: dict[str, Any], forced: Mapping[str, int] | None = None
    ) -> None:
        self.raw = raw
        self.learned = learned
        #: Fields a stated string sets (:func:`_string_fields`), as the class derives them.
        self.forced = dict(forced or {})
        self.cache: dict[str, int | None] = {}
        self.resolving: set[str] = set()
        #: Fields stated ``null`` whose class default is a number (see :meth:`_resolve`).
        self.nulls: set[str] = set()

    def get(self, path: str) -> int | None:
        if path not in self.cache:
            if path in self.resolving:
                return None
            self.resolving.add(path)
            self.cache[path] = self._resolve(path)
            self.resolving.discard(path)
        return self.cache[path]

    def _resolve(self, path: str) -> int | None:
        if _FLOOR in path:
            # a patch grid the generator saw transformers floor (``image_size//patch_size``)
            numerator, _, denominator = path.partition(_FLOOR)
            a, b = self.get(numerator), self.get(denominator)
            if a is None or not b or isinstance(a, bool) or isinstance(b, bool):
                return None
            return a // b
        if path in self.forced:
            # a stated string's flags, and ``num_labels``: a head's rows read the label count
            # ``from_pretrained`` sizes it by (``id2label``'s size)
            return self.forced[path]
        if path == "num_labels":
            declared_labels = self.learned.get("declared", {}).get("num_labels")
            return labels_of(self.raw, declared_labels if isinstance(declared_labels, int) else 2)
        source = self.learned.get("overwritten", {}).get(path)
        if source is not None:
            # the class copies this field from another whatever the config states
            return self.get(source)
        defaults: dict[str, Any] = self.learned.get("defaults", {})
        declared: dict[str, Any] = self.learned.get("declared", {})
        derived: dict[str, Any] = self.learned.get("derived", {})
        item = list_items.split(path)
        if item is not None:
            # one place of a list learned item by item: as stated, else the class default
            stated_list = _stated_list(self.raw, item[0])
            if stated_list is None:
                return _number(defaults.get(path))
            stated_item = list_items.item_value(stated_list, item[1])
            if list_items.within(self.learned, item[0], stated_list):
                return stated_item
            # a list whose items did not check out: only its learned value is inside, but an
            # estimate (the reason gathered where the list is judged) reads it as stated
            if stated_item == defaults.get(path) or _OUTSIDE.get() is not None:
                return stated_item
            return None
        if "." in path:
            key, name = path.split(".", 1)
            sub = self.raw.get(key)
            if (
                sub is None
                and key == "text_config"
                and name in self.raw
                and self.learned.get("flat_text")
            ):
                # Older composite configs state the language model's fields at the top level;
                # a class that builds its text_config from them (``flat_text``) reads them there.
                # Another ignores them: ShieldGemma-2 ties its head whatever a top-level
                # ``tie_word_embeddings`` says.
                return _number(self.raw[name])
            if sub is None:
                # the composite's default sub-config: the values the row was learned at, but
                # for a field learned rebased (Llama-4's interleave_moe_layer_step, learned at
                # 2), whose default is the class's own (1: every layer a mixture of experts)
                rebased = path in (self.learned.get("rebased", {}) or {})
                value: object = declared.get(path) if rebased else defaults.get(path)
                return _number(value)
            if not isinstance(sub, dict):
                return None
            value = _stated(sub, name, sub.get("model_type"))
            null = name in sub and sub[name] is None
        else:
            value = _stated(self.raw, path, self.raw.get("model_type"))
            null = path in self.raw and self.raw[path] is None
        if value is not None:
            return _number(value)
        if null and _number(declared.get(path)) is not None:
            # DeepSeek-V2-Lite's ``q_lora_rank: null``: the class keeps None (a dense query
            # projection, not its default 1536-wide low-rank pair), a structure the template
            # never saw. Where the class default is None itself, null is the default.
            self.nulls.add(path)
            return None
        flag = _derived_flag(self.raw, path)
        if flag is not None:
            return flag
        if path in derived:
            # a derivation fitted with some booleans at their default holds only there
            conditions = self.learned.get("derived_when", {}).get(path, [])
            if any(self.get(flag) != wanted for flag, wanted in conditions):
                return None
            expression = derived[path]
            needed = {name for _, _, factors in expression for name, _ in factors}
            return evaluate_expression(expression, {name: self.get(name) for name in needed})
        value = declared.get(path)
        if value is None and path not in declared and self._a_learned_length(path):
            # set by the class from a list's length (wav2vec2's num_feat_extract_layers =
            # len(conv_dim)), every such list left out or stated at the length learned
            return _number(defaults.get(path))
        if "." in path and path in defaults and _number(defaults[path]) != _number(value):
            # a stated sub-config leaving out a field the composite's default sub-config holds
            # at another value than its class declares (PE-Audio's ModernBERT text config:
            # 1024 wide, the class 768): which one the class fills in was never learned
            return None
        return _number(value)

    def _a_learned_length(self, path: str) -> bool:
        """Whether the undeclared top-level ``path`` holds, at the default, the length of a
        list the row learned item by item (``items``), with every list of that length left
        out or stated at it: the class sets it from that length (``__post_init__``), so it
        has its default's value whenever those lists do."""
        default = _number(self.learned.get("defaults", {}).get(path))
        lengths: dict[str, int] = self.learned.get("items", {})
        same = [key for key, length in lengths.items() if length == default]
        if "." in path or default is None or not same:
            return False
        for key in same:
            stated = _stated_list(self.raw, key)
            if stated is not None and (not isinstance(stated, list) or len(stated) != default):
                return False
        return True


def _variant(raw: dict[str, Any], learned: dict[str, Any]) -> dict[str, Any]:
    """The row learned in the regime ``raw`` states (``variants``), else ``learned``: a string
    value that switches the structure (wav2vec2's ``feat_extract_norm = "layer"``), a flag
    whose flipped build adds tensors (DeBERTa's ``relative_attention``), a field at a negative
    default stated positive (DeBERTa's ``position_buckets``); within a regime, the regimes it
    learned in turn (DeBERTa-v3 states both)."""
    chosen: dict[str, Any] = _deepest(raw, learned, 0)[1]
    probed = learned.get("legacy_keys")
    if chosen is not learned and probed and "legacy_keys" not in chosen:
        # the keys the class maps or ignores were probed once, on the default config: the
        # class (its ``__post_init__``) is the same in every regime (LFM2's legacy ``num_heads``)
        chosen = {**chosen, "legacy_keys": probed}
    return chosen


def _deepest(raw: dict[str, Any], learned: dict[str, Any], depth: int) -> tuple[int, Any]:
    """``(regimes entered, row)``: of the paths through the variants whose regimes ``raw``
    states, the one that enters the most (the generator learned each combination in one
    order or another, and a shallower row refuses what a deeper one learned)."""
    best: tuple[int, Any] = (0, learned)
    if depth >= 4:
        return best
    for variant in _matching(raw, learned):
        entered, row = _deepest(raw, variant, depth + 1)
        if entered + 1 > best[0]:
            best = (entered + 1, row)
    return best


def _matching(raw: dict[str, Any], learned: dict[str, Any]) -> list[dict[str, Any]]:
    """The variants of ``learned`` whose regime ``raw`` states."""
    variants: dict[str, Any] = learned.get("variants", {})
    found = [variants.get(key) for _, key in _entered(raw, learned)]
    return [variant for variant in found if isinstance(variant, dict)]


def _unlearned_regime(
    raw: dict[str, Any], base: dict[str, Any], chosen: dict[str, Any]
) -> str | None:
    """Why ``raw`` lies outside: it enters a regime of ``base`` that the row chosen for it
    (:func:`_variant`) was not learned in. A regime's variant may be missing, or learned only
    beside others (a type learns so many variants and no more): wav2vec2's MMS adapters
    (``adapter_attn_dim``) with ``feat_extract_norm = "layer"`` were counted by the layer-norm
    variant alone, without the adapters, and labelled exact."""
    held: dict[str, Any] = chosen.get("stated", {}) if chosen is not base else {}
    for path, key in _entered(raw, base):
        if path not in held:
            return (
                f"{key} is a regime of the template learned without the others this config states"
            )
    return None


def _entered(raw: dict[str, Any], learned: dict[str, Any]) -> list[tuple[str, str]]:
    """``(path, variant key)`` of each regime of ``learned`` that ``raw`` states, whether a
    variant was learned for it or not."""
    found: list[tuple[str, str]] = []
    variants: dict[str, Any] = learned.get("variants", {})
    for path, learned_string in learned.get("strings", {}).items():
        stated = stated_at(raw, path)
        if learned_string.get("split"):
            stated = split_strings.normalized(stated)  # ["p2c", "c2p"] as "c2p|p2c"
        if not isinstance(stated, str):
            continue
        key = f"{path}={stated}"
        if stated in learned_string.get("switches", []) or key in variants:
            found.append((path, key))
    for path, op, value in learned.get("regimes", []):
        stated = stated_at(raw, path)
        inside = (
            (op == "=" and isinstance(stated, bool) and stated == value)
            or (op == "=" and value == {} and isinstance(stated, dict))  # a tower stated
            or (
                op == ">"
                and isinstance(stated, int)
                and not isinstance(stated, bool)
                and stated > value
            )
            or (op == "=" and value is None and stated_null(raw, path))
            or (op == "~" and _plan_within(stated, value, _default_kinds(learned, path)))
            or (op == "==" and _stated_equal(raw, learned, path, value))
        )
        if inside:
            found.append((path, _regime_key(path, op, value)))
    return found


def _legacy_read(raw: dict[str, Any], model_type: str) -> dict[str, Any]:
    """``raw`` with its legacy spellings read as the config classes read them: keys the class
    folds (DeepSeek-V4's ``compress_ratios``), legacy layer kinds (Granite-4's ``mamba``) and
    a sub-config's alias keys (LFM2.5-VL's ``text_config.block_ff_dim``)."""
    read = remapped_kinds(folded(raw, model_type))
    return sub_config_views.with_aliases_read(read, model_type, row)


def _regime_key(path: str, op: str, value: object) -> str:
    """A regime's key in the row's ``variants`` (the generator's ``regime_key``)."""
    return f"{path}{op}{json.dumps(value)}"


def _stated_equal(raw: dict[str, Any], learned: dict[str, Any], path: str, other: object) -> bool:
    """Whether two numbers the code compares with each other are equal in ``raw`` (stated, else
    at the row's defaults): ELECTRA's ``embedding_size`` and ``hidden_size``."""
    if not isinstance(other, str):
        return False
    defaults: dict[str, Any] = learned.get("defaults", {})
    found = []
    for name in (path, other):
        stated = _stated_number(raw, name)
        value = stated if stated is not None else defaults.get(name)
        if not isinstance(value, int) or isinstance(value, bool):
            return False
        found.append(value)
    return found[0] == found[1]


def _stated_number(raw: dict[str, Any], path: str) -> object:
    """What ``raw`` states at ``path``, an item of a stated list (``hidden_sizes[0]``) too."""
    item = list_items.split(path)
    if item is None:
        return stated_at(raw, path)
    stated = stated_at(raw, item[0])
    return stated[item[1]] if isinstance(stated, list) and item[1] < len(stated) else None


def _stated_shaping_float(raw: dict[str, Any], model_type: str, base: dict[str, Any]) -> str | None:
    """Why a stated float lies outside: builds showed it sizes tensors (``shaping_floats``:
    EfficientNet's ``width_coefficient``), and the template saw it only at the class default."""
    record = architectures.lookup(model_type)
    if record is None:
        return None
    for name in base.get("shaping_floats", []):
        value, default = raw.get(name), record.defaults.get(name)
        if not isinstance(value, int | float) or isinstance(value, bool):
            continue
        if not isinstance(default, int | float) or float(value) != float(default):
            return f"{name} = {value} sizes tensors the template saw only at {default}"
    return None


def _unlearned_equality(raw: dict[str, Any], base: dict[str, Any]) -> str | None:
    """Why ``raw`` lies outside: two fields the code compares are equal, a regime whose
    variant was not learned (the row's expressions hold only while they differ)."""
    variants: dict[str, Any] = base.get("variants", {})
    for path, op, value in base.get("regimes", []):
        if op != "==" or not _stated_equal(raw, base, path, value):
            continue
        if _regime_key(path, op, value) not in variants:
            return (
                f"{path} equals {value}, where the class builds other tensors; no build learned it"
            )
    return None


def _other_stages(raw: dict[str, Any], learned: dict[str, Any]) -> str | None:
    """Why a stated backbone lies outside: it returns other stages than the one the row was
    learned with (``stages``), and the composite sizes its projection by the last returned
    stage's width (DETR with ``out_features: ["stage3"]`` projects 1024 channels, not 2048).
    A stated backbone that names no stages returns its class's default selection, the last
    stage: inside only where the row learned one stage."""
    for key, learned_indices in learned.get("stages", {}).items():
        sub = raw.get(key)
        if not isinstance(sub, dict):
            continue  # the composite's own default backbone: what the row learned
        stated = _stage_indices(sub)
        if stated is None and len(learned_indices) == 1:
            continue
        if stated != learned_indices:
            return (
                f"{key} returns stages {stated if stated is not None else 'by default'};"
                f" the template learned {learned_indices} only"
            )
    return None


def _stage_indices(sub: dict[str, Any]) -> list[int] | None:
    """The stages a stated backbone returns, by index (``out_indices``, else ``out_features``
    read as ``stageN``; ``stem`` is 0), or None where it names none."""
    for key in ("out_indices", "_out_indices"):
        value = sub.get(key)
        if isinstance(value, list) and all(isinstance(i, int) for i in value):
            return list(value)
    for key in ("out_features", "_out_features"):
        value = sub.get(key)
        if isinstance(value, list) and all(isinstance(name, str) for name in value):
            found = [0 if name == "stem" else _stage_number(name) for name in value]
            # a name that is no stage of the known form selects what no build learned
            return [-1] if None in found else [i for i in found if i is not None]
    return None


def _stage_number(name: str) -> int | None:
    match = re.fullmatch(r"stage(\d+)", name)
    return int(match.group(1)) if match else None


def _unverified_match(
    dims: list[Any], rows: list[Any], values: _Values, defaults: dict[str, Any]
) -> str | None:
    """Why the sizes of a tensor seen in one flipped build only are not vouched for here: the
    generator matched each of its sizes to the expression of another tensor of the same size
    at the defaults (``_near``), and some other tensor's expression of that size at the
    defaults has another size for these values, so which one it follows was never told apart.
    MOSS-transcribe-diarize's untied ``lm_head`` was matched to the audio tower's width, equal
    to the text width at the defaults, and labelled exact with an audio tower twice as wide."""
    known = {field: value for field, value in defaults.items() if isinstance(value, int)}.get
    for dim in dims:
        if not any(factors for _, _, factors in dim):
            continue  # a constant axis: judged by the caller
        at_default = _evaluated(dim, known)
        here = _evaluated(dim, values.get)
        if at_default is None or here is None:
            continue
        for other in rows:
            if other[3]:
                continue  # another flag's tensor: no fitted size to match against
            for other_dim in other[2]:
                if not any(factors for _, _, factors in other_dim):
                    continue
                if _evaluated(other_dim, known) != at_default:
                    continue
                there = _evaluated(other_dim, values.get)
                if there is not None and there != here:
                    return (
                        f"its size {at_default} at the defaults is also {other[0]}'s, which is"
                        f" {there} here (this one: {here}); no build told them apart"
                    )
    return None


def _evaluated(expression: Any, get: Callable[[str], object]) -> int | None:
    """``expression`` at the values ``get`` reads, None if one lacks."""
    resolved: dict[str, int | None] = {}
    for field in {field for _, _, factors in expression for field, _ in factors}:
        value = get(field)
        if not isinstance(value, int):
            return None
        resolved[field] = value
    return evaluate_expression(expression, resolved)


def _constant(expression: object) -> bool:
    """Whether a learned count expression reads no field."""
    return isinstance(expression, list) and all(
        isinstance(term, list) and len(term) == 3 and not term[2] for term in expression
    )


def _default_kinds(learned: dict[str, Any], path: str) -> set[str]:
    """The kinds of the default plan at ``path`` the row learned: those its tags know, else
    the one kind of a uniform plan."""
    tagged = (learned.get("plans", {}) or {}).get(path, {}).get("kinds")
    if isinstance(tagged, list):
        return {str(kind) for kind in tagged}
    uniform = (learned.get("uniform", {}) or {}).get(path)
    return {plan_counts.normalized(uniform)} if uniform is not None else set()


def _plan_within(stated: object, kinds: object, default: set[str]) -> bool:
    """Whether a stated per-layer plan holds kinds the default plan lacks, all among the
    ``kinds`` a variant learned from a seed plan (:mod:`dimlint.tools.plan_kinds`: LFM2's
    ``conv`` layers beside its ``full_attention`` ones)."""
    if not plan_counts.names_mixer_kinds(stated) or not isinstance(kinds, list):
        return False
    found = {plan_counts.normalized(item) for item in stated}
    return found <= set(kinds) and not found <= default


def _string_fields(raw: dict[str, Any], learned: dict[str, Any]) -> dict[str, int]:
    """The fields the stated string fields set (T5's ``feed_forward_proj = "gated-gelu"`` sets
    ``is_gated_act``); a stated string outside the domain is refused (:func:`_outside_domain`):
    the row's ``strings`` lists each string field the generator saw switch the structure, with
    the values inside (those that kept the tensors, or only moved fields the template learned);
    any other value was never learned, or builds another model (an estimate evaluates the
    template at the string's default). A flag the config states itself is not forced: the
    class sets the keys it declares no field for after ``__post_init__`` derived them, so a
    stated ``is_gated_act: false`` builds T5's plain MLP whatever ``feed_forward_proj`` says
    (meta builds of every T5-like type, transformers 5.24)."""
    forced: dict[str, int] = {}
    for path, learned_string in learned.get("strings", {}).items():
        stated = stated_at(raw, path)
        if learned_string.get("split"):
            stated = split_strings.normalized(stated)
        default = learned_string.get("default")
        inside: dict[str, dict[str, int]] = learned_string.get("inside", {})
        if stated is None or stated == default:
            continue
        if isinstance(stated, str) and stated in inside:
            forced.update(
                (field, value)
                for field, value in inside[stated].items()
                if not isinstance(stated_at(raw, field), bool)
            )
            continue
        seen = ", ".join(repr(value) for value in [default, *inside])
        _outside_domain(f"{path} = {stated!r} lies outside what the template learned (only {seen})")
    return forced


def _stated_off_derivation(
    raw: dict[str, Any], model_type: str, learned: dict[str, Any], values: _Values
) -> str | None:
    """Why a stated number for a field the class does not declare but sets in ``__post_init__``
    (MobileBERT's ``true_hidden_size``, from ``intra_bottleneck_size`` or ``hidden_size``) is
    outside, or None. The stated value overrides the attribute, yet some modules recompute it
    from the fields it derives from: the template, which read the field where the two were
    equal, counts a model no build had (``use_bottleneck: false`` beside a stated 128 was
    counted 172% high). Stated at the value the class derives here, it is inside."""
    record = architectures.lookup(model_type)
    if record is None:
        return None
    undeclared = learned.get("undeclared", {})
    derivations: dict[str, Any] = learned.get("derived", {})
    for path, expression in derivations.items():
        if "." in path or path in record.fields or path in undeclared:
            continue
        stated = raw.get(path)
        if _number(stated) is None or stated_as_derived(values.get, learned, path, stated):
            continue
        conditions = learned.get("derived_when", {}).get(path, [])
        if all(values.get(flag) == wanted for flag, wanted in conditions):
            needed = {name for _, _, factors in expression for name, _ in factors}
            if evaluate_expression(expression, {name: values.get(name) for name in needed}) is None:
                # the fitted derivation gives no whole number here (Switch's 2 layers over 3
                # sparse ones, which the class floors and clamps): it cannot judge the value
                continue
        return (
            f"{path} = {stated} is not the value {model_type}'s class derives for it here;"
            " no build learned it stated otherwise"
        )
    return None


def _derived_flag(raw: dict[str, Any], path: str) -> int | None:
    """A boolean ``__post_init__`` derives from a string the generator does not vary: T5-like
    configs set ``is_gated_act`` from ``feed_forward_proj`` (``"gated-gelu"`` → gated)."""
    key, _, name = path.rpartition(".")
    if name != "is_gated_act":
        return None
    obj = raw.get(key) if key else raw
    if not isinstance(obj, dict):
        return None
    model_type = obj.get("model_type", raw.get("model_type") if not key else None)
    record = architectures.lookup(model_type) if isinstance(model_type, str) else None
    if record is None or "feed_forward_proj" not in record.fields:
        return None
    projection = obj.get("feed_forward_proj", record.defaults.get("feed_forward_proj"))
    if not isinstance(projection, str):
        return None
    return int(projection.split("-")[0] == "gated")


def _scalar_for_items(raw: dict[str, Any], defaults: dict[str, Any]) -> str | None:
    """Why one number stated where the template learned a list item by item (Gemma-3n's
    per-layer ``intermediate_size``) is outside, or None. A class may spread it over every
    item (Gemma-3n does) or read it otherwise; no build learned which, so only a number equal
    to every learned item is inside."""
    items: dict[str, set[object]] = {}
    for path, value in defaults.items():
        item = list_items.split(path)
        if item is not None:
            items.setdefault(item[0], set()).add(value)
    for key, learned_items in items.items():
        stated = stated_at(raw, key)
        if _number(stated) is None or learned_items == {stated}:
            continue
        return f"{key} = {stated} is one number where the template learned a list, item by item"
    return None


def _stated_list(raw: dict[str, Any], path: str) -> object:
    value = stated_at(raw, path)
    return [_plain(item) for item in value] if isinstance(value, list) else value


def _plain(item: object) -> object:
    """A list item as Python holds it: ``save_pretrained`` writes a non-finite float as
    ``{"__float__": "Infinity"}`` (strict JSON has no infinity); the table holds the float."""
    if isinstance(item, dict) and set(item) == {"__float__"}:
        try:
            return float(str(item["__float__"]))
        except ValueError:
            return item
    return item


def _number(value: object) -> int | None:
    """``value`` when it is an integer (booleans included: conditions compare them), else None."""
    return value if isinstance(value, int) else None


def _all_defaults(values: _Values, defaults: dict[str, Any]) -> bool:
    """Whether every integer field the generator recorded keeps its default value."""
    return all(
        values.get(path) == default
        for path, default in defaults.items()
        if isinstance(default, int) and not isinstance(default, bool)
    )


def _as_the_class_reads(
    raw: dict[str, Any], model_type: str, learned: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``raw`` with the spellings the config class maps onto its fields applied: its
    ``attribute_map`` aliases (``hidden_size`` for GPT-2's ``n_embd``; a stated alias wins over
    the field, as in transformers: NLLB's ``num_hidden_layers`` sets ``encoder_layers``), the
    legacy kwargs that win over the field (BLOOM's ``n_embed``), legacy sub-config dicts
    (CLIP's ``text_config_dict`` updates ``text_config``), and a flat hub config's language-model
    keys gathered into the ``text_config`` the class builds from them (Qwen2.5-VL), as the
    class's ``__init__`` does."""
    from dimlint.config.normalize import LEGACY_FIRST

    record = architectures.lookup(model_type)
    if record is None:
        return raw
    read = _attribute_map_read(aliased(dict(raw), learned or {}), record)
    hidden = record.attribute("hidden_size")
    legacy = LEGACY_FIRST.get("hidden")
    if legacy is not None and legacy in record.fields and raw.get(legacy) is not None:
        read[hidden] = raw[legacy]
    for key in record.sub_configs:
        legacy_dict = raw.get(f"{key}_dict")
        if isinstance(legacy_dict, dict):
            stated = raw.get(key)
            read[key] = {**(stated if isinstance(stated, dict) else {}), **legacy_dict}
            del read[f"{key}_dict"]
        if isinstance(read.get(key), dict):
            read[key] = _sub_aliases_read(read[key], record.sub_configs[key])
    text = _flat_text_fields(raw, record, learned or {})
    if text:
        read["text_config"] = {key: value for key, value in raw.items() if key in text}
    return read


def _sub_aliases_read(sub: dict[str, Any], default_type: str | None) -> dict[str, Any]:
    """A stated sub-config with its class's ``attribute_map`` aliases applied
    (:func:`_attribute_map_read`), as the class that builds it reads them: the stated model
    type's, else the composite's default one (Florence-2's BART text config states
    ``num_hidden_layers`` 12 beside ``encoder_layers``: the encoder has 12 layers)."""
    stated_type = sub.get("model_type")
    sub_type = stated_type if isinstance(stated_type, str) and stated_type else default_type
    sub_record = architectures.lookup(sub_type) if sub_type else None
    return sub if sub_record is None else _attribute_map_read(sub, sub_record)


def _attribute_map_read(obj: dict[str, Any], record: architectures.Architecture) -> dict[str, Any]:
    """``obj`` with each ``attribute_map`` pair (a standard name and the attribute it sets)
    holding one value under both names, the one the config class keeps. transformers sets
    the declared dataclass fields first and every other keyword afterwards through the map,
    so where both names are stated the one that is not a declared field wins: BART's
    ``num_hidden_layers`` over its field ``encoder_layers``, Qwen3-MoE's ``num_local_experts``
    over its field ``num_experts`` (the standard name is the field there). The attribute
    stated alone is left as it is: naming it under the standard name too would read a plan
    the class keeps (Granite-4-hybrid's ``layer_types``) as the legacy ``layers_block_type``."""
    read = obj
    for standard, real in record.aliases.items():
        if standard == real:
            continue
        stated = {name: obj[name] for name in (standard, real) if obj.get(name) is not None}
        if standard not in stated:
            continue  # the attribute alone: the class reads it as stated
        if len(stated) == 2 and standard in record.fields and real not in record.fields:
            value = stated[real]
        else:
            value = stated.get(standard, stated.get(real))
        if read is obj:
            read = dict(obj)
        read[standard] = read[real] = value
    return read


#: Legacy rope spellings (``rope_scaling``, ``rope_theta``): rotary tables are buffers, no
#: parameter depends on them.
_ROPE_KEYS = frozenset({"rope_scaling", "rope_theta", "rope_type", "partial_rotary_factor"})
#: Which stages a ``…Backbone`` returns (the other classes build every stage whatever they
#: say; a backbone's own stage selection is its caller's, rarely a released ``architectures``).
_STAGE_KEYS = frozenset({"out_indices", "out_features", "_out_indices", "_out_features"})


def _numeric(value: object) -> bool:
    """An integer, a list holding integers or a dict holding either: what may size a tensor
    (strings, floats such as Mamba's ``time_step_limit`` and booleans are not legacy shape
    keys; Kimi-Linear's ``linear_attn_config`` dict lists which layers are full attention)."""
    if isinstance(value, dict):
        return any(_numeric(item) for item in value.values())
    if isinstance(value, list):
        return any(isinstance(item, int) and not isinstance(item, bool) for item in value)
    return isinstance(value, int) and not isinstance(value, bool)


def _legacy_key(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """A stated key the config class reads from ``**kwargs`` (a legacy spelling, such as
    DeepSeek-V4's ``compress_ratios``, which rebuilds ``layer_types``): no build learned what it
    does, so a template that ignores it may count another model, unless it states the value
    the class falls back to without it (the row's ``legacy``: Qwen3-Next's
    ``full_attention_interval`` of 4), which is what the template learned. Legacy sub-config
    dicts (``text_config_dict``) are mapped by :func:`_as_the_class_reads` instead. A string
    is judged too: Nemotron-H's ``hybrid_override_pattern`` spells out its layers (and, the
    stated ``num_hidden_layers`` being ignored, was once the only key saying the depth); keys
    the generator probed inert or an alias (``legacy_keys``) are inside at any value. A flag
    is judged too: VideoMAE reads an old ``qkv_bias`` into ``qv_bias``, whose biases a
    template that ignored the key counted with the flag off."""
    record = architectures.lookup(model_type)
    if record is None:
        return None
    examined: list[str] = learned.get("examined", [])
    neutral: dict[str, list[object]] = learned.get("legacy", {})
    probed = accepted(learned)  # aliases and keys meta builds proved inert
    regime = learned.get("stated", {})  # a variant row's own keys (DETR's use_timm_backbone)
    for key, value in raw.items():
        if key in probed or (value in neutral.get(key, ()) and not isinstance(value, bool)):
            continue
        if key in regime and regime[key] == value:
            continue
        if (
            key in record.fields
            and key not in record.defaults
            and key not in examined
            and (_numeric(value) or isinstance(value, str | bool))
            and key not in record.sub_configs
            and key not in _ROPE_KEYS
            and key not in _STAGE_KEYS
            and not SIZES_NOTHING.search(key)  # a token id, a window: no tensor's size
            and not (key.endswith("_dict") and key[: -len("_dict")] in record.sub_configs)
        ):
            return key
    return None


def _sub_config_key(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """Why a key stated inside a sub-config lies outside the template, or None: each stated
    sub-config is judged as a config of its own type by the legacy-key guard, against what the
    row learned under it (:mod:`~dimlint.memory.parameters.sub_config_views`: Gemma-4's
    ``text_config.global_head_dim``). The flag guard is not applied so: the row does not record
    which sub-config flags field learning flipped and found inert (Llama-4's
    ``text_config.use_qk_norm``), so it would refuse those too."""
    for prefix, sub, sub_type, view in sub_config_views.views(raw, model_type, learned, row):
        legacy = _legacy_key(sub, sub_type, view)
        if legacy is not None:
            return f"{prefix}{legacy} is a legacy key {sub_type}'s config class maps"
    return None


def _unknown_number(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """The first key of ``raw`` that states an integer the config class does not declare and
    the generator never changed (``examined`` lists the numbers the default config holds,
    ``__post_init__`` ones such as ``qk_head_dim`` included): modeling code may read such a key
    with ``getattr`` (Qwen3-MoE's ``head_dim``), which no build exercised, so its effect on the
    shapes is unknown. A key no code of the type mentions (the row's ``mentioned``, beside the
    generic code's) shapes nothing, and a language-model key stated at the top level is the
    text config's where the class builds that from flat keys (``flat_text``). Any other name
    the row lists as mentioned is one the code reads off its config (DeBERTa-v2's
    ``embedding_size``): outside too, unless probed inert."""
    record = architectures.lookup(model_type)
    if record is None:
        return "model_type"
    known = record.fields | set(record.aliases) | architectures.base_fields()
    known |= set(learned.get("examined", []))
    mentions = learned.get("mentioned")
    text = _flat_text_fields(raw, record, learned)
    known |= accepted(learned)  # keys meta builds proved inert
    for key, value in raw.items():
        shape_like = SHAPE_KEY.search(key) is not None and (
            not isinstance(mentions, list) or key in mentions or key in generic_mentions()
        )
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and key not in known
            and key not in text
            and (shape_like or (isinstance(mentions, list) and key in mentions))
            and not _mirrors_a_sub_config(raw, key, value, record, learned)
        ):
            return key
    return None


def _mirrors_a_sub_config(
    raw: dict[str, Any],
    key: str,
    value: int,
    record: architectures.Architecture,
    learned: dict[str, Any],
) -> bool:
    """Whether the undeclared top-level ``key`` of a composite config repeats, at the same
    value, the field of one of its sub-models the template reads (``text_config.key``,
    ``vision_config.key``): older releases of the class kept such a mirror (Voxtral's and
    LLaVA's ``vocab_size``, Florence-2's ``projection_dim``), today's sets it as a plain
    attribute. Code that reads either one reads the value the template counted with
    (transformers' generic code reaches the language model's through ``get_text_config()``;
    a read of the top-level name with a fallback is a ``reads`` entry, judged by
    :func:`_unlearned_read`), so the key is inert; at another value it is not known to be."""
    values = _Values(raw, learned)
    return any(
        isinstance(raw.get(sub), dict) and values.get(f"{sub}.{key}") == value
        for sub in record.sub_configs
    )


def _flat_text_fields(
    raw: dict[str, Any], record: architectures.Architecture, learned: dict[str, Any]
) -> frozenset[str]:
    """The fields of the text sub-config a class that builds it from flat keys reads from
    ``raw`` (none when ``raw`` states a ``text_config``, or the class does not)."""
    if not learned.get("flat_text") or isinstance(raw.get("text_config"), dict):
        return frozenset()
    text_type = record.sub_configs.get("text_config")
    text = architectures.lookup(text_type) if text_type else None
    return frozenset(text.fields) if text is not None else frozenset()


def _stated_unset_number(
    raw: dict[str, Any], model_type: str, learned: dict[str, Any]
) -> str | None:
    """Why a stated number for a field whose class default is None cannot be counted, or
    None. The generator moves numbers and never a None, so no build stated such a field: a
    GPT-2 ``n_inner`` (None: four times the width) or a wav2vec2 ``adapter_attn_dim`` (None:
    no adapters) that a config states sizes tensors the template never saw sized so. Fields
    the row learned anyway (derived, stand-ins, regimes such as a CTC head's ``vocab_size``)
    are inside, and so are names that size nothing (token ids, windows, routing top-k) and
    fields meta builds stated at two numbers without a change (:mod:`domain_probes`)."""
    record = architectures.lookup(model_type)
    if record is None:
        return None
    learned_paths = all_learned_paths(learned)
    inert = inert_unset(model_type)
    for key, value in raw.items():
        if value is True and record.defaults.get(key, False) is None and key not in learned_paths:
            # a flag the class leaves None (off, to a truth test) turned on: ESM's
            # ``emb_layer_norm_before`` adds a norm no build had
            return (
                f"{key} = True is stated where the class default is None, which no build of"
                f" {model_type}'s template turned on"
            )
        if (
            _number(value) is not None
            and key in record.defaults
            and record.defaults[key] is None
            and key not in record.sub_configs
            and key not in learned_paths
            and not SIZES_NOTHING.search(key)
            and (
                SHAPE_KEY.search(key)
                or SIZE_WORD.search(key)
                # any other integer: inside only where builds at two numbers showed the
                # default's tensors (Falcon's num_ln_in_parallel_attn of 2 adds two norms)
                or (not isinstance(value, bool) and key not in inert)
            )
        ):
            return (
                f"{key} = {value} is stated where the class default is None, which no build of"
                f" {model_type}'s template moved"
            )
    return None


#: Further words of a size (GPT-2's ``n_inner``, Nemotron-H's ``moe_latent_size``); the shape
#: generator probes the same names for regimes (``generate_shapes._switching_unset_regimes``).
SIZE_WORD = re.compile(r"(inner|size)")


#: Key names that may size a tensor (``head_dim``, ``num_experts``…), as opposed to runtime
#: settings (``rope_theta``, ``n_ctx``) that a config class may not declare either; the shape
#: generator records and probes names by the same pattern.
SHAPE_KEY = re.compile(r"(dim|heads|layers|experts|rank|groups|intermediate|hidden|vocab)")


def _other_sub_config(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """Why a sub-config of another model type than the template's cannot be counted by it (a
    LLaVA whose language model is Qwen2, not the default Llama), or None: the template reads
    fields of its sub-model's config class (``text_config.attention_bias``), and a stated
    sub-model of another registered type is another model, whether or not its class has those
    fields. A stated type transformers does not register is left to the field checks where
    the class's sub-config class is fixed, which ignores the label (Florence-2's ``davit``),
    and refused where the class resolves it through AutoConfig, which refuses the config
    (``auto_sub_configs``). (A class may also build another
    sub-model type by default than the one its table declares, RF-DETR's DINOv2 backbone: a
    sub-config stating no type is the class's default, and a ``backbone_config``, which
    transformers consolidates with its own utility, is left to the field check.)"""
    record = architectures.lookup(model_type)
    if record is None:
        return None
    paths = set(learned.get("defaults", {})) | set(learned.get("declared", {}))
    for key, default_type in record.sub_configs.items():
        sub = raw.get(key)
        stated = sub.get("model_type") if isinstance(sub, dict) else None
        if not isinstance(stated, str) or not stated or stated in (default_type, model_type):
            continue
        expected = architectures.lookup(default_type)
        if expected is None:
            continue
        read = {path.split(".", 1)[1] for path in paths if path.startswith(f"{key}.")}
        other = architectures.lookup(stated)
        if other is None and key not in record.auto_sub_configs:
            continue  # a fixed sub-config class ignores the label; its fields are judged below
        known = architectures.base_fields()
        if other is not None:
            known = known | other.fields | set(other.aliases)
        missing = sorted((read & expected.fields) - known)
        if missing:
            return (
                f"{key}.model_type = {stated}: the template was learned with {default_type}"
                f" ({key}.{missing[0]} is not a field of {stated})"
            )
        if other is not None and read and key != "backbone_config":
            # A registered type: a sub-config the class resolves through AutoConfig builds that
            # type's model (Qwen2's biased q/k/v where the template learned Llama's; DeiT's
            # distillation token where it learned ViT), whose tensors the template never saw.
            return (
                f"{key}.model_type = {stated}: the template was learned with {default_type}"
                f" and no build of a {stated} {key} was learned"
            )
    return None


def _nested_sub_config(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """Why a sub-config stated inside a sub-config cannot be counted, or None (see
    :mod:`~dimlint.memory.parameters.nested_configs`)."""
    recorded: dict[str, dict[str, Any]] = learned.get("nested", {})
    for key, _, sub_type in sub_config_views.stated(raw, model_type):
        sub_record = architectures.lookup(sub_type)
        if sub_record is None:
            continue
        for inner in sub_record.sub_configs:
            path = f"{key}.{inner}"
            injected = path in learned.get("nested_injected", [])
            why = unlearned_nested(raw, key, inner, recorded.get(path), injected)
            if why is not None:
                return why
    return None


def _overwritten_statement(raw: dict[str, Any], learned: dict[str, Any]) -> str | None:
    """Why a stated field the config class overwrites cannot be read, or None: the class
    replaces it (the row's ``overwritten``), so a template that read it at the stated value
    would count a model transformers never builds. Where the class copies it from one other
    field (VibeVoice's ``diffusion_head_config.hidden_size`` from ``text_config.hidden_size``,
    BLIP's ``text_config.encoder_hidden_size`` from ``vision_config.hidden_size``), the value
    is read from there (:class:`_Values`); otherwise only the default build's value is known."""
    defaults: dict[str, Any] = learned.get("defaults", {})
    copied: dict[str, str | None] = learned.get("overwritten", {})
    for path, source in copied.items():
        if source is not None:
            continue
        stated = stated_at(raw, path)
        if _number(stated) is not None and stated != defaults.get(path):
            return (
                f"{path} = {stated} is replaced by the config class, not from one other"
                f" field; the template read it only at {defaults.get(path)}"
            )
    return None


def _unexamined_flag(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """Why a stated boolean field of the config class that the generator never varied (not in
    the row's ``examined``) and that differs from the class default may change the tensors
    (ERNIE's ``use_task_id`` adds task-type embeddings), or None."""
    record = architectures.lookup(model_type)
    if record is None:
        return None
    known = set(learned.get("examined", [])) | set(learned.get("defaults", {}))
    known |= set(learned.get("declared", {})) | architectures.base_fields() | _RUNTIME_FLAGS
    for key, value in raw.items():
        if (
            isinstance(value, bool)
            and key in record.fields
            and key not in known
            and record.defaults.get(key) is not None
            and value != record.defaults.get(key)
        ):
            return f"{key} = {value} was never varied when {model_type}'s template was learned"
    return None


def _flag_unchecked_for_class(
    raw: dict[str, Any], class_name: str, learned: dict[str, Any], record: dict[str, Any]
) -> str | None:
    """Why a stated boolean that differs from the default lies outside a class other than the
    primary, or None. The generator flips a flag in every class only when flipping it changed
    the primary's tensors: a flag inert there was never built in the heads (wav2vec2's
    ``use_weighted_layer_sum`` adds ``layer_weights`` to the sequence classifier, not to the
    pre-training model). A flag is checked for the class when some tensor of the primary or of
    the class is conditioned on it, or the row lists it in the class's ``checked_flags``."""
    primary = learned.get("primary")
    if class_name == primary:
        return None
    classes: dict[str, Any] = learned.get("classes", {})
    checked = set(record.get("checked_flags", []))
    for source in (record, classes.get(primary, {}) if isinstance(primary, str) else {}):
        for tensor in source.get("tensors", []) or []:
            if isinstance(tensor, list) and len(tensor) > 3:
                checked |= {str(condition[0]) for condition in tensor[3]}
    record_of_type = architectures.lookup(str(raw.get("model_type", "")))
    class_defaults = dict(record_of_type.defaults) if record_of_type is not None else {}
    defaults = {**class_defaults, **learned.get("declared", {}), **learned.get("defaults", {})}
    for path, default in defaults.items():
        if (
            not isinstance(default, bool)
            or "." in path
            or path in _RUNTIME_FLAGS
            or path in architectures.base_fields()  # the base class's, as _unexamined_flag
            or path == "tie_word_embeddings"  # rows condition an LM head on it where one is
        ):
            continue
        stated = raw.get(path)
        if isinstance(stated, bool) and stated != default and path not in checked:
            return (
                f"{path} = {stated} was built only in {primary}, where it changes nothing;"
                f" {class_name} was never built with it"
            )
    return None


def _unlearned_read(raw: dict[str, Any], model_type: str, learned: dict[str, Any]) -> str | None:
    """Why a stated key that the modeling code reads with a constant fallback and the config
    class does not declare (the row's ``reads``: DeBERTa's ``position_buckets``,
    ``conv_kernel_size``) lies outside the template, or None. The generator states each at the
    fallback that builds the default's model and learns it as a field, flag or string; a key
    it could not state (``reads`` holds None) or did not learn is inside only at that value."""
    known = set(learned.get("examined", [])) | set(learned.get("defaults", {}))
    known |= set(learned.get("fixed", [])) | set(learned.get("strings", {}))
    for path, value in learned.get("reads", {}).items():
        stated = stated_at(raw, path)
        if stated is None or path in known:
            continue
        if value is not None and stated == value and type(stated) is type(value):
            continue
        only = f"only {value!r}" if value is not None else "never stated"
        return f"{path} = {stated!r} is read by {model_type}'s code; no build learned it ({only})"
    return None


#: Boolean fields that choose runtime behaviour, never a tensor (the generator skips them too).
_RUNTIME_FLAGS = frozenset(
    {"use_cache", "output_attentions", "output_hidden_states", "return_dict", "torchscript",
     "use_return_dict", "is_decoder", "gradient_checkpointing"}
)  # fmt: skip


#: Fields whose class default is None and whose stated value the modeling code uses in place
#: of another field's (in transformers 5.24, TrOCR's cross-attention keys and values take
#: ``cross_attention_hidden_size`` as their input width instead of ``d_model``; the
#: encoder-decoder composites and MusicGen only compare it with the encoder's width). A
#: generator that varies numbers never moves a None default, so no template learned them.
_STAND_INS = {"cross_attention_hidden_size": "hidden_size"}


def _unlearned_stand_in(
    raw: dict[str, Any], model_type: str, learned: dict[str, Any], values: _Values
) -> str | None:
    """Why a stated stand-in width (:data:`_STAND_INS`) the row never learned may change the
    tensors, or None: stated equal to the field it stands in for, it changes nothing."""
    record = architectures.lookup(model_type)
    if record is None:
        return None
    known = set(learned.get("examined", [])) | set(learned.get("defaults", {}))
    known |= set(learned.get("declared", {})) | set(learned.get("derived", {}))
    for key, standard in _STAND_INS.items():
        stated = raw.get(key)
        if stated is None or key in known or key not in record.fields:
            continue
        replaced = values.get(record.attribute(standard))
        if stated != replaced:
            return (
                f"{key} = {stated} was never learned for {model_type} (it replaces the"
                f" {standard} {replaced} some layers are sized by)"
            )
    return None


def class_for(learned: dict[str, Any], architecture: str) -> str | None:
    """The class whose template applies: the one ``architectures`` names, else the class
    the generator learned from (the causal LM or conditional-generation class)."""
    classes: dict[str, Any] = learned.get("classes", {})
    if architecture:
        return architecture if architecture in classes else None
    primary = learned.get("primary")
    return primary if isinstance(primary, str) and primary in classes else None


def template_tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | None:
    """The parameter tensors of the model ``raw`` describes, or None without a usable template."""
    found = learned_tensors(raw, architecture)
    return found if isinstance(found, list) else None


def _off_relation(raw: dict[str, Any], learned: dict[str, Any]) -> list[Any] | None:
    """The first of the row's ``relations`` (:mod:`dimlint.tools.relation_regimes`) whose flag
    ``raw`` states at the regime's value and whose field it states at all: that field must
    then be stated at its derivation (checked once the config's values are read)."""
    for relation in learned.get("relations", []):
        field, flag, wanted, _ = relation
        if stated_at(raw, flag) == wanted and stated_at(raw, field) is not None:
            return list(relation)
    return None


class Refusal(Record):
    """Why no template answers for a config: ``learned`` says whether transformers has a row
    for its model type (then the config lies outside what the row learned, and a hand recipe
    that answers instead is unverified there)."""

    reason: str
    learned: bool


#: While :func:`estimated` runs: the reasons a config lies outside its template, gathered
#: instead of refused. None otherwise (every such reason refuses).
_OUTSIDE: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "outside_the_template", default=None
)


class _Outside(Exception):
    """A config outside what its template learned (:func:`learned_tensors` refuses it)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


def _outside_domain(why: str) -> None:
    """Refuse a config the template did not learn (raises :class:`_Outside`), or, while an
    estimate is made from the template anyway, note ``why`` and go on: the sizes it learned
    stand where the config leaves them, and ``why`` says what the estimate does not know."""
    if refused_outside(why) is not None:
        raise _Outside(why)


def refused_outside(why: str) -> Refusal | None:
    """A refusal for a config outside what its template learned (also for a check made beside
    the template, over the whole document); None while an estimate is made, which notes
    ``why`` instead (see :func:`estimated`)."""
    gathered = _OUTSIDE.get()
    if gathered is None:
        return Refusal(why, True)
    gathered.append(why)
    return None


@contextlib.contextmanager
def estimated() -> Iterator[list[str]]:
    """Within it, :func:`learned_tensors` answers outside the learned domain too, wherever the
    template can still be evaluated (not for an unlearned class, an unresolved field or a tower
    it never built), and the list yielded gathers why the answer is an estimate. ``mem`` labels
    it so: one counting mechanism whether the count is exact or not, no hand recipe beside it."""
    gathered: list[str] = []
    token = _OUTSIDE.set(gathered)
    try:
        yield gathered
    finally:
        _OUTSIDE.reset(token)


@contextlib.contextmanager
def outside_under(part: str) -> Iterator[None]:
    """Within it, the reasons an estimate gathers (:func:`estimated`) name ``part``: the tower
    of a composite whose own template is being evaluated."""
    gathered = _OUTSIDE.get()
    start = len(gathered) if gathered is not None else 0
    try:
        yield
    finally:
        if gathered is not None:
            gathered[start:] = [f"{part}: {why}" for why in gathered[start:]]


def learned_tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    """The parameter tensors of the model ``raw`` describes, or why the templates cannot say:
    the model type or class was never learned, or the config sets a field the template saw only
    at its default (see the module doc)."""
    try:
        return _learned_tensors(raw, architecture)
    except _Outside as outside:
        return Refusal(outside.why, True)


def _learned_tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    model_type = raw.get("model_type")
    if not isinstance(model_type, str):
        return Refusal("no model_type", False)
    learned = row(model_type)
    if learned is None:
        return Refusal(f"{model_type} has no learned template", False)
    raw = _legacy_read(raw, model_type)
    relation = _off_relation(raw, learned)  # the row's own: builds of its primary class
    base = learned
    equality = _unlearned_equality(raw, base)
    if equality is not None:
        _outside_domain(equality)
    floated = _stated_shaping_float(raw, model_type, base)
    if floated is not None:
        _outside_domain(floated)
    learned = _variant(raw, learned)
    unentered = _unlearned_regime(raw, base, learned)
    if unentered is not None:
        _outside_domain(unentered)
    # the row's own (a variant row may not record it), less the towers the variant states
    held = learned.get("stated", {}) if learned is not base else {}
    absent = stated_absent(raw, base, held)
    towers: list[str] = []
    if absent is not None:
        if _OUTSIDE.get() is None:
            return Refusal(absent, True)
        _outside_domain(f"{absent}; counted by its own model type's template, without a projection")
        towers = absent_keys(raw, base, held)
    class_name = class_for(learned, architecture) or class_names.respelled(
        learned, raw, architecture
    )
    if class_name is None:
        delegated = _delegated(raw, model_type, architecture, learned)
        if delegated is not None:
            return delegated
        unbuilt = learned.get("unbuilt", {}).get(architecture)
        why = f" (transformers did not build it: {unbuilt})" if unbuilt else ""
        refused = f"{architecture or 'its class'} of {model_type} was not learned{why}"
        stand_in = (
            class_names.stand_in(learned, model_type, architecture)
            if _OUTSIDE.get() is not None
            else None
        )
        if stand_in is None:
            return _owner_estimate(raw, model_type, architecture) or Refusal(refused, True)
        _outside_domain(f"{refused}: counted as {stand_in}")
        class_name = stand_in
    record = learned["classes"][class_name]
    # unstated, the class's own default count (PVT declares 1000), as the row recorded it
    default_labels = record.get("num_labels", learned.get("declared", {}).get("num_labels"))
    labels = labels_of(raw, default_labels if isinstance(default_labels, int) else 2)
    record = _label_regime(record, labels)
    tensors_json = record.get("tensors")
    if not isinstance(tensors_json, list):
        return Refusal(f"{class_name}'s tensors could not be fitted", True)
    label_axes: dict[str, list[Any]] = record.get("labels", {})
    labels_range = record.get("labels_range")
    unsized_head = False
    if "labels_range" in record:
        # learned with the label count moved: None when no count changed any tensor
        low, high = labels_range if isinstance(labels_range, list) else (labels, labels)
        if not low <= labels <= high:
            learned_at = f"{low}" if low == high else f"{low} to {high}"
            why = f"{class_name}'s head was learned with {learned_at} labels, not {labels}"
            _outside_domain(why)
    elif "num_labels" not in record or class_name == learned.get("primary"):
        # A row learned before label counts were (or the primary class, whose head never
        # moved) fitted the head's label axis to whatever field equalled the default label
        # count (type_vocab_size): the axis must still be the config's label count, at the
        # defaults (here) and at this config's values (in the loop).
        unsized_head = _has_label_head(learned, class_name)
    if unsized_head:
        seen = _learned_labels(tensors_json, learned.get("defaults", {}))
        if seen is not None and seen != labels:
            why = f"{class_name}'s head was learned with {seen} labels, not {labels}"
            _outside_domain(why)
    unset = _stated_unset_number(raw, model_type, learned)
    if unset is not None:
        _outside_domain(unset)
    unknown = _unknown_number(raw, model_type, learned)
    if unknown is not None:
        _outside_domain(f"{unknown} is not a field of {model_type}'s config class")
    other = _other_sub_config(raw, model_type, learned)
    if other is not None:
        _outside_domain(other)
    nested = _nested_sub_config(raw, model_type, learned)
    if nested is not None:
        _outside_domain(nested)
    replaced = _overwritten_statement(raw, learned)
    if replaced is not None:
        _outside_domain(replaced)
    flag = _unexamined_flag(raw, model_type, learned)
    if flag is not None:
        _outside_domain(flag)
    legacy = _legacy_key(raw, model_type, learned)
    if legacy is not None:
        _outside_domain(f"{legacy} is a legacy key {model_type}'s config class maps")
    inner = _sub_config_key(raw, model_type, learned)
    if inner is not None:
        _outside_domain(inner)
    read = _unlearned_read(raw, model_type, learned)
    if read is not None:
        _outside_domain(read)
    raw = _as_the_class_reads(raw, model_type, learned)
    forced = _string_fields(raw, learned)
    values = _Values(raw, learned, {**forced, "num_labels": labels})
    stand_in = _unlearned_stand_in(raw, model_type, learned, values)
    if stand_in is not None:
        _outside_domain(stand_in)
    paired = outside_pair(model_type, values.get)
    if paired is not None:
        _outside_domain(paired)
    moved = outside_move(model_type, raw)
    if moved is not None:
        _outside_domain(moved)
    defaults: dict[str, Any] = learned.get("defaults", {})
    scalar = _scalar_for_items(raw, defaults)
    if scalar is not None:
        _outside_domain(scalar)
    off = _stated_off_derivation(raw, model_type, learned, values)
    if off is not None:
        _outside_domain(off)
    derivations: dict[str, Any] = learned.get("derived", {})
    for path in learned.get("fixed", []):
        value = values.get(path)
        if path not in defaults or stated_as_derived(values.get, learned, path, value):
            continue  # the value the class derives when it is left out
        if value != defaults[path]:
            _outside_domain(_outside(path, value, defaults[path]))
        elif path in derivations:
            # a derived field moved with its derivation in every build (OPT's
            # word_embed_proj_dim with hidden_size): at its default value but off the
            # derivation, it is as unlearned as any other value (OPT then adds projections)
            fields = sorted({str(name) for term in derivations[path] for name, _ in term[2]})
            _outside_domain(
                f"{path} = {value} is not what the class derives from {', '.join(fields)}"
                " here; every build held it at that derivation"
            )
    for path in learned.get("counted_lists", {}):
        uncounted = counted_lists.outside(
            learned["counted_lists"], lambda name: stated_at(raw, name), path, values.get(path)
        )
        if uncounted is not None:
            _outside_domain(uncounted)
    # a stage width equal to another number drops or adds a tensor (ResNet-18's first stage,
    # as wide as its stem, has no shortcut): seen in a probe (``unequal``), or not known for a
    # pair the generator ran out of time to probe (``unprobed_equalities``); never learned
    for key, why in (
        ("unequal", "where the class builds other tensors; the template learned them unequal"),
        ("unprobed_equalities", "no build probed that equality"),
    ):
        for item, other in learned.get(key, []):
            value = values.get(item)
            if value is not None and value == values.get(other):
                _outside_domain(f"{item} equals {other} ({value}), {why}")
    stages = _other_stages(raw, learned)
    if stages is not None:
        _outside_domain(stages)
    broken = list_items.broken_division(learned, values.get)
    if broken is not None:
        _outside_domain(broken)
    if relation is not None and not stated_as_derived(
        values.get, learned, relation[0], values.get(relation[0])
    ):
        field, flag, wanted, names = relation
        shown = ", ".join(names[:2]) + (f" and {len(names) - 2} more" if len(names) > 2 else "")
        _outside_domain(
            f"{field} = {values.get(field)} with {flag} = {wanted} builds {shown}, which no"
            f" template learned: only {field} at the value {model_type} derives",
        )
    for path in record.get("unlearned_flags", []):
        if values.get(path) != defaults.get(path):
            why = f"{class_name} was not learned with {path} = {values.get(path)}"
            _outside_domain(f"{why} (only {defaults.get(path)})")
    unchecked = _flag_unchecked_for_class(raw, class_name, learned, record)
    if unchecked is not None:
        _outside_domain(unchecked)
    plans = plan_counts.stated_plans(raw, learned, record, values.get)
    for path, default in learned.get("lists", {}).items():
        if list_items.within(learned, path, _stated_list(raw, path)):
            continue  # read item by item: each item is judged as a field
        if path not in plans and _stated_list(raw, path) not in (None, default):
            _outside_domain(f"{path} differs from the only value learned ({default})")
    for path, item in learned.get("uniform", {}).items():
        stated = _stated_list(raw, path)
        if list_items.within(learned, path, stated):
            continue  # read item by item: each item is judged as a field
        if is_plan(stated):
            continue  # a per-layer plan: judged by the kinds' weights (unlearned_list, below)
        if not isinstance(stated, list) and _number(stated) is not None and stated != item:
            # one number where the class holds a list (Gemma-3n spreads it over every layer)
            _outside_domain(f"{path} = {stated}; the template saw a list of {item!r} only")
        other = next((x for x in stated if x != item), None) if isinstance(stated, list) else None
        if other is not None:
            why = f"{path} holds {other!r}; the template saw only {item!r} in every place"
            _outside_domain(why)
    tensors: list[Tensor] = []
    copied: dict[str, Any] = learned.get("overwritten", {})
    built: dict[str, set[str]] = {}  # tensor name → the flipped flags its row is built under
    refit = set(record.get("refit", []))
    multiple_of: dict[str, Any] = record.get("multiple_of", {})
    zeroed = [path for path in base.get("zero_counts", []) if values.get(path) == 0]
    for row_index, (name, count_expression, dims, conditions, *pinned) in enumerate(tensors_json):
        if zeroed and sized_by_any(dims, zeroed):
            continue  # an expert count of zero: the class builds no experts (``zero_counts``)
        if any(values.get(path) != wanted for path, wanted in conditions):
            missing = [path for path, _ in conditions if values.get(path) is None]
            if missing:
                return Refusal(f"{missing[0]} has no value", True)
            continue
        recounted = plan_counts.recount(row_index, record, plans) if plans else None
        # A tensor no expression explains keeps its default size while its fields do; one
        # only its count was pinned for is counted from a stated plan (``count_pins``).
        count_pinned = recounted is not None and row_index in record.get("count_pins", ())
        for path in pinned[0] if pinned and not count_pinned else ():
            if values.get(path) != defaults.get(path):
                _outside_domain(
                    f"{name} was seen only at {path} = {defaults.get(path)}"
                    f" (this config: {values.get(path)})",
                )
        needed: set[str] = set()
        for expression in (count_expression, *dims):
            needed |= {field for _, _, factors in expression for field, _ in factors}
        shape_fields = {field for dim in dims for _, _, factors in dim for field, _ in factors}
        # A tensor conditioned on a flag's default value was in every build the fields were
        # moved in, as an unconditioned one is; one that only a flipped flag builds was not.
        toggled = [path for path, wanted in conditions if defaults.get(path) != wanted]
        if name in refit:
            pass  # a flag's tensor fitted from builds in its regime: its sizes are learned
        elif toggled and not shape_fields and not _all_defaults(values, defaults):
            # A tensor that exists only under a flipped flag was seen in one build: its
            # constant shape (Cohere's per-head q/k norms: [64, 128]) says nothing about other
            # sizes.
            _outside_domain(f"{name} exists only under {toggled[0]} and was seen once")
        constant = [dim for dim in dims if not any(factors for _, _, factors in dim)]
        if toggled and constant and name not in refit and not _all_defaults(values, defaults):
            # Nor does a constant axis of a tensor only the flipped flag builds (Falcon's
            # ``new_decoder_architecture`` fused QKV, 13632 rows at the default width).
            _outside_domain(
                f"{name} exists only under {toggled[0]} = {values.get(toggled[0])} and one of"
                " its sizes was seen in that one build only",
            )
        if toggled and name not in refit and not _all_defaults(values, defaults):
            matched = _unverified_match(dims, tensors_json, values, defaults)
            if matched is not None:
                _outside_domain(f"{name} exists only under {toggled[0]}; {matched}")
        linearized = _linearized(values, defaults, count_expression, dims, learned.get("joint", []))
        if linearized is not None:
            _outside_domain(f"{name}'s learned shape {linearized}")
        resolved = {field: values.get(field) for field in needed}
        unresolved = sorted(field for field, value in resolved.items() if value is None)
        if unresolved and unresolved[0] in values.nulls:
            why = f"{unresolved[0]} is null, which the template never learned"
            return Refusal(f"{why} (only {defaults.get(unresolved[0])})", True)
        if unresolved:
            return Refusal(f"{unresolved[0]} has no usable value", True)
        count = evaluate_expression(count_expression, resolved, zero=True)
        if recounted is not None:
            count = recounted  # a layer kind's tensor: once per stated layer of its kind
        elif plans and "*" in name and _constant(count_expression) and count != 1:
            if count not in plan_counts.lengths(plans):
                # a layer tensor the builds repeated a fixed number of times (a class that
                # takes its layer count from the plan alone: Nemotron-H), under a plan of
                # another length
                why = f"{name} was learned in {count} layers, which the stated plan does not have"
                _outside_domain(why)
        elif plans and toggled and "*" in name and count not in plan_counts.lengths(plans):
            _outside_domain(
                f"{name} exists only under {toggled[0]} and its layer kind was not learned,"
                " so a stated plan cannot count it",
            )
        if count == 0:
            continue  # a layer kind the config has none of
        shape = [size for dim in dims if (size := evaluate_expression(dim, resolved)) is not None]
        if count is None or len(shape) != len(dims):
            return Refusal(f"{name}'s learned shape is not whole for these values", True)
        multiple = multiple_of.get(name)
        if isinstance(multiple, int) and multiple > 0:
            # a width seen to round up to a multiple (DINOv2's SwiGLU: to 8) is its fit only
            # where the fit is that multiple already
            fractional = [
                size
                for size, dim in zip([count, *shape], [count_expression, *dims], strict=True)
                if any(Fraction(term[0], term[1]).denominator > 1 for term in dim)
            ]
            if any(size % multiple for size in fractional):
                _outside_domain(
                    f"{name} rounds up to a multiple of {multiple}, which the template's"
                    " learned size is not for these values",
                )
        for axis in label_axes.get(name, ()):
            # ``[axis, offset]`` (a no-object class: +1); rows learned earlier hold the axis
            index, offset = (axis, 0) if isinstance(axis, int) else axis
            shape[index] = labels + offset
        if unsized_head and _HEAD.search(name) and shape and shape[0] != labels:
            # CamemBERT's type_vocab_size 1 would give its 2-label head one row.
            read = ", ".join(sorted(field for _, _, factors in dims[0] for field, _ in factors))
            _outside_domain(
                f"{name}'s first axis was fitted to {read or 'a constant'} ({shape[0]} here),"
                f" not to the {labels} labels of {class_name}'s head",
            )
        # a field the class copies from another (BLIP-2's qformer_config.encoder_hidden_size,
        # the vision tower's width) is named by its source: the tower it belongs to
        shaped_by = frozenset(str(copied.get(field) or field) for field in needed)
        tensor = Tensor(name, count, tuple(shape), shaped_by)
        flipped = set(toggled)
        if flipped and built.get(name, flipped) != flipped and built[name]:
            # two alternatives of one tensor, each learned under another flipped flag: this
            # config flips both, a combination no build had (Falcon's multi_query = false with
            # new_decoder_architecture = true). An estimate keeps the later one.
            flags = " and ".join(sorted(flipped | built[name]))
            _outside_domain(f"{name} is built otherwise under {flags}, never learned together")
            tensors = [kept for kept in tensors if kept.name != name]
        built[name] = flipped
        tensors.append(tensor)
    unlearned = unlearned_list(raw, model_type, learned, tensors, frozenset(plans))
    if unlearned is not None:
        _outside_domain(unlearned)
    for key in towers:
        tensors.extend(_tower_estimate(raw, key))
    return tensors


def _tower_estimate(raw: dict[str, Any], key: str) -> list[Tensor]:
    """While estimating: the tensors of a sub-model the template never built (see
    :func:`~dimlint.memory.parameters.absent_towers.absent_keys`), from the template of the
    base class of its own model type, named under ``key``; none where that cannot be evaluated
    (the estimate says so)."""
    sub = raw.get(key)
    model_type = sub.get("model_type") if isinstance(sub, dict) else None
    class_name = auto_class(model_type, "base") if isinstance(model_type, str) else None
    found = None
    if isinstance(sub, dict) and class_name:
        with outside_under(f"{key} ({class_name})"):
            found = learned_tensors(sub, class_name)
    if not isinstance(found, list):
        why = found.reason if isinstance(found, Refusal) else "its model type has no base class"
        _outside_domain(f"{key} is left out: {why}")
        return []
    return prefixed(found, key)


def prefixed(tensors: list[Tensor], key: str) -> list[Tensor]:
    """``tensors`` of a sub-model, named (and their fields) under the key that holds it."""
    return [
        Tensor(
            f"{key}.{tensor.name}",
            tensor.repeats,
            tensor.shape,
            frozenset(f"{key}.{field}" for field in tensor.fields),
        )
        for tensor in tensors
    ]


def _owner_estimate(raw: dict[str, Any], model_type: str, architecture: str) -> list[Tensor] | None:
    """While estimating: a class transformers registers for other model types only (a
    ``vit_mae`` config naming ``ViTForImageClassification``), counted by the template of a type
    that learned it, with this config's values (the class reads the fields it knows by name).
    None outside an estimate, or where no such type learned it."""
    owners = model_types_of(architecture) if architecture else None
    if _OUTSIDE.get() is None or not owners or model_type in owners:
        return None
    for owner in sorted(owners):
        learned = row(owner)
        if learned is None or architecture not in learned.get("classes", {}):
            continue
        _outside_domain(f"{architecture} is a class of {owner}: counted by {owner}'s template")
        found = learned_tensors({**raw, "model_type": owner}, architecture)
        return found if isinstance(found, list) else None
    return None


def _delegated(
    raw: dict[str, Any], model_type: str, architecture: str, learned: dict[str, Any]
) -> list[Tensor] | Refusal | None:
    """The tensors of a class transformers registers both for the composite ``model_type``
    and for the type of one of its sub-configs, learned there (``Llama4ForCausalLM``: the auto
    causal-LM mapping builds it from a ``Llama4Config``, and it is the language model the
    ``text_config`` describes): that sub-config counted by its own type's template, inside
    that template's domain. None where no sub-config's type learned the class, or where the
    top level states numbers of its own the composite class does not declare (a flat
    language-model config under the composite's type: what the class makes of it is unknown)."""
    owners = model_types_of(architecture) if architecture else None
    record = architectures.lookup(model_type)
    if not owners or model_type not in owners or record is None:
        return None
    if _unknown_number(raw, model_type, learned) or _flat_text_fields(raw, record, learned):
        return None
    for key, default_type in record.sub_configs.items():
        stated = raw.get(key)
        sub = stated if isinstance(stated, dict) else {}
        sub_type = sub.get("model_type") or default_type
        if not isinstance(sub_type, str) or sub_type == model_type or sub_type not in owners:
            continue
        sub_row = row(sub_type)
        if sub_row is not None and architecture in sub_row.get("classes", {}):
            with outside_under(key):
                found = learned_tensors({**sub, "model_type": sub_type}, architecture)
            if isinstance(found, Refusal):
                return Refusal(f"{key} ({architecture}): {found.reason}", True)
            # named as the class names them; shaped by the sub-config's fields
            return [
                tensor._replace(fields=frozenset(f"{key}.{field}" for field in tensor.fields))
                for tensor in found
            ]
    return None


def class_value(raw: dict[str, Any], standard: str) -> int | None:
    """The integer a standard field (``hidden_size``) of the config ``raw`` holds once its
    class has read it (stated under any spelling its ``attribute_map`` knows, derived as
    ``__post_init__`` derives it, else the class default), or None where the learned row cannot
    say: the same values the template evaluates its shapes with."""
    model_type = raw.get("model_type")
    learned = row(model_type) if isinstance(model_type, str) else None
    record = architectures.lookup(model_type) if isinstance(model_type, str) else None
    if learned is None or record is None or not isinstance(model_type, str):
        return None
    raw = _legacy_read(raw, model_type)
    learned = _variant(raw, learned)
    read = _as_the_class_reads(raw, model_type, learned)
    forced = _string_fields(read, learned)
    if isinstance(forced, str):
        return None
    return _Values(read, learned, forced).get(record.attribute(standard))


def _label_regime(record: dict[str, Any], labels: int) -> dict[str, Any]:
    """The class's record for ``labels``: its own, or the regime learned past the count where
    its head switches structure (``label_regimes``: LayoutLMv3's token classifier is one linear
    layer below 10 labels, a two-layer head from 10) whose range holds ``labels``."""
    for regime in record.get("label_regimes", []):
        low, high = regime.get("labels_range") or (0, -1)
        if low <= labels <= high:
            return {**record, **regime}
    return record


def _linearized(
    values: _Values,
    defaults: dict[str, Any],
    count_expression: Any,
    dims: list[Any],
    joint: list[str],
) -> str | None:
    """Why an expression with a negative term cannot be trusted here, or None.

    Tensor sizes are sums of positive widths; a fitted term with a negative coefficient is the
    tangent of a product at the default config (Phi-3's fused QKV, ``3·hidden - 192·heads +
    192·kv`` for ``hidden + 2·kv·hidden/heads`` around 96-wide heads): exact when each field
    changes alone from the default, wrong when several do. Such an expression holds only while
    the fields it reads keep their learned values but one, unless the generator saw it hold
    with all its fields moved at once (``joint``: MobileBERT's ``hidden_size -
    embedding_size``, a true difference)."""
    for expression in (count_expression, *dims):
        if not any(term[0] < 0 for term in expression):
            continue
        if json.dumps(expression, sort_keys=True, separators=(",", ":")) in joint:
            continue
        fields = sorted({field for _, _, factors in expression for field, _ in factors})
        moved = [field for field in fields if values.get(field) != defaults.get(field)]
        if len(moved) > 1:
            return (
                f"is a linear fit around the default ({', '.join(moved)} all differ from it):"
                " valid only while one field moves at a time"
            )
    return None


def labels_of(raw: dict[str, Any], default: int = 2) -> int:
    """The number of labels a classification head gets, as ``from_pretrained`` sets it: the
    size of ``id2label`` when stated, else ``num_labels``, else the class default (2 in
    ``PreTrainedConfig``; a class may declare another, PVT's 1000)."""
    id2label = raw.get("id2label")
    if isinstance(id2label, dict) and id2label:
        return len(id2label)
    stated = raw.get("num_labels")
    return stated if isinstance(stated, int) and not isinstance(stated, bool) else default


#: Classification heads whose first axis is the label count (RoBERTa-like and ELECTRA heads
#: end in ``classifier.out_proj``).
_HEAD = re.compile(
    r"^(classifier(\.\*|\.\d+|\.out_proj)?|score|classification_head\.out_proj|logits)\.weight$"
)


def _learned_labels(tensors_json: list[Any], defaults: Mapping[str, Any]) -> int | None:
    """The label count a row learned before heads were sized by labels: the first axis of its
    classifier weight in the default build (None: no such head). The fit may have explained
    that axis by a field that happened to equal the label count (ALBERT's 2 labels as
    ``type_vocab_size``); its default value is still what the build had."""
    for name, _count, dims, *_ in tensors_json:
        if _HEAD.search(str(name)) and dims:
            return evaluate_expression(dims[0], defaults)
    return None


def _has_label_head(learned: dict[str, Any], class_name: str) -> bool:
    """Whether a class of a row learned before heads were sized by labels may have one: any
    class but the one the fields were learned on, or a classifier."""
    return class_name != learned.get("primary") or "Classification" in class_name


def _outside(path: str, value: object, default: object) -> str:
    return (
        f"{path} = {value} lies outside what the template learned (only {default}: changing it"
        " changed the model in a way no learned expression explains)"
    )
