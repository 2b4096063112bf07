"""Turn a parsed config object (and its nested sub-configs) into :class:`ModelSpec` values.

Resolution order for each canonical dimension:

1. the key the model type itself stores it under (transformers' ``attribute_map``: gpt2 keeps
   ``hidden_size`` in ``n_embd``), then the common spellings used by remote-code models
   (chatglm's ``ffn_hidden_size``, falcon's ``n_head_kv``…);
2. otherwise the model type's default for an absent key, from the generated table;
3. otherwise nothing: the rules that need the value stay silent (DL005 says so when the value is
   one the rules cannot do without).

Values of the wrong type are not coerced: they are recorded as invalid so that DL003 reports them
and the arithmetic rules do not cascade.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any, TypeGuard

from dimlint.config import architectures, trainingkeys
from dimlint.config.architectures import Architecture
from dimlint.config.pointers import escape_pointer_token
from dimlint.config.spec import Located, ModelSpec

#: Canonical field → (transformers' standard attribute name, other spellings in real configs).
INT_FIELDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "hidden": (
        "hidden_size",
        ("n_embd", "n_embed", "d_model", "dim", "model_dim", "embed_dim", "hidden-size"),
    ),
    "heads": (
        "num_attention_heads",
        (
            "n_head",
            "n_heads",
            "num_heads",
            "encoder_attention_heads",
            "attention_heads",
            "num-attention-heads",
            "nhead",  # torch's ``nn.Transformer*`` spelling, kept by lightseq's ``get_config``
        ),
    ),
    "kv_heads": (
        "num_key_value_heads",
        (
            "num_kv_heads",
            "n_head_kv",
            "n_kv_heads",
            "num_query_groups",
            "kv_heads",
            "num-kv-heads",
        ),
    ),
    "head_dim": (
        "head_dim",
        (
            "d_kv",
            "kv_channels",
            "attention_head_dim",
            "attention_head_size",
            "head_size",
            "attn_head_dim",  # lerobot's FastWAM/Wan DiTs: attention is heads × this wide
            "dim_head",  # lucidrains' layers
            "head_width",  # open_clip / EVA-CLIP towers
        ),
    ),
    "ffn": (
        "intermediate_size",
        (
            "n_inner",
            "ffn_hidden_size",
            "d_ff",
            "ffn_dim",
            "encoder_ffn_dim",
            "inner_hidden_size",
            "intermediate_dim",
            "intermediate-size",
            "ffn-hidden-size",
            "inter_dim",  # DeepSeek-V3's inference ModelArgs
        ),
    ),
    "layers": (
        "num_hidden_layers",
        ("n_layer", "n_layers", "num_layers", "encoder_layers", "num-layers"),
    ),
    "vocab": ("vocab_size", ("padded_vocab_size", "n_vocab")),
    "max_positions": (
        "max_position_embeddings",
        ("n_positions", "max_sequence_length", "seq_length", "n_ctx", "max_seq_len"),
    ),
    "rotary_dim": ("rotary_dim", ()),
    "experts": (
        "num_local_experts",
        ("num_experts", "n_routed_experts", "moe_num_experts", "num_routed_experts"),
    ),
    "experts_per_token": (
        "num_experts_per_tok",
        (
            "moe_top_k",
            "num_experts_per_token",
            "num_selected_experts",
            "moe_k",
            "n_activated_experts",  # DeepSeek-V3's inference ModelArgs
        ),
    ),
    "expert_groups": ("n_group", ("n_expert_groups",)),
    "topk_groups": ("topk_group", ("n_limited_groups",)),
    "shared_experts": ("n_shared_experts", ("num_shared_experts",)),
    "expert_ffn": ("moe_intermediate_size", ("expert_intermediate_size", "moe_inter_dim")),
    "q_lora_rank": ("q_lora_rank", ()),
    "kv_lora_rank": ("kv_lora_rank", ()),
    "qk_rope_head_dim": ("qk_rope_head_dim", ()),
    "qk_nope_head_dim": ("qk_nope_head_dim", ()),
    "v_head_dim": ("v_head_dim", ()),
    "sliding_window": ("sliding_window", ()),
}


def field_keys(*fields: str) -> frozenset[str]:
    """Every key that states one of these canonical fields: transformers' attribute name and
    the other spellings real configs use (``"heads"`` → ``num_attention_heads``, ``n_head``...)."""
    return frozenset(
        key for field in fields for key in (INT_FIELDS[field][0], *INT_FIELDS[field][1])
    )


#: Legacy kwargs a config class pops and lets win over the standard field (``BloomConfig`` and
#: ``FalconConfig``: ``hidden_size = n_embed if n_embed is not None else hidden_size``). They
#: come first for the model types whose table lists them as fields.
LEGACY_FIRST: dict[str, str] = {"hidden": "n_embed"}

#: Model types whose attention width is not the field the standard name suggests: Qwen2-VL's
#: vision ``hidden_size`` (3584) is the width its patch merger projects to, the ViT itself is
#: ``embed_dim`` (1280) wide (``Qwen2VLVisionConfig``; ``VisionAttention(embed_dim, num_heads)``).
OWN_WIDTH_KEYS: dict[str, dict[str, str]] = {"qwen2_vl_vision": {"hidden": "embed_dim"}}
#: Model types whose transformer blocks run at another width than ``hidden_size`` while a flag
#: (read from the config, else the class default) is on: MobileBERT's
#: ``true_hidden_size = intra_bottleneck_size if use_bottleneck else hidden_size``
#: (``MobileBertConfig``), and its self-attention splits ``true_hidden_size`` into heads
#: (``attention_head_size = int(config.true_hidden_size / config.num_attention_heads)``) and
#: its FFN widens it (``nn.Linear(config.true_hidden_size, config.intermediate_size)``):
#: ``hidden_size`` is only the width between the blocks' bottlenecks, and need not divide.
#: Model type → (the canonical field, the key that then states it, the flag).
FLAGGED_WIDTH_KEYS: dict[str, tuple[str, str, str]] = {
    "mobilebert": ("hidden", "intra_bottleneck_size", "use_bottleneck")
}

#: Fields whose other spellings, where the config class declares one with a default, are that
#: field's default: a class that declares its head width under another name (the T5 family's
#: ``d_kv`` without T5's ``attribute_map`` entry: Switch Transformers, Pix2Struct, Pop2Piano,
#: UDOP; Reformer's ``attention_head_size``) builds its attention as heads × that width, so the
#: head width is explicit even when the config leaves it out (``SwitchTransformersConfig(
#: d_model=8)`` runs 12 heads of 64). Other fields take no default from a spelling: there
#: the class's own field can mean something else (Swin's ``embed_dim`` is the first stage's
#: width, Mamba-2's ``num_heads`` its SSM heads, BART's ``encoder_ffn_dim`` one stack's FFN).
DECLARED_SPELLING_DEFAULTS = frozenset({"head_dim"})

#: Fields a config class must declare (under its standard name, its alias or a spelling) for a
#: written value to be the model's: a single-model class without attention heads (SwiftFormer,
#: ResNet, ConvNeXt, Mamba) keeps a ``num_attention_heads`` it is given as a stray attribute its
#: model never reads — transformers' own ``ConfigTester(config_class=SwiftFormerConfig,
#: hidden_size=32, num_attention_heads=12)`` passes — so no rule judges it. Composite classes
#: (Qwen2-VL, LLaVA) still read it: their flat legacy configs state the text model's heads at the
#: top level.
DECLARED_ONLY = frozenset({"heads"})

#: Dimensions without which the core rules cannot run (DL005 when absent with no default).
REQUIRED_FIELDS = ("hidden", "heads", "layers", "vocab")

#: Fields where 0 is meaningful (no shared experts; no routed experts in a dense model).
ZERO_ALLOWED = frozenset(
    {
        "shared_experts",
        "experts",
        "experts_per_token",
        "sliding_window",
        "q_lora_rank",
        "qk_rope_head_dim",  # 0: no rotary part (GLM-5's NoPE sparse-attention layers)
    }
)

#: Keys that hold nested model configs in composite models, beyond what the table lists.
SUB_CONFIG_KEYS = (
    "text_config",
    "vision_config",
    "audio_config",
    "speech_config",
    "encoder",
    "decoder",
    "llm_config",
    "language_config",
    "thinker_config",
    "talker_config",
    "code2wav_config",
    "vision_tower_config",
)

#: Model types whose absent ``n_inner`` means an MLP of 4 × hidden.
GPT2_STYLE = frozenset(
    {"gpt2", "gpt_bigcode", "gptj", "codegen", "imagegpt", "decision_transformer"}
)

#: Activation spellings whose MLP is gated (two input projections).
GATED_ACTIVATIONS = frozenset({"swiglu", "geglu", "reglu", "silu_glu", "gated-gelu", "gated-silu"})
_NUMERIC_SCALARS = (int, float)
#: The largest size a tensor dimension can have (int64 in every framework). A larger value is an
#: input error (DL003), never a number to compute with: products of a dozen such values still fit
#: in a float, so no memory figure can overflow.
MAX_DIMENSION = 2**63 - 1


def is_dimension(value: Any) -> TypeGuard[int]:
    """A JSON integer (not a bool, not a float) — what a shape dimension must be."""
    return isinstance(value, int) and not isinstance(value, bool)


def looks_like_model_config(value: Any) -> bool:
    """Whether a parsed JSON document is worth checking as a model config."""
    if not isinstance(value, dict):
        return False
    if "model_type" in value or "architectures" in value:
        return True
    return _has_dimensions(value)


def has_dimensions(obj: dict[str, Any]) -> bool:
    """Two of hidden size, heads and layers, under any spelling (a section of a larger file)."""
    return _has_dimensions(obj)


def _has_dimensions(obj: dict[str, Any]) -> bool:
    hidden_keys = (INT_FIELDS["hidden"][0], *INT_FIELDS["hidden"][1])
    head_keys = (INT_FIELDS["heads"][0], *INT_FIELDS["heads"][1])
    layer_keys = (INT_FIELDS["layers"][0], *INT_FIELDS["layers"][1])
    has = [any(key in obj for key in keys) for keys in (hidden_keys, head_keys, layer_keys)]
    return sum(has) >= 2


def specs_for_document(path: str, value: dict[str, Any]) -> list[ModelSpec]:
    """One spec for the top-level config and one for each nested sub-config."""
    return [normalize(path, pointer, obj, hint) for pointer, obj, hint in _candidates(value)]


def _candidates(
    root: dict[str, Any],
) -> Iterator[tuple[str, dict[str, Any], str | None]]:
    """Yield (pointer, object, default model type) for the config and its sub-configs."""
    pending: list[tuple[str, dict[str, Any], str | None, int]] = [("", root, None, 0)]
    while pending:
        pointer, obj, hint, depth = pending.pop(0)
        yield pointer, obj, hint
        if depth >= 3:
            continue
        model_type = obj.get("model_type")
        arch = architectures.lookup(model_type) if isinstance(model_type, str) else None
        table_subs = arch.sub_configs if arch is not None else {}
        for key, child in [item for item in obj.items() if isinstance(item[1], dict)]:
            if _is_sub_config(key, child, arch, table_subs):
                child_pointer = f"{pointer}/{escape_pointer_token(key)}"
                pending.append((child_pointer, child, table_subs.get(key), depth + 1))


def _is_sub_config(
    key: str,
    child: dict[str, Any],
    arch: Architecture | None,
    table_subs: dict[str, str | None],
) -> bool:
    """Whether a nested object is a model config to judge. Under a known config class, an
    object at a key the class does not declare is an attribute no layer reads (cohere_asr's
    NeMo ``transf_encoder``, whose ``num_layers: 0`` is legal there): its numbers are no
    model's dimensions, however dimension-like its keys."""
    if key in table_subs or key in SUB_CONFIG_KEYS or "model_type" in child:
        return True
    if arch is not None and key not in arch.fields:
        return False
    return _has_dimensions(child)


