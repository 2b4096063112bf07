"""The ``nn.Linear`` modules of a model, as transformers 5 builds it: what LoRA and QLoRA touch.

peft attaches LoRA to ``nn.Linear`` (and GPT-2's ``Conv1D``) modules, and bitsandbytes'
4-bit integration replaces exactly those (``type(module) is nn.Linear`` or ``Conv1D``). Both
read module names, so this lists the Linear modules with their widths from the checkpoint plan
(:func:`dimlint.memory.checkpoint.expected_tensors.plan_for`), less what transformers 5 does not
build as ``nn.Linear``:

* embeddings and learned positions (``nn.Embedding``);
* MoE experts — one fused 3-D parameter per layer (``experts.gate_up_proj``), not a module per
  expert as the checkpoint names them;
* MoE routers (``TopKRouter`` modules holding a bare weight), though the shared-expert gate of
  Qwen2-MoE is an ``nn.Linear``.

The LM head is an ``nn.Linear`` whether or not it is tied; it is listed with ``head=True``.
``tests/test_memory_finetune.py`` checks the list against the modules of meta-built models.
"""

from __future__ import annotations

import math

from dimlint.config.spec import ModelSpec
from dimlint.records import Record


class Linear(Record):
    """One ``nn.Linear`` module: its name (checkpoint spelling), input and output widths."""

    name: str
    inputs: int
    outputs: int
    bias: bool = False
    head: bool = False


def linear_modules(spec: ModelSpec) -> list[Linear] | None:
    """The Linear modules of ``spec``'s model (module doc); None when its family has no plan."""
    from dimlint.memory.quantized_layout import tensor_plan

    plan = tensor_plan(spec)
    if plan is None:
        return None
    names = plan.names
    env = plan.env
    skipped = {names.embed, names.positions} - {""}
    router = f".{names.router}" if names.router else None
    shapes: dict[str, list[int]] = {}
    biases: set[str] = set()
    table: list[int] = []
    for tensor in plan.tensors:
        if not (tensor.present and tensor.parameter):
            continue
        module, _, leaf = tensor.name.rpartition(".")
        if leaf == "bias":
            biases.add(module)
        if leaf != "weight" or len(tensor.shape) != 2:
            continue
        if module == names.embed:
            table = [axis.value(env) for axis in tensor.shape]
        if module in skipped or ".experts." in f"{module}.":
            continue
        if router and module.endswith(router):
            continue
        shapes[module] = [axis.value(env) for axis in tensor.shape]
    found = []
    for module, (rows, cols) in shapes.items():
        # nn.Linear stores [out, in]; GPT-2's Conv1D [in, out]
        outputs, inputs = (cols, rows) if names.conv1d else (rows, cols)
        found.append(Linear(module, inputs, outputs, module in biases, module == names.head))
    if names.head not in shapes and table:  # tied: the head is still a Linear over the table
        vocab, hidden = table
        found.append(Linear(names.head, hidden, vocab, False, True))
    return found


def parameters(modules: list[Linear]) -> int:
    """Weights (and biases) of ``modules``."""
    return sum(m.inputs * m.outputs + (m.outputs if m.bias else 0) for m in modules)


def largest(modules: list[Linear]) -> int:
    """Parameters of the largest module (0 for none)."""
    return max((m.inputs * m.outputs for m in modules), default=0)


def nf4_bytes(elements: int, blocksize: int = 64, double_quant: bool = True) -> int:
    """Bytes bitsandbytes' ``quantize_4bit`` keeps for a weight of ``elements`` values.

    Packed 4-bit values (two a byte); one absmax per block of ``blocksize`` — float32, or with
    double quantization (``compress_statistics``) one byte, plus the blockwise quantization of
    those absmax values (``quantize_blockwise(absmax, blocksize=256)``: one float32 scale per
    256 blocks) and their float32 mean (``offset``); and the 16-entry float32 NF4 code.
    """
    blocks = math.ceil(elements / blocksize)
    packed = math.ceil(elements / 2)
    code = 16 * 4
    if not double_quant:
        return packed + 4 * blocks + code
    return packed + blocks + 4 * math.ceil(blocks / 256) + 4 + code
