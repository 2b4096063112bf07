"""What fits on a GPU budget: per-GPU serving memory of a layout, and what to change when not.

Shared by DL501 (``check --budget``) and ``dimlint plan``. The numbers come from
:mod:`dimlint.memory` (``serving_memory``: weights + KV cache + activation and overhead
estimates per GPU, KV heads replicated once tp exceeds them); this module chooses the layout,
compares with the usable memory and searches for the longest context, the largest batch and the
smallest tensor-parallel size that fit. It imports :mod:`dimlint.memory` only when called.

Usable memory is the memory the device reports times vLLM's default ``gpu_memory_utilization``
(0.9, :data:`dimlint.memory.GPU_MEMORY_UTILIZATION`): vLLM places weights, activations and the
KV cache inside that fraction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dimlint.config.maxlen import derived_max_length
from dimlint.config.spec import ModelSpec
from dimlint.deploy.engines import ENGINES, valid_degrees
from dimlint.deploy.targets import Deployment, Target
from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.memory import GPU, MemoryEstimate

#: vLLM's ``max_model_len`` when a config states no position key.
DEFAULT_CONTEXT = 2048
#: The largest tensor-parallel size suggested (a few nodes of 8 GPUs).
MAX_SUGGESTED_TP = 64


class Setting(Record):
    """What is served: context, batch and number formats."""

    context: int
    batch: int
    dtype: str
    kv_dtype: str


class Layout(Record):
    """One way of placing the model on the budget's GPUs."""

    #: The ``--target`` it comes from; None for the default (largest accepted tp ≤ GPUs).
    target: Target | None
    engine: str
    tp: int
    pp: int
    #: GPUs in the budget and the budget as written.
    budget_gpus: int
    budget: str
    gpu: GPU
    setting: Setting
    #: Every sub-model of the document (weights of towers count too).
    specs: tuple[ModelSpec, ...]
    #: The language model (its heads decide the accepted tp sizes).
    model: ModelSpec
    #: Data-parallel ranks of a training step (the budget's GPUs left after tp × pp).
    dp: int = 1

    @property
    def label(self) -> str:
        if self.target is not None:
            return f"target {self.target.text}"
        if self.budget_gpus == 1:
            return f"budget {self.budget}"
        label = ENGINES[self.engine].label
        return (
            f"budget {self.budget} (tp {self.tp}, the largest tensor parallel size {label}"
            f" accepts for this model on {self.budget_gpus} GPUs)"
        )


def config_dtype(spec: ModelSpec) -> str:
    """The weight format the config states (its quantization first), else bf16."""
    from dimlint.memory.dtypes import stated_dtype

    return stated_dtype(spec.raw)


def default_context(spec: ModelSpec) -> int:
    """vLLM's default ``max_model_len``: the derived maximum, else 2048."""
    derived = derived_max_length(spec)
    return derived.value if derived is not None else DEFAULT_CONTEXT


def resolve_setting(
    model: ModelSpec,
    context: int | None,
    batch: int | None,
    dtype: str | None,
    kv_dtype: str | None,
) -> Setting:
    """What is served, defaulted as vLLM would: the model's longest context, batch 1, the
    config's weight format, and a KV cache in the activation format."""
    weights = dtype or config_dtype(model)
    activation = weights if weights in ("fp32", "bf16", "fp16") else "bf16"
    return Setting(context or default_context(model), batch or 1, weights, kv_dtype or activation)


def setting_for(model: ModelSpec, deployment: Deployment) -> Setting:
    """The deployment's context/batch/formats, defaulted (:func:`resolve_setting`)."""
    return resolve_setting(
        model, deployment.context, deployment.batch, deployment.dtype, deployment.kv_dtype
    )


def language_model(specs: tuple[ModelSpec, ...]) -> ModelSpec:
    """The spec whose attention is served: the first with heads that is not a tower."""
    from dimlint.config.normalize import is_language_model

    return next((s for s in specs if is_language_model(s)), specs[0])


def budget_layout(spec: ModelSpec, deployment: Deployment) -> Layout:
    """What every layout of ``deployment`` shares — the budget and its GPU, the setting, the
    document's specs and its language model — as a tp 1 × pp 1 layout without a target, for
    the serving (:func:`layouts_for`) and training (``training_fit``) placements to place."""
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import parse_budget

    assert deployment.budget is not None
    count, gpu = parse_budget(deployment.budget)
    specs = tuple(specs_for_document(spec.path, spec.raw)) if not spec.pointer else (spec,)
    model = language_model(specs)
    setting = setting_for(model, deployment)
    return Layout(None, "vllm", 1, 1, count, deployment.budget, gpu, setting, specs, model)


def layouts_for(spec: ModelSpec, deployment: Deployment) -> list[Layout]:
    """One layout per parallel target, or the default one on the whole budget."""
    base = budget_layout(spec, deployment)
    if deployment.parallel:
        return [
            base._replace(target=t, engine=t.engine, tp=t.tp, pp=t.pp) for t in deployment.parallel
        ]
    accepted, _ = valid_degrees(ENGINES["vllm"], base.model, "tp", base.budget_gpus)
    return [base._replace(tp=accepted[-1])]


def usable_bytes(gpu: GPU) -> int:
    """What vLLM may fill on one device (``gpu_memory_utilization`` of what it reports)."""
    return gpu.usable_bytes()