def normalize(
    path: str, pointer: str, obj: dict[str, Any], default_type: str | None = None
) -> ModelSpec:
    """Build the spec of one config object located at ``pointer``."""
    stated_type = obj.get("model_type")
    model_type = stated_type if isinstance(stated_type, str) else default_type
    arch = architectures.lookup(model_type) if model_type else None
    spec = ModelSpec(path, pointer, obj, model_type, arch is not None)

    prefix = f"{pointer}/"
    fields = spec.__dict__  # one store per field instead of a setattr call
    planned = model_type if arch else None
    for name, keys, minimum, default in _field_plan(planned, _flagged_width(planned, obj, arch)):
        for key, token in keys:
            if key in obj:
                value = obj[key]
                if (
                    value.__class__ is int
                    and minimum <= value <= MAX_DIMENSION
                    and (value or name != "head_dim" or "kv_lora_rank" not in obj)
                ):
                    fields[name] = Located(value, key, prefix + token)
                else:
                    _note_unusable(spec, name, value)
                    fields[name] = None
                break
        else:
            if default is not None:
                fields[name] = default
    _resolve_special_cases(spec, arch)
    if model_type is None and stated_type is None and spec.head_dim is None:
        spec.head_dim = _class_head_width(obj)
    elif (
        arch is not None
        and spec.head_dim is None
        and "head_dim" not in spec.invalid
        and spec.heads is not None
        and spec.heads.in_file
    ):
        spec.head_dim = _flat_text_head_width(arch)

    spec.use_sliding_window = _resolve_bool(spec, "use_sliding_window", arch)
    layer_types = obj.get("layer_types")
    if isinstance(layer_types, list) and not all(isinstance(kind, str) for kind in layer_types):
        spec.invalid.add("layer_types")  # DL003: a list or an object where a name belongs
    elif isinstance(layer_types, list):
        spec.layer_types = Located(layer_types, "layer_types", _child(pointer, "layer_types"))
    for key in ("rope_scaling", "rope_parameters"):
        rope = obj.get(key)
        if isinstance(rope, dict) and rope:
            spec.rope_scaling = Located(rope, key, _child(pointer, key))
            break
    spec.partial_rotary_factor = _resolve_fraction(spec, arch)
    spec.activation = _resolve_activation(spec, arch)
    spec.gated_mlp = _is_gated(spec)
    tie = obj.get("tie_word_embeddings", (arch.defaults if arch else {}).get("tie_word_embeddings"))
    spec.tie_word_embeddings = tie if isinstance(tie, bool) else None
    spec.token_ids = list(_token_ids(obj, pointer))
    spec.embedding_rows = trainingkeys.embedding_rows(obj, pointer, spec.vocab)
    spec.recurrent = trainingkeys.is_recurrent(obj, model_type, arch is not None)
    return spec


