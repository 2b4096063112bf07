"""The KV cache: which models keep one, how wide each layer's is, and its bytes per GPU.

* :mod:`~dimlint.memory.kvcache.cached_models`: whether a model keeps a cache at all;
* :mod:`~dimlint.memory.kvcache.attention_widths`: one attention layer's width per token
  (KV heads per rank, latent attention, DeepSeek-V4's compressed entries);
* :mod:`~dimlint.memory.kvcache.recurrent_states`: the constant state of recurrent and
  linear-attention layers;
* :mod:`~dimlint.memory.kvcache.cache_size`: the bytes a serving engine allocates, per
  sequence and per token, over the layer plan of
  :func:`dimlint.memory.parameters.layer_kinds.cache_plan`.
"""

from __future__ import annotations

from dimlint.memory.kvcache.attention_widths import compressed_elements, kv_heads_per_gpu
from dimlint.memory.kvcache.cache_size import kv_bytes_per_token, kv_cache_bytes
from dimlint.memory.kvcache.recurrent_states import state_elements

__all__ = [
    "compressed_elements",
    "kv_bytes_per_token",
    "kv_cache_bytes",
    "kv_heads_per_gpu",
    "state_elements",
]
