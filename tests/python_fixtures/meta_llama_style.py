"""Meta's llama ModelArgs: dim, n_heads, n_kv_heads, and the FFN sized by multiple_of."""

from dataclasses import dataclass
from typing import Optional


@dataclass
class ModelArgs:
    dim: int = 4096
    n_layers: int = 32
    n_heads: int = 32
    n_kv_heads: Optional[int] = 6
#                               ^ DL102
    vocab_size: int = -1  # defined later by the tokenizer
    multiple_of: int = 256  # make SwiGLU hidden layer size multiple of large power of 2
    ffn_dim_multiplier: Optional[float] = None
    norm_eps: float = 1e-5
    max_batch_size: int = 32
    max_seq_len: int = 2048


llama_3_8b = ModelArgs(n_kv_heads=8, ffn_dim_multiplier=1.3, vocab_size=128256)
too_wide = ModelArgs(n_kv_heads=8, ffn_dim_multiplier=4.0)
#                                                     ^^^ DL301
