"""Expert counts of zero (:mod:`dimlint.tools.zero_counts`): the dense Granite-4.0 models are
``granitemoehybrid`` with ``num_local_experts: 0``, and transformers builds their layers without
a mixture of experts. Shrunk, against transformers on the meta device."""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.tools.zero_counts import candidates, sized_by

pytestmark = pytest.mark.skipif(not templates.row("granitemoehybrid"), reason="no shapes table")

#: granite-4.0-h-micro's layout (hybrid Mamba-2 and attention, no experts), shrunk.
H_MICRO = {"model_type": "granitemoehybrid", "architectures": ["GraniteMoeHybridForCausalLM"],
           "hidden_size": 128, "intermediate_size": 256, "shared_intermediate_size": 256,
           "num_attention_heads": 4, "num_key_value_heads": 2, "num_hidden_layers": 6,
           "layer_types": ["mamba", "mamba", "attention", "mamba", "mamba", "attention"],
           "mamba_d_head": 16, "mamba_n_heads": 16, "mamba_d_state": 32, "mamba_n_groups": 1,
           "mamba_expand": 2, "mamba_d_conv": 4, "num_local_experts": 0,
           "num_experts_per_tok": 0, "vocab_size": 1000, "tie_word_embeddings": True,
           "position_embedding_type": "nope"}  # fmt: skip


def _counts(raw: dict[str, Any]) -> tuple[int, int | None, bool]:
    from released_ground_truth import compared

    return compared(raw)


def test_the_zero_was_learned() -> None:
    row = templates.row("granitemoehybrid") or {}
    assert "num_local_experts" in row.get("zero_counts", [])
    assert "num_local_experts" in candidates(row)
    assert any("experts" in name for name in sized_by(row, "num_local_experts"))


@pytest.mark.parametrize(
    "change",
    [{}, {"num_hidden_layers": 4, "layer_types": ["mamba", "attention"] * 2},
     {"tie_word_embeddings": False}, {"num_local_experts": 4, "num_experts_per_tok": 2}],
)  # fmt: skip
def test_no_experts_is_exact(change: dict[str, Any]) -> None:
    expected, ours, exact = _counts({**H_MICRO, **change})
    assert (ours, exact) == (expected, True)