def _flat_text_head_width(arch: Architecture) -> Located[int] | None:
    """The head width of a composite config written flat (its text model's keys at the top
    level: Megatron-Bridge's Qwen3.5 test dict, ``model_type: qwen3_5`` beside ``hidden_size``
    5120 and 24 heads): the composite class declares no head width, the text model that reads
    those keys (``Qwen3_5ForCausalLM``'s ``Qwen3_5TextConfig``) has one by default (256)."""
    text = arch.sub_configs.get("text_config")
    if text is None or arch.fields & field_keys("hidden", "head_dim"):
        return None
    return _default_head_width(architectures.lookup(text))


def _default_head_width(arch: Architecture | None) -> Located[int] | None:
    """``arch``'s default head width, declared under its standard name or a spelling."""
    if arch is None:
        return None
    for name in DECLARED_SPELLING_DEFAULTS:
        standard, spellings = INT_FIELDS[name]
        for key in (arch.attribute(standard), standard, *spellings):
            value = arch.defaults.get(key)
            if key in arch.fields and is_dimension(value) and value > 0:
                return Located(value, key, None, "default")
    return None


def _class_head_width(obj: dict[str, Any]) -> Located[int] | None:
    """The head width of a config that names its class but not its model type, where that
    class declares one by default under its own name (a trimmed ``config.json``:
    ``{"architectures": ["MT5ForConditionalGeneration"], "d_model": 512, "num_heads": 6}``,
    which ``MT5ForConditionalGeneration.from_pretrained`` loads as an ``MT5Config`` whose heads
    are ``d_kv`` = 64 wide whatever ``d_model`` is). Only the head width, and only to keep a
    rule from asking a divisibility the class never asks: no other default of the class is
    taken for a config that does not say its type (a stripped BLOOM entry without its width
    does not become BLOOM's default 64 wide)."""
    return _default_head_width(
        architectures.lookup(_type_of_architectures(obj.get("architectures")) or "")
    )


