"""Consistency rules say only what is known: DL601 on an absent window where the class's defaults
are known, DL604 on mrope sections with what the layout does."""

from __future__ import annotations

import json

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.python_front import lint_python
from dimlint.lint.selection import Selection

LAYERS = ["sliding_attention", "full_attention"]


def _codes(config: dict[str, object]) -> list[str]:
    result = lint_bytes("config.json", json.dumps(config, indent=1).encode(), Selection())
    return [d.code for d in result.diagnostics]


def test_an_identified_type_without_a_window_default_is_reported() -> None:
    # Qwen2's window defaults to None: its sliding layers have no window
    config = {"model_type": "qwen2", "layer_types": LAYERS, "num_hidden_layers": 2}
    assert "DL601" in _codes({**config, "sliding_window": None})
    assert "DL601" in _codes({**config, "sliding_window": 0})  # written: known everywhere


def test_an_unidentified_class_may_default_its_window() -> None:
    """transformers' T5Gemma2 tester: the class comes from a class attribute, unknown here,
    and its real default (4096) is the window."""
    text = (
        "from transformers import T5Gemma2TextConfig\n\n\n"
        "class Tester:\n"
        "    text_config_class = T5Gemma2TextConfig\n\n"
        "    def get_config(self):\n"
        "        return self.text_config_class(\n"
        "            hidden_size=32, num_attention_heads=4, num_hidden_layers=2,\n"
        "            layer_types=['sliding_attention', 'full_attention'],\n"
        "        )\n"
    )
    found = lint_python("tests/test_modeling_t5gemma2.py", text.encode(), Selection())
    assert [d.code for d in found.diagnostics] == []
    written = text.replace("num_hidden_layers=2,", "num_hidden_layers=2, sliding_window=0,")
    found = lint_python("tests/test_modeling_t5gemma2.py", written.encode(), Selection())
    assert [d.code for d in found.diagnostics] == ["DL601"]


def test_an_attribute_map_name_is_a_key_the_class_reads() -> None:
    """VipLLaVA maps ``vision_feature_layers`` onto ``vision_feature_layer``: no near miss
    (transformers' own VipLLaVA test passes it); a real near miss of a field still is one."""
    base = {"model_type": "vipllava", "vision_feature_layers": [-2, -5]}
    assert "DL004" not in _codes(base)
    assert "DL004" in _codes({"model_type": "vipllava", "projector_hiden_act": "gelu"})


def _severities(config: dict[str, object], code: str) -> list[str]:
    result = lint_bytes("config.json", json.dumps(config, indent=1).encode(), Selection())
    return [d.severity.name.lower() for d in result.diagnostics if d.code == code]


def test_an_odd_rotary_width_fails_only_where_the_query_is_sliced_by_it() -> None:
    """Heads 6 wide rotating half (GLM's and Phi's default): 3 channels. GLM slices the query
    by its rotary table, which arange(0, 3, 2) makes 4 wide: it runs (transformers' own
    Moonshine test, 4 × 0.9). Phi slices by int(6 × 0.5) = 3 against that table: it fails."""
    sizes = {"hidden_size": 12, "num_attention_heads": 2, "num_hidden_layers": 2}
    assert _severities({"model_type": "glm", **sizes, "head_dim": 6}, "DL103") == ["warning"]
    assert _severities({"model_type": "phi", **sizes}, "DL103") == ["error"]
    # an odd head rotated whole: the table (6) is wider than the head (5), fails everywhere
    odd = {"model_type": "llama", "hidden_size": 10, "num_attention_heads": 2}
    rope = {"rope_type": "default", "partial_rotary_factor": 1.0}
    assert _severities({**odd, "rope_parameters": rope}, "DL103") == ["error"]
