"""Scaled-down copies of transformers' default configs, and the cache bytes a forward keeps.

Used by ``test_memory_kv_oracle_all.py``. :func:`scaled_overrides` turns a model type's
default config (``config.to_dict()``) into the few keyword arguments that make it small: few
layers (enough to show the type's layer pattern), narrow widths, few heads with the default's
query:KV ratio, small experts, windows and MLA ranks, a small vocabulary with the special
tokens moved into it. Only keys the default has are touched, and derived fields are left to
the config class (a per-layer list the class does not rebuild is cut to the new depth).

:func:`engine_bytes` sums the tensors of the cache a forward returned, converted to the layout
a serving engine allocates (the three conversions documented in ``test_memory_kv_oracle.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import torch

#: The depth every scaled config gets, or more when a per-layer pattern needs more to show.
DEPTH = 6
HIDDEN, HEADS, HEAD_DIM, FFN, EXPERT_FFN, VOCAB, WINDOW = 128, 8, 16, 256, 64, 512, 8

LAYER_KEYS = (
    "num_hidden_layers", "n_layer", "num_layers", "n_layers", "decoder_layers",
    "encoder_layers", "num_decoder_layers", "num_encoder_layers",
)  # fmt: skip
HIDDEN_KEYS = (
    "hidden_size", "n_embd", "n_embed", "d_model", "model_dim", "embed_dim", "emb_dim",
    "word_embed_proj_dim", "embedding_size", "lru_width", "hidden_dim", "hidden_size_global",
    "adapter_in_dim", "adapter_input_size",
)  # fmt: skip
HEAD_KEYS = (
    "num_attention_heads", "n_head", "n_heads", "num_heads", "decoder_attention_heads",
    "encoder_attention_heads", "attention_heads", "num_decoder_attention_heads",
    "num_encoder_attention_heads", "swa_num_attention_heads",
)  # fmt: skip
KV_KEYS = (
    "num_key_value_heads", "num_kv_heads", "n_head_kv", "n_kv_heads", "num_query_groups",
    "multi_query_group_num", "swa_num_key_value_heads", "kv_n_heads",
)  # fmt: skip
HEAD_DIM_KEYS = (
    "head_dim", "swa_head_dim", "attention_head_dim", "kv_channels", "attention_head_size",
    "d_head", "dim_head",
)  # fmt: skip
FFN_KEYS = (
    "intermediate_size", "n_inner", "ffn_dim", "decoder_ffn_dim", "encoder_ffn_dim",
    "ffn_hidden_size", "dim_ff", "d_ff", "d_inner", "feed_forward_size", "dff",
    "intermediate_size_mlp", "dense_intermediate_size",
)  # fmt: skip
EXPERT_FFN_KEYS = (
    "moe_intermediate_size", "shared_expert_intermediate_size", "shared_intermediate_size",
    "moe_shared_expert_intermediate_size", "shared_experts_intermediate_size",
    "expert_ffn_hidden_size",
)  # fmt: skip
EXPERT_KEYS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
TOPK_KEYS = ("num_experts_per_tok", "moe_topk", "num_experts_per_token", "moe_k")
GROUP_KEYS = ("n_group", "topk_group", "num_expert_group")
SHARED_EXPERT_KEYS = ("n_shared_experts", "num_shared_experts", "moe_num_shared_experts")
WINDOW_KEYS = (
    "sliding_window", "attention_chunk_size", "sliding_window_size", "attention_window_size",
    "local_attention_window_len", "window_size", "local_attention",
)  # fmt: skip
#: Layer indices or counts of layers, scaled with the depth.
LAYER_INDEX_KEYS = ("max_window_layers", "first_k_dense_replace", "num_dense_layers")
#: Small values for MLA, sparse-attention indexers, state-space and linear-attention layers.
FIXED = {
    "kv_lora_rank": 16, "q_lora_rank": 32, "qk_nope_head_dim": 16, "v_head_dim": 16,
    "index_head_dim": 16, "index_n_heads": 2, "index_topk": 4,
    "mamba_d_state": 8, "state_size": 8, "ssm_state_size": 8, "mamba_dt_rank": 8,
    "time_step_rank": 8, "mamba_n_groups": 1, "n_groups": 1, "mamba_ngroups": 1,
    "linear_num_key_heads": 2, "linear_key_head_dim": 16, "linear_value_head_dim": 16,
    "linear_head_dim": 16, "linear_num_heads": 4,
}  # fmt: skip
MAMBA_HEAD_COUNT = ("mamba_n_heads", "mamba_num_heads", "n_mamba_heads")
MAMBA_HEAD_WIDTH = ("mamba_d_head", "mamba_head_dim", "mamba_headdim")
ROPE = 8


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _first(document: dict[str, Any], keys: Iterable[str]) -> tuple[str, int] | None:
    for key in keys:
        if _is_int(document.get(key)):
            return key, int(document[key])
    return None


def layer_lists(document: dict[str, Any], depth: int) -> dict[str, list[Any]]:
    """The per-layer lists of a config dict (one entry per layer)."""
    return {
        key: value
        for key, value in document.items()
        if isinstance(value, list) and len(value) == depth and depth > 1
    }


def _kinds_depth(lists: dict[str, list[Any]]) -> int:
    """Layers needed for every kind of every per-layer list to appear (twice in Zamba's
    ``layers_block_type``: its shared block is tied across hybrid layers, so one is not
    enough to build)."""
    need = 0
    for key, values in lists.items():
        if key.endswith("layer_types") or key in ("layers_block_type", "attention_layers"):
            times = 2 if key == "layers_block_type" else 1
            seen: dict[str, int] = {}
            for index, value in enumerate(values):
                if seen.get(str(value), 0) < times:
                    seen[str(value)] = seen.get(str(value), 0) + 1
                    need = max(need, index + 1)
    return need


def target_depth(document: dict[str, Any]) -> int:
    """The scaled depth: :data:`DEPTH`, or enough for the default's layer pattern."""
    found = _first(document, LAYER_KEYS)
    if found is None:
        return DEPTH
    kinds = _kinds_depth(layer_lists(document, found[1]))
    depth = max(DEPTH, kinds)
    if _is_int(document.get("num_kv_shared_layers")) and document["num_kv_shared_layers"] > 0:
        depth = max(depth, 2 * kinds)  # the shared tail needs every kind too (Gemma-3n)
    return min(found[1], depth)


