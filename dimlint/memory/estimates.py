"""Memory per GPU for serving and for training.

What is exact and what is an estimate:

* **weights** — exact for the config and dtype (or quantization), given the parameter count;
* **KV cache** — exact for the engine's layout (see :mod:`dimlint.memory.kvcache`);
* **activations** and **overhead** — *estimates*, and every output labels them so.

Serving activations follow what vLLM profiles at start-up: one forward pass over up to
``max_num_batched_tokens`` (8192) tokens — hidden states, the fused QKV and gate/up outputs
(top-k experts' for MoE) — plus fp32 logits for one token per sequence. The overhead is the
CUDA context, NCCL buffers and captured CUDA graphs: about 1.5 GiB a GPU.

Training (:func:`training_states`; LoRA, QLoRA and offload in
:mod:`dimlint.memory.training.training_plan`) follows ZeRO (Rajbhandari et al. 2020) and Korthikanti
et al. 2022 (arXiv 2205.05198): model states are 16 bytes a parameter with mixed-precision Adam (2
weights + 2 gradients + 12 fp32 master, momentum, variance), sharded over ``dp`` by ZeRO stage (1:
optimizer, 2: + gradients, 3: + weights) and over ``tp·pp`` by model parallelism; activations are
what autograd keeps for backward in transformers' modeling code, by attention implementation
(``sdpa`` by default, ``flash``, ``eager``) and recomputation — see
:mod:`dimlint.memory.training.activations`, checked against ``saved_tensors_hooks`` on scaled-down
models — divided by ``tp`` with sequence parallelism, for the micro-batch ``batch``; with 1F1B
pipelining the first stage keeps ``pp`` micro-batches in flight, which amounts to every layer once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.dtypes import dtype_bytes
from dimlint.memory.kvcache import kv_cache_bytes
from dimlint.memory.parameters.count import Parameters, model_parameters
from dimlint.memory.parameters.decoder_params import top_k
from dimlint.memory.quantized_layout import QuantizedLayout, quantized_layout
from dimlint.memory.training.activations import (
    DEFAULT_ATTENTION,
    frozen_base_savings,
    loss_gradient_bytes,
    saved_activation_bytes,
)
from dimlint.memory.training.backward_peak import embedding_backward_peak, last_layer_peak
from dimlint.memory.weights import quantized_bytes_per_weight, weight_bytes
from dimlint.records import Record

GIB = 1024**3

#: vLLM's default token budget of one scheduler step (chunked prefill).
MAX_BATCHED_TOKENS = 8192

#: CUDA context, NCCL buffers and CUDA graphs of a serving engine, per GPU (estimate).
SERVING_OVERHEAD = int(1.5 * GIB)

#: CUDA context, NCCL buffers and allocator slack of a training job, per GPU (estimate).
TRAINING_OVERHEAD = 1 * GIB

#: Optimizer state bytes per parameter (beyond the weights and gradients), by training
#: precision: fp32 master copy (mixed precision only) + the optimizer's own state.
OPTIMIZER_BYTES = {
    ("adam", True): 12.0,  # fp32 master, m, v
    ("adam", False): 8.0,  # m, v
    ("adam8bit", True): 6.0,  # fp32 master, 8-bit m and v
    ("adam8bit", False): 2.0,
    ("sgd", True): 8.0,  # fp32 master, momentum
    ("sgd", False): 4.0,
}


class MemoryEstimate(Record):
    """Bytes per GPU. ``activations`` and ``overhead`` are estimates (label them so).

    For training, ``weights`` holds the model states — weights, gradients and optimizer
    states (see :func:`training_states` for the split) — and ``kv_cache`` is 0.
    """

    weights: int
    kv_cache: int
    activations: int
    overhead: int
    total: int


class TrainingStates(Record):
    """Model-state bytes per GPU during training."""

    weights: int
    gradients: int
    optimizer: int


def _as_specs(model: ModelSpec | Sequence[ModelSpec]) -> list[ModelSpec]:
    """One spec, or a document's specs (top level first) as a list or tuple."""
    return [model] if isinstance(model, ModelSpec) else list(model)


