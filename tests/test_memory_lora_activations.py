"""LoRA's activations against peft's own models (issue 24, item 4).

A frozen base keeps less than a full fine-tune (a projection with a frozen weight keeps no
input, a frozen norm weight no normalized value) and the adapters keep their own float32 copies
of their inputs; :func:`dimlint.memory.training.activations.frozen_base_savings` and
:func:`dimlint.memory.training.finetune.lora_activation_bytes` count both from the modeling code.
The oracle is the step's peak through forward and backward
(``test_memory_backward_peak.model_peak``) of ``peft.get_peft_model`` on a shrunk transformers
model, adapters in float32 as peft makes them, ``lora_dropout=0``; the estimate is
``training_plan(...).activations`` for the same method, rank and targets.

Covered within 2% (measured within 0.2%): Llama with every Linear adapted and with q/v only,
bfloat16 and float32, with full recomputation at a real model's vocabulary; Gemma-2 (eager,
four float32 norms per layer); Phi-3 (fused qkv and gate_up adapted) at a real model's
vocabulary (V = 32·h). At the toy vocabulary (V = 2·h) Phi-3's and GPT-NeoX's peak is a
layer's backward through their fused adapted projections, which the estimate does not model
(0.86 and 0.94 of it); their forward ends agree within 0.1%.
"""

from __future__ import annotations

import pytest
from test_memory_activations_oracle import FAMILIES
from test_memory_backward_peak import BATCH, SEQ, model_peak

from dimlint.config.normalize import specs_for_document
from dimlint.memory.training.finetune import Finetune
from dimlint.memory.training.training_plan import training_plan

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
peft = pytest.importorskip("peft")
pytest.importorskip("torch.profiler._memory_profiler")

TOLERANCE = 0.02
RANK = 8
#: (family, attention, recompute, dtype, LoRA targets, vocabulary: None for the shrunk 512)
CASES = [
    ("llama", "sdpa", "none", "bf16", "all-linear", None),
    ("llama", "sdpa", "none", "bf16", "q_proj,v_proj", None),
    ("llama", "sdpa", "none", "fp32", "all-linear", None),
    ("llama", "sdpa", "full", "bf16", "all-linear", 8192),
    ("gemma2", "eager", "none", "bf16", "all-linear", None),
    ("phi3", "sdpa", "none", "bf16", "all-linear", 8192),
]


@pytest.mark.parametrize(("family", "attention", "recompute", "dtype", "targets", "vocab"), CASES)
def test_lora_estimate_matches_peft(
    family: str, attention: str, recompute: str, dtype: str, targets: str, vocab: int | None
) -> None:
    config = dict(FAMILIES[family])
    if vocab is not None:
        config["vocab_size"] = vocab
    values = {k: v for k, v in config.items() if k != "model_type"}
    built = transformers.AutoConfig.for_model(config["model_type"], **values)
    torch.manual_seed(0)
    base = transformers.AutoModelForCausalLM.from_config(
        built,
        attn_implementation=attention,
        dtype=torch.bfloat16 if dtype == "bf16" else torch.float32,
    )
    names = targets if targets == "all-linear" else targets.split(",")
    model = peft.get_peft_model(base, peft.LoraConfig(r=RANK, target_modules=names))
    model.train()
    if recompute == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    ids = torch.randint(0, built.vocab_size, (BATCH, SEQ))
    measured = model_peak(model, ids)
    estimate = training_plan(
        specs_for_document("config.json", config),
        dtype=dtype,
        batch=BATCH,
        seq=SEQ,
        recompute=recompute,
        attention=attention,
        finetune=Finetune("lora", RANK, tuple(targets.split(","))),
    ).activations
    error = (estimate - measured) / measured
    assert abs(error) <= TOLERANCE, f"{estimate:,} vs peft's peak {measured:,} ({error:+.2%})"
