"""Turn a Python config candidate into the same :class:`ModelSpec` values a JSON config gives.

The candidate's keys become a dict, normalized by
:func:`dimlint.config.normalize.specs_for_document`
exactly as a config.json object would be, under synthetic JSON pointers (``/n_embd``,
``/rope_scaling/factor``); :class:`CandidateSpecs` maps each pointer back to the member it came
from, so that findings and fixes land on the source text. What differs from JSON is decided here:

* **Unknown values.** A value only running the code can tell (``config.n_embd``) is passed as
  :data:`UNKNOWN`, which normalization records as invalid — so no rule reasons about it — and is
  then dropped from ``spec.raw``, so that no rule reports it either. In code, ``None`` and a
  negative size mean "filled in later" (Meta's ``vocab_size: int = -1``, ``head_dim = None``):
  they are unknown too, never DL003.
* **Naming.** litgpt's ``n_query_groups``, ``n_expert``… are read as the canonical fields;
  messages keep the names the code uses.
* **Derived widths.** Meta's ``ModelArgs`` sizes its FFN from ``dim``, ``multiple_of`` and
  ``ffn_dim_multiplier`` (:func:`dimlint.checks.ffn.llama_ffn`); litgpt pads ``vocab_size`` up to
  ``padding_multiple``. The rules see these widths, located at the values they are computed from,
  and offer no fix for them (there is no literal to edit). Such values, and arithmetic like
  ``4 * HIDDEN``, are marked read-only for the fix search (``READ_ONLY``), which then repairs a
  finding through a value that is a literal.
* **Inherited values** (defaults of the class a call overrides, a parent class's fields) are
  marked as defaults: anchors and fixes then go to what the candidate itself states.
* **``hidden_dim`` as the width** (levanter's ``LlamaConfig(hidden_dim=…)``, bd3lms' and
  mdlm's ``PretrainedConfig`` subclasses: ``hidden_dim`` beside ``n_heads`` and no other width
  key), as the YAML reader reads it (:func:`dimlint.config.trainingkeys.hidden_dim_is_width`).
* **``width`` as the width** (the ViT family: big_vision, gemma's SigLIP, CLIP's
  ``Transformer(width, layers, heads)``: ``width`` beside a head count and a depth),
  :func:`dimlint.config.trainingkeys.width_is_width`; ``heads``, ``depth``/``layers`` and
  ``mlp_dim`` are then its heads, layers and MLP width.
* **Pax's experiment classes** (``MODEL_DIMS``, ``NUM_HEADS``, ``NUM_LAYERS``… as upper-case
  class attributes; the candidate's framework ``pax``): read in those names
  (:data:`dimlint.config.trainingkeys.PAX_RENAMES`).
* **nanoGPT's dialect** (``GPTConfig`` with ``n_layer``, ``n_head``, ``n_embd``, ``block_size``
  and ``bias``; the candidate's framework ``nanogpt``): ``block_size`` is the positions table,
  and the model is nanoGPT's ``GPT`` — model type :data:`NANOGPT_TYPE`, which
  :mod:`dimlint.memory.parameters.remote` counts as ``model.py`` builds it. Only when ``block_size``
  and ``bias`` are known values: otherwise the model is not identified, and its count stays an
  estimate.
"""

from __future__ import annotations

from typing import Any

from dimlint.config.geometry import llama_ffn
from dimlint.config.normalize import INT_FIELDS, field_keys, specs_for_document
from dimlint.config.pointers import escape_pointer_token
from dimlint.config.spec import (
    COMPUTED,
    INT_FIELD_NAMES,
    OWN_MODULE,
    READ_ONLY,
    Located,
    ModelSpec,
)
from dimlint.config.trainingkeys import (
    MEGATRON_MLA_NAMES,
    N_DIM_RENAMES,
    OPENMMLAB_RENAMES,
    PAX_RENAMES,
    VIT_RENAMES,
    embed_dims_is_width,
    hidden_dim_is_width,
    n_dim_is_width,
    prefixed_models,
    width_is_width,
)
from dimlint.records import Record
from dimlint.sources.python.configs import ALL_DIMENSION_KEYS, Candidate
from dimlint.sources.python.values import UNKNOWN, Member, Value, is_number

