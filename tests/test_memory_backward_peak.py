"""Training activations at the peak of the whole step, forward *and* backward (issue 24, item 2).

``test_memory_activations_oracle.py`` measures what autograd keeps at the end of the forward
pass; the memory a step needs is the peak through backward too. The oracle here is the CPU
allocator itself: ``torch.profiler`` with ``profile_memory=True`` records every allocation and
free of one forward and backward pass of a shrunk model (``use_cache=False``, labels given), and
its memory profile (``torch.profiler._memory_profiler.MemoryProfile``, what
``export_memory_timeline`` draws) names each tensor's category. The peak of live bytes that are
not parameters or their gradients (``mem`` counts those as model states) is compared with
:func:`dimlint.memory.estimates.training_activations`.

What it showed: backward starts by adding two float32 ``b·s·V`` tensors to everything the
forward kept (the gradient of the log-probabilities and of the upcast logits), and that is the
step's peak without recomputation (every family within 0.1%) and with full recomputation at a
real model's vocabulary (V = 32·h, as Llama-3's 128256 over 4096). With full recomputation at
a toy vocabulary (V = 2·h) the peak is instead one rebuilt layer's backward, which the estimate
(the layer's saved tensors, no backward temporaries) puts at 0.85–1.07 of the measured peak by
family (Llama 1.038, Mistral 1.029, Phi-3 1.034, GPT-NeoX 1.070, Gemma-2 eager 0.947, Falcon
0.923, Mixtral 0.854): not a case real models reach, left out here.

Tolerance 2% (measured gaps are below 0.3%).
"""

from __future__ import annotations

from typing import Any

import pytest
from test_memory_activations_oracle import FAMILIES

from dimlint.config.normalize import specs_for_document
from dimlint.memory.config_view import Cfg
from dimlint.memory.estimates import training_activations

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
memory_profiler = pytest.importorskip("torch.profiler._memory_profiler")

TOLERANCE = 0.02
BATCH, SEQ = 2, 64
#: (family, attention, recompute, dtype, vocabulary: None for the family's shrunk 512)
CASES = [
    ("llama", "sdpa", "none", "bf16", None),
    ("mixtral", "sdpa", "none", "bf16", None),
    ("gemma2", "eager", "none", "bf16", None),
    ("llama", "sdpa", "full", "bf16", 8192),
    ("gpt_neox", "sdpa", "full", "bf16", 8192),
    ("llama", "sdpa", "full", "fp32", 8192),
]


def step_peak(config: dict[str, Any], attention: str, recompute: str, dtype: str) -> int:
    """The peak of live non-parameter, non-gradient bytes through one training step."""
    values = {k: v for k, v in config.items() if k != "model_type"}
    built = transformers.AutoConfig.for_model(config["model_type"], **values)
    torch.manual_seed(0)
    model = transformers.AutoModelForCausalLM.from_config(
        built,
        attn_implementation=attention,
        dtype=torch.bfloat16 if dtype == "bf16" else torch.float32,
    )
    model.train()
    if recompute == "full":
        model.gradient_checkpointing_enable()
    ids = torch.randint(0, built.vocab_size, (BATCH, SEQ))
    return model_peak(model, ids)


def model_peak(model: Any, ids: Any) -> int:
    """The peak of live bytes through ``model``'s forward and backward on ``ids``, less the
    parameters and their gradients (and what existed before: the model, the ids)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(
        activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True, with_stack=True
    ) as prof:
        output = model(input_ids=ids, labels=ids, use_cache=False)
        output.loss.backward()
        del output
    profiled = memory_profiler.MemoryProfile(prof.profiler.kineto_results)
    category, action = memory_profiler.Category, memory_profiler.Action
    states = {category.PARAMETER, category.GRADIENT, category.OPTIMIZER_STATE}
    live = peak = 0
    for _time, what, (key, version), size in profiled.timeline:
        if what == action.PREEXISTING:
            continue  # the model and the ids, allocated before the step

        if what == action.CREATE:
            live += counted(profiled, key, version, size, states)
        elif what == action.INCREMENT_VERSION:
            live += counted(profiled, key, version, -size, states)
            live += counted(profiled, key, version + 1, size, states)
        elif what == action.DESTROY:
            live += counted(profiled, key, version, -size, states)
        peak = max(peak, live)
    return peak


def counted(profiled: Any, key: Any, version: int, delta: int, states: set[Any]) -> int:
    """``delta``, unless the tensor at that version is a parameter, gradient or state."""
    known = isinstance(key, memory_profiler.TensorKey)
    kind = profiled._categories.get(key, version) if known else None
    return 0 if kind in states else delta


@pytest.mark.parametrize(("family", "attention", "recompute", "dtype", "vocab"), CASES)
def test_estimate_matches_the_peak_of_forward_and_backward(
    family: str, attention: str, recompute: str, dtype: str, vocab: int | None
) -> None:
    config = dict(FAMILIES[family])
    if vocab is not None:
        config["vocab_size"] = vocab
    measured = step_peak(config, attention, recompute, dtype)
    cfg = Cfg(specs_for_document("config.json", config)[0])
    estimate = training_activations(
        cfg, batch=BATCH, seq=SEQ, attention=attention, recompute=recompute, dtype=dtype
    )
    error = (estimate - measured) / measured
    assert abs(error) <= TOLERANCE, f"{estimate:,} vs the step's peak {measured:,} ({error:+.2%})"
