"""Training-framework spellings of model keys, translated to the names the normalizer reads.

Each dialect here names the same dimensions as the common keys, in its own words:

* **Megatron-LM argument names** (its functional-test YAML: ``MODEL_ARGS:`` with
  ``--hidden-size: 4096``): ``--x-y`` is ``x_y`` of Megatron's arguments. Megatron reads
  ``--num-query-groups`` only under ``--group-query-attention`` (``arguments.py``: without the
  flag every head has its own K/V), so without it the groups are not a KV head count.
* **Megatron multi-latent attention** (``qk_head_dim``, ``qk_pos_emb_head_dim``, in
  ``MLATransformerConfig`` and NeMo's YAML): the non-rotary and the rotary parts of a query head,
  DeepSeek's ``qk_nope_head_dim`` and ``qk_rope_head_dim``.
* **maxtext** (``base_emb_dim``, ``base_num_query_heads``, ``base_num_kv_heads``,
  ``base_mlp_dim``, ``base_num_decoder_layers``; ``base_moe_mlp_dim``): the ``base_`` sizes are
  scaled by ``global_parameter_scale`` (1 unless set), so they are the model's own;
  ``mlp_activations: [silu, linear]`` (two entries) is a gated MLP.
* **safari / hyena-dna** (``attn_cfg: {num_heads: 8}`` beside ``attn_layer_idx``): the heads
  of the flash-attn blocks the listed layers are, read where they are written.
* **TencentPretrain / UER-py** (``heads_num``, ``layers_num``, ``feedforward_size``,
  ``local_kv_heads_num``, ``attention_head_size``; ``feed_forward: "gated"``): its JSON model
  configs, read as a training config (see :data:`dimlint.config.trainingkeys.TENCENT_KEYS`).
* **OpenNMT-py** (``heads``, ``heads_kv``, ``transformer_ff``, ``layers``/``dec_layers``/
  ``enc_layers``; ``pos_ffn_activation_fn: silu`` is its gated MLP): the top level of its
  training YAML (see :data:`dimlint.config.trainingkeys.OPENNMT_RENAMES`).
* **the ViT family** (``width`` beside a head count and ``depth``/``layers``/``num_layers``,
  no other width key: big_vision, CLIP, open_clip): ``width`` is the model width, ``heads``
  its heads, ``mlp_dim`` its MLP (see :func:`dimlint.config.trainingkeys.width_is_width`).
* **Models side by side under name prefixes** (``text_hidden_size``, ``text_num_attention_heads``
  beside ``vision_*``): each prefix a section of its own (:func:`_prefixed_models`).
* **UniFormerV2's yacs YAML** (``N_DIM``, ``N_HEAD``, ``N_LAYERS``; :data:`N_DIM_RENAMES`).
* **Swin's yacs YAML** (``EMBED_DIM``, per-stage ``DEPTHS`` and ``NUM_HEADS`` lists): the first
  stage's width and heads (see :func:`_swin_first_stage`).
* **ESPnet / FunASR** (``encoder_conf: {output_size: 256, attention_heads: 4, linear_units:
  2048, num_blocks: 12}``): the encoder's width, heads, FFN and layers
  (:func:`dimlint.config.trainingkeys.is_espnet`).
* **PEFT adapter configs** (``adapter_config.json`` with ``peft_type``): prompt and prefix
  tuning state the base model's ``token_dim`` (its width), ``num_attention_heads`` and
  ``num_layers``; prefix tuning (``PREFIX_TUNING``) reshapes its key/value prefix into heads of
  ``token_dim // num_attention_heads``, so there ``token_dim`` is read as the width (prompt
  tuning and P-tuning never split it into heads). Read as a training config (no config.json
  rules such as DL005).
* **levanter / open_lm** (``hidden_dim`` beside ``num_heads``/``n_heads`` and no other width
  key): ``hidden_dim`` is the model width. Where a ``dim`` is stated (Mistral's
  ``params.json``), ``hidden_dim`` is the FFN and nothing is translated.

A translation adds the common key to the mapping (the file's own key stays) and records the
common key's pointer as an alias of the written one, so a finding sits on the written value and
a fix edits it; a key the mapping already states is never overwritten.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dimlint.config.pointers import escape_pointer_token
from dimlint.config.trainingkeys import (
    ESPNET_RENAMES,
    HEAD_KEYS,
    MEGATRON_MLA_NAMES,
    N_DIM_RENAMES,
    OPENMMLAB_RENAMES,
    OPENNMT_GATED,
    OPENNMT_LAYERS,
    OPENNMT_RENAMES,
    TENCENT_KEYS,
    TENCENT_RENAMES,
    VIT_RENAMES,
    WIDTH_KEYS,
    embed_dims_is_width,
    hidden_dim_is_width,
    is_espnet,
    is_opennmt,
    n_dim_is_width,
    prefixed_models,
    width_is_width,
)

if TYPE_CHECKING:
    from dimlint.sources.yamlfile import YamlDocument

#: How deep mappings are searched for a dialect (Megatron's ``MODEL_ARGS`` is at depth 1).
MAX_DEPTH = 6

#: Megatron argument names (after ``--`` and ``-`` → ``_``) the normalizer spells otherwise.
MEGATRON_RENAMES = {
    "moe_router_topk": "num_experts_per_tok",
    "moe_ffn_hidden_size": "moe_intermediate_size",
    "moe_shared_expert_intermediate_size": "shared_expert_intermediate_size",
}
MLA_RENAMES = MEGATRON_MLA_NAMES
#: Megatron-LM's defaults of its MLA arguments (``megatron/training/arguments.py``), read only
#: under ``--multi-latent-attention``: a launch script that leaves them out gets these.
MEGATRON_MLA_DEFAULTS = {
    "--q-lora-rank": None,
    "--kv-lora-rank": 32,
    "--qk-head-dim": 128,
    "--qk-pos-emb-head-dim": 64,
    "--v-head-dim": 128,
}
#: maxtext's base sizes → the common names.
MAXTEXT_RENAMES = {
    "base_emb_dim": "hidden_size",
    "base_num_query_heads": "num_attention_heads",
    "base_num_kv_heads": "num_key_value_heads",
    "base_mlp_dim": "intermediate_size",
    "base_num_decoder_layers": "num_hidden_layers",
    "base_moe_mlp_dim": "moe_intermediate_size",
}
_WIDTH_KEYS = WIDTH_KEYS
_HEAD_KEYS = HEAD_KEYS


def translate(document: YamlDocument) -> None:
    """Add the common spelling of every dialect key of the document's mappings (see above)."""
    pending: list[tuple[str, Any, int]] = [("", document.value, 0)]
    while pending:
        pointer, node, depth = pending.pop()
        if not isinstance(node, dict):
            continue
        _translate_mapping(document, pointer, node)
        if depth < MAX_DEPTH:
            pending.extend(
                (f"{pointer}/{escape_pointer_token(key)}", child, depth + 1)
                for key, child in node.items()
                if isinstance(child, dict)
            )