#: litgpt's names for fields that normalization knows under another spelling.
LITGPT_NAMES = {
    "n_query_groups": "num_key_value_heads",
    "n_expert": "num_experts",
    "n_expert_per_token": "num_experts_per_tok",
    "n_shared_expert": "n_shared_experts",
    "n_expert_groups": "n_group",
    "n_topk_groups": "topk_group",
}
#: x-transformers' keywords of a layer stack (``Decoder(dim=512, depth=6, heads=8)``).
X_TRANSFORMERS_NAMES = {
    "heads": "num_attention_heads",
    "depth": "num_hidden_layers",
    "attn_kv_heads": "num_key_value_heads",
    "attn_dim_head": "head_dim",
}
#: A torch module's own parameters in lucidrains' style (``SigLIP(dim=1152, depth=27,
#: heads=16)``, as x-transformers' stacks): its heads and its layers.
MODULE_NAMES = {"heads": "num_attention_heads", "depth": "num_hidden_layers"}
#: Keys only litgpt's ``Config`` uses: their presence selects litgpt's meaning of the others.
LITGPT_MARKERS = frozenset(
    {
        "n_query_groups",
        "padded_vocab_size",
        "padding_multiple",
        "rotary_percentage",
        "mlp_class_name",
    }
)
#: litgpt MLP classes and whether they are gated (SwiGLU/GeGLU).
LITGPT_GATED = {"LLaMAMLP": True, "GemmaMLP": True, "LLaMAMoE": True, "GptNeoxMLP": False}
#: nanoGPT's names for fields that normalization knows under another spelling.
NANOGPT_NAMES = {"block_size": "max_position_embeddings"}
#: The model type of nanoGPT's ``GPT`` (no transformers type:
#: :mod:`dimlint.memory.parameters.remote`).
NANOGPT_TYPE = "nanogpt"
#: How messages name Meta's computed FFN width (``FeedForward``'s ``hidden_dim``).
META_FFN_NAME = "FeedForward hidden_dim"


class CandidateSpecs(Record):
    """The specs of one candidate and what each synthetic pointer stands for."""

    specs: list[ModelSpec]
    members: dict[str, Member]
    #: Pointers of members the candidate inherits (not its own text).
    inherited: frozenset[str]


#: Keys whose 0 in code is a placeholder ("set later"), never a size: Megatron's
#: ``TransformerConfig`` declares ``num_layers: int = 0``, ``hidden_size: int = 0``.
PLACEHOLDER_ZERO_KEYS = field_keys(
    "hidden", "heads", "kv_heads", "head_dim", "ffn", "layers", "vocab", "max_positions"
)


def _python_value(key: str, value: Any) -> Any:
    """``None``, negative sizes and a 0 width are "set later" in code: unknown, not invalid."""
    if value is None:
        return UNKNOWN
    if key in ALL_DIMENSION_KEYS and is_number(value) and value < 0:
        return UNKNOWN
    if key in PLACEHOLDER_ZERO_KEYS and value.__class__ is int and value == 0:
        return UNKNOWN
    if isinstance(value, str) and "${" in value:
        return UNKNOWN  # an OmegaConf interpolation, resolved by the framework at run time
    return value


def _pointer(parent: str, key: str) -> str:
    return f"{parent}/{escape_pointer_token(key)}"


def _index(pointers: dict[str, Member], parent: str, members: tuple[Member, ...]) -> None:
    for member in members:
        pointer = _pointer(parent, member.key)
        pointers[pointer] = member
        _index(pointers, pointer, member.value.members)


