"""Per-GPU training memory for every way of training: full, LoRA, QLoRA, with or without offload.

:func:`dimlint.memory.estimates.training_states` is the ZeRO paper's full fine-tune; this adds
what most fine-tunes run (:mod:`dimlint.memory.training.finetune` says what each method keeps and
why):

* **full**: every parameter trains: ``u``-byte weights and gradients, the optimizer's state
  with an fp32 master copy (16 bytes a parameter with Adam in bf16);
* **lora** / **qlora**: the base is frozen (``u`` bytes a parameter, or NF4 for the Linear
  weights under QLoRA) and the float32 adapters train: 4-byte weights and gradients and the
  optimizer's own state, no master copy;

then ZeRO shards by stage over ``dp`` (1: optimizer, 2: + gradients, 3: + weights), model
parallelism over ``tp·pp``, stage 3 adds the gathered largest parameter, and ``offload`` moves
states to the CPU (``cpu``: bytes each rank keeps in host memory).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.dtypes import dtype_bytes
from dimlint.memory.estimates import (
    OPTIMIZER_BYTES,
    TRAINING_OVERHEAD,
    MemoryEstimate,
    language_spec,
    training_activations,
)
from dimlint.memory.parameters.count import model_parameters
from dimlint.memory.training.activations import DEFAULT_ATTENTION
from dimlint.memory.training.finetune import (
    ADAPTER_BYTES,
    OFFLOAD_MODES,
    REDUCE_BUCKET,
    Finetune,
    largest_parameter,
    lora_activation_bytes,
    lora_parameters,
    qlora_base_bytes,
)
from dimlint.memory.training.linear_layers import Linear, linear_modules
from dimlint.records import Record

METHODS = ("full", "lora", "qlora")


class TrainingPlan(Record):
    """Bytes per GPU of one training step, by part, and what lives on the CPU."""

    weights: int
    gradients: int
    optimizer: int
    #: ZeRO-3: the largest parameter gathered whole (and its unreduced gradient when it trains).
    gathered: int
    activations: int
    overhead: int
    #: Host memory per rank under offload (optimizer states, gradients, weights).
    cpu: int
    #: Parameters that train (whole model).
    trainable: int

    @property
    def total(self) -> int:
        return (
            self.weights
            + self.gradients
            + self.optimizer
            + self.gathered
            + self.activations
            + self.overhead
        )

    def as_estimate(self) -> MemoryEstimate:
        """The step as a :class:`MemoryEstimate`: ``weights`` holds every model state on the
        GPU, ZeRO-3's gathered parameter included; no KV cache (training runs without one)."""
        states = self.weights + self.gradients + self.optimizer + self.gathered
        return MemoryEstimate(states, 0, self.activations, self.overhead, self.total)


def _modules(spec: ModelSpec, finetune: Finetune) -> list[Linear] | None:
    if finetune.method == "full":
        return linear_modules(spec)
    modules = linear_modules(spec)
    if modules is None:
        raise ValueError(
            f"--lora-rank: dimlint does not know the Linear modules of model type"
            f" {spec.model_type or 'unknown'} (it knows them for the families whose checkpoint"
            " tensors it plans: llama, mistral, mixtral, qwen2/3(-moe), gemma 1-3, phi, phi3,"
            " gpt2, gpt_neox, falcon, deepseek_v2/v3)"
        )
    return modules


def training_plan(
    model: ModelSpec | Sequence[ModelSpec],
    *,
    dtype: str,
    optimizer: str = "adam",
    zero: int = 0,
    dp: int = 1,
    tp: int = 1,
    pp: int = 1,
    batch: int = 1,
    seq: int = 4096,
    recompute: str = "none",
    attention: str = DEFAULT_ATTENTION,
    finetune: Finetune | None = None,
    offload: str = "none",
) -> TrainingPlan:
    """Per-GPU memory of a training step (module doc); ``batch`` is the micro-batch."""
    finetune = finetune or Finetune()
    if finetune.method not in METHODS:
        raise ValueError(f"unknown training method {finetune.method!r}: use {', '.join(METHODS)}")
    if (optimizer, True) not in OPTIMIZER_BYTES:
        raise ValueError(f"unknown optimizer {optimizer!r}: use adam, adam8bit or sgd")
    if zero not in (0, 1, 2, 3):
        raise ValueError(f"ZeRO stage {zero} does not exist: use 0, 1, 2 or 3")
    if offload not in OFFLOAD_MODES:
        raise ValueError(f"unknown offload {offload!r}: use {', '.join(OFFLOAD_MODES)}")
    if offload == "optimizer" and zero < 1:
        raise ValueError("--offload optimizer needs --zero 1, 2 or 3 (DeepSpeed offloads the"
                         " partitioned optimizer states)")  # fmt: skip
    if offload == "params" and zero != 3:
        raise ValueError("--offload params needs --zero 3 (DeepSpeed offloads parameters only"
                         " at stage 3: ZeRO-Infinity)")  # fmt: skip
    specs = [model] if isinstance(model, ModelSpec) else list(model)
    params = model_parameters(specs)
    spec = language_spec(specs)
    cfg = Cfg(spec)
    unit = max(2, int(dtype_bytes(dtype)))  # quantized checkpoints train in 16 bits
    mixed = unit < 4
    modules = _modules(spec, finetune)
    total = params.total
    weights: float
    gradients: float
    states: float
    if finetune.method == "full":
        trainable = total
        weights = total * unit
        gradients = total * unit
        states = total * OPTIMIZER_BYTES[(optimizer, mixed)]
        grad_unit = unit
    else:
        assert modules is not None
        trainable = lora_parameters(cfg, modules, finetune.rank, finetune.targets)
        base = total * unit
        if finetune.method == "qlora":
            base = qlora_base_bytes(total, modules, unit)
        weights = base + trainable * ADAPTER_BYTES
        gradients = trainable * ADAPTER_BYTES
        states = trainable * OPTIMIZER_BYTES[(optimizer, False)]
        grad_unit = ADAPTER_BYTES
    split = max(1, tp) * max(1, pp)
    dp = max(1, dp)
    weights /= split * (dp if zero >= 3 else 1)
    gradients /= split * (dp if zero >= 2 else 1)
    states /= split * (dp if zero >= 1 else 1)
    gathered = 0.0
    if zero >= 3:
        largest = largest_parameter(cfg, modules) * unit / max(1, tp)
        gathered = largest * (2 if finetune.method == "full" else 1)
    cpu = 0.0
    if offload in ("optimizer", "params"):
        cpu += states + gradients
        states = 0.0
        gradients = min(gradients, REDUCE_BUCKET * grad_unit)
    if offload == "params":
        cpu += weights
        weights = 0.0
    adapters = None
    if finetune.method != "full" and modules is not None:
        adapters = lora_activation_bytes(cfg, modules, finetune.rank, finetune.targets, unit)
    activations = training_activations(
        cfg,
        batch=batch,
        seq=seq,
        tp=tp,
        recompute=recompute,
        attention=attention,
        dtype=dtype,
        adapters=adapters,
    )
    return TrainingPlan(
        math.ceil(weights),
        math.ceil(gradients),
        math.ceil(states),
        math.ceil(gathered),
        activations,
        TRAINING_OVERHEAD,
        math.ceil(cpu),
        trainable,
    )
