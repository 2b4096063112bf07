"""Stated keys read the way the config class reads them (issue 19, legacy keys).

Unit tests of the run-time helpers on small rows, of the generator's null-regime probe and
floor fallback on synthetic classes, and released-config shapes through the relearned table:
each count labelled exact must equal what transformers builds (``_agrees``), and the cases the
issue names are exact now.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.memory.parameters.probed_keys import (
    accepted,
    aliased,
    stated_as_derived,
    stated_null,
)
from dimlint.tools.null_regimes import null_switches
from dimlint.tools.shape_fit import fit_floor

_ROW = {
    "legacy_keys": {
        "alias": {
            "n_embed": {"field": "hidden_size", "wins": True},
            "d_ff": {"field": "intermediate_size", "wins": False},
        },
        "inert": ["rotary_emb_base"],
    },
    "derived": {"word_embed_proj_dim": [[1, 1, [["hidden_size", 1]]]]},
}


def test_alias_keys_are_read_as_their_field_and_the_winner_wins() -> None:
    assert aliased({"n_embed": 64, "hidden_size": 32}, _ROW)["hidden_size"] == 64
    assert aliased({"d_ff": 64, "intermediate_size": 32}, _ROW)["intermediate_size"] == 32
    assert aliased({"d_ff": 64}, _ROW)["intermediate_size"] == 64
    raw = {"hidden_size": 32}
    assert aliased(raw, _ROW) is raw


def test_accepted_keys_are_the_aliases_and_the_inert_ones() -> None:
    assert accepted(_ROW) == {"n_embed", "d_ff", "rotary_emb_base"}
    assert accepted({}) == frozenset()


def test_a_fixed_field_stated_at_its_derivation_is_inside() -> None:
    values = {"hidden_size": 1024}
    assert stated_as_derived(values.get, _ROW, "word_embed_proj_dim", 1024)
    assert not stated_as_derived(values.get, _ROW, "word_embed_proj_dim", 512)
    assert not stated_as_derived(values.get, _ROW, "hidden_size", 1024)  # nothing derives it


def test_a_null_is_stated_only_where_the_key_is_present() -> None:
    assert stated_null({"q_lora_rank": None}, "q_lora_rank")
    assert not stated_null({}, "q_lora_rank")
    assert not stated_null({"q_lora_rank": 0}, "q_lora_rank")
    assert stated_null({"text_config": {"rank": None}}, "text_config.rank")


def test_a_floor_fallback_is_fitted_where_no_rational_expression_is() -> None:
    points = [
        ({"hidden_size": 4096, "num_attention_heads": 96}, 42),
        ({"hidden_size": 8192, "num_attention_heads": 96}, 85),
        ({"hidden_size": 4096, "num_attention_heads": 48}, 85),
    ]
    preferred = frozenset({"hidden_size", "num_attention_heads"})
    assert fit_floor(points, preferred) == [[1, 1, [["hidden_size//num_attention_heads", 1]]]]
    assert fit_floor([(p, v + 1) for p, v in points], preferred) is None


class _Config:
    """A class keeping a stated None for ``rank`` but replacing it for ``width``."""

    def __init__(self, rank: int | None = 4, width: int | None = 8, depth: int = 2) -> None:
        self.rank = rank
        self.width = 8 if width is None else width
        self.depth = depth


def _model(config: _Config) -> object:
    if config.rank is None:
        return {"dense": (config.width, config.width)}
    return {"a": (config.width, config.rank), "b": (config.rank, config.width)}


def test_null_switches_are_the_numeric_fields_kept_none_that_build_otherwise() -> None:
    declared = {"rank": 4, "width": 8, "depth": 2}
    found = null_switches(_Config(), _model, declared, (), lambda model, cfg: model(cfg))
    assert found == ["rank"]  # width's None is replaced; depth's None does not build


def _agrees(raw: dict[str, Any]) -> bool:
    """Whether mem labels ``raw``'s count exact; a count labelled exact equals transformers'."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import released_ground_truth as truth

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    expected, why = truth.transformers_count(raw)
    assert expected is not None, why
    ours, exact, notes = truth.dimlint_count(raw)
    assert not exact or ours == expected, f"false exact: {ours} vs {expected} ({notes})"
    return exact


def _probed(model_type: str) -> dict[str, Any]:
    learned = templates.row(model_type)
    if learned is None or "legacy_keys" not in learned:
        pytest.skip(f"{model_type}'s row was not relearned with its keys probed")
    return learned


def test_opt_word_embed_proj_dim_equal_to_the_width() -> None:
    if templates.row("opt") is None:
        pytest.skip("no shapes table")
    raw = {"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 1024,
           "ffn_dim": 4096, "num_attention_heads": 16, "word_embed_proj_dim": 1024}  # fmt: skip
    assert _agrees(raw)
    assert not _agrees({**raw, "word_embed_proj_dim": 512})  # project_in/out: never learned


def test_bloom_n_embed_is_its_width() -> None:
    _probed("bloom")
    raw = {"model_type": "bloom", "architectures": ["BloomForCausalLM"], "n_embed": 128,
           "n_head": 4, "n_layer": 3}  # fmt: skip
    assert _agrees(raw)


def test_gpt_neox_rotary_emb_base_is_inert() -> None:
    _probed("gpt_neox")
    raw = {"model_type": "gpt_neox", "architectures": ["GPTNeoXForCausalLM"],
           "rotary_emb_base": 500000, "hidden_size": 512, "num_attention_heads": 8}  # fmt: skip
    assert _agrees(raw)


def test_nemotron_h_stated_depth_is_ignored() -> None:
    _probed("nemotron_h")
    raw = {"model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"],
           "num_hidden_layers": 52}  # fmt: skip
    assert _agrees(raw)


def test_nemotron_h_layer_pattern_string_is_folded_into_its_plan() -> None:
    # the stated depth is ignored; the legacy pattern string says which layers are built, and
    # is read as the class reads it (dimlint.memory.legacy_fields)
    _probed("nemotron_h")
    raw = {"model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"],
           "num_hidden_layers": 6, "hybrid_override_pattern": "MEM*EM"}  # fmt: skip
    assert _agrees(raw)


def test_glm4_moe_stated_head_dim_is_learned() -> None:
    learned = _probed("glm4_moe")
    if "head_dim" not in learned.get("undeclared", {}):
        pytest.skip("glm4_moe was learned without its head_dim")
    raw = {"model_type": "glm4_moe", "architectures": ["Glm4MoeForCausalLM"], "head_dim": 128,
           "num_hidden_layers": 3, "n_routed_experts": 8}  # fmt: skip
    assert _agrees(raw)
    assert _agrees({**raw, "head_dim": 64})
    unstated = {k: v for k, v in raw.items() if k != "head_dim"}
    assert _agrees(unstated)


def test_deepseek_v2_null_q_lora_rank_is_its_own_regime() -> None:
    learned = _probed("deepseek_v2")
    if "q_lora_rank=null" not in learned.get("variants", {}):
        pytest.skip("deepseek_v2 was learned without the null regime")
    raw = {"model_type": "deepseek_v2", "architectures": ["DeepseekV2ForCausalLM"],
           "q_lora_rank": None, "num_hidden_layers": 3, "n_routed_experts": 8}  # fmt: skip
    assert _agrees(raw)
    assert _agrees({**raw, "q_lora_rank": 768})
