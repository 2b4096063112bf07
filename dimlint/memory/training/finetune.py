"""Parameter-efficient fine-tuning and offload: what LoRA, QLoRA and ZeRO-Offload keep where.

**LoRA** (peft): each targeted ``nn.Linear`` of ``in → out`` gains ``lora_A`` (``r × in``) and
``lora_B`` (``out × r``), so ``r·(in + out)`` trainable parameters; the base model is frozen. peft
keeps the adapters in float32 when the base is 16-bit (``autocast_adapter_dtype=True``, its
default), so the trainable parameters carry 4-byte weights, 4-byte gradients and the optimizer's
state with no separate master copy. ``all-linear`` targets every Linear but the LM head (peft's
``_maybe_include_all_linear_layers``); a name targets the modules it equals or ends
(``key == t or key.endswith("." + t)``, peft's ``check_target_module_exists``).

**Fused MoE experts** (transformers 5 stores each layer's experts as 3-D parameters, not Linear
modules): peft 0.21 maps the transformers-4 target names onto them for the model types whose
checkpoint conversion follows Mixtral's or Qwen2-MoE's pattern (``MOE_TARGETS``): the router
``gate`` becomes the parameter ``gate.weight`` (``r·(hidden + experts)``), ``w1``/``w3`` or
``gate_proj``/``up_proj`` the fused ``gate_up_proj`` at rank ``2r``, ``w2``/``down_proj`` the
fused ``down_proj``; a parameter ``[E, out, in]`` at rank ``q`` gets ``q·E·(in + out)``. Those
names then no longer target Linear modules (a dense layer's ``down_proj`` included), as in
peft's ``_convert_peft_config_moe``.

**QLoRA**: the frozen base is loaded by bitsandbytes in 4-bit NF4 — every ``nn.Linear`` but the
head (``get_keys_to_not_convert``), at :func:`~dimlint.memory.training.linear_layers.nf4_bytes` each
— and the rest (embeddings, norms, fused MoE experts, routers) in the compute dtype.

**Offload** (DeepSpeed): ``optimizer`` (ZeRO-Offload) moves the optimizer states — fp32 master,
momentum, variance — and the gradients to the CPU, which runs the step; the GPU keeps one
reduce bucket of gradients (``reduce_bucket_size``, 5·10⁸ elements by default). ``params``
(ZeRO-Infinity, stage 3 only) also moves the sharded weights; the GPU then holds only what
stage 3 gathers.

**ZeRO-3's gathered buffer**: stage 3 gathers each module's full parameters before it runs, so
the largest single parameter (the embedding table, an untied head, or a fused expert tensor) is
whole on every GPU at some point of the step, and, when it trains, so is its unreduced gradient
before the reduce-scatter.
"""

from __future__ import annotations

import math

from dimlint.memory.config_view import Cfg
from dimlint.memory.training.linear_layers import Linear
from dimlint.records import Record

#: ``--lora-targets`` shorthand for every Linear module but the head (peft's).
ALL_LINEAR = "all-linear"
OFFLOAD_MODES = ("none", "optimizer", "params")
#: DeepSpeed's default ``reduce_bucket_size`` (elements).
REDUCE_BUCKET = 500_000_000
#: Bytes a trainable LoRA parameter's weight takes (float32 adapters, peft's default).
ADAPTER_BYTES = 4


#: peft's target renames for fused experts, by the conversion pattern of the model type.
MOE_TARGETS: dict[str, dict[str, str]] = {
    "mixtral": {
        "gate": "gate.weight",
        "w1": "gate_up_proj",
        "w3": "gate_up_proj",
        "w2": "down_proj",
    },
    "qwen2_moe": {
        "gate": "gate.weight",
        "gate_proj": "gate_up_proj",
        "up_proj": "gate_up_proj",
        "down_proj": "down_proj",
    },
}
#: transformers 5's ``_MODEL_TO_CONVERSION_PATTERN`` entries of those two patterns (``mixtral``
#: added by peft), for the model types dimlint reads.
CONVERSION_PATTERN = {
    "mixtral": "mixtral",
    "minimax": "mixtral",
    "minimax_m2": "mixtral",
    **dict.fromkeys(
        (
            "afmoe", "deepseek_v2", "deepseek_v3", "deepseek_v32", "dots1", "ernie4_5_moe",
            "glm4_moe", "glm4_moe_lite", "glm_moe_dsa", "glm4v_moe", "longcat_flash",
            "solar_open", "mellum", "qwen3_moe", "beam", "qwen3_omni_moe",
            "qwen3_omni_moe_thinker", "qwen3_omni_moe_text", "qwen3_next", "hunyuan_v1_moe",
            "flex_olmo", "olmoe", "sarvam_mla", "exaone_moe", "cohere2_moe",
        ),
        "qwen2_moe",
    ),
}  # fmt: skip


class Finetune(Record):
    """How the model is trained: ``full``, ``lora`` or ``qlora`` (rank and targets for both)."""

    method: str = "full"
    rank: int = 0
    targets: tuple[str, ...] = (ALL_LINEAR,)


