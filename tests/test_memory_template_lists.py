"""Lists a config class derives or folds, against transformers' builds (issue 19, item 1).

Released configs state lists the default config only derives — Mllama's
``cross_attention_layers``, Llama-4's ``moe_layers``, Qwen3-VL's ``deepstack_visual_indexes``,
Qwen-MoE's ``mlp_only_layers``, LFM2's ``full_attn_idxs``, SmolLM3's ``no_rope_layers`` — and
legacy keys the class folds into them (DeepSeek-V4's ``compress_ratios``, Kimi-Linear's
``linear_attn_config``). Each case is a released-style config built on the meta device as the
class its ``architectures`` names (no memory, so at the released sizes) and compared with
``mem``'s count: the value the template learned must be counted exact, another must be right
or labelled an estimate that names the list — never wrong and exact.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import released_ground_truth as truth

pytest.importorskip("transformers")
pytest.importorskip("torch")

_RELEASED = Path(__file__).resolve().parent / "data" / "released_configs"


def _judge(raw: dict[str, Any]) -> tuple[bool, bool, str]:
    """(right, labelled exact, mem's note) of ``raw``; fails on a false exact."""
    built, why = truth.transformers_count(raw)
    assert built is not None, why
    ours, exact, notes = truth.dimlint_count(raw)
    assert not (exact and ours != built), f"false exact: transformers {built}, mem {ours}"
    return ours == built, exact, notes


def _learned(raw: dict[str, Any]) -> None:
    right, exact, notes = _judge(raw)
    assert right, notes
    assert exact, notes


def _outside(raw: dict[str, Any], named: str) -> None:
    _, exact, notes = _judge(raw)
    assert not exact, "counted as learned"
    assert named in notes, notes


def _released(model_type: str, architecture: str, **changed: Any) -> dict[str, Any]:
    """The default config as ``save_pretrained`` writes it (every derived list stated), with
    ``changed`` keys set (``text_config__key`` inside a sub-config) and the plan keys the class
    derives from them dropped where ``changed`` states their source."""
    from transformers import AutoConfig

    raw: dict[str, Any] = json.loads(
        AutoConfig.for_model(model_type).to_json_string(use_diff=False)
    )
    raw["architectures"] = [architecture]
    for key, value in changed.items():
        where, _, name = key.rpartition("__")
        target = raw[where] if where else raw
        target[name] = value
    return raw


def test_mllama_cross_attention_layers() -> None:
    def mllama(layers: list[int]) -> dict[str, Any]:
        name = "MllamaForConditionalGeneration"
        return _released("mllama", name, text_config__cross_attention_layers=layers)

    _learned(mllama(list(range(1, 40, 5))))  # eight, as the default: the same tensors
    _outside(mllama([3, 13, 23, 33]), "cross_attention_layers")


def test_llama4_moe_layers() -> None:
    def llama4(layers: list[int]) -> dict[str, Any]:
        name = "Llama4ForConditionalGeneration"
        return _released("llama4", name, text_config__moe_layers=layers)

    _learned(llama4(list(range(48))))  # the default step of 1: every layer
    # Maverick's odd layers under the default step: 24 MoE and 24 dense layers.
    _outside(llama4(list(range(1, 48, 2))), "moe_layers")


def test_qwen3_vl_deepstack_visual_indexes() -> None:
    def qwen3_vl(indexes: list[int]) -> dict[str, Any]:
        name = "Qwen3VLForConditionalGeneration"
        return _released("qwen3_vl", name, vision_config__deepstack_visual_indexes=indexes)

    _learned(qwen3_vl([5, 11, 17]))  # Qwen3-VL-2B's: three mergers, as the default
    _outside(qwen3_vl([5, 11]), "deepstack_visual_indexes")


def test_qwen3_moe_mlp_only_layers() -> None:
    raw = _released("qwen3_moe", "Qwen3MoeForCausalLM")
    _learned({**raw, "mlp_only_layers": []})
    _outside({**raw, "mlp_only_layers": [0, 1]}, "mlp_only_layers")


def test_lfm2_full_attn_idxs() -> None:
    raw = _released("lfm2", "Lfm2ForCausalLM")
    del raw["layer_types"]  # an older config: the class derives its plan from the indices
    _learned({**raw, "full_attn_idxs": list(range(raw["num_hidden_layers"]))})
    # convolution layers beside attention: the kinds a variant learned from a seed plan
    # (dimlint.tools.plan_kinds), in the layer count the released model states
    _learned({**raw, "full_attn_idxs": [2, 5, 8, 10, 12, 14]})
    _learned({**raw, "num_hidden_layers": 16, "full_attn_idxs": [2, 5, 8, 10, 12, 14]})


def test_lfm2_kinds_beside_its_convolutions() -> None:
    raw = _released("lfm2", "Lfm2ForCausalLM", num_hidden_layers=16)
    _learned({**raw, "layer_types": ["conv", "full_attention"] * 8})
    # LFM2 builds a sliding layer as attention: a kind whose statement built the default's
    # tensors is no kind of the seed plan, so beside convolutions it stays outside
    _outside({**raw, "layer_types": ["sliding_attention", "conv"] * 8}, "layer_types")


def test_released_hybrid_plans_in_legacy_and_nested_spellings() -> None:
    """Granite-4 names its kinds ``mamba`` and ``attention`` (transformers renames them);
    LFM2.5-VL states its text plan, and a legacy ``block_ff_dim`` its text class pops."""
    for half, name in (
        ("held_out", "h9-tec__llmviz__tests__fixtures__granite4.json"),
        ("held_out", "h9-tec__llmviz__tests__fixtures__lfm2.json"),
        (
            "held_out",
            "tenstorrent__tt-metal__models__tt_transformers__model_params__LFM2.5-VL-1.6B__config.json",
        ),
    ):
        _learned(json.loads((_RELEASED / half / name).read_text(encoding="utf-8")))


def test_smollm3_no_rope_layers() -> None:
    raw = _released("smollm3", "SmolLM3ForCausalLM")
    _learned({**raw, "no_rope_layers": [int((index + 1) % 4 != 0) for index in range(36)]})
    # NoPE layers hold the same weights: right whatever the label, never wrong and exact.
    right, _, _ = _judge({**raw, "no_rope_layers": [1] * 18 + [0] * 18})
    assert right


def test_deepseek_v4_compress_ratios() -> None:
    raw = {"model_type": "deepseek_v4", "architectures": ["DeepseekV4ForCausalLM"]}
    default = [128, 128] + [4 if index % 2 else 128 for index in range(41)]
    _learned({**raw, "compress_ratios": default})
    name = "AI-Hypercomputer__maxtext__src__maxtext__checkpoint_conversion__utils__"
    path = _RELEASED / "tune" / f"{name}hf_model_configs.py__deepseek4_284b_dict_L1025.json"
    released = json.loads(path.read_text(encoding="utf-8"))
    # two sliding-window layers the default plan lacks: learned from a seed plan that has them
    _learned(released)
    _outside({**raw, "compress_rate_csa": 8}, "compress_rates")


def test_kimi_linear_attn_config() -> None:
    path = _RELEASED / "tune" / "h9-tec__llmviz__tests__fixtures__kimi_linear.json"
    released = json.loads(path.read_text(encoding="utf-8"))
    full = [index + 1 for index in range(27) if index and index % 4 == 0]
    kda = [number for number in range(1, 28) if number not in full]
    linear = {**released["linear_attn_config"], "full_attn_layers": full, "kda_layers": kda}
    _learned({**released, "linear_attn_config": linear})
    # As released: seven full-attention layers (the last one too) where the default has six,
    # counted layer kind by layer kind from the folded plan (dimlint.tools.layer_kind_tags).
    _learned(released)


def test_stated_plans_count_each_kind_of_layer() -> None:
    """Plans of the kinds the default has, in other numbers and places: each layer tensor is
    counted once per stated layer of its kind, and a kind the default lacks from the variant
    learned with it."""
    kimi = ["full_attention" if index % 3 == 0 else "linear_attention" for index in range(27)]
    _learned(_released("kimi_linear", "KimiLinearForCausalLM", layer_types=kimi))
    fewer = ["linear_attention"] * 20 + ["full_attention"] * 2
    shorter = {"layer_types": fewer, "num_hidden_layers": 22}
    shorter["mlp_layer_types"] = ["dense"] + ["sparse"] * 21
    _learned(_released("kimi_linear", "KimiLinearForCausalLM", **shorter))
    csa, hca = "compressed_sparse_attention", "heavily_compressed_attention"
    plan = [hca] * 3 + [csa] * 40
    _learned(_released("deepseek_v4", "DeepseekV4ForCausalLM", layer_types=plan))
    sliding = ["sliding_attention", *plan[1:]]  # a kind the default plan lacks (plan_kinds)
    _learned(_released("deepseek_v4", "DeepseekV4ForCausalLM", layer_types=sliding))


def test_llama4_interleave_step_adds_dense_layers() -> None:
    """Llama-4's step of 2 (Maverick's) makes every other layer dense: learned from a build
    rebased there, counted ``L//step`` expert layers and the rest dense."""
    for step in (2, 4):
        raw = _released("llama4", "Llama4ForConditionalGeneration")
        raw["text_config"].pop("moe_layers", None)  # derived from the step by the class
        raw["text_config"]["interleave_moe_layer_step"] = step
        _learned(raw)


def test_gemma4_layer_counts_and_stated_plans() -> None:
    """Gemma-4's layer count re-derives ``layer_types`` and the per-layer overrides; a stated
    plan of another depth is counted kind by kind (the last layer forced to full attention),
    unless KV-shared layers move a kind's count."""
    name = "Gemma4ForConditionalGeneration"
    plan = [
        "full_attention" if (index + 1) % 6 == 0 else "sliding_attention" for index in range(60)
    ]
    plan[-1] = "sliding_attention"  # the class forces it to full attention
    deeper = {"text_config__num_hidden_layers": 60, "text_config__layer_types": plan}
    raw = _released("gemma4", name, **deeper)
    raw["text_config"].pop("per_layer_config", None)  # derived from the plan by the class
    _learned(raw)
    shared = _released("gemma4", name, **deeper, text_config__num_kv_shared_layers=20)
    shared["text_config"].pop("per_layer_config", None)
    _judge(shared)  # right, or an estimate: never a false exact


def test_switch_expert_count() -> None:
    _learned(
        _released(
            "switch_transformers", "SwitchTransformersForConditionalGeneration", num_experts=32
        )
    )


def test_electra_embeddings_at_the_hidden_width() -> None:
    """ELECTRA projects its embeddings only while they are narrower than its layers: the width
    is learned in each regime (the equal one as a variant that moves both together)."""
    raw = _released("electra", "ElectraForPreTraining")
    _learned({**raw, "embedding_size": 64})
    _learned({**raw, "embedding_size": 512, "hidden_size": 512, "intermediate_size": 2048})
    _learned({**raw, "embedding_size": raw["hidden_size"]})


def test_nemotron_h_plans_from_pattern_strings() -> None:
    """Nemotron-H counts its layers by its plan's length; the legacy pattern string states it
    (``M`` Mamba, ``E`` MoE, ``*`` attention, ``-`` MLP), and every layer's norm repeats once
    per stated layer."""
    raw = _released("nemotron_h", "NemotronHForCausalLM")
    raw["time_step_limit"] = [0.0, 1e308]  # the dump spells infinity as no class reads it
    plan = raw.pop("layers_block_type")
    _learned({**raw, "hybrid_override_pattern": "MEMEM*EMEM-M*E"})
    stated = ["linear_attention", "moe"] * 5 + ["full_attention", "mlp"]
    _learned({**raw, "layers_block_type": stated})
    assert len(plan) == 4  # the default's: one layer of each kind
