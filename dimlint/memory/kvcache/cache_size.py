"""KV cache bytes as a window-aware serving engine (vLLM) allocates them, per GPU.

Per layer (see :func:`dimlint.memory.parameters.layer_kinds.cache_plan`):

* attention: ``2 · kv_heads_per_gpu · head_dim · tokens`` elements, where a sliding-window
  or chunked layer holds at most its window, and each rank holds ``max(1, kv_heads / tp)``
  heads — past ``tp = kv_heads`` the heads are replicated, so the cache stops shrinking
  (vLLM's ``QKVParallelLinear``);
* multi-head latent attention (DeepSeek-V2/V3): ``kv_lora_rank + qk_rope_head_dim`` elements
  per token, the whole latent on every rank (DeepSeek-V3 in bf16: 70,272 B/token);
* linear-attention and state-space layers: a constant state per sequence (convolution window
  plus recurrent state), sharded over tp by heads;
* layers that reuse an earlier layer's KV (Gemma-3n/4), cross-attention layers and MLP-only
  layers: nothing;
* DeepSeek sparse-attention indexers (V3.2, GLM-5): ``index_head_dim`` more elements per token
  on the layers that have one, in the cache's dtype as transformers keeps them;
* DeepSeek-V4: one KV head whose keys are also its values (stored once), over a sliding window
  on every layer; its compressed layers add one ``head_dim`` entry per ``compress_rate`` tokens
  of the whole context and the compressor's state (see :func:`compressed_elements`);
* encoder-decoder models: the decoder's self-attention (``decoder_layers`` ×
  ``decoder_attention_heads``); their cross-attention caches hold encoder tokens and are not
  counted;
* encoder-only model types (none of their classes generates: ViT, wav2vec2, CLIP, DeBERTa):
  nothing; BERT-style encoders: nothing unless ``is_decoder`` makes them causal; GPT-1 and XLM
  keep no cache at all; XLNet keeps each layer's input (``mems``, ``d_model`` wide, up to
  ``mem_len`` tokens); CPM-Ant's ``prompt_length`` prompt tokens sit in every sequence's cache.

Token counts are rounded up to whole blocks (vLLM's default 16 tokens) per sequence.
"""

from __future__ import annotations

import math

from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.dtypes import dtype_bytes
from dimlint.memory.kvcache.attention_widths import (
    ATTENTION_BLOCKS,
    LOCAL_ATTENTION,
    compressed_elements,
    held_tokens,
    kv_width,
    latent_width,
    special_width,
)
from dimlint.memory.kvcache.cached_models import PROMPT_TOKENS, no_cache
from dimlint.memory.kvcache.recurrent_states import state_elements
from dimlint.memory.parameters.layer_kinds import CacheLayer, cache_plan


def _copies(cfg: Cfg, index: int) -> int:
    """How many caches layer ``index`` keeps: Dory runs its recurrent stage (the
    ``n_recurrent_layers`` after the ``n_input_layers``) ``n_recurrent_loops`` times and, in
    its default ``per_loop`` mode, keeps one cache per loop (``last_loop`` keeps one)."""
    loops = cfg.int("n_recurrent_loops")
    if loops <= 1 or cfg.get("recurrent_kv_cache_mode", "per_loop") != "per_loop":
        return 1
    start = cfg.int("n_input_layers")
    stage = cfg.int("n_recurrent_layers") or cfg.layers - start - cfg.int("n_output_layers")
    return loops if start <= index < start + stage else 1


def _layer_elements(
    cfg: Cfg, index: int, layer: CacheLayer, context: int, tp: int, block_size: int
) -> int:
    own = cfg.at_layer(index)
    window = layer.window
    if cfg.model_type in LOCAL_ATTENTION and layer.kind == "kv":
        window = cfg.int("attention_window_size") or window
    extra = state_elements(own, tp) if layer.state else 0
    held = held_tokens(context, window, block_size)
    if layer.indexer:
        extra += own.int("index_head_dim") * held
    if layer.compress:
        extra += compressed_elements(own, layer, context, block_size)
    blocks = ATTENTION_BLOCKS.get(cfg.model_type, 1)
    if layer.kind == "kv":
        return blocks * kv_width(own, tp, layer.sliding) * held + extra
    if layer.kind == "latent":
        return blocks * latent_width(own) * held + extra
    if layer.kind == "state":
        return state_elements(own, tp)
    return 0


def kv_cache_bytes(
    spec: ModelSpec,
    *,
    context: int,
    batch: int,
    kv_dtype: str,
    tp: int = 1,
    block_size: int = 16,
) -> int:
    """Cache bytes on one GPU for ``batch`` sequences of ``context`` tokens (see module doc)."""
    # Layouts that share a tp share the per-sequence count (plan asks once per tp × pp).
    key = f"kv_elements:{context}:{tp}:{block_size}"
    per_sequence: int | None = spec.memo.get(key)
    if per_sequence is None:
        cfg = Cfg(spec)
        context += cfg.int(PROMPT_TOKENS.get(cfg.model_type, ""))
        special = special_width(cfg, tp)
        if no_cache(cfg):
            per_sequence = 0
        elif special is not None:
            per_sequence = special[0] * held_tokens(context, special[1], block_size)
        else:
            per_sequence = sum(
                _layer_elements(cfg, index, layer, context, tp, block_size)
                * count
                * _copies(cfg, index)
                for index, layer, count in cache_plan(cfg)
            )
        spec.memo[key] = per_sequence
    return math.ceil(per_sequence * batch * dtype_bytes(kv_dtype))


def kv_bytes_per_token(spec: ModelSpec, kv_dtype: str, tp: int = 1) -> float:
    """Bytes one more token of context adds on one GPU: the layers whose cache grows without
    bound (full attention, MLA). Window-limited and state layers add nothing once full, so
    ``(free bytes - kv_cache_bytes(context=0)) / kv_bytes_per_token`` bounds the context.
    """
    cfg = Cfg(spec)
    if no_cache(cfg):
        return 0.0
    special = special_width(cfg, tp)
    if special is not None:
        return 0.0 if special[1] is not None else special[0] * dtype_bytes(kv_dtype)
    elements = 0.0
    blocks = ATTENTION_BLOCKS.get(cfg.model_type, 1)
    for index, layer, count in cache_plan(cfg):
        if layer.compress:  # one compressed entry (and indexer key) per `compress` tokens
            own = cfg.at_layer(index)
            width = own.head_dim + (own.int("index_head_dim") if layer.overlap else 0)
            elements += width * count / layer.compress
        if layer.window is not None or (cfg.model_type in LOCAL_ATTENTION and layer.kind == "kv"):
            continue
        own = cfg.at_layer(index)
        indexer = own.int("index_head_dim") if layer.indexer else 0
        copies = count * _copies(cfg, index)
        if layer.kind == "kv":
            elements += (blocks * kv_width(own, tp) + indexer) * copies
        elif layer.kind == "latent":
            elements += (blocks * latent_width(own) + indexer) * copies
    return elements * dtype_bytes(kv_dtype)
