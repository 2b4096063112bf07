"""What remote-code families mean by a field, where it differs from the name (normalization
knowledge shared by the rules and the memory package).

Qwen v1 (``modeling_qwen.py``: ``w1``/``w2`` are each ``intermediate_size // 2`` wide) and Molmo
(``ff_proj`` maps to ``intermediate_size``, ``ff_out`` reads half of it) state the gate and up
projections of their SwiGLU as one fused width: the MLP is half the stated value. The rules
(DL301/DL302) and parameter counting (:mod:`dimlint.memory.parameters.remote`) both read it from
here, so the lint path does not import the memory package.
"""

from __future__ import annotations

#: Remote model types whose ``intermediate_size`` holds gate and up together.
FUSED_FFN_TYPES = frozenset({"qwen", "molmo"})


def is_fused_ffn(model_type: str | None) -> bool:
    """Whether the stated ``intermediate_size`` is twice the MLP width (Qwen v1, Molmo)."""
    return (model_type or "") in FUSED_FFN_TYPES
