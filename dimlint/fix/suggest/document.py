"""The ``suggest --output-format json`` document (DESIGN.md, *suggest JSON*), as plain data.

``{"request": …, "candidates": [...]}``, best first; each candidate has ``config``,
``params.total``/``params.active`` (``mem``'s counts), ``kv_cache.bytes_per_token``,
``engines.<engine>.tp`` (``plan``'s accepted degrees), ``findings`` (none at warning level or
above) and ``why``. An impossible request adds ``impossible`` with the constraint, the message
and the relaxations that were verified to have an answer.
"""

from __future__ import annotations

from typing import Any

from dimlint.fix.suggest.explain import explain, why_lines
from dimlint.fix.suggest.plan import Plan
from dimlint.fix.suggest.reference import nearest
from dimlint.fix.suggest.relax import Impossible
from dimlint.fix.suggest.search import Candidate, Outcome


def candidate_data(plan: Plan, candidate: Candidate, rank: int) -> dict[str, Any]:
    request = plan.request
    return {
        "rank": rank,
        "summary": candidate.shape.describe(),
        "config": candidate.config,
        "params": {
            "total": candidate.total,
            "active": candidate.active,
            "error": (candidate.total - request.params) / request.params,
            "active_error": None
            if request.active is None
            else (candidate.active - request.active) / request.active,
        },
        "kv_cache": {"bytes_per_token": candidate.kv_bytes_per_token, "dtype": plan.kv_dtype},
        "engines": {name: {"tp": tps} for name, tps in candidate.engines.items()},
        "memory": candidate.memory,
        "findings": [
            {"code": d.code, "severity": d.severity.name.lower(), "message": d.message}
            for d in candidate.findings
        ],
        "why": why_lines(plan, candidate),
    }


def document(
    outcome: Outcome, impossible: Impossible | None = None, with_explanation: bool = False
) -> dict[str, Any]:
    plan = outcome.plan
    request = plan.request
    moe_type = plan.family.moe[0] if plan.family.moe else plan.family.model_type
    model_type = moe_type if request.moe is not None else plan.family.model_type
    data: dict[str, Any] = {
        "request": {
            **request.as_json(),
            "vocab_padded": plan.vocab,
            "kv_dtype": plan.kv_dtype,
            "depth_width_range": list(plan.aspect),
        },
        "candidates": [
            candidate_data(plan, candidate, rank)
            for rank, candidate in enumerate(outcome.candidates, 1)
        ],
        "released": [
            model._asdict()
            for model in nearest(request.params, request.moe is not None, model_type=model_type)
        ],
    }
    if with_explanation and outcome.candidates:
        data["explain"] = explain(outcome)
    if impossible is not None:
        data["impossible"] = {
            "constraint": impossible.constraint,
            "message": impossible.message,
            "relaxations": [
                {
                    "change": relaxation.change,
                    "request": relaxation.request.as_json(),
                    "candidate": candidate_data(
                        plan._replace(request=relaxation.request), relaxation.best, 1
                    ),
                }
                for relaxation in impossible.relaxations
            ],
        }
    return data