def _type_of_architectures(names: Any) -> str | None:
    """The model type of a config that names its classes but not its type: the one type
    transformers registers every named class for, or, where a class serves several, the type
    its name spells (``T5ForConditionalGeneration`` → ``T5Config`` → t5). None when they
    disagree."""
    if not isinstance(names, list) or not names:
        return None
    from dimlint.config import model_classes

    found: set[str] = set()
    for name in names:
        if not isinstance(name, str):
            return None
        types = model_classes.model_types_of(name)
        if not types:
            return None
        if len(types) > 1:
            spelled = _spelled_type(name)
            if spelled not in types:
                return None
            types = frozenset({spelled})
        found |= types
    return next(iter(found)) if len(found) == 1 else None


def _spelled_type(name: str) -> str | None:
    """The model type a model class's name spells: its stem before ``For…``/``Model``."""
    stem = name.split("For", 1)[0].removesuffix("Model")
    return _compact_types().get(stem.lower())


@functools.cache
def _compact_types() -> dict[str, str]:
    """Model types by their name without separators (``gptneox`` → ``gpt_neox``)."""
    return {key.replace("_", "").replace("-", ""): key for key in architectures.model_type_names()}


def _child(pointer: str, key: str) -> str:
    return f"{pointer}/{escape_pointer_token(key)}"