def _matches(name: str, target: str) -> bool:
    return name == target or name.endswith(f".{target}")


def targeted(modules: list[Linear], targets: tuple[str, ...]) -> list[Linear]:
    """The Linear modules ``targets`` select (module doc); a ValueError names unmatched ones."""
    if ALL_LINEAR in targets:
        return [module for module in modules if not module.head]
    chosen = [module for module in modules if any(_matches(module.name, t) for t in targets)]
    for target in targets:
        if not any(_matches(module.name, target) for module in chosen):
            leaves = sorted({module.name.rsplit(".", 1)[-1] for module in modules})
            raise ValueError(
                f"--lora-targets {target!r} names no Linear module of this model (its Linear"
                f" modules end in: {', '.join(leaves)}; or use {ALL_LINEAR})"
            )
    return chosen


def _fused_targets(
    cfg: Cfg, modules: list[Linear], targets: tuple[str, ...]
) -> tuple[tuple[str, ...], dict[str, int]]:
    """Module targets left after peft's MoE conversion, and ``{fused parameter: rank factor}``."""
    mapping = MOE_TARGETS.get(CONVERSION_PATTERN.get(cfg.model_type, ""), {})
    if not mapping:
        return targets, {}
    if ALL_LINEAR in targets:  # resolved to leaf names, plus the renamed transformers-4 ones
        leaves = {m.name.rsplit(".", 1)[-1] for m in modules if not m.head}
        targets = tuple(sorted(leaves | mapping.keys()))
    kept: list[str] = []
    fused: dict[str, set[str]] = {}
    for target in targets:
        old = next((name for name in mapping if _matches(target, name)), None)
        if old is None:
            kept.append(target)
        else:
            fused.setdefault(mapping[old], set()).add(old)
    for parameter, named in fused.items():
        needed = {old for old, new in mapping.items() if new == parameter}
        if named != needed:
            raise ValueError(
                f"--lora-targets {', '.join(sorted(named))} cannot be trained without"
                f" {', '.join(sorted(needed - named))}: transformers 5 fuses them into"
                f" {parameter} (peft refuses the same)"
            )
    return tuple(kept), {parameter: len(named) for parameter, named in fused.items()}


def lora_parameters(cfg: Cfg, modules: list[Linear], rank: int, targets: tuple[str, ...]) -> int:
    """Trainable parameters LoRA of ``rank`` adds to the ``targets`` (peft's count)."""
    from dimlint.memory.parameters.layer_kinds import moe_count

    kept, fused = _fused_targets(cfg, modules, targets)
    total = sum(rank * (m.inputs + m.outputs) for m in targeted(modules, kept)) if kept else 0
    experts, width, hidden = cfg.experts, cfg.expert_ffn, cfg.hidden
    per_layer = 0
    if "gate.weight" in fused:
        per_layer += rank * (hidden + experts)
    if "gate_up_proj" in fused:
        per_layer += rank * fused["gate_up_proj"] * experts * (hidden + 2 * width)
    if "down_proj" in fused:
        per_layer += rank * experts * (width + hidden)
    return total + per_layer * moe_count(cfg)


def qlora_base_bytes(total: int, modules: list[Linear], unit: float) -> int:
    """Bytes of the frozen base under QLoRA: NF4 Linear weights, everything else at ``unit``."""
    from dimlint.memory.training.linear_layers import nf4_bytes

    quantized = [m for m in modules if not m.head]
    weights = sum(m.inputs * m.outputs for m in quantized)
    packed = sum(nf4_bytes(m.inputs * m.outputs) for m in quantized)
    return packed + math.ceil((total - weights) * unit)


def largest_parameter(cfg: Cfg, modules: list[Linear] | None) -> int:
    """Elements of the model's largest single parameter (what ZeRO-3 gathers whole): the
    embedding table, the largest Linear, or a layer's fused experts (``gate_up_proj``)."""
    found = cfg.vocab * cfg.hidden
    if modules:
        found = max(found, *(m.inputs * m.outputs for m in modules))
    else:
        found = max(found, 2 * (cfg.ffn or 4 * cfg.hidden) * cfg.hidden)
    if cfg.experts:
        found = max(found, cfg.experts * 2 * cfg.expert_ffn * cfg.hidden)
    return found


def lora_activation_bytes(
    cfg: Cfg, modules: list[Linear], rank: int, targets: tuple[str, ...], unit: int
) -> float:
    """Per token and per decoder layer, what the adapters add to the saved activations: the
    float32 copy of each targeted input (peft casts it to the adapter's dtype when the model
    computes in 16 bits) and ``lora_A``'s float32 output, kept for ``lora_B``."""
    kept, _ = _fused_targets(cfg, modules, targets)
    chosen = targeted(modules, kept) if kept else []
    cast = 4 if unit < ADAPTER_BYTES else 0
    total = sum(cast * m.inputs + ADAPTER_BYTES * rank for m in chosen if not m.head)
    return total / max(1, cfg.layers)
