"""Whether a shape fits the budget: serving per layout as ``mem`` and DL501 compute it, and
with ``--training`` a training step per layout as ``mem --training`` computes it."""

from __future__ import annotations

from typing import Any

from dimlint.fix.suggest.plan import Plan

#: Sequence length of a training step without ``--context`` (``mem --training``'s default).
TRAINING_SEQ = 4096


def memory_rows(plan: Plan, specs: list[Any]) -> list[dict[str, Any]]:
    """Per-GPU memory of each layout of the budget (empty without one), as ``mem`` gives it."""
    from dimlint.deploy.fit import estimate, layouts_for, usable_bytes

    if plan.deployment is None or plan.deployment.budget is None:
        return []
    rows = []
    for layout in layouts_for(specs[0], plan.deployment):
        used = estimate(layout)
        rows.append(
            {
                "layout": layout.label,
                "engine": layout.engine,
                "tp": layout.tp,
                "pp": layout.pp,
                "per_gpu_bytes": used.total,
                "usable_bytes": usable_bytes(layout.gpu),
                "fits": used.total <= usable_bytes(layout.gpu)
                and layout.tp * layout.pp <= layout.budget_gpus,
            }
        )
        if plan.request.training:
            rows.append(_training_row(plan, layout, specs))
    return rows


def _training_row(plan: Plan, layout: Any, specs: list[Any]) -> dict[str, Any]:
    """One training step on ``layout`` as ``mem --training`` computes it: the budget's other
    GPUs are data-parallel ranks (what ZeRO shards over), the micro-batch is ``--batch`` (1),
    the sequence ``--context`` (4096) and the attention ``--attention`` or mem's default for
    the family (eager for Gemma-2, which transformers refuses sdpa); a training step may fill
    the whole device."""
    from dimlint.deploy.training import usable_bytes
    from dimlint.memory import language_spec
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.training.activations import attention_for
    from dimlint.memory.training.training_plan import training_plan

    request = plan.request
    # mem's choice: transformers' default (sdpa), eager where the family refuses sdpa (Gemma-2)
    attention = attention_for(Cfg(language_spec(specs)), request.attention)[0]
    gpus = layout.tp * layout.pp
    dp = max(1, layout.budget_gpus // gpus)
    used = training_plan(
        specs,
        dtype=request.dtype or "bf16",
        optimizer=request.optimizer,
        zero=request.zero,
        dp=dp,
        tp=layout.tp,
        pp=layout.pp,
        batch=request.batch or 1,
        seq=request.context or TRAINING_SEQ,
        recompute=request.recompute,
        attention=attention,
    )
    return {
        "layout": f"{layout.label} training (dp {dp}, ZeRO-{request.zero}, {request.optimizer})",
        "engine": layout.engine,
        "tp": layout.tp,
        "pp": layout.pp,
        "per_gpu_bytes": used.total,
        "usable_bytes": usable_bytes(layout.gpu),
        "fits": used.total <= usable_bytes(layout.gpu) and gpus <= layout.budget_gpus,
    }