def _known_int(members: dict[str, Member], key: str) -> int | None:
    member = members.get(key)
    value = member.value.value if member is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def specs_of(path: str, candidate: Candidate) -> CandidateSpecs:
    """Normalize ``candidate`` like a config.json object, under synthetic pointers."""
    members = candidate.members
    keys = set(members)
    litgpt = bool(LITGPT_MARKERS & keys)
    raw: dict[str, Any] = {}
    pointers: dict[str, Member] = {}
    inherited: set[str] = set()
    names: dict[str, str] = {}  # canonical key → the code's key
    renames = {**(LITGPT_NAMES if litgpt else {}), **_megatron_names(keys)}
    if candidate.framework == "x-transformers":
        renames.update(X_TRANSFORMERS_NAMES)
    if candidate.framework == OWN_MODULE:
        renames.update(MODULE_NAMES)
    if candidate.framework == "nanogpt":
        renames.update(NANOGPT_NAMES)
    if candidate.framework == "pax":
        renames.update(PAX_RENAMES)
    if hidden_dim_is_width(keys):  # levanter, bd3lms/mdlm: ``hidden_dim`` is the width
        renames["hidden_dim"] = "hidden_size"
    if n_dim_is_width(keys):  # UniFormerV2/EVL: ``n_dim`` beside ``n_head``
        renames.update((key, common) for key, common in N_DIM_RENAMES.items() if key.islower())
    if embed_dims_is_width({key: member.value.value for key, member in members.items()}):
        renames.update(OPENMMLAB_RENAMES)  # OpenMMLab's ``embed_dims`` beside ``num_heads``
    if width_is_width(keys):  # the ViT family: ``width``, ``depth``/``layers``, ``heads``
        renames.update(
            (key, common)
            for key, common in VIT_RENAMES.items()
            if _known_int(members, key) is not None
        )
    for key, member in members.items():
        raw_key = renames.get(key, key) if renames.get(key) not in keys else key
        if raw_key != key:
            names[raw_key] = key
        raw[raw_key] = _python_value(raw_key, member.value.value)
        pointer = _pointer("", raw_key)
        pointers[pointer] = member
        _index(pointers, pointer, member.value.members)
        if key in candidate.inherited:
            inherited.add(pointer)
    by_pointer = _prefixed(candidate, raw, pointers, inherited)
    derived: dict[str, str] = {}
    if "multiple_of" in keys:
        _meta_ffn(candidate, raw, pointers, inherited, derived)
    if litgpt:
        _litgpt_vocab(candidate, raw, pointers, inherited)
    if candidate.model_type and not isinstance(raw.get("model_type"), str):
        raw["model_type"] = candidate.model_type
    if candidate.framework == "nanogpt" and _is_nanogpt(raw):
        raw["model_type"] = NANOGPT_TYPE
    specs = specs_for_document(path, raw)
    read_only = frozenset(p for p, member in pointers.items() if member.value.edit is None)
    computed = read_only - {_pointer("", key) for key in derived}
    for spec in specs:
        _python_semantics(spec, inherited, by_pointer.get(spec.pointer, names), derived)
        spec.memo[READ_ONLY] = read_only
        spec.memo[COMPUTED] = computed
    if litgpt and specs:
        gated = members.get("mlp_class_name")
        kind = gated.value.value if gated is not None else None
        if isinstance(kind, str) and kind in LITGPT_GATED:
            specs[0].gated_mlp = LITGPT_GATED[kind]
    if derived and specs:
        specs[0].gated_mlp = True  # Meta's FeedForward is SwiGLU
    if candidate.framework == "x-transformers":
        for spec in specs:
            if spec.head_dim is None:  # x-transformers' DEFAULT_DIM_HEAD: heads need not
                # divide ``dim``, each head is 64 wide unless ``attn_dim_head`` says otherwise
                spec.head_dim = Located(64, "attn_dim_head", None, "default")
    if candidate.framework == "megatron":
        for spec in specs:
            _megatron_head_width(spec)
            if isinstance(spec.raw.get("rope_scaling"), bool):
                del spec.raw["rope_scaling"]  # megatron-core's flag, not transformers' dict
    if candidate.framework == "pax":
        for spec in specs:
            if spec.heads is not None:
                # paxml's task() asserts MODEL_DIMS == NUM_HEADS * DIMS_PER_HEAD: a stated
                # head width is the width's share, so the heads must divide the width
                spec.head_dim = None
    return CandidateSpecs(specs, pointers, frozenset(inherited))


def _prefixed(
    candidate: Candidate, raw: dict[str, Any], pointers: dict[str, Member], inherited: set[str]
) -> dict[str, dict[str, str]]:
    """Models a class states side by side under name prefixes (nanoVLM's ``vit_*``, ``lm_*``;
    :func:`dimlint.config.trainingkeys.prefixed_models`): each becomes a sub-config ``/<prefix>``
    of its stripped keys (``hidden_dim`` beside ``n_heads`` as the width), normalized as a
    nested config is; the names its messages use, by the sub-config's pointer."""
    by_pointer: dict[str, dict[str, str]] = {}
    for prefix, group in prefixed_models(candidate.members).items():
        if prefix in raw:
            continue
        renamed = {"hidden_dim": "hidden_size"} if hidden_dim_is_width(group) else {}
        parent = _pointer("", prefix)
        sub: dict[str, Any] = {}
        for rest, key in group.items():
            member = candidate.members[key]
            common = renamed.get(rest, rest)
            sub[common] = _python_value(common, member.value.value)
            pointer = _pointer(parent, common)
            pointers[pointer] = member
            if key in candidate.inherited:
                inherited.add(pointer)
            by_pointer.setdefault(parent, {})[common] = key
        raw[prefix] = sub
    return by_pointer


def _is_nanogpt(raw: dict[str, Any]) -> bool:
    """nanoGPT's model, identified: no model type of its own, and the two values that make it
    nanoGPT's known (``bias`` a bool, ``block_size`` a size)."""
    positions = raw.get(NANOGPT_NAMES["block_size"])
    return (
        "model_type" not in raw
        and isinstance(raw.get("bias"), bool)
        and isinstance(positions, int)
        and not isinstance(positions, bool)
        and positions > 0
    )


