"""Gemma 4's language model, laid out layer by layer as transformers builds it.

Gemma 4 varies its decoder layers along four axes the config states in four different ways
(``modeling_gemma4.py`` and ``configuration_gemma4.py``, transformers 5):

- full-attention layers (``layer_types``) take their own head size and KV heads from
  ``per_layer_config``, which the config class derives from the legacy keys ``global_head_dim``
  (default 512) and ``num_global_key_value_heads`` (read only with ``attention_k_eq_v``);
- with ``attention_k_eq_v`` a full-attention layer has no ``v_proj``;
- the last ``num_kv_shared_layers`` layers reuse earlier layers' keys and values: they hold no
  ``k_proj``, ``v_proj`` or ``k_norm``, and, with ``use_double_wide_mlp``, an MLP twice as wide;
- ``hidden_size_per_layer_input`` adds per-layer embeddings and a gate in every layer, and
  ``enable_moe_block`` adds a router and experts beside every layer's MLP.

The shape template was learned at the default (no shared layers, no experts, the default
layer plan), and every released Gemma 4 lies outside it somewhere: all were estimates. Here the
text model is computed from those rules. In the composite (``gemma4``) the vision and audio
towers are counted by their own types' templates (``AutoModel`` builds them from their
sub-configs) and each gets a projection into the text width
(``Gemma4MultimodalEmbedder``: one linear map, its norm without a scale). The module's tests
compare it with meta-device builds of shrunk released layouts.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from dimlint.config import architectures
from dimlint.memory.parameters.composed import tower
from dimlint.memory.parameters.templates import Refusal, Tensor

TEXT = "gemma4_text"
COMPOSITE = "gemma4"
_TEXT_CLASSES = {"Gemma4ForCausalLM": "model.", "Gemma4TextModel": ""}
_COMPOSITE_CLASSES = {"Gemma4ForConditionalGeneration": "model.", "Gemma4Model": ""}
#: Towers of the composite: sub-config key → the attribute holding the tower and its projection.
_TOWERS = {"vision_config": ("vision_tower", "embed_vision"),
           "audio_config": ("audio_tower", "embed_audio")}  # fmt: skip
_NUMBERS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers",
            "num_attention_heads", "num_key_value_heads", "head_dim",
            "vocab_size_per_layer_input", "hidden_size_per_layer_input",
            "num_kv_shared_layers")  # fmt: skip
_FLAGS = ("attention_bias", "attention_k_eq_v", "enable_moe_block", "use_double_wide_mlp",
          "tie_word_embeddings")  # fmt: skip
#: Values past this are refused rather than multiplied out (hostile input).
_MAX = 1 << 24
#: Layers past this are refused rather than laid out one by one.
_MAX_LAYERS = 10_000


def applies(raw: dict[str, Any], architecture: str) -> bool:
    """Whether ``raw`` is a Gemma 4 config built as one of the classes computed here."""
    model_type = raw.get("model_type")
    if model_type == TEXT:
        return architecture in ("", *_TEXT_CLASSES)
    return model_type == COMPOSITE and architecture in ("", *_COMPOSITE_CLASSES)


def gemma4_tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    """The parameter tensors of the Gemma 4 model ``raw`` describes, or why they are unknown."""
    if raw.get("model_type") == TEXT:
        prefix = _TEXT_CLASSES.get(architecture, "model.")
        text = _text_tensors(raw, prefix, "")
        if isinstance(text, Refusal) or architecture == "Gemma4TextModel":
            return text
        return text + _head(raw, "", raw)
    return _composite(raw, architecture)


def _composite(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    prefix = _COMPOSITE_CLASSES.get(architecture, "model.")
    stated = raw.get("text_config")
    if stated is not None and not isinstance(stated, dict):
        return Refusal("text_config is not an object", True)
    text_raw = dict(stated or {})
    tensors = _text_tensors(text_raw, f"{prefix}language_model.", "text_config.")
    if isinstance(tensors, Refusal):
        return tensors
    text_width = _values(text_raw)
    if isinstance(text_width, Refusal):
        return text_width
    width = text_width["hidden_size"]
    for key, (attribute, embedder) in _TOWERS.items():
        if raw.get(key) is None:
            continue  # the composite builds no tower for an unset sub-config
        built = tower(raw, key, "base")
        if isinstance(built, Refusal):
            return built
        sub, tower_tensors = built
        tensors += [
            Tensor(f"{prefix}{attribute}.{t.name}", t.repeats, t.shape,
                   frozenset(f"{key}.{field}" for field in t.fields))
            for t in tower_tensors
        ]  # fmt: skip
        record = architectures.lookup(str(sub["model_type"]))
        defaults = dict(record.defaults) if record is not None else {}
        if record is not None and "output_proj_dims" in record.fields:
            source = "output_proj_dims"
        else:
            source = "hidden_size"
        tower_width = sub.get(source, defaults.get(source))
        if not _positive(tower_width):
            return Refusal(f"{key}.{source} = {tower_width!r} is not a positive integer", True)
        fields = frozenset({f"{key}.{source}", "text_config.hidden_size"})
        name = f"{prefix}{embedder}.embedding_projection.weight"
        tensors.append(Tensor(name, 1, (width, tower_width), fields))
    if architecture == "Gemma4Model":
        return tensors
    return tensors + _head(text_raw, "text_config.", raw)


def _head(text_raw: dict[str, Any], scope: str, tie_source: dict[str, Any]) -> list[Tensor]:
    """The output head, where ``tie_word_embeddings`` (of ``tie_source``: the config
    ``PreTrainedModel`` ties by) does not tie it to the input embeddings."""
    if tie_source.get("tie_word_embeddings", True) is not False:
        return []
    values = _values(text_raw)
    if isinstance(values, Refusal):
        return []
    fields = frozenset({f"{scope}vocab_size", f"{scope}hidden_size"})
    return [Tensor("lm_head.weight", 1, (values["vocab_size"], values["hidden_size"]), fields)]


def _positive(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= _MAX


def _values(raw: dict[str, Any]) -> dict[str, Any] | Refusal:
    """The text config's shaping values, stated or at ``Gemma4TextConfig``'s defaults."""
    record = architectures.lookup(TEXT)
    defaults = dict(record.defaults) if record is not None else {}
    values: dict[str, Any] = {}
    for name in _NUMBERS:
        value = raw.get(name, defaults.get(name))
        zero_ok = name in ("hidden_size_per_layer_input", "num_kv_shared_layers")
        if not (_positive(value) or (zero_ok and value in (0, None) and value is not False)):
            return Refusal(f"text {name} = {value!r} is not a positive integer", True)
        values[name] = value or 0
    for name in _FLAGS:
        value = raw.get(name, defaults.get(name))
        if not isinstance(value, bool):
            return Refusal(f"text {name} = {value!r} is not true or false", True)
        values[name] = value
    if values["enable_moe_block"]:
        for name in ("num_experts", "moe_intermediate_size"):
            value = raw.get(name, defaults.get(name))
            if not _positive(value):
                return Refusal(f"enable_moe_block with {name} = {value!r}", True)
            values[name] = value
    return values


def _layer_types(raw: dict[str, Any], layers: int) -> list[str] | Refusal:
    """``layer_types`` as the config class completes it: five sliding layers to one full by
    default, and the last layer always full."""
    stated = raw.get("layer_types")
    if stated is None:
        kinds = ["sliding_attention" if (i + 1) % 6 else "full_attention" for i in range(layers)]
    elif isinstance(stated, list) and all(isinstance(kind, str) for kind in stated):
        kinds = list(stated)
    else:
        return Refusal("layer_types is not a list of layer kinds", True)
    if len(kinds) != layers:
        return Refusal(f"layer_types has {len(kinds)} entries for {layers} layers", True)
    kinds[-1] = "full_attention"
    return kinds


def _per_layer(
    raw: dict[str, Any], kinds: list[str], values: dict[str, Any]
) -> list[tuple[int, int]] | Refusal:
    """Each layer's ``(head_dim, num_key_value_heads)``: ``per_layer_config`` where stated,
    else the class's derivation from ``global_head_dim``/``num_global_key_value_heads``."""
    stated = raw.get("per_layer_config")
    if stated is None:
        global_head = raw.get("global_head_dim", 512)
        global_kv = raw.get("num_global_key_value_heads") if values["attention_k_eq_v"] else None
        overrides: dict[int, dict[str, Any]] = {
            i: {
                "head_dim": global_head,
                **({} if global_kv is None else {"num_key_value_heads": global_kv}),
            }
            for i, kind in enumerate(kinds)
            if kind == "full_attention"
        }
    elif isinstance(stated, dict):
        try:
            overrides = {int(key): dict(value) for key, value in stated.items()}
        except (TypeError, ValueError):
            return Refusal("per_layer_config's keys are not layer numbers", True)
    else:
        return Refusal("per_layer_config is not an object", True)
    result = []
    for i in range(len(kinds)):
        override = overrides.get(i, {})
        head = override.get("head_dim", values["head_dim"])
        kv = override.get("num_key_value_heads", values["num_key_value_heads"])
        if not _positive(head) or not _positive(kv):
            return Refusal(
                f"layer {i}'s head_dim or num_key_value_heads is not a positive integer", True
            )
        result.append((head, kv))
    return result


