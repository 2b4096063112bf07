"""DL501 under a training target: does one training step fit, and what does when it does not.

The step is :func:`dimlint.deploy.training.step`, the one ``mem --training`` and
``plan --training`` report, on each layout of the deployment: a parallel target's tp × pp with
the budget's other GPUs as data-parallel ranks (ZeRO shards over them), or without one every GPU
a data-parallel rank (tp 1) — ``mem --training --budget``'s split. The sequence is the
deployment's context (else the model's longest), the micro-batch its batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dimlint.config.spec import ModelSpec
from dimlint.deploy.fit import Layout, budget_layout, default_context, gib
from dimlint.deploy.targets import Deployment
from dimlint.deploy.training import TrainingSetup, longest_seq, step, usable_bytes

if TYPE_CHECKING:
    from dimlint.memory.training.training_plan import TrainingPlan


def training_layouts(spec: ModelSpec, deployment: Deployment, setup: TrainingSetup) -> list[Layout]:
    """One layout per parallel target, else tp 1 × pp 1 with every GPU a data-parallel rank
    (``--dp`` replaces the ranks left after tp × pp)."""
    base = budget_layout(spec, deployment)
    count = base.budget_gpus
    if not deployment.parallel:
        return [base._replace(engine="megatron", dp=setup.dp or count)]
    return [
        base._replace(
            target=t,
            engine=t.engine,
            tp=t.tp,
            pp=t.pp,
            dp=setup.dp or max(1, count // (t.tp * t.pp)),
        )
        for t in deployment.parallel
    ]


def _label(layout: Layout) -> str:
    where = f"target {layout.target.text}" if layout.target else f"budget {layout.budget}"
    return f"{where} (tp {layout.tp} × pp {layout.pp} × dp {layout.dp})"


def _total(layout: Layout, setup: TrainingSetup, seq: int) -> int:
    return _step(layout, setup, seq).total


def _step(layout: Layout, setup: TrainingSetup, seq: int) -> TrainingPlan:
    setting = layout.setting
    return step(
        layout.specs,
        setup,
        dtype=setting.dtype,
        tp=layout.tp,
        pp=layout.pp,
        dp=layout.dp,
        batch=setting.batch,
        seq=seq,
    )


def longest(layout: Layout, setup: TrainingSetup) -> int:
    """The longest training sequence that fits the layout (up to the model's longest)."""
    setting = layout.setting
    return longest_seq(
        layout.specs,
        setup,
        usable=usable_bytes(layout.gpu),
        upper=max(setting.context, default_context(layout.model)),
        dtype=setting.dtype,
        tp=layout.tp,
        pp=layout.pp,
        dp=layout.dp,
        batch=setting.batch,
    )


def describe_training_misfit(layout: Layout, setup: TrainingSetup) -> str | None:
    """DL501's message for a training step on ``layout``, or None when it fits."""
    gpus = layout.tp * layout.pp * layout.dp
    label = _label(layout)
    if gpus > layout.budget_gpus:
        return (
            f"{label} needs {gpus} GPUs but the budget {layout.budget} has"
            f" {layout.budget_gpus}. Use a budget of at least {gpus} GPUs, or a smaller"
            " tp/pp/dp."
        )
    setting = layout.setting
    try:
        needed = _step(layout, setup, setting.context)
    except ValueError as error:  # LoRA targets the model lacks, SDPA transformers refuses
        return f"{label}: the training step cannot be sized: {error}"
    available = usable_bytes(layout.gpu)
    if needed.total <= available:
        return None
    gathered = f", ZeRO-3 gathered {gib(needed.gathered)}" if needed.gathered else ""
    head = (
        f"{label}: a training step ({setup.describe()}; micro-batch {setting.batch} ×"
        f" {setting.context} tokens, {setting.dtype}) needs {gib(needed.total)}"
        f" ({needed.total:,} bytes) per GPU — weights {gib(needed.weights)}, gradients"
        f" {gib(needed.gradients)}, optimizer states {gib(needed.optimizer)}{gathered},"
        f" activations {gib(needed.activations)} and overhead {gib(needed.overhead)}"
        f" (estimates) — but one {layout.gpu.name} has {gib(available)} ({available:,} bytes,"
        " all it reports: a training step may fill the device), as `dimlint mem --training`"
        " and `dimlint plan --training` compute it."
    )
    seq = longest(layout, setup)
    if seq:
        fit = f" Longest training sequence that fits at micro-batch {setting.batch}: {seq}."
    else:
        fit = (
            f" Longest training sequence that fits at micro-batch {setting.batch}: none — the"
            " model states and fixed overheads alone exceed the GPU."
        )
    return f"{head}{fit} To fit, change: {'; '.join(_suggestions(layout, setup, seq))}."


def _suggestions(layout: Layout, setup: TrainingSetup, seq: int) -> list[str]:
    """Changes that make the step fit at the asked sequence, each with its per-GPU total."""
    context = layout.setting.context
    usable = usable_bytes(layout.gpu)
    candidates: list[tuple[str, TrainingSetup]] = []
    if setup.recompute != "full":
        candidates.append(("--recompute full", setup._replace(recompute="full")))
    if setup.lora_rank is None:
        candidates.append(("--lora-rank 16", setup._replace(lora_rank=16)))
        candidates.append(
            ("--lora-rank 16 --qlora --recompute full",
             setup._replace(lora_rank=16, qlora=True, recompute="full"))
        )  # fmt: skip
    elif not setup.qlora:
        candidates.append(("--qlora", setup._replace(qlora=True)))
    if layout.dp > 1 and setup.zero < 3:
        candidates.append(("--zero 3", setup._replace(zero=3)))
    if setup.zero >= 1 and setup.offload == "none":
        candidates.append(("--offload optimizer", setup._replace(offload="optimizer")))
    found: list[str] = []
    for text, changed in candidates:
        if "--qlora --recompute" in text and any(f.startswith("--lora-rank") for f in found):
            continue  # LoRA alone already fits
        try:
            total = _total(layout, changed, context)
        except ValueError:
            continue
        if total <= usable:
            found.append(f"{text} ({gib(total)} per GPU)")
    if seq:
        found.append(f"--context {seq} or less")
    if not found:
        found.append("more GPUs (a larger dp with --zero 3, or tp/pp), or a GPU with more memory")
    return found
