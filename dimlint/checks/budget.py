"""Context length and memory budget under a deployment (DL501, DL502).

DL502 needs only ``--context``: vLLM refuses a ``max_model_len`` beyond what the config derives
(:mod:`dimlint.config.maxlen`). DL501 needs ``--budget``: it asks :mod:`dimlint.memory` for the
per-GPU serving memory of the layout (weights + KV cache + activation and overhead estimates)
and, when it does not fit, says what does — as vLLM's best launch-time message does, but before
launch. The memory package is imported only when a budget is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from dimlint.checks.registry import Finding, deployment_rule
from dimlint.config.maxlen import derived_max_length
from dimlint.config.normalize import is_language_model
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment


@deployment_rule(
    "DL502",
    "context-length",
    Severity.ERROR,
    "The target context exceeds the longest the config supports (positions after rope scaling).",
)
def check_context_length(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    context = deployment.context
    if context is None or not is_language_model(spec):
        return
    derived = derived_max_length(spec)
    if derived is None or context <= derived.value:
        return
    longest = f"{derived.key} {spec.raw.get(derived.key)}"
    if derived.scaling:
        longest += f"{derived.scaling} = {derived.value}"
    yield Finding(
        "DL502",
        f"context {context} exceeds the longest this config supports, {longest}. vLLM refuses it"
        f' ("User-specified max_model_len ({context}) is greater than the derived'
        f' max_model_len ({derived.value})") unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, and'
        " positions beyond the trained range degrade the output. Use --context"
        f" {derived.value} or less, or extend the context with rope scaling (yarn or"
        " longrope, as the model's authors document).",
        derived.pointer,
    )


@deployment_rule(
    "DL501",
    "memory-budget",
    Severity.ERROR,
    "Weights + KV cache (+ estimates) at the target context and batch, or a training step under"
    " a training target, exceed the GPU budget.",
)
def check_memory_budget(spec: ModelSpec, deployment: Deployment) -> Iterator[Finding]:
    if deployment.budget is None or spec.pointer:
        return  # judged once per document, at its top level, over all its sub-models
    if deployment.training is not None:  # judged on a training step, as mem --training
        from dimlint.deploy.training_fit import describe_training_misfit, training_layouts

        for layout in training_layouts(spec, deployment, deployment.training):
            message = describe_training_misfit(layout, deployment.training)
            if message is not None:
                yield Finding("DL501", message, None)
        return
    from dimlint.deploy.fit import describe_misfit, layouts_for  # only with a budget

    for layout in layouts_for(spec, deployment):
        message = describe_misfit(layout)
        if message is not None:
            yield Finding("DL501", message, None)
