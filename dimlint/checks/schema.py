"""DL003 invalid-value and DL005 missing-dimension: is each dimension a usable number at all?

Types and ranges live in a JSON Schema shipped with the package (``data/config.schema.json``) and
are enforced with jsonschema. Loading jsonschema and building a validator costs more than
checking a clean config, so a tiny evaluator for the few keywords the schema uses answers "all
fine" first; jsonschema runs only on objects that evaluator doubts, and produces the messages.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import Iterator
from typing import Any

from dimlint.checks.registry import Finding, PlannedFix, rule
from dimlint.config import architectures, behaviour
from dimlint.config.normalize import INT_FIELDS, MAX_DIMENSION, REQUIRED_FIELDS, field_keys
from dimlint.config.pointers import escape_pointer_token
from dimlint.config.spec import ModelSpec
from dimlint.config.values import HugeInt, Malformed
from dimlint.diagnostics import Applicability, Severity

SCHEMA_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "config.schema.json"
)


@functools.cache
def schema() -> dict[str, Any]:
    with open(SCHEMA_FILE, encoding="utf-8") as handle:
        loaded: dict[str, Any] = json.load(handle)
    return loaded


def _is_type(value: Any, name: str) -> bool:
    if name == "integer":
        return (
            isinstance(value, int)
            and not isinstance(value, bool)
            and not isinstance(value, HugeInt)
        )
    if name == "number":
        if isinstance(value, float):
            return math.isfinite(value)
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    return False


class _QuickChecks(dict[str, Any]):
    """A compiled predicate per schema property, compiled when a config first states it (one
    config states a few dozen of the schema's properties)."""

    def __missing__(self, key: str) -> Any:
        check = self[key] = _compile(schema()["properties"][key])
        return check


@functools.cache
def _quick_checks() -> _QuickChecks:
    return _QuickChecks()


@functools.cache
def _compiled_definition(name: str) -> Any:
    return _compile(schema()["$defs"][name])


def _compile(subschema: dict[str, Any]) -> Any:
    """A predicate for the keywords the shipped schema uses; False means "ask jsonschema".

    The schema is walked once here rather than on every value: a corpus asks the same
    questions tens of thousands of times."""
    if "$ref" in subschema:
        reference = subschema["$ref"]
        target = _compiled_definition(reference.rsplit("/", 1)[-1])
        if reference in ("#/$defs/required_dimension", "#/$defs/optional_dimension"):
            nullable = reference.endswith("optional_dimension")

            def dimension(value: Any) -> bool:
                if value.__class__ is int:
                    return bool(1 <= value <= MAX_DIMENSION)
                return (nullable and value is None) or bool(target(value))

            return dimension
        return target
    if "anyOf" in subschema:
        options = tuple(_compile(option) for option in subschema["anyOf"])

        def any_of(value: Any) -> bool:
            for option in options:  # noqa: SIM110 (no generator per value)
                if option(value):
                    return True
            return False

        return any_of
    types = subschema.get("type")
    names = () if types is None else ((types,) if isinstance(types, str) else tuple(types))
    bounds = tuple(
        (keyword, subschema[keyword])
        for keyword in ("minimum", "maximum", "exclusiveMinimum")
        if keyword in subschema
    )
    items = _compile(subschema["items"]) if "items" in subschema else None
    extra = subschema.get("additionalProperties")
    members = _compile(extra) if isinstance(extra, dict) else None

    def check(value: Any) -> bool:
        if names:
            for name in names:
                if _is_type(value, name):
                    break
            else:
                return False
        if bounds and isinstance(value, int | float) and not isinstance(value, bool):
            for keyword, bound in bounds:
                if keyword == "minimum" and value < bound:
                    return False
                if keyword == "maximum" and value > bound:
                    return False
                if keyword == "exclusiveMinimum" and value <= bound:
                    return False
        if items is not None and isinstance(value, list):
            return all(items(item) for item in value)
        if members is not None and isinstance(value, dict):
            return all(members(member) for member in value.values())
        return True

    return check


@functools.cache
def _validator() -> Any:
    import jsonschema

    base = jsonschema.Draft202012Validator
    # JSON Schema's "integer" admits 4096.0; a tensor dimension must be a real integer.
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: _is_type(value, "integer")
    ).redefine("number", lambda _checker, value: _is_type(value, "number"))
    extended = jsonschema.validators.extend(base, type_checker=checker)  # type: ignore[no-untyped-call]
    return extended(schema())


