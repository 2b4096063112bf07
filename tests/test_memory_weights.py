"""Weight bytes per dtype and per quantization method."""

from __future__ import annotations

import pytest

from dimlint.memory import DTYPE_BYTES, Parameters, weight_bytes
from dimlint.memory.weights import quantized_bytes_per_weight

PARAMS = Parameters(8_030_261_248, 8_030_261_248, 1_050_673_152, (("model", 8_030_261_248),), ())


#: Bytes per element, written out here (not read from dimlint): IEEE float32 4, bfloat16 and
#: float16 2, fp8 (e4m3/e5m2) and int8 1, int4 two to a byte.
HAND_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1, "int4": 0.5}
#: The torch dtype of each format, for a second, independent source.
TORCH_NAMES = {
    "fp32": "float32",
    "bf16": "bfloat16",
    "fp16": "float16",
    "fp8": "float8_e4m3fn",
    "int8": "int8",
}


def test_every_format_is_covered() -> None:
    assert set(DTYPE_BYTES) == set(HAND_BYTES)


@pytest.mark.parametrize(("dtype", "expected"), list(HAND_BYTES.items()))
def test_plain_dtypes(dtype: str, expected: float) -> None:
    assert weight_bytes(PARAMS, dtype) == int(8_030_261_248 * expected)
    assert weight_bytes(1000, dtype) == int(1000 * expected)


@pytest.mark.parametrize(("dtype", "name"), list(TORCH_NAMES.items()))
def test_bytes_per_element_agree_with_torch(dtype: str, name: str) -> None:
    torch = pytest.importorskip("torch")
    assert weight_bytes(1000, dtype) == 1000 * getattr(torch, name).itemsize


def test_unknown_dtype_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="fp32, bf16, fp16, fp8, int8, int4"):
        weight_bytes(PARAMS, "fp6")


def test_gptq_4bit_group_128_keeps_embeddings_in_16_bits() -> None:
    config = {"quant_method": "gptq", "bits": 4, "group_size": 128}
    per_weight = 0.5 + (2 + 0.5) / 128
    assert quantized_bytes_per_weight(config) == per_weight
    quantized = 8_030_261_248 - 1_050_673_152
    expected = 1_050_673_152 * 2 + quantized * per_weight
    assert weight_bytes(PARAMS, "int4", config) == pytest.approx(expected, abs=1)


def test_awq_matches_gptq_layout() -> None:
    awq = {"quant_method": "awq", "bits": 4, "group_size": 128}
    gptq = {"quant_method": "gptq", "bits": 4, "group_size": 128}
    assert weight_bytes(PARAMS, "int4", awq) == weight_bytes(PARAMS, "int4", gptq)


def test_fp8_block_scales() -> None:
    config = {"quant_method": "fp8", "weight_block_size": [128, 128]}
    assert quantized_bytes_per_weight(config) == 1 + 4 / (128 * 128)
    assert quantized_bytes_per_weight({"quant_method": "fp8"}) == 1.0


def test_bitsandbytes_and_mxfp4() -> None:
    assert quantized_bytes_per_weight({"quant_method": "bitsandbytes", "load_in_8bit": True}) == 1
    nf4 = quantized_bytes_per_weight({"quant_method": "bitsandbytes", "load_in_4bit": True})
    assert nf4 == 0.5 + 4 / 64
    assert quantized_bytes_per_weight({"quant_method": "mxfp4"}) == 0.5 + 1 / 32


def test_compressed_tensors_groups() -> None:
    config = {
        "quant_method": "compressed-tensors",
        "config_groups": {
            "group_0": {"weights": {"num_bits": 4, "group_size": 128, "symmetric": True}}
        },
    }
    assert quantized_bytes_per_weight(config) == 0.5 + 2 / 128


def test_unrecognised_method_falls_back_to_the_dtype() -> None:
    config = {"quant_method": "something-new"}
    assert weight_bytes(PARAMS, "bf16", config) == weight_bytes(PARAMS, "bf16")
