"""Expected tensors on real configs: they add up to ``dimlint mem``'s count, and their names
and shapes are the model transformers builds from the same config.

The configs are the released-model corpus beside the checkout (``../shared/corpus``). The
comparison with transformers builds one config per family on the meta device (names and
shapes, no memory); MoE families are left to ``test_checkpoint.py``, whose saved checkpoints
show the per-expert layout transformers writes to disk (its in-memory experts are fused).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_path

from dimlint.config.normalize import specs_for_document
from dimlint.memory import count_parameters
from dimlint.memory.checkpoint.expected_tensors import plan_for
from dimlint.memory.checkpoint.tensor_names import FAMILY_NAMES

MOE = frozenset({"mixtral", "qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3"})
#: Heads transformers keeps under another name in memory than on disk.
SAVED_AS = {"gpt_neox": {"lm_head.weight": "embed_out.weight"}}


def _corpus() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for path in sorted(shared_path("corpus", "configs").glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(raw, dict) and raw.get("model_type") in FAMILY_NAMES:
            found.append((path, raw))
    return found


def test_plans_add_up_to_the_parameter_count() -> None:
    """Where the template proves the count, the hand plan (what LoRA and quantized layouts
    read) adds up to it: the module inventory and ``dimlint mem`` read one model."""
    configs = _corpus()
    planned = proved = 0
    for path, raw in configs:
        spec = specs_for_document(str(path), raw)[0]
        counted = count_parameters(spec)
        proved += counted.exact
        plan = plan_for(spec)
        if plan is None or not counted.exact:
            continue
        planned += 1
        assert plan.parameters() == counted.total, path.name
    assert planned >= 0.9 * proved > 0.7 * len(configs) > 100


def test_plans_match_transformers_on_one_config_per_family() -> None:
    pytest.importorskip("transformers")
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    seen: set[str] = set()
    for path, raw in _corpus():
        model_type = raw["model_type"]
        if model_type in seen or model_type in MOE:
            continue
        plan = plan_for(specs_for_document(str(path), raw)[0])
        if plan is None:
            continue
        settings = {k: v for k, v in raw.items() if k != "model_type"}
        try:
            config = AutoConfig.for_model(model_type, **settings)
            with torch.device("meta"):
                model = AutoModelForCausalLM.from_config(config)
        except Exception:  # a config this transformers cannot build
            continue
        seen.add(model_type)
        renames = SAVED_AS.get(model_type, {})
        built = {renames.get(k, k): list(v.shape) for k, v in model.state_dict().items()}
        if config.get_text_config().tie_word_embeddings:
            built.pop("lm_head.weight", None)  # tied: save_pretrained stores it once
        built = {k: v for k, v in built.items() if not plan.ignore.search(k)}
        env = plan.env
        expected = {
            t.name: [axis.value(env) for axis in t.shape] for t in plan.tensors if t.present
        }
        assert expected == built, path.name
    assert len(seen) >= 8, seen
