"""Bytes per element of the data types weights and caches are stored in."""

from __future__ import annotations

#: Bytes per parameter or cached element.
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4,
    "bf16": 2,
    "fp16": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
}

#: Other spellings users and configs write (``torch_dtype: bfloat16``, ``--kv-dtype fp8_e4m3``).
ALIASES = {
    "float32": "fp32",
    "float": "fp32",
    "bfloat16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "fp8_e4m3": "fp8",
    "fp8_e5m2": "fp8",
    "float8": "fp8",
    "float8_e4m3fn": "fp8",
    "uint8": "int8",
    "auto": "bf16",
}


def dtype_bytes(dtype: str) -> float:
    """Bytes per element of ``dtype``; a ValueError that lists the known names otherwise."""
    name = ALIASES.get(dtype.lower(), dtype.lower())
    if name not in DTYPE_BYTES:
        known = ", ".join(DTYPE_BYTES)
        raise ValueError(f"unknown dtype {dtype!r}: use one of {known}")
    return DTYPE_BYTES[name]


def stated_dtype(raw: dict[str, object]) -> str:
    """The weight format a config states: its quantization, else ``torch_dtype``/``dtype``,
    else bf16 (what released checkpoints mostly use)."""
    quantization = raw.get("quantization_config")
    if isinstance(quantization, dict):
        method = str(quantization.get("quant_method", "")).lower()
        bits = quantization.get("bits", quantization.get("w_bit"))
        groups = quantization.get("config_groups")
        if method == "compressed-tensors" and isinstance(groups, dict):
            # compressed-tensors: the first group's weights scheme (num_bits, type)
            first = next(iter(groups.values()), None)
            weights = first.get("weights") if isinstance(first, dict) else None
            if isinstance(weights, dict):
                bits = weights.get("num_bits")
                if bits == 8 and str(weights.get("type", "int")).lower() == "float":
                    return "fp8"
        algo = str(quantization.get("quant_algo", "")).lower()
        if "fp8" in method or (method == "modelopt" and algo == "fp8"):
            return "fp8"
        if method == "mxfp4" or algo == "nvfp4" or bits == 4 or quantization.get("load_in_4bit"):
            return "int4"
        if bits == 8 or quantization.get("load_in_8bit"):
            return "int8"
    for key in ("torch_dtype", "dtype"):
        value = raw.get(key)
        if isinstance(value, str):
            name = ALIASES.get(value.lower(), value.lower())
            if name in ("fp32", "bf16", "fp16"):
                return name
    return "bf16"
