"""Positions, rope θ and rope scaling, and MoE routing keys, as the family releases them.

A config that states ``max_position_embeddings`` 1048576 with the native θ and no scaling
claims a context its positional encoding was never extended to. The keys written here follow
the family's released long-context models in the released-shape table (generated from the
shared corpus):

* a family whose releases state a ``llama3`` or ``yarn`` scaling (Llama-3.1/3.2, DeepSeek-V3)
  gets that block, from the release nearest in size among those with the longest context, and
  its factor stretched when the request asks for more (Llama-3.1-8B: factor 8 for 131072
  positions from 8192; 1048576 asks for 64; DeepSeek-V3: YaRN ×40 from 4096);
* a family whose releases reach their context by θ alone (Qwen2.5, Mistral, Mixtral, Gemma-2)
  keeps the released θ up to its longest released context, and beyond it gets YaRN over that
  context (the scaling transformers and vLLM apply to every RoPE family), so that vLLM derives
  exactly the requested length (``original_max_position_embeddings`` × factor).

DeepSeek-V3's group-limited routing (``n_group`` 8, ``topk_group`` 4) is kept as released when
the experts split into the groups, else reduced to groups that divide them.
"""

from __future__ import annotations

import math
from typing import Any

from dimlint.fix.suggest.reference import Released, released

#: Scalings whose block can be stretched to another length by its ``factor``.
STRETCHABLE = ("llama3", "yarn")


def _type(scaling: dict[str, Any] | None) -> str:
    if not scaling:
        return ""
    return str(scaling.get("rope_type") or scaling.get("type") or "")


def _releases(model_type: str) -> list[Released]:
    return [m for m in released() if m.model_type == model_type and m.max_positions > 0]


def _nearest(models: list[Released], params: int) -> Released:
    longest = max(m.max_positions for m in models)
    pool = [m for m in models if m.max_positions == longest]
    return min(pool, key=lambda m: abs(math.log(m.params / params)))


def position_keys(
    model_type: str, params: int, context: int | None, native: int, theta: float
) -> dict[str, Any]:
    """``max_position_embeddings``, ``rope_theta`` and ``rope_scaling`` (None: no scaling) for
    a ``model_type`` config of ``params`` parameters serving ``context`` tokens. ``native`` and
    ``theta`` are the family's defaults when the table holds none of its releases."""
    models = _releases(model_type)
    scaled = [
        m
        for m in models
        if _type(m.rope_scaling) in STRETCHABLE
        and m.rope_scaling
        and "original_max_position_embeddings" in m.rope_scaling
        and "factor" in m.rope_scaling
    ]
    if scaled:
        release = _nearest(scaled, params)
        assert release.rope_scaling is not None
        scaling = dict(release.rope_scaling)
        positions = release.max_positions
        if context and context > positions:
            scaling["factor"] = float(scaling["factor"]) * context / positions
            positions = context
        return {
            "max_position_embeddings": positions,
            "rope_theta": release.rope_theta or theta,
            "rope_scaling": scaling,
        }
    if models:
        release = _nearest(models, params)
        longest, theta = release.max_positions, release.rope_theta or theta
    else:
        longest = native
    wanted = max(native, context or 0)
    if wanted <= longest:
        return {
            "max_position_embeddings": 1 << (wanted - 1).bit_length(),
            "rope_theta": theta,
            "rope_scaling": None,
        }
    return {
        "max_position_embeddings": wanted,
        "rope_theta": theta,
        "rope_scaling": {
            "rope_type": "yarn",
            "factor": wanted / longest,
            "original_max_position_embeddings": longest,
        },
    }


def routing_keys(model_type: str, experts: int, top_k: int) -> dict[str, Any]:
    """Router keys of the family's released MoE configs, fitted to ``experts``/``top_k``."""
    releases = [m for m in released() if m.model_type == model_type and m.routing]
    if not releases:
        return {}
    release = max(releases, key=lambda m: m.params)
    keys = dict(release.routing or {})
    groups = int(keys.get("n_group", 1))
    chosen = int(keys.get("topk_group", 1))
    if groups > 1:
        fitted = math.gcd(experts, groups)
        chosen = max(1, chosen * fitted // groups)
        per_group = experts // fitted
        # grouped top-k picks top_k experts among the chosen groups' experts
        chosen = min(fitted, max(chosen, -(-top_k // per_group)))
        keys["n_group"], keys["topk_group"] = fitted, chosen
    return keys