def _attention_layers(document: YamlDocument, pointer: str, node: dict[str, Any]) -> None:
    """safari / hyena-dna's ``attn_cfg: {num_heads: 8}`` beside ``attn_layer_idx: [1, 8]``:
    the listed layers are flash-attn ``MHA(d_model, **attn_cfg)`` blocks, which assert that
    the heads divide ``d_model``; without listed layers every block is the ``layer`` mixer and
    the heads are not used."""
    config, layers = node.get("attn_cfg"), node.get("attn_layer_idx")
    if not isinstance(config, dict) or not isinstance(layers, list) or not layers:
        return
    if any(key in node for key in _HEAD_KEYS) or not any(key in node for key in _WIDTH_KEYS):
        return
    base = f"{pointer}/attn_cfg"
    for written, common in (
        ("num_heads", "num_attention_heads"),
        ("num_heads_kv", "num_key_value_heads"),
    ):
        if written in config and common not in node:
            node[common] = config[written]
            document.alias(f"{pointer}/{common}", f"{base}/{written}")


def _swin_first_stage(document: YamlDocument, pointer: str, node: dict[str, Any]) -> None:
    """Swin's yacs YAML (``MODEL.SWIN: {EMBED_DIM: 96, DEPTHS: [2, 2, 6, 2], NUM_HEADS: [3, 6,
    12, 24]}``): the first stage is ``EMBED_DIM`` wide with ``NUM_HEADS[0]`` heads, and its
    window attention reshapes the width into them (``C // num_heads``), so they must divide it.
    Later stages double the width; only the first is read as the model's."""
    width, heads, depths = node.get("EMBED_DIM"), node.get("NUM_HEADS"), node.get("DEPTHS")
    if not (isinstance(width, int) and isinstance(heads, list) and isinstance(depths, list)):
        return
    if not heads or not isinstance(heads[0], int) or isinstance(heads[0], bool):
        return
    if "hidden_size" in node or "num_attention_heads" in node:
        return
    node["hidden_size"] = width
    document.alias(f"{pointer}/hidden_size", f"{pointer}/EMBED_DIM")
    node["num_attention_heads"] = heads[0]
    document.alias(f"{pointer}/num_attention_heads", f"{pointer}/NUM_HEADS/0")
    document.spelled[f"{pointer}/num_attention_heads"] = "NUM_HEADS[0]"


