"""Bytes of a model's weights for a dtype, or as its ``quantization_config`` stores them.

Plain dtypes: parameters × bytes per element (:data:`~dimlint.memory.dtypes.DTYPE_BYTES`).

Quantized checkpoints keep the embeddings and the LM head in 16 bits and quantize the linear
layers; per quantized weight they store:

* **GPTQ / AWQ** (``bits``, ``group_size``): ``bits/8`` bytes of packed weight, and per group
  of ``group_size`` input rows one fp16 scale and one packed zero point — ``(2 + bits/8) /
  group_size`` bytes a weight (``group_size`` -1 means one group per column: negligible).
* **compressed-tensors** (``config_groups.*.weights``: ``num_bits``, ``group_size``,
  ``symmetric``): the same, without zero points when symmetric.
* **bitsandbytes 4-bit** (NF4/FP4): 0.5 bytes plus one fp32 absmax per 64-weight block, or
  with double quantization one byte per block plus an fp32 scale per 256 blocks; **8-bit**:
  one byte plus an fp32 scale per output row (negligible).
* **FP8** (``fp8``, with ``weight_block_size`` such as DeepSeek-V3's 128 × 128): one byte plus
  one fp32 scale per block (per tensor when no block size: negligible).
* **MXFP4** (GPT-OSS): 4 bits plus one 8-bit scale per 32 weights = 0.53125 bytes.
* **ModelOpt** (``quant_algo``): FP8 one byte; NVFP4 4 bits plus an FP8 scale per 16 weights.

Which tensors are quantized — and which the config leaves at their dtype (``ignore``,
``modules_to_not_convert``…, embeddings, head, norms, routers) — is
:mod:`dimlint.memory.quantized_layout`'s job.

"""

from __future__ import annotations

import math
from typing import Any

from dimlint.memory.dtypes import dtype_bytes
from dimlint.memory.parameters.count import Parameters
from dimlint.memory.quantized_layout import QuantizedLayout


def quantized_bytes_per_weight(quantization: dict[str, Any]) -> float | None:
    """Bytes per quantized linear weight under ``quantization`` (None: not recognised)."""
    method = str(quantization.get("quant_method", "")).lower()
    if method in ("gptq", "awq", "autoround", "auto-round"):
        bits = _int(quantization.get("bits") or quantization.get("w_bit"), 4)
        group = _int(quantization.get("group_size") or quantization.get("q_group_size"), 128)
        per_group = (2 + bits / 8) / group if group > 0 else 0.0
        return bits / 8 + per_group
    if method == "compressed-tensors":
        return _compressed_tensors(quantization)
    if method == "bitsandbytes":
        if quantization.get("load_in_8bit"):
            return 1.0
        if quantization.get("bnb_4bit_use_double_quant"):
            return 0.5 + 1 / 64 + 4 / (64 * 256)
        return 0.5 + 4 / 64
    if method in ("fp8", "fbgemm_fp8", "finegrained_fp8"):
        block = quantization.get("weight_block_size")
        if isinstance(block, list) and len(block) == 2 and all(_int(b, 0) for b in block):
            return 1 + 4 / (_int(block[0], 1) * _int(block[1], 1))
        return 1.0
    if method == "mxfp4":
        return 0.5 + 1 / 32
    if method == "modelopt":
        algo = str(quantization.get("quant_algo", "")).upper()
        return {"FP8": 1.0, "NVFP4": 0.5 + 1 / 16}.get(algo)
    return None


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _compressed_tensors(quantization: dict[str, Any]) -> float | None:
    groups = quantization.get("config_groups")
    if not isinstance(groups, dict) or not groups:
        return None
    first = next(iter(groups.values()))
    weights = first.get("weights") if isinstance(first, dict) else None
    if not isinstance(weights, dict):
        return None
    bits = _int(weights.get("num_bits"), 8)
    kind = str(weights.get("type", "int")).lower()
    group = _int(weights.get("group_size"), 0)
    symmetric = weights.get("symmetric", True) is not False
    per_group_bytes = 2 + (0 if symmetric else bits / 8)
    if group > 0:
        return bits / 8 + per_group_bytes / group
    return bits / 8 if kind != "float" or bits != 8 else 1.0


def weight_bytes(
    params: Parameters | int,
    dtype: str,
    quantization: dict[str, Any] | None = None,
    layout: QuantizedLayout | None = None,
) -> int:
    """Weight bytes of ``params`` stored in ``dtype``, or per ``quantization`` (module doc).

    With a quantization config and the checkpoint's ``layout``
    (:func:`dimlint.memory.quantized_layout.quantized_layout`), each tensor it covers counts
    as stored — quantized, or at the config's dtype when the config leaves it unquantized —
    and the parameters outside it (other towers) count as quantized. Without a layout, the
    embeddings and an untied head (``params.embedding``) stay in 16 bits and the rest is
    quantized. An unrecognised method falls back to ``dtype`` for everything.
    """
    total = params.total if isinstance(params, Parameters) else int(params)
    embedding = params.embedding if isinstance(params, Parameters) else 0
    unit = dtype_bytes(dtype)
    per_weight = quantized_bytes_per_weight(quantization) if quantization else None
    if per_weight is None:
        return math.ceil(total * unit)
    if layout is not None and layout.covered <= total:
        return layout.bytes + math.ceil((total - layout.covered) * per_weight)
    kept = unit if unit >= 2 else 2
    return math.ceil(embedding * kept + (total - embedding) * per_weight)
