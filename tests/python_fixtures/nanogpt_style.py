"""nanoGPT style: a dataclass config and instances that override it."""

from dataclasses import dataclass


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50257  # GPT-2's vocabulary, not padded
#                     ^^^^^ DL202
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    dropout: float = 0.0
    bias: bool = True


small = GPTConfig(n_layer=6, n_head=6, n_embd=384, vocab_size=50304)
broken = GPTConfig(n_head=24, n_embd=1024)
#                                    ^^^^ DL101
medium = GPTConfig(
    n_layer=24,
    n_head=16,  # 1024 / 16 = 64 per head
    n_embd=1024,
)