def _prefixed_models(document: YamlDocument, pointer: str, node: dict[str, Any]) -> None:
    """Models side by side under name prefixes in one mapping (Chinese-CLIP's
    ``text_hidden_size``/``text_num_attention_heads``; :func:`prefixed_models`): each becomes a
    section ``<prefix>`` of its stripped keys, every one located where it is written."""
    for prefix, group in prefixed_models(node).items():
        if prefix in node:
            continue
        section: dict[str, Any] = {}
        for rest, written in group.items():
            section[rest] = node[written]
            document.alias(
                f"{pointer}/{escape_pointer_token(prefix)}/{escape_pointer_token(rest)}",
                f"{pointer}/{escape_pointer_token(written)}",
            )
        node[prefix] = section


def _translate_mapping(document: YamlDocument, pointer: str, node: dict[str, Any]) -> None:
    added: dict[str, str] = {}  # common key → written key
    if any(isinstance(key, str) and key.startswith("--") for key in node):
        flags = {
            k.replace("_", "-") for k, item in node.items() if item is True and isinstance(k, str)
        }
        gqa = "--group-query-attention" in flags  # spelled --group_query_attention by forks
        mla = "--multi-latent-attention" in flags
        if mla:
            for key, default in MEGATRON_MLA_DEFAULTS.items():
                # Megatron's own default, no place in the file (in neither spelling)
                if default is not None and key.replace("-", "_") not in node:
                    node.setdefault(key, default)
        for key in list(node):
            if not key.startswith("--"):
                continue
            name = key[2:].replace("-", "_")
            if name == "num_query_groups" and not gqa:
                continue  # Megatron ignores the groups without --group-query-attention
            if key.replace("_", "-") in MEGATRON_MLA_DEFAULTS and not mla:
                continue  # and the latent sizes without --multi-latent-attention
            added[MEGATRON_RENAMES.get(name, name)] = key
    for key, common in MLA_RENAMES.items():
        written = added.get(key, key)
        if written in node:
            added[common] = written
    if sum(key in node for key in MAXTEXT_RENAMES) >= 2:
        for key, common in MAXTEXT_RENAMES.items():
            if key in node:
                added[common] = key
        activations = node.get("mlp_activations")
        if isinstance(activations, list) and len(activations) >= 2:
            added["gated_linear_unit"] = "mlp_activations"
    if node.keys() >= TENCENT_KEYS:
        for key, common in TENCENT_RENAMES.items():
            if key in node:
                added[common] = key
        if node.get("feed_forward") == "gated":
            added["gated_linear_unit"] = "feed_forward"
    if is_opennmt(node):
        added.update({common: key for key, common in OPENNMT_RENAMES.items() if key in node})
        layers = next(key for key in (*OPENNMT_LAYERS, "") if not key or key in node)
        if layers:
            added["num_hidden_layers"] = layers
        activation = node.get("pos_ffn_activation_fn")
        if isinstance(activation, str) and activation.lower() in OPENNMT_GATED:
            added["gated_linear_unit"] = "pos_ffn_activation_fn"
    if hidden_dim_is_width(node):
        added["hidden_size"] = "hidden_dim"
    if n_dim_is_width(node):  # UniFormerV2's yacs names
        for key, common in N_DIM_RENAMES.items():
            value = node.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and common not in added:
                added[common] = key
    if is_espnet(node):
        for key, common in ESPNET_RENAMES.items():
            value = node.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                added[common] = key
    if node.get("peft_type") == "PREFIX_TUNING" and "token_dim" in node:
        added["hidden_size"] = "token_dim"  # prefix tuning's copy of the base model's width
    if embed_dims_is_width(node):  # OpenMMLab's attention width
        added.update({common: key for key, common in OPENMMLAB_RENAMES.items()})
    if width_is_width(node):
        for key, common in VIT_RENAMES.items():
            value = node.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and common not in added:
                added[common] = key
    _attention_layers(document, pointer, node)
    _swin_first_stage(document, pointer, node)
    _prefixed_models(document, pointer, node)
    for common, written in added.items():
        if common in node:
            continue
        value = node[written]
        node[common] = True if common == "gated_linear_unit" else value
        document.alias(
            f"{pointer}/{escape_pointer_token(common)}",
            f"{pointer}/{escape_pointer_token(written)}",
        )