def estimate(layout: Layout, **changes: Any) -> MemoryEstimate:
    """Per-GPU serving memory of ``layout``, with ``tp``/``context``/… overridden."""
    from dimlint.memory import serving_memory

    setting = layout.setting._replace(**{k: v for k, v in changes.items() if k != "tp"})
    models: Any = layout.specs if len(layout.specs) > 1 else layout.specs[0]
    return serving_memory(
        models,
        context=setting.context,
        batch=setting.batch,
        dtype=setting.dtype,
        kv_dtype=setting.kv_dtype,
        tp=changes.get("tp", layout.tp),
        pp=layout.pp,
    )


def fits(layout: Layout, **changes: Any) -> bool:
    return estimate(layout, **changes).total <= usable_bytes(layout.gpu)


def _largest(layout: Layout, key: str, upper: int) -> int:
    """The largest value of ``key`` (context or batch) in [0, upper] that fits (0: none)."""
    if not fits(layout, **{key: 1}):
        return 0
    low, high = 1, upper
    if fits(layout, **{key: high}):
        return high
    while high - low > 1:
        middle = (low + high) // 2
        if fits(layout, **{key: middle}):
            low = middle
        else:
            high = middle
    return low


def longest_context(layout: Layout) -> int:
    """The longest context that fits at the layout's batch (up to the derived maximum)."""
    upper = max(layout.setting.context, default_context(layout.model))
    return _largest(layout, "context", upper)


def largest_batch(layout: Layout) -> int:
    """The largest batch that fits at the layout's context."""
    upper = 1
    while upper < 1 << 20 and fits(layout, batch=upper * 2):
        upper *= 2
    return _largest(layout, "batch", upper * 2 if upper < 1 << 20 else upper)


def smallest_tp(layout: Layout) -> int | None:
    """The smallest tp above the layout's that the engine accepts and that fits."""
    accepted, _ = valid_degrees(ENGINES[layout.engine], layout.model, "tp", MAX_SUGGESTED_TP)
    return next((tp for tp in accepted if tp > layout.tp and fits(layout, tp=tp)), None)


def gib(count: float) -> str:
    return f"{count / 2**30:.2f} GiB"


def describe_misfit(layout: Layout) -> str | None:
    """DL501's message for ``layout``, or None when it fits."""
    gpus = layout.tp * layout.pp
    if gpus > layout.budget_gpus:
        return (
            f"{layout.label} needs {gpus} GPUs (tp {layout.tp} × pp {layout.pp}) but the budget"
            f" {layout.budget} has {layout.budget_gpus}. Use a budget of at least {gpus} GPUs, or a"
            " smaller tp/pp."
        )
    needed = estimate(layout)
    available = usable_bytes(layout.gpu)
    if needed.total <= available:
        return None
    from dimlint.memory import GPU_MEMORY_UTILIZATION

    setting = layout.setting
    context = longest_context(layout)
    batch = largest_batch(layout) if context else 0
    head = (
        f"{layout.label}: serving at context {setting.context} × batch {setting.batch}"
        f" ({setting.dtype} weights, {setting.kv_dtype} KV cache) needs {gib(needed.total)}"
        f" ({needed.total:,} bytes) per GPU — weights {gib(needed.weights)}, KV cache"
        f" {gib(needed.kv_cache)}, activations {gib(needed.activations)} and overhead"
        f" {gib(needed.overhead)} (estimates) — but one {layout.gpu.name} provides {gib(available)}"
        f" ({available:,} bytes: {GPU_MEMORY_UTILIZATION:g} of the {gib(layout.gpu.memory_bytes)}"
        " it reports, vLLM's default gpu_memory_utilization)."
    )
    if context == 0:
        fit = (
            f" Longest context that fits at batch {setting.batch}: none; largest batch at"
            f" context {setting.context}: none — the weights and fixed overheads alone exceed"
            " the GPU."
        )
    else:
        fit = (
            f" Longest context that fits at batch {setting.batch}: {context}; largest batch at"
            f" context {setting.context}: {batch or 'none (not even 1)'}."
        )
    return f"{head}{fit} To fit, change: {'; '.join(_suggestions(layout, context, batch))}."


def _suggestions(layout: Layout, context: int, batch: int) -> list[str]:
    setting = layout.setting
    found: list[str] = []
    tp = smallest_tp(layout)
    if tp is not None:
        per_gpu = estimate(layout, tp=tp).total
        gpus = tp * layout.pp
        more = f", a budget of {gpus} GPUs" if gpus > layout.budget_gpus else ""
        found.append(f"tp {tp} ({gib(per_gpu)} per GPU{more})")
    if setting.kv_dtype in ("fp32", "bf16", "fp16"):
        smaller = estimate(layout, kv_dtype="fp8")
        if smaller.total <= usable_bytes(layout.gpu):
            found.append(f"--kv-dtype fp8 ({gib(smaller.total)} per GPU)")
        elif smaller.kv_cache and 10 * estimate(layout).kv_cache >= estimate(layout).total:
            found.append(
                f"--kv-dtype fp8 (KV cache {gib(smaller.kv_cache)}: not enough alone, combine"
                " it with another change)"
            )
    if context:
        found.append(f"--context {context} or less")
    if setting.batch > 1 and batch:
        found.append(f"--batch {batch} or less")
    for dtype in ("fp8", "int8", "int4"):
        if _narrower(dtype, setting.dtype) and fits(layout, dtype=dtype):
            found.append(f"--dtype {dtype} weights ({gib(estimate(layout, dtype=dtype).total)})")
            break
    if not found:
        found.append(f"a GPU with more memory, or more than {MAX_SUGGESTED_TP} GPUs")
    return found


_BITS = {"fp32": 32, "bf16": 16, "fp16": 16, "fp8": 8, "int8": 8, "int4": 4}


def _narrower(dtype: str, than: str) -> bool:
    return _BITS[dtype] < _BITS.get(than, 16)
