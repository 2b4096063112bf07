"""What training configs say about a model beyond its dimensions: padded embeddings, recurrence.

Two facts change what the coupled rules may claim:

* **The embedding is padded elsewhere.** Training frameworks keep the tokenizer's ``vocab_size``
  and size the embedding and LM head from another value: OLMo's ``embedding_size``, litgpt's
  ``padded_vocab_size`` and ``padding_multiple``, mamba's ``pad_vocab_size_multiple``,
  Megatron/NeMo/gpt-neox/nanotron's ``make_vocab_size_divisible_by`` (times the TP size in
  Megatron), or a rounding in the model's ``__init__`` (modded-nanogpt's
  ``next_multiple_of_n(vocab_size, n=128)``). The GEMMs then run on the padded width, so DL202
  has nothing to say about ``vocab_size`` — and a fix must never rewrite it: it is the
  tokenizer's size.
* **The model is recurrent.** lingua's hawk, minGRU and minLSTM, mamba and RWKV have "heads" that
  split a recurrence, not attention: no attention kernel sees their head dim (DL104), and their
  heads divide an inner width, not the model width (DL101).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from dimlint.config.spec import Located

#: Megatron's multi-latent attention names (``MLATransformerConfig``, NeMo's YAML) → DeepSeek's:
#: ``qk_head_dim`` is the non-rotary part of a query/key head, ``qk_pos_emb_head_dim`` the rotary
#: part (megatron/core/transformer/transformer_config.py: q_head_dim = qk_head_dim +
#: qk_pos_emb_head_dim).
MEGATRON_MLA_NAMES = {"qk_head_dim": "qk_nope_head_dim", "qk_pos_emb_head_dim": "qk_rope_head_dim"}
#: open_lm's model JSON (``open_lm/model_configs/*.json``, read by ``create_params``):
#: ``hidden_dim`` is the width, and ``Params`` takes ``head_dim = dim // n_heads`` rounded down
#: (``model.py``): a width the heads do not divide runs with a narrower attention.
OPEN_LM_KEYS = frozenset({"hidden_dim", "n_layers", "n_heads", "seq_len"})
#: Width keys whose presence makes ``hidden_dim`` the FFN (Mistral's ``dim``/``hidden_dim``).
WIDTH_KEYS = ("hidden_size", "d_model", "dim", "n_embd", "model_dim", "embed_dim", "emb_dim")
#: Head-count keys beside which a lone ``hidden_dim`` is the model width.
HEAD_KEYS = ("num_heads", "n_heads", "num_attention_heads", "n_head")


def hidden_dim_is_width(keys: Any) -> bool:
    """levanter's and open_lm's configs, bd3lms' and mdlm's ``PretrainedConfig`` subclasses
    (``hidden_dim`` beside ``n_heads``, no other width key): ``hidden_dim`` is the model width.
    Beside a ``dim`` (Mistral's ``params.json``, Meta's ``FeedForward``) it is the FFN."""
    return (
        "hidden_dim" in keys
        and not any(key in keys for key in WIDTH_KEYS)
        and any(key in keys for key in HEAD_KEYS)
    )


#: The ViT family's names: big_vision's and Google's ``vision_transformer`` (``width``,
#: ``depth``/``num_layers``, ``num_heads``, ``mlp_dim``; gemma's SigLIP encoder, LiT's
#: ``TextTransformer``), OpenAI's CLIP and open_clip (``Transformer(width, layers, heads)``).
#: Their attention is ``width`` wide (flax's ``MultiHeadDotProductAttention`` and torch's
#: ``nn.MultiheadAttention`` both refuse heads that do not divide it). An encoder-decoder ViT
#: (big_vision's UViM and GIVT VAEs) states its depths apart: ``enc_depth``, ``dec_depth``.
#: open_clip's Whisper sizes name the depth GPT-2's way: ``dict(n_layer=4, width=384, heads=6)``.
VIT_DEPTH_KEYS = ("depth", "layers", "num_layers", "n_layer", "n_layers", "enc_depth", "dec_depth")
VIT_HEAD_KEYS = (*HEAD_KEYS, "heads")
#: The MLP's width beside ``width`` (big_vision's ``mlp_dim``, RecurrentGemma's
#: ``mlp_expanded_width``): a model's own sizes where a depth is stated otherwise (Griffin's
#: ``block_types``, one per layer).
VIT_MLP_KEYS = ("mlp_dim", "mlp_width", "mlp_expanded_width")
VIT_RENAMES = {
    "width": "hidden_size",
    "heads": "num_attention_heads",
    "depth": "num_hidden_layers",
    "layers": "num_hidden_layers",
    "mlp_dim": "intermediate_size",
}


def prefixed_models(keys: Any) -> dict[str, dict[str, str]]:
    """Models stated side by side in one flat mapping, each under a name prefix (nanoVLM's
    ``VLMConfig``: ``vit_hidden_dim``/``vit_n_heads`` and ``lm_hidden_dim``/``lm_n_heads``;
    Chinese-CLIP's ``text_hidden_size``/``text_num_attention_heads``): for each prefix whose
    keys, the prefix stripped, state a width and a head count, the stripped key → the written
    key. None when the mapping states a model of its own (its prefixed keys are then its
    parts, not other models)."""
    if any(key in keys for key in WIDTH_KEYS) and any(key in keys for key in HEAD_KEYS):
        return {}
    groups: dict[str, dict[str, str]] = {}
    for key in keys:
        if not isinstance(key, str) or "_" not in key:
            continue
        prefix, rest = key.split("_", 1)
        if prefix and rest:
            groups.setdefault(prefix, {})[rest] = key
    return {
        prefix: group
        for prefix, group in groups.items()
        if any(key in group for key in HEAD_KEYS)
        and (any(key in group for key in WIDTH_KEYS) or hidden_dim_is_width(group))
    }


#: UniFormerV2's and EVL's names (InternVideo: yacs ``UNIFORMERV2: {N_LAYERS: 4, N_DIM: 768,
#: N_HEAD: 12}``, the same keywords in lower case in Python): the global blocks are
#: ``nn.MultiheadAttention(n_dim, n_head)``, which refuses heads that do not divide the width.
N_DIM_RENAMES = {
    "n_dim": "hidden_size",
    "N_DIM": "hidden_size",
    "N_HEAD": "num_attention_heads",
    "N_LAYERS": "num_hidden_layers",
}


def n_dim_is_width(keys: Any) -> bool:
    """``n_dim`` beside ``n_head`` (either case, as UniFormerV2 writes them), with no other
    width key: ``n_dim`` is the model width (:data:`N_DIM_RENAMES`). Beside a ViT ``width``
    (EVL's ``VisionTransformer(width=768, …, n_dim=n_dim)``) it is a second model's, the
    global decoder's, and the backbone's names are read instead."""
    return (
        ("n_dim" in keys and "n_head" in keys) or ("N_DIM" in keys and "N_HEAD" in keys)
    ) and not any(key in keys for key in (*WIDTH_KEYS, "width"))


#: Pax's experiment classes (google/paxml ``tasks/lm/params``, ``model_params.py``): the model
#: is stated in upper-case class attributes, which ``task()`` hands to praxis. With
#: ``DIMS_PER_HEAD`` None, praxis' ``DotProductAttention`` takes ``MODEL_DIMS // NUM_HEADS``
#: and asserts the heads divide the width.
PAX_RENAMES = {
    "MODEL_DIMS": "hidden_size",
    "NUM_HEADS": "num_attention_heads",
    "NUM_LAYERS": "num_hidden_layers",
    "HIDDEN_DIMS": "intermediate_size",
    "DIMS_PER_HEAD": "head_dim",
    "VOCAB_SIZE": "vocab_size",
}
#: The attributes that make a class body Pax's model statement (width and heads both stated).
PAX_MARKERS = frozenset({"MODEL_DIMS", "NUM_HEADS"})


def width_is_width(keys: Any) -> bool:
    """``width`` beside a head count and a depth or an MLP width, with no other width key (the
    ViT family's names, :data:`VIT_RENAMES`; RecurrentGemma's ``GriffinConfig(width=…,
    mlp_expanded_width=…, num_heads=…)``): ``width`` is the model width. An image's ``width``
    comes with a ``height``, and is then nothing of the model's."""
    return (
        "width" in keys
        and "height" not in keys
        and "hidden_dim" not in keys
        and not any(key in keys for key in WIDTH_KEYS)
        and any(key in keys for key in VIT_HEAD_KEYS)
        and any(key in keys for key in (*VIT_DEPTH_KEYS, *VIT_MLP_KEYS))
    )


#: OpenMMLab's name for an attention's width (mmcv, mmseg, mmdet, mmpretrain configs:
#: ``backbone=dict(type='VisionTransformer', embed_dims=768, num_layers=12, num_heads=12)``,
#: ``dict(type='MultiheadAttention', embed_dims=256, num_heads=8)``). mmcv's
#: ``MultiheadAttention`` wraps ``nn.MultiheadAttention`` and mmseg's BEiT reshapes by
#: ``embed_dims // num_heads``: heads that do not divide it are refused. Per-stage lists (Swin's
#: ``num_heads=[3, 6, 12, 24]``, MiT's ``embed_dims`` scaled by each stage's heads) are no single
#: width: the name is read only where it and the head count are integers.
OPENMMLAB_RENAMES = {"embed_dims": "hidden_size"}


def embed_dims_is_width(values: Mapping[str, object]) -> bool:
    """``embed_dims`` beside a head count, both integers, with no other width key: OpenMMLab's
    attention width (:data:`OPENMMLAB_RENAMES`)."""

    def number(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    return (
        number(values.get("embed_dims"))
        and any(number(values.get(key)) for key in HEAD_KEYS)
        and "width" not in values
        and not any(key in values for key in WIDTH_KEYS)
    )


#: ESPnet's and FunASR's ``encoder_conf`` (``output_size``, ``attention_heads``,
#: ``linear_units``, ``num_blocks``): the encoder's width, heads, FFN and layers. Their
#: ``MultiHeadedAttention(n_head, n_feat)`` asserts ``n_feat % n_head == 0``.
ESPNET_RENAMES = {
    "output_size": "hidden_size",
    "linear_units": "intermediate_size",
    "num_blocks": "num_hidden_layers",
}


def is_espnet(keys: Any) -> bool:
    """An ESPnet/FunASR encoder's options: ``output_size`` beside ``attention_heads`` and a
    layer count or FFN width in its names, no other width key."""
    return (
        "output_size" in keys
        and "attention_heads" in keys
        and ("num_blocks" in keys or "linear_units" in keys)
        and not any(key in keys for key in WIDTH_KEYS)
    )


#: open_lm's Mamba configs: ``d_model``, ``n_layer``, ``seq_len`` (no heads: a recurrence).
OPEN_LM_MAMBA_KEYS = frozenset({"d_model", "n_layer", "seq_len"})

#: TencentPretrain's (and UER-py's) model JSON (``models/*/…_config.json``, read into the
#: training script's ``args``): ``heads_num`` and ``layers_num`` name its dialect.
#: ``tencentpretrain/layers/transformer.py`` takes ``attention_head_size`` when stated, else
#: ``hidden_size // heads_num`` rounded down (a width the heads do not divide runs with a
#: narrower attention, as open_lm's does), and ``local_kv_heads_num`` KV heads, which
#: ``MultiHeadedAttention`` asserts divide ``heads_num``.
TENCENT_KEYS = frozenset({"heads_num", "layers_num"})
#: TencentPretrain's names → the common ones (``feedforward_size`` is each branch of its
#: ``feed_forward: "gated"`` MLP: ``GatedFeedForward`` has two ``hidden → feedforward`` Linears).
TENCENT_RENAMES = {
    "heads_num": "num_attention_heads",
    "layers_num": "num_hidden_layers",
    "feedforward_size": "intermediate_size",
    "local_kv_heads_num": "num_key_value_heads",
    "attention_head_size": "head_dim",
}

#: OpenNMT-py's training YAML (``config-transformer-base-1GPU.yml``, its Llama fine-tuning
#: templates): the model's options sit at the top level beside the training ones, named its own
#: way. ``heads`` beside ``transformer_ff`` (or beside ``hidden_size`` and a layer count) names
#: it; ``MultiHeadedAttention`` asserts ``hidden_size % heads == 0`` and splits the KV
#: projection into ``heads_kv`` heads; ``layers`` sets both stacks, else ``dec_layers`` is the
#: decoder's (a ``transformer_lm`` has no encoder).
OPENNMT_RENAMES = {
    "heads": "num_attention_heads",
    "heads_kv": "num_key_value_heads",
    "transformer_ff": "intermediate_size",
}
OPENNMT_LAYERS = ("layers", "dec_layers", "enc_layers")
#: ``pos_ffn_activation_fn`` values for which its ``PositionwiseFeedForward`` adds the gate
#: projection ``w_3`` (a gated MLP: ``transformer_ff`` is each branch).
OPENNMT_GATED = frozenset({"silu", "gated-gelu", "gated-silu"})


def is_opennmt(obj: dict[str, Any]) -> bool:
    """Whether a mapping holds OpenNMT-py's model options (see :data:`OPENNMT_RENAMES`)."""
    if "heads" not in obj:
        return False
    return "transformer_ff" in obj or (
        "hidden_size" in obj and any(key in obj for key in OPENNMT_LAYERS)
    )


#: Keys whose value is the number of embedding rows (not the tokenizer's vocabulary).
ROW_KEYS = ("embedding_size", "padded_vocab_size")
#: Keys whose value is the multiple the embedding rows are rounded up to.
MULTIPLE_KEYS = (
    "make_vocab_size_divisible_by",
    "pad_vocab_size_multiple",
    "padding_multiple",
    "pad_vocab_to_multiple_of",
)
#: Padded rows on this multiple are Tensor Core aligned: nothing left for DL202 to say.
ALIGNED_ROWS = 8

#: Keys only recurrent (RNN/SSM) configs of unknown model types carry. ``state_size`` is
#: transformers' Mamba and Mamba-2 name of ``d_state`` (a Mamba-2 dict's ``num_heads`` ×
#: ``head_dim`` is ``expand`` × the width, SSM heads: no attention); hybrids spell theirs with
#: a prefix (``mamba_d_state``, ``ssm_state_size``) beside attention layers.
RECURRENT_KEYS = frozenset(
    {"lru_dim_multiplier", "conv_size", "state_dim", "d_state", "ssm_cfg", "state_size"}
)
#: Model-type words of pure recurrent families (hybrids such as jamba keep attention layers).
RECURRENT_TYPES = re.compile(r"mamba|rwkv|hawk|mingru|minlstm|xlstm|\brnn\b|\bgru\b|\blstm\b")
#: gpt-neox block types that are not attention.
NEOX_RECURRENT_BLOCKS = frozenset({"mamba", "rwkv"})


def _positive_int(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def embedding_rows(
    obj: dict[str, Any], pointer: str, vocab: Located[int] | None
) -> Located[int] | None:
    """The padded embedding rows ``obj`` states beside ``vocab``, located at the key saying so.

    ``None`` when nothing pads the embedding, or when the padding key *is* the vocab (litgpt's
    ``padded_vocab_size`` read as the vocab: then DL202 judges that value itself).
    """
    for key in ROW_KEYS:
        rows = _positive_int(obj.get(key))
        if rows is not None and (vocab is None or vocab.key != key):
            return Located(rows, key, f"{pointer}/{key}", "derived")
    for key in MULTIPLE_KEYS:
        multiple = _positive_int(obj.get(key))
        if multiple is None or multiple == 1:
            continue
        rows = -(-vocab.value // multiple) * multiple if vocab is not None else multiple
        return Located(rows, key, f"{pointer}/{key}", "derived")
    return None


def is_recurrent(obj: dict[str, Any], model_type: str | None, known_type: bool) -> bool:
    """Whether the config describes a recurrent (RNN/SSM) model: its heads are not attention."""
    if model_type and RECURRENT_TYPES.search(model_type.lower()):
        return True
    blocks = obj.get("attention_config", obj.get("attention-config"))
    if isinstance(blocks, list) and blocks:
        kinds = {str(k).lower() for k in _block_kinds(blocks)}
        if kinds and kinds <= NEOX_RECURRENT_BLOCKS:
            return True
    return not known_type and bool(RECURRENT_KEYS & obj.keys())


def _block_kinds(blocks: list[Any]) -> list[Any]:
    """gpt-neox's ``[[["flash"], 12], [["mamba"], 12]]`` → the block names."""
    kinds: list[Any] = []
    for entry in blocks:
        if isinstance(entry, list) and entry and isinstance(entry[0], list):
            kinds.extend(entry[0])
    return kinds