def language_spec(specs: list[ModelSpec]) -> ModelSpec:
    """The spec that holds the language model: the top level when it has layers, else its
    text sub-config (``text_config``, ``llm_config``…), else the first with layers."""
    top = specs[0]
    if top.hidden is not None and Cfg(top).layers:
        return top
    for pointer in ("/text_config", "/llm_config", "/language_config", "/decoder"):
        for spec in specs:
            if spec.pointer == pointer:
                return spec
    for spec in specs:
        if spec.hidden is not None and Cfg(spec).layers:
            return spec
    return top


def _quantization(specs: list[ModelSpec], dtype: str) -> dict[str, object] | None:
    """The config's ``quantization_config`` when ``dtype`` is a quantized format (asking for
    bf16 weights of a GPTQ checkpoint means "as if dequantized")."""
    if dtype_bytes(dtype) >= 2:
        return None
    for spec in specs:
        config = spec.raw.get("quantization_config")
        if isinstance(config, dict):
            return config
    return None


def stored_layout(
    specs: list[ModelSpec], quantization: dict[str, object] | None
) -> QuantizedLayout | None:
    """How the checkpoint stores each tensor under ``quantization`` (None: no tensor plan for
    the family, or not quantized): what the config leaves unquantized keeps its dtype."""
    if quantization is None:
        return None
    per_weight = quantized_bytes_per_weight(quantization)
    if per_weight is None:
        return None
    return quantized_layout(specs[0], quantization, per_weight)


def model_weight_bytes(
    model: ModelSpec | Sequence[ModelSpec], dtype: str, params: Parameters | None = None
) -> int:
    """Weight bytes of the whole model in ``dtype``, or as its quantization stores them."""
    specs = _as_specs(model)
    params = params if params is not None else model_parameters(specs)
    quantization = _quantization(specs, dtype)
    return weight_bytes(params, dtype, quantization, stored_layout(specs, quantization))


def _stage_fraction(layers: int, pp: int) -> float:
    """Share of the layers the busiest pipeline stage holds."""
    if pp <= 1 or layers <= 0:
        return 1.0
    return math.ceil(layers / pp) / layers


def serving_weights(
    params: Parameters,
    cfg: Cfg,
    dtype: str,
    quantization: dict[str, object] | None,
    tp: int,
    pp: int,
    layout: QuantizedLayout | None = None,
) -> int:
    """Weight bytes on the busiest GPU: layers split over ``pp`` stages, everything over
    ``tp``; the first and last stages each hold one vocabulary table."""
    total = weight_bytes(params, dtype, quantization, layout)
    if pp <= 1:
        return math.ceil(total / tp)
    unit = dtype_bytes(dtype)
    if quantization is not None:
        # quantized checkpoints keep embeddings and head at their stored dtype
        unit = max(unit, 2) if layout is None else dtype_bytes(layout.kept_dtype)
    embedding = params.embedding * unit
    table = cfg.vocab * cfg.hidden * unit
    per_stage = (total - embedding) * _stage_fraction(cfg.layers, pp) + table
    return math.ceil(per_stage / tp)


def serving_activations(cfg: Cfg, *, context: int, batch: int, dtype: str, tp: int) -> int:
    """Peak activation bytes of one profiled forward pass (estimate; module doc)."""
    tokens = min(context * batch, MAX_BATCHED_TOKENS)
    hidden = cfg.hidden
    heads, kv_heads, head_dim = cfg.heads, cfg.kv_heads, cfg.head_dim
    qkv = (heads + 2 * kv_heads) * head_dim
    ffn = cfg.ffn or 4 * hidden
    if cfg.experts:
        ffn = max(ffn, top_k(cfg) * cfg.expert_ffn)
    per_token = 2 * hidden + (qkv + 2 * ffn) / tp
    logits = batch * cfg.vocab * 4 / tp
    return math.ceil(tokens * per_token * dtype_bytes(dtype) + logits)


