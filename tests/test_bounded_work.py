"""Issue 10, bounded work: every pathological input of the issue ends fast, with exit 0/1.

The inputs are built by :mod:`tests.hostile_inputs` (``python tests/hostile_inputs.py`` times
them in fresh processes). Beside the contract (no internal error, exit 0 or 1, within a few
seconds) this file checks that the closed forms that made them fast give the numbers the
per-layer walk gives: grouping layers must not change a parameter count or a KV cache size.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory.kvcache import kv_cache_bytes
from dimlint.memory.parameters import layer_kinds as layer_module
from dimlint.memory.parameters.count import count_parameters
from tests.conftest import shared_path
from tests.fuzz_support import run, verify
from tests.hostile_inputs import CASES, QWEN2, Case


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_input_ends_fast_and_cleanly(case: Case, tmp_path: Path) -> None:
    argv = case.build(tmp_path)
    outcome = run(argv, limit=case.limit, cwd=tmp_path)
    assert outcome.problems([tmp_path], usage=case.usage) == []


def _spec(config: dict[str, Any]) -> Any:
    return specs_for_document("config.json", config)[0]


def test_a_quintillion_layers_is_counted_by_hand() -> None:
    """Qwen2-7B's shapes with 10**18 layers: embeddings + 10**18 identical layers + norm."""
    layers = 10**18
    spec = _spec({**QWEN2, "num_hidden_layers": layers})
    h, ffn, kv, hd, vocab = 3584, 18944, 4, 128, 152064
    attention = (h * h + h) + 2 * (h * kv * hd + kv * hd) + h * h  # q, k, v with bias; o
    per_layer = attention + 3 * h * ffn + 2 * h  # gated MLP, two RMSNorms
    expected = 2 * vocab * h + layers * per_layer + h  # untied embeddings, final norm
    assert count_parameters(spec).total == expected
    # K and V of every layer, bf16, for one sequence of 4096 tokens
    assert kv_cache_bytes(spec, context=4096, batch=1, kv_dtype="bf16") == (
        layers * 2 * kv * hd * 4096 * 2
    )