def _too_large(value: Any) -> bool:
    """An integer (or a list of them) past int64: reported, never computed with."""
    if isinstance(value, list):
        return any(_too_large(item) for item in value)
    return isinstance(value, int) and not isinstance(value, bool) and value > MAX_DIMENSION


def _describe(value: Any) -> str:
    if isinstance(value, HugeInt):
        return f"an integer literal of {value.digits} digits"
    if isinstance(value, Malformed):
        return f"{value.text}, {value.reason}"
    if isinstance(value, bool):
        return f"the boolean {json.dumps(value)}"
    if value is None:
        return "null"
    if isinstance(value, float):
        return f"the float {value!r}" if math.isfinite(value) else f"{value!r} (not a number)"
    if isinstance(value, str):
        return f"the string {json.dumps(value)}"
    if isinstance(value, int):
        if value.bit_length() <= 256:
            return str(value)
        return f"an integer of {value.bit_length()} bits (over 10**{value.bit_length() * 3 // 10})"
    return f"a JSON {type(value).__name__.replace('dict', 'object').replace('list', 'array')}"


def _repair(value: Any, expected: str) -> tuple[str, Applicability] | None:
    """A rewrite of a mistyped integer dimension, and how sure it is.

    Only where the key's type is certainly an integer (``expected`` says so): ``4096.0`` →
    ``4096`` is safe (JSON readers already treat the two alike in arithmetic). A string of
    digits (``"4096"``) → ``4096`` changes the value's type, so it is unsafe: the string may be
    a template placeholder or a value meant for another key. Booleans (``"1"`` for
    ``tie_word_embeddings``) and objects (``"8"`` for ``rope_scaling``) get no fix at all: the
    intended value cannot be derived from the text.
    """
    if "integer" not in expected:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer() and value > 0:
        if value >= 2**63:
            return None  # beyond any tensor size: the intended value is unknown
        return str(int(value)), Applicability.SAFE
    text = value.strip() if isinstance(value, str) else ""
    if text.isascii() and text.isdigit() and len(text) <= 19 and int(text) > 0:
        return str(int(text)), Applicability.UNSAFE
    return None


@rule(
    "DL003",
    "invalid-value",
    Severity.ERROR,
    "A dimension has the wrong type or range (string, float, bool, null where required, ≤ 0).",
    fix="sometimes",
)
def check_invalid_values(spec: ModelSpec) -> Iterator[Finding]:
    checks = _quick_checks()
    stated = schema()["properties"]
    doubtful = [key for key, value in spec.raw.items() if key in stated and not checks[key](value)]
    if not doubtful:
        return
    if is_template(spec):
        doubtful = [key for key in doubtful if spec.raw[key] is not None]  # DL005 says it once
    doubtful = [key for key in doubtful if not _accepted_exception(spec, key)]
    if not doubtful:
        return
    validator = _validator()
    properties: dict[str, Any] = schema()["properties"]
    for key in doubtful:
        value = spec.raw[key]
        if next(validator.iter_errors({key: value}), None) is None:
            continue
        pointer = f"{spec.pointer}/{escape_pointer_token(key)}"
        expected = _expected(properties[key], key)
        if _too_large(value):
            expected = f"at most 2**63 - 1 ({expected}: the largest size a tensor can have)"
        message = f"{key} is {_describe(value)}, but it must be {expected}"
        if spec.path.endswith(".py") and isinstance(value, list | tuple) and len(value) == 1:
            # Python code: ``q_lora_rank: int = None,`` (a trailing comma) makes a 1-tuple
            message = (
                f"{key} is a one-element tuple ({value[0]!r},): a trailing comma"
                f" after the value makes one; it must be {expected}"
            )
        if value is None:
            message += f": {key} is a required dimension of {spec.label}; set it to its size"
        repair = _repair(value, expected)
        fix = None
        if repair is not None:
            replacement, applicability = repair
            message += f" (write {replacement})"
            fix = PlannedFix(
                applicability,
                f"write {key} as the integer {replacement}",
                ((pointer, replacement),),
            )
        yield Finding("DL003", message, pointer, fix=fix)


