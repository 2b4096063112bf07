"""DL107's severities follow what the router does: a top-k the routing cannot take fails (error),
a top-k past the experts of the selected groups runs with the group limit void (warning)."""

from __future__ import annotations

import json

import pytest

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

DEEPSEEK = {
    "model_type": "deepseek_v3",
    "hidden_size": 32,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "n_routed_experts": 8,
    "n_group": 2,
    "topk_group": 1,
    "num_experts_per_tok": 2,
    "q_lora_rank": 32,
    "kv_lora_rank": 16,
    "qk_rope_head_dim": 16,
    "qk_nope_head_dim": 32,
    "v_head_dim": 32,
    "num_hidden_layers": 2,
    "vocab_size": 99,
    "intermediate_size": 32,
    "moe_intermediate_size": 16,
}


def _moe(**changes: int) -> list[tuple[str, str]]:
    text = json.dumps({**DEEPSEEK, **changes}, indent=1).encode()
    result = lint_bytes("config.json", text, Selection())
    return [(d.code, d.severity.name.lower()) for d in result.diagnostics if d.code == "DL107"]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, []),
        # transformers' own DeepSeek-V3 test: 8 of 8 experts through 1 of 2 groups runs
        ({"num_experts_per_tok": 8}, [("DL107", "warning")]),
        ({"num_experts_per_tok": 9}, [("DL107", "error")]),  # torch.topk out of range
        ({"n_group": 3}, [("DL107", "error")]),  # the group reshape fails
        ({"topk_group": 3}, [("DL107", "error")]),  # the group top-k fails
    ],
)
def test_only_what_fails_is_an_error(changes: dict[str, int], expected: list[object]) -> None:
    assert _moe(**changes) == expected
