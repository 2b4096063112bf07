"""Serving and training memory per GPU; the GPU catalogue and budgets."""

from __future__ import annotations

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import (
    GPU_MEMORY_UTILIZATION,
    GPUS,
    gpu_named,
    kv_cache_bytes,
    model_parameters,
    parse_budget,
    serving_memory,
    training_states,
    weight_bytes,
)
from dimlint.memory.config_view import Cfg
from dimlint.memory.estimates import model_weight_bytes, training_activations
from dimlint.memory.training.training_plan import training_plan

LLAMA_3_70B = {
    "model_type": "llama",
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "vocab_size": 128256,
}
PARAMS_70B = 70_553_706_496


def specs() -> list:  # type: ignore[type-arg]
    return specs_for_document("config.json", LLAMA_3_70B)


def test_serving_parts_add_up_and_weights_and_kv_are_exact() -> None:
    estimate = serving_memory(specs(), context=8192, batch=2, dtype="bf16", kv_dtype="bf16")
    assert estimate.weights == 2 * PARAMS_70B
    assert estimate.kv_cache == 327_680 * 8192 * 2
    assert estimate.total == sum(estimate[:4])
    # vLLM profiles one step of at most 8192 tokens: per token the residual and normed hidden
    # states (2·8192), the fused QKV output ((64 + 2·8) heads × 128) and gate/up (2·28672), in
    # bf16; plus float32 logits for one token of each of the 2 sequences.
    per_token = 2 * 8192 + (64 + 2 * 8) * 128 + 2 * 28672
    assert estimate.activations == 8192 * per_token * 2 + 2 * 128256 * 4
    assert estimate.overhead == 1.5 * 1024**3  # CUDA context, NCCL, CUDA graphs


def test_serving_under_tp_and_pp() -> None:
    one = serving_memory(specs(), context=8192, batch=1, dtype="bf16", kv_dtype="bf16")
    four = serving_memory(specs(), context=8192, batch=1, dtype="bf16", kv_dtype="bf16", tp=4)
    assert four.weights == one.weights // 4
    assert four.kv_cache == one.kv_cache // 4
    piped = serving_memory(
        specs(), context=8192, batch=1, dtype="bf16", kv_dtype="bf16", tp=2, pp=2
    )
    assert piped.kv_cache == one.kv_cache // 4
    # each stage holds half the layers plus one vocabulary table (the embedding on the
    # first stage, the untied head on the last): half of everything, over tp 2
    assert piped.weights == pytest.approx(one.weights / 4, abs=1)
    tied = specs_for_document("c.json", {**LLAMA_3_70B, "tie_word_embeddings": True})
    tied_one = serving_memory(tied, context=1, batch=1, dtype="bf16", kv_dtype="bf16")
    tied_piped = serving_memory(tied, context=1, batch=1, dtype="bf16", kv_dtype="bf16", pp=2)
    assert tied_piped.weights > tied_one.weights / 2  # both end stages keep the shared table


def test_serving_accepts_a_tuple_of_specs_and_a_single_spec() -> None:
    as_tuple = serving_memory(tuple(specs()), context=1024, batch=1, dtype="bf16", kv_dtype="bf16")
    single = serving_memory(specs()[0], context=1024, batch=1, dtype="bf16", kv_dtype="bf16")
    assert as_tuple == single


def test_llama_3_70b_does_not_fit_one_h100_but_fits_four() -> None:
    h100 = GPUS["H100-80GB"]
    one = serving_memory(specs(), context=8192, batch=1, dtype="bf16", kv_dtype="bf16")
    four = serving_memory(specs(), context=8192, batch=1, dtype="bf16", kv_dtype="bf16", tp=4)
    assert one.total > h100.usable_bytes()
    assert four.total < h100.usable_bytes()