#: Configs whose layers differ by index in every way the layer rules know.
PATTERNED: dict[str, dict[str, Any]] = {
    "qwen2-max-window": {**QWEN2, "sliding_window": 4096, "use_sliding_window": True,
                         "max_window_layers": 1000},
    "gemma2-pattern": {"model_type": "gemma2", "hidden_size": 2304, "intermediate_size": 9216,
                       "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                       "vocab_size": 256000, "sliding_window": 4096},
    "layer-types-list": {**QWEN2, "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
                         "sliding_window": 1024},
    "deepseek-first-dense": {"model_type": "deepseek_v3", "hidden_size": 1024,
                             "intermediate_size": 4096, "moe_intermediate_size": 512,
                             "num_attention_heads": 8, "num_key_value_heads": 8,
                             "n_routed_experts": 16, "num_experts_per_tok": 2,
                             "first_k_dense_replace": 3, "q_lora_rank": 256, "kv_lora_rank": 128,
                             "qk_rope_head_dim": 32, "qk_nope_head_dim": 64, "v_head_dim": 64,
                             "vocab_size": 32000},
    "qwen2-moe-sparse-step": {"model_type": "qwen2_moe", "hidden_size": 1024,
                              "intermediate_size": 2816, "moe_intermediate_size": 512,
                              "num_attention_heads": 16, "num_key_value_heads": 16,
                              "num_experts": 8, "num_experts_per_tok": 2,
                              "decoder_sparse_step": 3, "mlp_only_layers": [0, 7, 4097],
                              "vocab_size": 32000},
    "jamba-periods": {"model_type": "jamba", "hidden_size": 1024, "intermediate_size": 4096,
                      "num_attention_heads": 8, "num_key_value_heads": 8, "num_experts": 4,
                      "num_experts_per_tok": 2, "attn_layer_period": 8, "attn_layer_offset": 4,
                      "expert_layer_period": 2, "expert_layer_offset": 1, "vocab_size": 65536},
    "qwen3-next-interval": {"model_type": "qwen3_next", "hidden_size": 1024,
                            "intermediate_size": 4096, "num_attention_heads": 8,
                            "num_key_value_heads": 2, "head_dim": 128, "num_experts": 8,
                            "num_experts_per_tok": 2, "vocab_size": 32000},
    "bamba-indices": {"model_type": "bamba", "hidden_size": 1024, "intermediate_size": 4096,
                      "num_attention_heads": 8, "num_key_value_heads": 8,
                      "attn_layer_indices": [3, 17, 4200], "vocab_size": 32000},
}  # fmt: skip


def _totals(config: dict[str, Any]) -> tuple[int, int]:
    spec = _spec(config)
    return (
        count_parameters(spec).total,
        kv_cache_bytes(spec, context=8192, batch=2, kv_dtype="bf16"),
    )


def _grouped_and_walked(
    config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[tuple[int, int], tuple[int, int]]:
    grouped = _totals(config)
    with monkeypatch.context() as patch:  # every layer its own group: the per-layer walk
        patch.setattr(layer_module, "EXACT_LAYERS", 10**6)
        walked = _totals(config)
    return grouped, walked


@pytest.mark.parametrize("name", sorted(PATTERNED))
@pytest.mark.parametrize("layers", [4097, 5003, 8192])
def test_layer_groups_count_what_the_per_layer_walk_counts(
    name: str, layers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = {**PATTERNED[name], "num_hidden_layers": layers}
    grouped, walked = _grouped_and_walked(config, monkeypatch)
    assert grouped == walked


def test_layer_groups_on_corpus_configs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every released config of one model type per type, stretched to 4,099 layers."""
    folder = shared_path("corpus", "configs")
    seen: set[str] = set()
    checked = 0
    for path in sorted(folder.glob("*.json")):
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        kind = config.get("model_type") if isinstance(config, dict) else None
        if not isinstance(kind, str) or kind in seen or "num_hidden_layers" not in config:
            continue
        seen.add(kind)
        config = {**config, "num_hidden_layers": 4099}
        try:
            grouped, walked = _grouped_and_walked(config, monkeypatch)
        except layer_module.TooIrregular:
            continue
        assert grouped == walked, path.name
        checked += 1
    assert checked >= 20


def _replays() -> list[Path]:
    return sorted((Path(__file__).parent / "fuzz_regressions").glob("*.json"))


@pytest.mark.parametrize("path", _replays(), ids=lambda path: path.stem)
def test_fuzz_regression_replays(path: Path, tmp_path: Path) -> None:
    """Minimised reproducers written by ``scripts/fuzz_campaign.py``."""
    from scripts.fuzz_campaign import Reproducer

    reproducer = Reproducer.load(path)
    argv = reproducer.build(tmp_path)
    outcome = run(argv, limit=15.0, cwd=tmp_path)
    original = reproducer.files.get(reproducer.main, b"")
    assert verify(argv, tmp_path, outcome, reproducer.main, original, usage=reproducer.usage) == []


def test_the_fuzz_checks_can_fail(tmp_path: Path) -> None:
    """The properties the fuzz suite asserts reject what they are meant to reject."""
    from tests.fuzz_support import Outcome, check_findings

    crashed = Outcome(2, "", "dimlint: internal error: ValueError: boom", 0.1)
    assert crashed.problems([tmp_path]) != []
    wrote = Outcome(0, "", "", 0.1, written=["/tmp/elsewhere/x.json"])
    assert wrote.problems([tmp_path]) != []
    text = b'{\n  "hidden_size": 4100,\n  "num_attention_heads": 32\n}\n'
    finding = {"code": "DL101", "file": "c/config.json", "pointer": "/hidden_size", "line": 2,
               "column": 18, "end_line": 2, "end_column": 22, "fix": None}  # fmt: skip
    assert check_findings([finding], text, "config.json") == []
    shifted = {**finding, "column": 17, "end_column": 21}
    assert check_findings([shifted], text, "config.json") != []
    half = {**finding, "fix": {"edits": [{"line": 2, "column": 19, "end_line": 2,
                                          "end_column": 22, "content": "4096"}]}}  # fmt: skip
    assert check_findings([half], text, "config.json") == []  # "100" is a whole JSON value
    broken = {**finding, "fix": {"edits": [{"line": 2, "column": 16, "end_line": 2,
                                            "end_column": 20, "content": "4096"}]}}  # fmt: skip
    assert check_findings([broken], text, "config.json") != []