def _flagged_width(model_type: str | None, obj: dict[str, Any], arch: Architecture | None) -> bool:
    """Whether ``obj``'s model type runs its blocks at the width :data:`FLAGGED_WIDTH_KEYS`
    names: the flag as written, else as the class defaults it."""
    entry = FLAGGED_WIDTH_KEYS.get(model_type or "")
    if entry is None or arch is None:
        return False
    flag = obj.get(entry[2], arch.defaults.get(entry[2]))
    return flag is True


@functools.cache
def _field_plan(
    model_type: str | None, flagged: bool = False
) -> tuple[tuple[str, tuple[tuple[str, str], ...], int, Located[int] | None], ...]:
    """Per model type, once: each field's keys in lookup order (with each key's escaped
    pointer token), minimum, and default.

    The type's own spelling (gpt2's ``n_embd``) comes first, then the standard name, then the
    spellings of remote-code models. Computed once per type because every config of a corpus
    walks the same 21 fields.
    """
    arch = architectures.lookup(model_type) if model_type else None
    if arch is None:
        return _UNTYPED_PLAN
    plan: list[tuple[str, tuple[tuple[str, str], ...], int, Located[int] | None]] = []
    own_widths = OWN_WIDTH_KEYS.get(model_type or "", {})
    if flagged:
        field, key, _ = FLAGGED_WIDTH_KEYS[model_type or ""]
        own_widths = {**own_widths, field: key}
    for name, (standard, spellings) in INT_FIELDS.items():
        own_key = own_widths.get(name, arch.attribute(standard))
        keys = (own_key, standard, *spellings) if own_key != standard else (standard, *spellings)
        if own_key == arch.attribute(standard) != standard and _alias_wins(arch, standard):
            # transformers sets declared fields first and other keywords after, through the
            # attribute map: a stated alias (BART's num_hidden_layers) wins over its field
            keys = (standard, own_key, *spellings)
        if flagged and name == FLAGGED_WIDTH_KEYS[model_type or ""][0]:
            keys = (own_key,)  # the blocks' width, stated or the class default: never the other
        if name in DECLARED_ONLY and not arch.sub_configs and arch.fields.isdisjoint(keys):
            plan.append((name, (), 0, None))  # the class has no such dimension
            continue
        legacy = LEGACY_FIRST.get(name)
        if legacy is not None and legacy in arch.fields:
            keys = (legacy, *(key for key in keys if key != legacy))
        # Standard names are read even where they are not declared fields: modeling code reads
        # them with getattr (GLM-4.5's head_dim is not a Glm4MoeConfig field, yet it is used).
        minimum = 0 if name in ZERO_ALLOWED else 1
        default_key = own_key
        if name in DECLARED_SPELLING_DEFAULTS and own_key not in arch.fields:
            default_key = next((key for key in spellings if key in arch.fields), own_key)
        default: Located[int] | None = None
        value = arch.defaults.get(default_key)
        if is_dimension(value) and value >= minimum:
            default = Located(value, default_key, None, "default")
        plan.append((name, _tokens(keys), minimum, default))
    return tuple(plan)