def test_quantization_config_applies_to_quantized_dtypes_only() -> None:
    config = {**LLAMA_3_70B, "quantization_config": {"quant_method": "gptq", "bits": 4}}
    documents = specs_for_document("config.json", config)
    quantized = serving_memory(documents, context=1, batch=1, dtype="int4", kv_dtype="bf16")
    params = model_parameters(documents)
    assert quantized.weights == model_weight_bytes(documents, "int4", params)
    # the norms GPTQ leaves unquantized are stored in bf16, not at 4 bits
    norms = 80 * 2 * 8192 + 8192
    per_weight = 0.5 + 2.5 / 128
    plain = weight_bytes(params, "int4", config["quantization_config"])
    assert quantized.weights - plain == pytest.approx(norms * (2 - per_weight), abs=2)
    as_bf16 = serving_memory(documents, context=1, batch=1, dtype="bf16", kv_dtype="bf16")
    assert as_bf16.weights == 2 * PARAMS_70B


def test_mixed_precision_adam_is_16_bytes_per_parameter() -> None:
    states = training_states(PARAMS_70B, dtype="bf16")
    assert sum(states) == 16 * PARAMS_70B
    assert states.weights == states.gradients == 2 * PARAMS_70B


@pytest.mark.parametrize(
    ("zero", "expected"),
    [
        (0, 2 + 2 + 12),
        (1, 2 + 2 + 12 / 8),
        (2, 2 + (2 + 12) / 8),
        (3, (2 + 2 + 12) / 8),
    ],
)
def test_zero_stages_shard_over_dp(zero: int, expected: float) -> None:
    states = training_states(PARAMS_70B, dtype="bf16", zero=zero, dp=8)
    assert sum(states) == pytest.approx(expected * PARAMS_70B, rel=1e-9)


def test_optimizers_and_model_parallelism() -> None:
    assert sum(training_states(1000, dtype="bf16", optimizer="sgd")) == 12 * 1000
    assert sum(training_states(1000, dtype="bf16", optimizer="adam8bit")) == 10 * 1000
    assert sum(training_states(1000, dtype="fp32", optimizer="adam")) == 16 * 1000
    assert sum(training_states(8000, dtype="bf16", tp=4, pp=2)) == 16 * 1000
    with pytest.raises(ValueError, match="adam, adam8bit or sgd"):
        training_states(1000, dtype="bf16", optimizer="lion")
    with pytest.raises(ValueError, match="ZeRO stage"):
        training_states(1000, dtype="bf16", zero=4)


# Llama-3-70B, one sequence of 4096 tokens in bf16 (u = 2 bytes), per token and layer, from
# the modeling code (dimlint/memory/training/activations.py derives the same; tests/
# test_memory_activations_oracle.py checks that derivation against autograd on small models):
H, Q_W, KV_W, F, A, V, L, S = 8192, 64 * 128, 8 * 128, 28672, 64, 128256, 80, 4096
# RMSNorm: float32 copy 4H, rsqrt 4, normalized 2H, output 2H (kept by the next projection)
NORM = 4 * H + 4 + 2 * H + 2 * H
# SDPA: q, k, v (GQA not repeated), output (= o_proj's input), float32 log-sum-exp per head
SDPA = 2 * (Q_W + KV_W + KV_W + Q_W) + 4 * A
# eager: q, repeat_kv'd k and v (64 heads), o_proj's contiguous copy; float32 softmax and its
# bf16 cast per key
EAGER = 2 * (Q_W + Q_W + Q_W + Q_W)
SCORES = (4 + 2) * A * S
MLP = 2 * 4 * F  # gate, SiLU(gate), up, product
LAYER_SDPA = 2 * NORM + SDPA + MLP
# final norm, float32 log-softmax + returned bf16 logits, ids and labels
OUTSIDE = NORM + (4 + 2) * V + 16
COS_SIN = 2 * 2 * 128  # per position, shared by every layer and sequence
# backward starts with the float32 gradients of the log-probabilities and of the logits
LOSS_GRADIENTS = (4 + 4) * V