def scaled_overrides(document: dict[str, Any], depth: int | None = None) -> dict[str, Any]:
    """Keyword arguments that scale ``document`` (a default ``to_dict()``) down (module doc)."""
    out: dict[str, Any] = {}

    def put(key: str, value: Any) -> None:
        current = document.get(key)
        if (current is None and key in document) or (_is_int(current) and current != value):
            out[key] = value

    layers = _first(document, LAYER_KEYS)
    depth = target_depth(document) if depth is None else depth
    original = layers[1] if layers else 0
    new = min(original, depth)
    for key in LAYER_KEYS:
        if _is_int(document.get(key)):
            put(key, min(document[key], depth))
    for key in HIDDEN_KEYS:
        if _is_int(document.get(key)):
            put(key, HIDDEN)
    heads = _first(document, HEAD_KEYS)
    for key in HEAD_KEYS:
        if _is_int(document.get(key)):
            put(key, HEADS)
    for key in KV_KEYS:
        if key not in document or not heads:
            continue
        kv = document[key]
        if kv is None or (_is_int(kv) and kv > 0):
            ratio = max(1, heads[1] // kv) if _is_int(kv) and heads[1] >= kv else 1
            put(key, max(1, HEADS // ratio))
    head_dim, hidden = _first(document, HEAD_DIM_KEYS), _first(document, HIDDEN_KEYS)
    old_head = head_dim[1] if head_dim else (hidden[1] // heads[1] if hidden and heads else 0)
    for key in HEAD_DIM_KEYS:
        if key in document and (document[key] is None or _is_int(document[key])):
            put(key, HEAD_DIM)
    for key in FFN_KEYS:
        if isinstance(document.get(key), list):
            out[key] = [FFN] * new
        elif _is_int(document.get(key)):
            put(key, FFN)
    for key in EXPERT_FFN_KEYS:
        if _is_int(document.get(key)):
            put(key, EXPERT_FFN)
    experts = any(key in document for key in EXPERT_KEYS)
    for key in EXPERT_KEYS:
        value = document.get(key)
        if (_is_int(value) and value > 4) or (value is None and key in document):
            put(key, 4)
    for key in TOPK_KEYS:
        value = document.get(key)
        if _is_int(value) or (value is None and key in document and experts):
            put(key, min(value, 2) if _is_int(value) else 2)
    for key in GROUP_KEYS:
        value = document.get(key)
        if (_is_int(value) and value > 1) or (value is None and key in document and experts):
            put(key, 1)
    for key in SHARED_EXPERT_KEYS:
        value = document.get(key)
        if (_is_int(value) and value > 1) or (value is None and key in document and experts):
            put(key, 1)
    for key in WINDOW_KEYS:
        if _is_int(document.get(key)) and document[key] > WINDOW:
            put(key, WINDOW)
    for key in LAYER_INDEX_KEYS:
        value = document.get(key)
        if _is_int(value) and value > 0 and original:
            put(key, min(new, max(1, round(value * new / original))))
    for key, value in FIXED.items():
        if _is_int(document.get(key)):
            put(key, value)
    _keep_relations(document, out, new, original, old_head)
    _small_vocabulary(document, out)
    for key, value in document.items():
        if isinstance(value, dict) and "model_type" in value and key.endswith("_config"):
            sub = scaled_overrides(value, DEPTH if key == "text_config" else 1)
            sub["model_type"] = value["model_type"]
            out[key] = sub
    return out


def _keep_relations(
    document: dict[str, Any], out: dict[str, Any], new: int, original: int, old_head: int
) -> None:
    """Relations between fields the default satisfies and the modeling code relies on."""
    rope = document.get("qk_rope_head_dim")
    if _is_int(rope):
        out["qk_rope_head_dim"] = ROPE
        if _is_int(document.get("head_dim")) and document["head_dim"] == rope:
            out["head_dim"] = ROPE  # DeepSeek-V3 states the rotary width as head_dim too
        nope = document.get("qk_nope_head_dim")
        if _is_int(document.get("qk_head_dim")):
            out["qk_head_dim"] = out.get("qk_nope_head_dim", 16) + ROPE
        swa = document.get("swa_head_dim")  # Dots3: SWA heads as wide as MLA's queries
        if _is_int(swa) and _is_int(nope) and swa == nope + rope:
            out["swa_head_dim"] = out.get("qk_nope_head_dim", 16) + ROPE
    rotary = document.get("rotary_dim")
    if _is_int(rotary) and old_head:  # GPT-J, CodeGen: a share of each head rotates
        out["rotary_dim"] = max(2, rotary * HEAD_DIM // old_head)
    if _is_int(document.get("linear_num_value_heads")) and _is_int(
        document.get("linear_num_key_heads")
    ):
        ratio = max(
            1, document["linear_num_value_heads"] // max(1, document["linear_num_key_heads"])
        )
        out["linear_num_value_heads"] = out.get("linear_num_key_heads", 2) * ratio
    hidden = _first(document, HIDDEN_KEYS)
    expand = document.get("mamba_expand", document.get("expand", 2))
    count, width = _first(document, MAMBA_HEAD_COUNT), _first(document, MAMBA_HEAD_WIDTH)
    if count is None and width is None and document.get("model_type") == "mamba2":
        count, width = _first(document, ("num_heads",)), _first(document, ("head_dim",))
    if count and width and hidden and _is_int(expand):
        inner = count[1] * width[1] * HIDDEN // hidden[1]
        heads = min(count[1], 4)
        out[count[0]] = heads
        out[width[0]] = max(1, inner // heads)
        if _is_int(document.get("mamba_d_ssm")):
            out["mamba_d_ssm"] = heads * max(1, inner // heads)
    if _is_int(document.get("attention_hidden_size")) and hidden:
        out["attention_hidden_size"] = document["attention_hidden_size"] * HIDDEN // hidden[1]
    shared = document.get("num_kv_shared_layers")
    if _is_int(shared) and shared > 0 and original:
        out["num_kv_shared_layers"] = new // 2
    indices = document.get("attn_layer_indices")
    if isinstance(indices, list) and original:
        out["attn_layer_indices"] = sorted({round(i * (new - 1) / (original - 1)) for i in indices})
    stages = [
        document.get(key) for key in ("n_input_layers", "n_recurrent_layers", "n_output_layers")
    ]
    if all(_is_int(stage) for stage in stages) and sum(stages) == original:  # Dory
        out.update(n_input_layers=1, n_recurrent_layers=new - 2, n_output_layers=1)
    overrides = document.get("per_layer_config")  # Dots3: settings of some layers
    if isinstance(overrides, dict) and overrides:
        kept = {
            key: {**value, **scaled_overrides(value, new)}
            for key, value in overrides.items()
            if str(key).isdigit() and int(key) < new and isinstance(value, dict)
        }
        out["per_layer_config"] = kept
        rope = document.get("qk_rope_head_dim")
        widths = {
            value.get("qk_nope_head_dim") for value in overrides.values() if isinstance(value, dict)
        }
        if _is_int(rope) and any(
            _is_int(w) and w + rope == document.get("head_dim") for w in widths
        ):
            out["head_dim"] = FIXED["qk_nope_head_dim"] + ROPE  # Dots3's SWA heads: nope + rope
    types = document.get("attention_types")  # GPT-Neo: [[["global", "local"], repeats]]
    if isinstance(types, list) and types and isinstance(types[0], list) and len(types[0]) == 2:
        pattern = types[0][0]
        out["attention_types"] = [[pattern, max(1, new // max(1, len(pattern)))]]


def _small_vocabulary(document: dict[str, Any], out: dict[str, Any]) -> None:
    """A :data:`VOCAB`-token vocabulary, with special tokens moved to its top."""
    for key, value in document.items():  # per-layer inputs, decoder and hash vocabularies
        if "vocab" in key and key != "vocab_size" and _is_int(value) and value > VOCAB:
            out[key] = VOCAB
    vocab = document.get("vocab_size")
    if not _is_int(vocab) or vocab <= VOCAB:
        return
    out["vocab_size"] = VOCAB
    taken = [0]

    def remap(token: Any) -> Any:
        if _is_int(token) and token >= VOCAB:
            taken[0] += 1
            return VOCAB - taken[0]
        return token

    for key, value in document.items():
        if key.endswith(("_token_id", "_token_index", "_token_ids")):
            new = [remap(item) for item in value] if isinstance(value, list) else remap(value)
            if new != value:
                out[key] = new


def _same(values: torch.Tensor, keys: object) -> bool:
    """Whether ``values`` holds the keys themselves: the same storage, or an equal copy (the
    sliding layers of DeepSeek-V4 update with ``(kv, kv)`` and keep two equal tensors;
    projected values of any other model never equal their keys)."""
    if not isinstance(keys, torch.Tensor) or keys.shape != values.shape:
        return False
    return bool(keys.data_ptr() == values.data_ptr() or torch.equal(keys, values))


def engine_bytes(cache: Any, seen: int) -> int:
    """Bytes of the cache a forward returned, in the engine's layout (module doc).

    Handles transformers' ``Cache`` objects (attention, sliding-window, DSA indexer, linear
    attention and state-space layers, DeepSeek-V4's compressor dicts), MiniMax's linear cache,
    xLSTM's state dict, RWKV's state list and XLNet's memory list.
    """
    if cache is None:
        return 0
    if isinstance(cache, list | tuple):  # RWKV's five state tensors; XLNet's memories
        return sum(tensor.nbytes for tensor in cache if isinstance(tensor, torch.Tensor))
    states = getattr(cache, "rnn_state", None)
    if isinstance(states, dict):  # xLSTM: (C, n, m) per layer
        return sum(t.nbytes for state in states.values() for t in state)
    total = 0
    for layer in getattr(cache, "layers", ()):
        keys = getattr(layer, "keys", None)
        for name in ("keys", "values", "indexer_keys"):
            tensor = getattr(layer, name, None)
            if not isinstance(tensor, torch.Tensor) or not tensor.numel():
                continue
            if name == "values" and _same(tensor, keys):
                continue  # keys read as values (DeepSeek-V4): one tensor in the engine
            held = tensor.shape[-2]
            window = getattr(layer, "sliding_window", None)
            if window is not None and seen >= window:
                held += 1
            total += tensor.nbytes // tensor.shape[-2] * held
        for name in ("compressed_kv", "buffer_kv", "buffer_gate", "overlap_kv", "overlap_gate"):
            found = getattr(layer, name, None)  # DeepSeek-V4's compressors, by entry name
            for tensor in (found or {}).values() if isinstance(found, dict) else ():
                if isinstance(tensor, torch.Tensor):
                    total += tensor.nbytes
        for name in ("conv_states", "recurrent_states"):
            found = getattr(layer, name, None)
            for tensor in (found or {}).values() if isinstance(found, dict) else ():
                if not isinstance(tensor, torch.Tensor):
                    continue
                if name == "conv_states":
                    kernel = tensor.shape[-1]
                    total += tensor.nbytes // kernel * (kernel - 1)
                else:
                    total += tensor.nbytes
    for tensor in getattr(cache, "linear_cache", None) or ():  # MiniMax's lightning state
        if isinstance(tensor, torch.Tensor):
            total += tensor.nbytes
    return total
