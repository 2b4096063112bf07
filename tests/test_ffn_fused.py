"""DL301/DL302 on families whose ``intermediate_size`` holds gate and up together.

Molmo-7B-D (``ff_proj``: 3584 → 37888, ``ff_out``: 18944 → 3584) and Qwen-7B (``w1``/``w2``
each ``intermediate_size // 2`` = 11008 wide) are released models: their stated width is twice
the MLP, so the ratio rule must judge half of it.
"""

from __future__ import annotations

import json
from typing import Any

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

MOLMO_7B_D = {
    "model_type": "molmo",
    "architectures": ["MolmoForCausalLM"],
    "hidden_size": 3584,
    "intermediate_size": 37888,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "num_hidden_layers": 28,
    "vocab_size": 152064,
    "qkv_bias": True,
}
QWEN_7B = {
    "model_type": "qwen",
    "architectures": ["QWenLMHeadModel"],
    "hidden_size": 4096,
    "intermediate_size": 22016,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "kv_channels": 128,
    "vocab_size": 151936,
}


def codes(config: dict[str, Any]) -> list[str]:
    result = lint_bytes("config.json", json.dumps(config).encode(), Selection())
    return [d.code for d in result.diagnostics]


def test_released_fused_widths_are_quiet() -> None:
    assert "DL301" not in codes(MOLMO_7B_D)
    assert "DL301" not in codes(QWEN_7B)
    assert "DL302" not in codes(QWEN_7B)  # 11008 = 43 × 256


def test_a_fused_width_that_is_really_too_wide_still_fires() -> None:
    wide = {**MOLMO_7B_D, "intermediate_size": 2 * 9 * 3584}  # MLP 9 × hidden
    result = lint_bytes("config.json", json.dumps(wide).encode(), Selection())
    [finding] = [d for d in result.diagnostics if d.code == "DL301"]
    assert "holds gate and up together" in finding.message
    assert finding.pointer == "/intermediate_size"


def test_an_unfused_family_is_judged_on_the_stated_width() -> None:
    llama = {**MOLMO_7B_D, "model_type": "llama", "architectures": ["LlamaForCausalLM"]}
    assert "DL301" in codes(llama)  # 37888 is 10.6 × hidden for a Llama


def test_rules_and_counting_agree_on_fused_families() -> None:
    from dimlint.config.remote_semantics import FUSED_FFN_TYPES
    from dimlint.memory.parameters.remote import REMOTE

    assert {name for name, family in REMOTE.items() if family.fused_ffn} == FUSED_FFN_TYPES


#: T5-11B (google-t5/t5-11b): the inner widths scaled, the residual kept at 1024.
T5_11B = {
    "model_type": "t5",
    "d_model": 1024,
    "d_kv": 128,
    "num_heads": 128,
    "d_ff": 65536,
    "num_layers": 24,
    "vocab_size": 32128,
    "feed_forward_proj": "relu",
}


def test_an_ffn_sized_against_a_wider_attention_is_judged_so() -> None:
    """T5-3B and T5-11B: ``d_ff`` 16384 and 65536 over ``d_model`` 1024 (16 and 64 ×) are 4 ×
    their attention's inner width (32 and 128 heads of 128): no DL301 (held-out batch 3's
    TencentPretrain T5 configs, and transformers' own); a typo is still one."""
    assert "DL301" not in codes(T5_11B)
    assert "DL301" not in codes({**T5_11B, "num_heads": 32, "d_ff": 16384})
    assert "DL301" in codes({**T5_11B, "d_ff": 655360})
    # without a stated head width the inner width is the residual's: 64 × stays a finding
    assert "DL301" in codes({k: v for k, v in T5_11B.items() if k != "d_kv"})
