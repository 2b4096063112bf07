"""Mixture-of-experts routing geometry (DL107): what fails whatever the deployment."""

from __future__ import annotations

from collections.abc import Iterator

from dimlint.checks.registry import Finding, rule
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Severity


@rule(
    "DL107",
    "moe-geometry",
    Severity.ERROR,
    "Top-k exceeds the experts, expert groups do not divide the experts, or topk_group > n_group.",
)
def check_moe(spec: ModelSpec) -> Iterator[Finding]:
    experts, top_k = spec.experts, spec.experts_per_token
    groups, topk_groups = spec.expert_groups, spec.topk_groups
    if experts is None or experts.value == 0:
        return
    if top_k is not None and top_k.value > experts.value:
        yield Finding(
            "DL107",
            f"{top_k.key} {top_k.value} exceeds {experts.key} {experts.value}: the router's"
            f" top-k over {experts.value} scores fails (torch.topk: selected index k out of"
            f" range). Choose {top_k.key} ≤ {experts.value}.",
            top_k.pointer if top_k.in_file else experts.pointer,
        )
        return
    if groups is None or groups.value <= 1:
        return
    if experts.value % groups.value:
        yield Finding(
            "DL107",
            f"n_group {groups.value} does not divide {experts.key} {experts.value}: group-limited"
            " routing reshapes the router scores into n_group equal groups"
            f" ({experts.value} / {groups.value} = {experts.value / groups.value:g}), which fails."
            f" Use an n_group that divides {experts.value}.",
            groups.pointer if groups.in_file else experts.pointer,
        )
        return
    if topk_groups is None:
        return
    if topk_groups.value > groups.value:
        yield Finding(
            "DL107",
            f"topk_group {topk_groups.value} exceeds n_group {groups.value}: the router selects"
            f" topk_group of the n_group expert groups, so it cannot pick more groups than exist"
            f" (torch.topk fails). Choose topk_group ≤ {groups.value}.",
            topk_groups.pointer if topk_groups.in_file else groups.pointer,
        )
        return
    reachable = topk_groups.value * (experts.value // groups.value)
    if top_k is not None and top_k.value > reachable:
        yield Finding(
            "DL107",
            f"{top_k.key} {top_k.value} exceeds the {reachable} experts reachable through"
            f" topk_group {topk_groups.value} of n_group {groups.value} groups"
            f" ({experts.value // groups.value} experts each): the top-k over the masked scores"
            " then also selects experts of the groups it masked out (their -inf scores tie),"
            " weighted by their unmasked scores, so the model runs but the group limit does"
            " not hold. Raise topk_group or lower the top-k.",
            top_k.pointer if top_k.in_file else topk_groups.pointer,
            # nothing fails: transformers' and DeepSeek's routers gather the weights from the
            # unmasked scores (transformers' own DeepSeek-V3 test routes 8 of 8 experts
            # through 1 of 2 groups)
            severity=Severity.WARNING,
        )