def _meta_ffn(
    candidate: Candidate,
    raw: dict[str, Any],
    pointers: dict[str, Member],
    inherited: set[str],
    derived: dict[str, str],
) -> None:
    """Meta's ``ModelArgs``: the FFN width ``FeedForward`` computes from dim and multiple_of."""
    members = candidate.members
    if any(is_number(raw.get(key)) for key in field_keys("ffn")):
        return
    hidden_key = next(
        (k for k in ("dim", "hidden_size", "n_embd", "d_model") if k in members), None
    )
    hidden = _known_int(members, hidden_key) if hidden_key else None
    multiple_of = _known_int(members, "multiple_of")
    multiplier: Any = 1.0
    if "ffn_dim_multiplier" in members:
        stated = members["ffn_dim_multiplier"].value.value
        multiplier = 1.0 if stated is None else stated
    if hidden is None or multiple_of is None or not is_number(multiplier) or multiplier <= 0:
        return
    width = llama_ffn(hidden, multiple_of, float(multiplier))
    key = INT_FIELDS["ffn"][0]
    raw[key] = width
    # Point at the input the candidate itself states (a call overriding ffn_dim_multiplier
    # is about the multiplier), else at multiple_of in the class.
    inputs = [k for k in ("ffn_dim_multiplier", "multiple_of", hidden_key) if k in members]
    stated = [
        k for k in inputs if k not in candidate.inherited and members[k].value.value is not None
    ]
    source = members[stated[0] if stated else "multiple_of"]
    pointer = _pointer("", key)
    pointers[pointer] = Member(key, None, None, source.use, Value(width))
    derived[key] = META_FFN_NAME
    inherited.discard(pointer)
    if not stated:
        inherited.add(pointer)


def _litgpt_vocab(
    candidate: Candidate, raw: dict[str, Any], pointers: dict[str, Member], inherited: set[str]
) -> None:
    """litgpt embeds ``padded_vocab_size`` rows: stated, or vocab_size padded up to
    ``padding_multiple`` (``find_multiple``); ``vocab_size`` is the tokenizer's."""
    members = candidate.members
    if _known_int(members, "padded_vocab_size") is not None:
        raw.pop("vocab_size", None)
        return
    vocab = _known_int(members, "vocab_size")
    multiple = _known_int(members, "padding_multiple")
    if vocab is None or multiple is None:
        return
    padded = -(-vocab // multiple) * multiple
    raw.pop("vocab_size", None)
    raw["padded_vocab_size"] = padded
    source = members["vocab_size"]
    pointer = _pointer("", "padded_vocab_size")
    pointers[pointer] = Member("padded_vocab_size", None, None, source.use, Value(padded))
    inherited.discard(pointer)
    if {"vocab_size", "padding_multiple"} <= candidate.inherited:
        inherited.add(pointer)


def _megatron_head_width(spec: ModelSpec) -> None:
    """megatron-core's head width: ``kv_channels`` defaults to ``hidden_size //
    num_attention_heads`` (transformer_config.py, ``__post_init__``), rounded down, and the
    model runs with a query projection narrower than the hidden state: not DL101's crash."""
    hidden, heads = spec.hidden, spec.heads
    if spec.head_dim is not None or hidden is None or heads is None or heads.value <= 0:
        return
    if hidden.value % heads.value:
        spec.head_dim = Located(hidden.value // heads.value, "kv_channels", None, "derived")


def _megatron_names(keys: set[str]) -> dict[str, str]:
    """Megatron's MLA names, read as DeepSeek's where the candidate is latent attention."""
    if "kv_lora_rank" not in keys:
        return {}
    return {key: name for key, name in MEGATRON_MLA_NAMES.items() if key in keys}


def _python_semantics(
    spec: ModelSpec, inherited: set[str], names: dict[str, str], derived: dict[str, str]
) -> None:
    """Apply what differs from JSON to one normalized spec (see the module docstring)."""
    spec.raw = {key: value for key, value in spec.raw.items() if value is not UNKNOWN}
    for field in (*INT_FIELD_NAMES, "partial_rotary_factor"):
        located: Located[Any] | None = getattr(spec, field)
        if located is None or located.pointer is None:
            continue
        key = names.get(located.key, derived.get(located.key, located.key))
        top = "/" + located.pointer.split("/")[1] if located.pointer else ""
        origin = "default" if top in inherited and located.in_file else located.origin
        if key != located.key or origin != located.origin:
            setattr(spec, field, Located(located.value, key, located.pointer, origin))