def test_activations_sdpa_eager_and_recompute() -> None:
    cfg = Cfg(specs()[0])
    sdpa = training_activations(cfg, batch=1, seq=S)  # sdpa is the default
    assert sdpa == S * (L * LAYER_SDPA + OUTSIDE + LOSS_GRADIENTS) + S * COS_SIN
    assert training_activations(cfg, batch=1, seq=S, attention="flash") == sdpa
    # selective: the checkpointed attention core keeps q, k, v and its output, no log-sum-exp
    selective = training_activations(cfg, batch=1, seq=S, recompute="selective")
    assert selective == sdpa - S * L * 4 * A
    eager = training_activations(cfg, batch=1, seq=S, attention="eager")
    assert eager == sdpa + S * L * (EAGER - SDPA + SCORES)
    full = training_activations(cfg, batch=1, seq=S, recompute="full")
    # each layer's bf16 input, then the larger of the loss gradients and the last layer rebuilt
    # during backward (its tensors, the incoming gradient 2H and the MLP's gradients 2·2F, the
    # loss tensors and the final norm freed, the checkpoints' cos/sin)
    rebuilt = L * 2 * H + 2 * V + 16 + LAYER_SDPA + 2 * H + 2 * 2 * F
    assert full == max(S * (L * 2 * H + OUTSIDE + LOSS_GRADIENTS), S * (rebuilt + COS_SIN))
    assert training_activations(cfg, batch=1, seq=S, tp=8) == -(-sdpa // 8)
    two = training_activations(cfg, batch=2, seq=S)
    assert two == 2 * sdpa - S * COS_SIN  # cos/sin are shared by the batch
    with pytest.raises(ValueError, match="flash, sdpa or eager"):
        training_activations(cfg, batch=1, seq=S, attention="xformers")


def test_training_memory_parts() -> None:
    estimate = training_plan(specs(), dtype="bf16", zero=3, dp=8, seq=4096).as_estimate()
    # 16 B / 8 ranks, and ZeRO-3 gathers the embedding table whole, with its unreduced gradient
    gathered = 2 * 2 * 128256 * 8192
    assert estimate.weights == pytest.approx(2 * PARAMS_70B + gathered, rel=1e-6)
    assert estimate.kv_cache == 0
    assert estimate.activations == S * (L * LAYER_SDPA + OUTSIDE + LOSS_GRADIENTS) + S * COS_SIN
    assert estimate.overhead == 1024**3
    assert estimate.total == sum(estimate[:4])


def test_gpu_catalogue_reports_device_memory() -> None:
    assert GPUS["H100-80GB"].memory_bytes == 81_559 * 1024 * 1024
    assert GPU_MEMORY_UTILIZATION == 0.9
    assert GPUS["H100-80GB"].usable_bytes() == int(81_559 * 1024 * 1024 * 0.9)
    for name in ("A100-40GB", "A100-80GB", "H200-141GB", "B200", "L4", "L40S"):
        assert name in GPUS
    for name in ("RTX4090-24GB", "RTX3090-24GB", "MI300X-192GB"):
        assert name in GPUS
    assert all(gpu.source for gpu in GPUS.values())


@pytest.mark.parametrize(
    ("text", "count", "name"),
    [
        ("8xH100-80GB", 8, "H100-80GB"),
        ("1xRTX4090-24GB", 1, "RTX4090-24GB"),
        ("2xMI300X-192GB", 2, "MI300X-192GB"),
        ("H100-80GB", 1, "H100-80GB"),
        ("4×h100-80gb", 4, "H100-80GB"),  # a bare "h100" is ambiguous (test_budgets.py)
        ("8 x A100-80GB", 8, "A100-80GB"),
    ],
)
def test_parse_budget(text: str, count: int, name: str) -> None:
    parsed = parse_budget(text)
    assert parsed[0] == count
    assert parsed[1].name == name


def test_unknown_gpu_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown GPU 'V100'.*H100-80GB.*MI300X-192GB"):
        parse_budget("8xV100")
    assert gpu_named("h200").name == "H200-141GB"


def test_kv_cache_fp8_halves_bf16() -> None:
    spec = specs()[0]
    assert kv_cache_bytes(spec, context=4096, batch=1, kv_dtype="fp8") * 2 == kv_cache_bytes(
        spec, context=4096, batch=1, kv_dtype="bf16"
    )