def serving_memory(
    model: ModelSpec | Sequence[ModelSpec],
    *,
    context: int,
    batch: int,
    dtype: str,
    kv_dtype: str,
    tp: int = 1,
    pp: int = 1,
) -> MemoryEstimate:
    """Per-GPU memory to serve ``batch`` sequences of ``context`` tokens (module doc)."""
    specs = _as_specs(model)
    params = model_parameters(specs)
    lm = language_spec(specs)
    cfg = Cfg(lm)
    quantization = _quantization(specs, dtype)
    layout = stored_layout(specs, quantization)
    weights = serving_weights(params, cfg, dtype, quantization, tp, pp, layout)
    kv = kv_cache_bytes(lm, context=context, batch=batch, kv_dtype=kv_dtype, tp=tp)
    kv = math.ceil(kv * _stage_fraction(cfg.layers, pp))
    activations = serving_activations(cfg, context=context, batch=batch, dtype=dtype, tp=tp)
    overhead = SERVING_OVERHEAD
    return MemoryEstimate(weights, kv, activations, overhead, weights + kv + activations + overhead)


def training_states(
    params: Parameters | int,
    *,
    dtype: str,
    optimizer: str = "adam",
    zero: int = 0,
    dp: int = 1,
    tp: int = 1,
    pp: int = 1,
) -> TrainingStates:
    """Weights, gradients and optimizer states per GPU under ZeRO and model parallelism."""
    if optimizer not in ("adam", "adam8bit", "sgd"):
        raise ValueError(f"unknown optimizer {optimizer!r}: use adam, adam8bit or sgd")
    if zero not in (0, 1, 2, 3):
        raise ValueError(f"ZeRO stage {zero} does not exist: use 0, 1, 2 or 3")
    total = params.total if isinstance(params, Parameters) else int(params)
    unit = dtype_bytes(dtype)
    mixed = unit < 4
    model_parallel = max(1, tp) * max(1, pp)
    per_gpu = total / model_parallel
    dp = max(1, dp)
    weights = per_gpu * unit / (dp if zero >= 3 else 1)
    gradients = per_gpu * unit / (dp if zero >= 2 else 1)
    states = per_gpu * OPTIMIZER_BYTES[(optimizer, mixed)] / (dp if zero >= 1 else 1)
    return TrainingStates(math.ceil(weights), math.ceil(gradients), math.ceil(states))


def training_activations(
    cfg: Cfg,
    *,
    batch: int,
    seq: int,
    tp: int = 1,
    recompute: str = "none",
    attention: str = DEFAULT_ATTENTION,
    dtype: str = "bf16",
    adapters: float | None = None,
) -> int:
    """Activation bytes per GPU at the peak of a training step (an estimate): what autograd
    keeps after the forward pass plus the float32 loss gradients backward starts with
    (:func:`~dimlint.memory.training.activations.loss_gradient_bytes`), or the last layer's backward
    (rebuilt under full recomputation:
    :func:`~dimlint.memory.training.backward_peak.last_layer_peak`), or a tied embedding's backward
    (:func:`~dimlint.memory.training.backward_peak.embedding_backward_peak`), whichever is largest.

    ``adapters`` (LoRA, QLoRA: what the adapters keep per token and layer) trains them on a
    frozen base, which keeps less
    (:func:`~dimlint.memory.training.activations.frozen_base_savings`)."""
    unit = max(2, int(dtype_bytes(dtype)))  # fp8/int8 training still keeps 16-bit activations
    kept: float = saved_activation_bytes(
        cfg, batch=batch, seq=seq, attention=attention, recompute=recompute, unit=unit
    )
    tokens = batch * seq
    layer = 0.0  # per token: what a frozen base with adapters changes in one layer
    if adapters is not None:
        frozen = frozen_base_savings(cfg, attention=attention, unit=unit)
        layer = adapters - frozen.per_layer
        kept -= tokens * frozen.final
        if recompute != "full":
            kept += tokens * (cfg.layers * layer - frozen.first)
    peak = kept + loss_gradient_bytes(cfg, batch=batch, seq=seq)
    last = last_layer_peak(
        cfg,
        kept=kept,
        batch=batch,
        seq=seq,
        attention=attention,
        unit=unit,
        recompute=recompute,
        adapters=layer,
    )
    embedding = embedding_backward_peak(cfg, batch=batch, seq=seq, unit=unit)
    return math.ceil(max(peak, last, embedding) / max(1, tp))
