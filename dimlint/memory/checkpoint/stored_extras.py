"""What a checkpoint stores beside a model's parameters, and how its weights are quantized.

Both checkpoint readers need these facts — the tensor-by-tensor comparison
(:mod:`dimlint.checks.checkpoint_templates`) and the totals (:mod:`dimlint.checks.checkpoint_sizes`)
— so they live in one place: tensors older saves carried that no model loads (rotary
frequencies were persistent buffers once), and the scales FP8 block quantization writes beside
each quantized weight, which keeps every weight's shape.
"""

from __future__ import annotations

import re
from typing import Any

from dimlint.config.spec import ModelSpec

#: Buffers any family's older checkpoints may hold (rotary frequencies were persistent once).
COMMON_BUFFERS = (r"(^|\.)rotary_emb\.inv_freq$",)
#: Scales that FP8 block quantization stores beside each quantized weight.
FP8_SCALES = re.compile(r"\.(weight_scale_inv|weight_scale|input_scale)$")
#: Quantization methods that keep every weight's shape (adding scale tensors beside them).
SHAPE_PRESERVING_QUANTIZATION = frozenset({"fp8", "fbgemm_fp8"})


def quantization(spec: ModelSpec) -> str | None:
    """The quantization method of the config (``fp8``, ``gptq``…), or None."""
    config = spec.raw.get("quantization_config")
    if not isinstance(config, dict):
        return None
    return str(config.get("quant_method") or "unknown").lower()


def keeps_shapes(spec: ModelSpec) -> bool:
    """Whether the stored weights have the shapes of the unquantized model (none, or FP8)."""
    method = quantization(spec)
    return method is None or method in SHAPE_PRESERVING_QUANTIZATION


def unquantized(raw: dict[str, Any]) -> dict[str, Any]:
    """``raw`` as the model it quantizes: names and shapes are the unquantized model's (the
    templates would read ``quantization_config`` as a field they never learned)."""
    return {key: value for key, value in raw.items() if key != "quantization_config"}