#: Spellings of a layer count.
_LAYER_KEYS = field_keys("layers")

#: Keys that make a config use rotary embeddings, where no weight is shaped by the positions.
ROTARY_KEYS = ("rope_theta", "rope_parameters", "rope_scaling", "partial_rotary_factor")


def _accepted_exception(spec: ModelSpec, key: str) -> bool:
    """Values the schema doubts but the model type itself declares legitimate.

    * ``null`` where the model type's own default is null (wav2vec2-bert's vocab_size: only
      its optional CTC head uses it);
    * ``head_dim`` 0 in latent-attention configs, which write 0 for "unused" (GLM-5);
    * an integral float ``max_position_embeddings`` in a rotary model: no weight is shaped by it
      (transformers' MusicFlamingo derives it from rope_theta);
    * a layer count of 0 in a nested component of no transformers model type: a stack switched
      off, not the model (NeMo's ``transf_encoder.num_layers: 0`` in Canary-style ASR configs
      such as Cohere's transcription models: no transformer layers between the conformer and
      the decoder).
    """
    value = spec.raw[key]
    if value == 0 and not isinstance(value, bool) and key in _LAYER_KEYS:
        return bool(spec.pointer) and spec.model_type is None
    if value is None:
        if behaviour.accepts_null(spec.model_type, key):
            # the config class types it ``int | None``; only a head that needs it refuses
            return not (key == "vocab_size" and _needs_vocab(spec))
        arch = architectures.lookup(spec.model_type) if spec.model_type else None
        return arch is not None and key in arch.fields and arch.defaults.get(key, 0) is None
    if key == "head_dim" and value == 0:
        return "kv_lora_rank" in spec.raw
    if key == "max_position_embeddings" and isinstance(value, float) and value.is_integer():
        arch = architectures.lookup(spec.model_type) if spec.model_type else None
        defaults = arch.defaults if arch else {}
        return any(k in spec.raw or defaults.get(k) is not None for k in ROTARY_KEYS)
    return False


#: Heads whose output layer has one row per token of the vocabulary: a class ending so refuses
#: a config without ``vocab_size`` (Wav2Vec2ForCTC: "does not define the vocabulary size of the
#: language model head").
_VOCAB_HEADS = ("ForCTC", "ForCausalLM", "ForMaskedLM", "ForPreTraining", "LMHeadModel",
                "ForConditionalGeneration")  # fmt: skip


def _needs_vocab(spec: ModelSpec) -> bool:
    names = spec.raw.get("architectures")
    if not isinstance(names, list):
        return False
    return any(isinstance(name, str) and name.endswith(_VOCAB_HEADS) for name in names)


def _expected(subschema: dict[str, Any], key: str) -> str:
    if key in ("partial_rotary_factor", "rotary_pct"):
        return "a number in (0, 1]"
    if key == "layer_types":
        return "a list of layer type names"
    if key == "mlp_ratio":
        return "a finite number (0 when mlp_hidden_size states the width), or a list of them"
    if "type" in subschema and subschema["type"] in (["boolean", "null"], ["object", "null"]):
        return "a " + str(subschema["type"][0])
    reference = subschema.get("$ref", "")
    if reference.endswith("optional_count"):
        return "a non-negative JSON integer (or null)"
    if reference.endswith("optional_dimension"):
        return "a positive JSON integer (or null to use the default)"
    return "a positive JSON integer"