def _alias_wins(arch: Architecture, standard: str) -> bool:
    """Whether the standard name, stated beside the field it maps to, is what the class
    keeps: it is no declared field of its own, and the field it maps to is one."""
    return standard not in arch.fields and arch.attribute(standard) in arch.fields


@functools.cache
def _tokens(keys: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Each key with its JSON-pointer token (escaped only when it needs it)."""
    return tuple(
        (key, escape_pointer_token(key) if "~" in key or "/" in key else key) for key in keys
    )


#: The plan of a config whose model type transformers does not know: standard names first.
_UNTYPED_PLAN: tuple[tuple[str, tuple[tuple[str, str], ...], int, None], ...] = tuple(
    (name, _tokens((standard, *spellings)), 0 if name in ZERO_ALLOWED else 1, None)
    for name, (standard, spellings) in INT_FIELDS.items()
)


def _note_unusable(spec: ModelSpec, name: str, value: Any) -> None:
    """A stated value that gives no dimension: a wrong type or range is recorded for DL003;
    null (transformers keeps None: derived, or "no window"), per-stage lists (Swin, OpenELM),
    per-stack objects (LXMERT) and latent attention's ``head_dim`` 0 ("unused") are not."""
    if value is None or isinstance(value, list | dict):
        return
    if name == "head_dim" and value == 0 and "kv_lora_rank" in spec.raw:
        return
    spec.invalid.add(name)


def _resolve_special_cases(spec: ModelSpec, arch: Architecture | None) -> None:
    """Spellings whose meaning depends on another key (multi-query flags, gpt2's n_inner)."""
    obj = spec.raw
    if (
        arch is not None
        and "multi_query" in arch.fields
        and spec.kv_heads is not None
        and spec.kv_heads.origin == "config"
        and spec.kv_heads.key not in arch.fields
        and spec.kv_heads.key not in arch.aliases
    ):
        # GPT-BigCode's class has no KV-head field: a stated num_key_value_heads is an
        # attribute no code reads, and its multi_query flag decides (one KV head, or all)
        spec.kv_heads = None
    # stated, else the class's default (GPT-BigCode's is True: one KV head)
    multi_query = obj.get("multi_query", arch.defaults.get("multi_query") if arch else None)
    if spec.kv_heads is None and "kv_heads" not in spec.invalid:
        group_num = obj.get("multi_query_group_num")
        if obj.get("multi_query_attention") and is_dimension(group_num) and group_num > 0:
            # chatglm / glm: grouped-query attention spelled as "multi query" groups
            spec.kv_heads = Located(
                group_num, "multi_query_group_num", _child(spec.pointer, "multi_query_group_num")
            )
        elif multi_query is True and not obj.get("new_decoder_architecture"):
            # falcon-7b: one shared KV head
            spec.kv_heads = Located(
                1, "multi_query", _child(spec.pointer, "multi_query"), "derived"
            )
    if spec.kv_heads is not None and spec.kv_heads.value == 0:
        spec.kv_heads = None
    if obj.get("multi_latent_attention", True) is False:
        # Megatron's switch (``--multi-latent-attention``) off: its kv_lora_rank and q_lora_rank
        # (defaults 32 and None, stated by configs that mirror its arguments) size nothing
        spec.kv_lora_rank = spec.q_lora_rank = None
    gpt2_style = spec.model_type in GPT2_STYLE or "n_inner" in obj
    if spec.ffn is None and "ffn" not in spec.invalid and spec.hidden is not None and gpt2_style:
        # gpt2-style configs: an absent or null n_inner means 4 × hidden
        spec.ffn = Located(4 * spec.hidden.value, "n_inner", None, "derived")


def _resolve_fraction(spec: ModelSpec, arch: Architecture | None) -> Located[float] | None:
    """The rotated fraction of each head: top-level, or (transformers 5) in rope_parameters."""
    obj = spec.raw
    places: list[tuple[dict[str, Any], str, str]] = []
    if spec.rope_scaling is not None and spec.rope_scaling.pointer is not None:
        places.append((spec.rope_scaling.value, "partial_rotary_factor", spec.rope_scaling.pointer))
    places.extend(
        (obj, key, spec.pointer)
        for key in ("partial_rotary_factor", "rotary_pct", "rotary_percentage")
    )
    for container, key, parent in places:
        if key in container:
            value = container[key]
            if (
                isinstance(value, _NUMERIC_SCALARS)
                and not isinstance(value, bool)
                and 0 < value <= 1  # also False for NaN, before isfinite sees a huge int
            ):
                return Located(float(value), key, _child(parent, key))
            if value is not None:
                spec.invalid.add("partial_rotary_factor")
            return None
    if arch is not None:
        for key in ("partial_rotary_factor", "rotary_pct"):
            default = arch.defaults.get(key)
            if (
                isinstance(default, _NUMERIC_SCALARS)
                and not isinstance(default, bool)
                and 0 < default <= 1
            ):
                return Located(float(default), key, None, "default")
    return None


def _resolve_bool(spec: ModelSpec, key: str, arch: Architecture | None) -> Located[bool] | None:
    value = spec.raw.get(key)
    if isinstance(value, bool):
        return Located(value, key, _child(spec.pointer, key))
    default = arch.defaults.get(key) if arch else None
    return Located(default, key, None, "default") if isinstance(default, bool) else None


def _resolve_activation(spec: ModelSpec, arch: Architecture | None) -> Located[str] | None:
    for key in (
        "hidden_act",
        "hidden_activation",
        "activation_function",
        "feed_forward_proj",
        "ffn_act_fn",
    ):
        value = spec.raw.get(key)
        if isinstance(value, str):
            return Located(value, key, _child(spec.pointer, key))
    if arch is not None:
        for key in ("hidden_act", "hidden_activation", "activation_function", "feed_forward_proj"):
            default = arch.defaults.get(key)
            if isinstance(default, str):
                return Located(default, key, None, "default")
    return None


#: Model families whose MLP is gated whatever the activation is called (GeGLU in Gemma…).
GATED_FAMILIES = (
    "llama",
    "mistral",
    "mixtral",
    "qwen",
    "gemma",
    "phi3",
    "phimoe",
    "deepseek",
    "olmo",
    "cohere",
    "granite",
    "internlm",
    "baichuan",
    "chatglm",
    "glm",
    "yi",
    "minicpm",
    "exaone",
    "smollm",
    "stablelm",
    "hunyuan",
    "ernie4_5",
    "apertus",
    "arcee",
    "dots1",
    "seed_oss",
)


#: Words that mark a vision or audio encoder nested in (or named after) a language model.
TOWER_MARKERS = ("vision", "audio", "visual", "vit", "siglip", "clip", "speech", "whisper")


def is_tower(spec: ModelSpec) -> bool:
    """A vision/audio encoder: its MLP sizing follows ViT conventions, not the LM's."""
    names = f"{spec.model_type or ''} {spec.pointer}".lower()
    return any(marker in names for marker in TOWER_MARKERS)


def _is_gated(spec: ModelSpec) -> bool | None:
    """Whether the MLP has a gate projection (SwiGLU/GeGLU), or None when unknown."""
    act = spec.activation.value.lower() if spec.activation else ""
    if act in GATED_ACTIVATIONS or act.startswith("gated-"):
        return True
    model_type = (spec.model_type or "").lower()
    tower = is_tower(spec)
    if not tower and model_type.startswith(GATED_FAMILIES):
        return True
    if act in {"silu", "swish"}:
        return True
    if act.startswith("gelu") or act in {"relu", "gelu_new", "quick_gelu"}:
        return False
    return None


def _token_ids(obj: dict[str, Any], pointer: str) -> Iterator[Located[int]]:
    for key in ("bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id"):
        value = obj.get(key)
        if is_dimension(value):
            yield Located(value, key, _child(pointer, key))
        elif isinstance(value, list):
            for position, item in enumerate(value):
                if is_dimension(item):
                    yield Located(item, key, f"{_child(pointer, key)}/{position}")


def is_language_model(spec: ModelSpec) -> bool:
    """Whether the parallel and memory rules judge ``spec``: it has heads and is no tower."""
    return spec.heads is not None and not is_tower(spec)
