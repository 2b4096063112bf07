"""LoRA, QLoRA and offload: trainable counts against modules transformers builds, NF4 storage.

Every model type below is built on the meta device from its transformers default config,
scaled down (``kv_oracle_support.scaled_overrides``). The Linear modules dimlint reads off the
config must be the ``nn.Linear``/``Conv1D`` modules of that build, so LoRA's trainable count —
``r·(in + out)`` per targeted module, peft's rule — equals what attaching the A/B matrices to
those modules gives; with peft importable, also peft's own ``get_nb_trainable_parameters``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory.config_view import Cfg
from dimlint.memory.training.finetune import (
    ALL_LINEAR,
    _fused_targets,
    lora_parameters,
    qlora_base_bytes,
    targeted,
)
from dimlint.memory.training.linear_layers import Linear, linear_modules, nf4_bytes

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

TYPES = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "gemma3_text",
    "phi",
    "phi3",
    "gpt2",
    "gpt_neox",
    "falcon",
    "deepseek_v3",
)
RANK = 8


def _build(model_type: str) -> tuple[Any, list[Linear], Cfg]:
    from kv_oracle_support import scaled_overrides

    default = transformers.AutoConfig.for_model(model_type)
    config = transformers.AutoConfig.for_model(model_type, **scaled_overrides(default.to_dict()))
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(config)
    raw = json.loads(json.dumps({**config.to_dict(), "model_type": model_type}, default=str))
    spec = specs_for_document("config.json", raw)[0]
    modules = linear_modules(spec)
    assert modules is not None, model_type
    return model, modules, Cfg(spec)


def _torch_linears(model: Any) -> dict[str, tuple[int, int]]:
    """``{name: (in, out)}`` of the modules peft and bitsandbytes treat as linear."""
    from transformers.pytorch_utils import Conv1D

    found = {}
    for name, module in model.named_modules():
        if isinstance(module, torch.nn.Linear):
            found[name] = (module.in_features, module.out_features)
        elif isinstance(module, Conv1D):
            found[name] = tuple(module.weight.shape)
    return found


def _attached(
    model: Any, linears: dict[str, tuple[int, int]], cfg: Cfg, modules: list[Linear], targets: Any
) -> int:
    """Trainable parameters of A (r × in) and B (out × r) attached to the selected modules, and
    of the adapters on the fused expert and router parameters of the build (``[E, out, in]``:
    A ``qE × in``, B ``out × qE``)."""
    head = {n for n, m in model.named_modules() if m is model.get_output_embeddings()}
    kept, fused = _fused_targets(cfg, modules, targets)
    total = 0
    for name, (inputs, outputs) in linears.items():
        if ALL_LINEAR in kept:
            chosen = name not in head
        else:
            chosen = any(name == t or name.endswith(f".{t}") for t in kept)
        if chosen:
            total += torch.empty(RANK, inputs, device="meta").numel()
            total += torch.empty(outputs, RANK, device="meta").numel()
    for name, parameter in model.named_parameters():
        for target, factor in fused.items():
            if name.endswith(f".{target}"):
                shape = tuple(parameter.shape)
                experts, (outputs, inputs) = (
                    (shape[0], shape[1:]) if len(shape) == 3 else (1, shape)
                )
                rank = RANK * factor * experts
                total += rank * inputs + outputs * rank
    return total


@pytest.mark.parametrize("model_type", TYPES)
def test_lora_counts_equal_adapters_on_the_built_modules(model_type: str) -> None:
    model, modules, cfg = _build(model_type)
    linears = _torch_linears(model)
    head = next(n for n, m in model.named_modules() if m is model.get_output_embeddings())
    ours = {("<head>" if m.head else m.name): (m.inputs, m.outputs) for m in modules}
    assert ours == {("<head>" if n == head else n): shape for n, shape in linears.items()}
    leaves = sorted({m.name.rsplit(".", 1)[-1] for m in modules if not m.head})
    for targets in ((ALL_LINEAR,), ("q_proj", "v_proj") if "q_proj" in leaves else leaves[:1]):
        expected = _attached(model, linears, cfg, modules, targets)
        assert lora_parameters(cfg, modules, RANK, targets) == expected, targets
        assert expected > 0


@pytest.mark.parametrize("model_type", TYPES)
def test_lora_counts_equal_peft(model_type: str) -> None:
    peft = pytest.importorskip("peft")
    model, modules, cfg = _build(model_type)
    config = peft.LoraConfig(r=RANK, target_modules=ALL_LINEAR)
    trainable, _ = peft.get_peft_model(model, config).get_nb_trainable_parameters()
    assert lora_parameters(cfg, modules, RANK, (ALL_LINEAR,)) == trainable
    leaves = sorted({m.name.rsplit(".", 1)[-1] for m in modules if not m.head})
    targets = ["q_proj", "v_proj"] if "q_proj" in leaves else leaves[:1]
    model, _, _ = _build(model_type)
    config = peft.LoraConfig(r=RANK, target_modules=targets)
    trainable, _ = peft.get_peft_model(model, config).get_nb_trainable_parameters()
    assert lora_parameters(cfg, modules, RANK, tuple(targets)) == trainable


def test_unknown_target_names_the_modules() -> None:
    modules = [Linear("model.layers.0.self_attn.q_proj", 8, 8), Linear("lm_head", 8, 32, head=True)]
    with pytest.raises(ValueError, match="q_proj") as error:
        targeted(modules, ("c_attn",))
    assert "'c_attn'" in str(error.value)


def test_nf4_layout_as_bitsandbytes_stores_it() -> None:
    # 4096 × 4096: 8 M packed bytes, 262,144 one-byte absmax, 1,024 float32 second-level scales
    elements = 4096 * 4096
    got = nf4_bytes(elements)
    assert got == elements // 2 + elements // 64 + 4 * (elements // 64 // 256) + 4 + 64
    assert got / elements == pytest.approx(0.5 + 1 / 64 + 4 / (64 * 256), rel=1e-5)
    assert nf4_bytes(elements, double_quant=False) == elements // 2 + 4 * elements // 64 + 64


def test_qlora_base_keeps_the_head_and_embeddings_in_16_bits() -> None:
    modules = [Linear("a", 64, 128), Linear("lm_head", 64, 1000, head=True)]
    total = 64 * 128 + 64 * 1000 + 1000 * 64 + 64
    assert qlora_base_bytes(total, modules, 2) == nf4_bytes(64 * 128) + 2 * (total - 64 * 128)