def _shared(kinds: list[str], shared: int) -> list[bool] | Refusal:
    """Which layers reuse an earlier layer's keys and values (``kv_sharing_modes``)."""
    layers = len(kinds)
    if not 0 <= shared <= layers:
        return Refusal(f"num_kv_shared_layers {shared} is not between 0 and {layers}", True)
    first = layers - shared
    if 0 < shared < layers and set(kinds[:first]) != set(kinds):
        # transformers raises: a shared layer kind that no earlier layer produces
        return Refusal("a layer kind among the shared layers has no earlier layer to share", True)
    return [i >= first for i in range(layers)]


def _text_tensors(raw: dict[str, Any], prefix: str, scope: str) -> list[Tensor] | Refusal:
    """``Gemma4TextModel``'s tensors under ``prefix`` (fields named under ``scope``)."""
    values = _values(raw)
    if isinstance(values, Refusal):
        return values
    layers = values["num_hidden_layers"]
    if layers > _MAX_LAYERS:
        return Refusal(f"{layers:,} layers: more than dimlint lays out one by one", True)
    kinds = _layer_types(raw, layers)
    if isinstance(kinds, Refusal):
        return kinds
    per_layer = _per_layer(raw, kinds, values)
    if isinstance(per_layer, Refusal):
        return per_layer
    shared = _shared(kinds, values["num_kv_shared_layers"])
    if isinstance(shared, Refusal):
        return shared
    hidden, heads = values["hidden_size"], values["num_attention_heads"]
    per_input = values["hidden_size_per_layer_input"]
    bias = values["attention_bias"]
    fields = frozenset(f"{scope}{name}" for name in ("hidden_size", "num_hidden_layers"))
    shapes: list[tuple[str, tuple[int, ...]]] = [
        ("embed_tokens.weight", (values["vocab_size"], hidden))
    ]
    for i, ((head, kv), kind, reuse) in enumerate(zip(per_layer, kinds, shared, strict=True)):
        layer = f"layers.{i}."
        attention = [("q_proj.weight", (heads * head, hidden)), ("q_norm.weight", (head,)),
                     ("o_proj.weight", (hidden, heads * head))]  # fmt: skip
        if bias:
            attention += [("q_proj.bias", (heads * head,)), ("o_proj.bias", (hidden,))]
        if not reuse:
            attention += [("k_norm.weight", (head,)), ("k_proj.weight", (kv * head, hidden))]
            attention += [("k_proj.bias", (kv * head,))] if bias else []
            if not (values["attention_k_eq_v"] and kind != "sliding_attention"):
                attention += [("v_proj.weight", (kv * head, hidden))]
                attention += [("v_proj.bias", (kv * head,))] if bias else []
        shapes += [(f"{layer}self_attn.{name}", shape) for name, shape in attention]
        width = values["intermediate_size"] * (2 if values["use_double_wide_mlp"] and reuse else 1)
        shapes += [(f"{layer}mlp.gate_proj.weight", (width, hidden)),
                   (f"{layer}mlp.up_proj.weight", (width, hidden)),
                   (f"{layer}mlp.down_proj.weight", (hidden, width))]  # fmt: skip
        norms = ["input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                 "post_feedforward_layernorm"]  # fmt: skip
        if per_input:
            shapes += [(f"{layer}per_layer_input_gate.weight", (per_input, hidden)),
                       (f"{layer}per_layer_projection.weight", (hidden, per_input))]  # fmt: skip
            norms.append("post_per_layer_input_norm")
        if values["enable_moe_block"]:
            experts, inner = values["num_experts"], values["moe_intermediate_size"]
            shapes += [(f"{layer}router.proj.weight", (experts, hidden)),
                       (f"{layer}router.scale", (hidden,)),
                       (f"{layer}router.per_expert_scale", (experts,)),
                       (f"{layer}experts.gate_up_proj", (experts, 2 * inner, hidden)),
                       (f"{layer}experts.down_proj", (experts, hidden, inner))]  # fmt: skip
            norms += ["post_feedforward_layernorm_1", "post_feedforward_layernorm_2",
                      "pre_feedforward_layernorm_2"]  # fmt: skip
        shapes += [(f"{layer}{norm}.weight", (hidden,)) for norm in norms]
    if per_input:
        shapes += [("embed_tokens_per_layer.weight",
                    (values["vocab_size_per_layer_input"], layers * per_input)),
                   ("per_layer_model_projection.weight", (layers * per_input, hidden)),
                   ("per_layer_projection_norm.weight", (per_input,))]  # fmt: skip
    shapes.append(("norm.weight", (hidden,)))
    return [Tensor(f"{prefix}{name}", 1, shape, fields) for name, shape in shapes]