def is_template(spec: ModelSpec) -> bool:
    """Every required dimension the config states is null: a template to be filled in."""
    for name in REQUIRED_FIELDS:
        located = getattr(spec, name)
        if located is not None and located.in_file:
            return False  # a stated size: not a template (the common case, decided first)
    return sum(1 for name in REQUIRED_FIELDS if _explicit_null(spec, name)) >= 2


def _has_sub_configs(spec: ModelSpec) -> bool:
    for value in spec.raw.values():
        if value.__class__ is dict and _looks_nested_config(value):
            return True
    return False


def _looks_nested_config(value: dict[str, Any]) -> bool:
    from dimlint.config.normalize import looks_like_model_config

    return looks_like_model_config(value)


@rule(
    "DL005",
    "missing-dimension",
    Severity.WARNING,
    "A dimension the rules need is absent and has no default.",
)
def check_missing(spec: ModelSpec) -> Iterator[Finding]:
    if spec.pointer:
        return  # nested towers name their sizes many ways (depth, embed_dim…) and lack vocab
    if is_template(spec):
        yield Finding(
            "DL005",
            "every dimension of this config is null: it looks like a template to be filled in"
            " (speculative-decoding drafts are often shipped so). The shape rules were skipped;"
            " fill in hidden_size, num_attention_heads, num_hidden_layers and vocab_size.",
            None,
        )
        return
    missing = [
        INT_FIELDS[name][0]
        for name in REQUIRED_FIELDS
        if getattr(spec, name) is None
        and name not in spec.invalid
        and not _stated(spec, name)
        and _applies(spec, name)
    ]
    if not missing or _has_sub_configs(spec):
        return  # (a composite model: its sizes live in text_config, vision_config…)
    if len(missing) == len(REQUIRED_FIELDS) and _unknown_type(spec):
        # none of the four under any spelling, and a model type no row describes: the model
        # names its sizes otherwise (InternImage's convolutional `channels`/`depths`), and no
        # shape rule was ever going to read it
        return
    if not spec.model_type and not spec.raw.get("architectures"):
        # neither a model type nor a class: no Hugging Face config, whose loader would need the
        # keys (GRiT's Swin JSON states `embed_dim` and per-stage `num_heads` for its own code)
        return
    names = ", ".join(missing)
    one = len(missing) == 1
    kind = f"model type {spec.model_type!r}" if spec.model_type else "this config (no model_type)"
    yield Finding(
        "DL005",
        f"{names} {'is' if one else 'are'} not set and {kind} has no default for"
        f" {'it' if one else 'them'}: the shape rules that need {'it' if one else 'them'} were"
        f" skipped; add the key{'' if one else 's'} to the config",
        None,
    )


def _unknown_type(spec: ModelSpec) -> bool:
    return not spec.model_type or architectures.lookup(spec.model_type) is None


#: Families without attention heads (recurrent / state-space models).
ATTENTION_FREE = ("rwkv", "mamba", "xlstm", "retnet", "hgrn")


def _applies(spec: ModelSpec, name: str) -> bool:
    """Whether the model type has this dimension at all (vision towers have no vocab…)."""
    arch = architectures.lookup(spec.model_type) if spec.model_type else None
    if arch is not None:
        return arch.attribute(INT_FIELDS[name][0]) in arch.fields
    if name == "heads" and spec.model_type:
        return not any(family in spec.model_type for family in ATTENTION_FREE)
    return True


def _stated(spec: ModelSpec, name: str) -> bool:
    """The config has a key for this dimension (null, per-stage list…), so it is not missing."""
    return any(key in spec.raw for key in (INT_FIELDS[name][0], *INT_FIELDS[name][1]))


def _explicit_null(spec: ModelSpec, name: str) -> bool:
    keys = (INT_FIELDS[name][0], *INT_FIELDS[name][1])
    return any(key in spec.raw and spec.raw[key] is None for key in keys)
