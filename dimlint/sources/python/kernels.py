"""Whether a module can reach a fused attention kernel, whose head-dim limits DL104 is about.

DL104 warns of what FlashAttention, PyTorch's SDPA kernels and vLLM's flash backend do with a
head dim (pad one that is not a multiple of 8, refuse one over 256). A module that states its
own ``torch.nn.Module``'s sizes and computes attention by explicit matmuls (DeiT's
PatchConvNet: a single 768-wide head in its attention pooling, ``q @ k.transpose(-2, -1)``)
reaches none of them: the warning would be about kernels the code never calls. A module that
names one (``scaled_dot_product_attention``, ``flash_attn``, xformers' memory-efficient
attention, ``flex_attention``, transformers' attention-function table) keeps it.
"""

from __future__ import annotations

import re

_FUSED = re.compile(
    r"scaled_dot_product_attention|flash_attn|memory_efficient_attention|flex_attention"
    r"|ALL_ATTENTION_FUNCTIONS|_attn_implementation|\bsdpa\b|\bxformers\b"
)


def calls_fused_attention(text: str) -> bool:
    """Whether ``text`` names a fused attention kernel or a table that dispatches to one."""
    return _FUSED.search(text) is not None
