"""Semantics that names alone get wrong (issue 9): legacy kwargs, derived fields, tower widths.

Expected values come from transformers' own config classes (imported here, never by dimlint) or
from published totals quoted in DOMAIN.md.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def mem(tmp_path: Path, config: dict[str, Any], *extra: str) -> dict[str, Any]:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    assert main(["mem", str(path), "--output-format", "json", *extra], out, err) == 0, err
    report: dict[str, Any] = json.loads(out.getvalue())
    return report


def findings(config: dict[str, Any]) -> list[tuple[str, str | None]]:
    result = lint_bytes("config.json", json.dumps(config).encode(), Selection())
    return [(d.code, d.pointer) for d in result.diagnostics]


BLOOM_176B = {
    "architectures": ["BloomForCausalLM"],
    "model_type": "bloom",
    "n_embed": 14336,
    "n_head": 112,
    "n_layer": 70,
    "vocab_size": 250880,
}


def test_bloom_n_embed_is_the_hidden_size(tmp_path: Path) -> None:
    """BloomConfig pops the legacy ``n_embed`` kwarg into hidden_size; BLOOM-176B has
    176,247,271,424 parameters (DOMAIN.md) and no DL101."""
    assert findings(BLOOM_176B) == []
    report = mem(tmp_path, BLOOM_176B, "--kv-dtype", "bf16")
    assert report["params"]["total"] == 176_247_271_424
    assert report["kv_cache"]["bytes_per_token"] == 2 * 70 * 14336 * 2


def test_n_embed_wins_over_hidden_size_as_in_the_config_class() -> None:
    transformers = pytest.importorskip("transformers")
    built = transformers.BloomConfig(n_embed=256, hidden_size=64, n_head=4)
    assert built.hidden_size == 256
    config = {**BLOOM_176B, "n_embed": 256, "hidden_size": 64, "n_head": 4}
    assert findings(config) == []  # 256 / 4 heads: fine; 64 would also divide, so check mem
    config["n_head"] = 3  # 256 % 3 != 0 (64 % 3 != 0 too): reported on n_embed, the key in use
    assert ("DL101", "/n_embed") in findings(config)


QWEN_72B_LIKE = {
    "architectures": ["Qwen2ForCausalLM"],
    "model_type": "qwen2",
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "intermediate_size": 29568,
    "num_hidden_layers": 80,
    "vocab_size": 152064,
    "max_position_embeddings": 32768,
    "max_window_layers": 28,
    "sliding_window": 131072,
    "use_sliding_window": False,
}


@pytest.mark.parametrize("model_type", ["qwen2", "qwen3", "qwen2_moe", "qwen3_moe"])
def test_use_sliding_window_false_means_every_layer_is_full(
    model_type: str, tmp_path: Path
) -> None:
    transformers = pytest.importorskip("transformers")
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING

    stated = {k: v for k, v in QWEN_72B_LIKE.items() if k != "architectures"}
    stated["model_type"] = model_type
    stated["sliding_window"] = 4096
    built = CONFIG_MAPPING[model_type](**{k: v for k, v in stated.items() if k != "model_type"})
    assert not built.sliding_window  # None (Qwen2-MoE: 0)
    layer_types = getattr(built, "layer_types", None)  # Qwen3-MoE has none: no window at all
    assert layer_types is None or set(layer_types) == {"full_attention"}
    report = mem(tmp_path, stated, "--context", "32768", "--kv-dtype", "bf16")
    assert report["kv_cache"]["layers"] == {"full_attention": 80}
    assert report["kv_cache"]["bytes"] == 2 * 80 * 8 * 128 * 2 * 32768
    assert transformers is not None


def test_use_sliding_window_true_keeps_the_windowed_layers(tmp_path: Path) -> None:
    """With the flag on, layers from max_window_layers on slide (Qwen2Config.layer_types)."""
    transformers = pytest.importorskip("transformers")
    stated = {**QWEN_72B_LIKE, "use_sliding_window": True, "sliding_window": 4096}
    built = transformers.Qwen2Config(
        **{k: v for k, v in stated.items() if k not in ("architectures", "model_type")}
    )
    sliding = built.layer_types.count("sliding_attention")
    report = mem(tmp_path, stated, "--context", "32768")
    assert report["kv_cache"]["layers"] == {
        "full_attention": 80 - sliding,
        "windowed_attention": sliding,
    }


QWEN2_VL = {
    "architectures": ["Qwen2VLForConditionalGeneration"],
    "model_type": "qwen2_vl",
    "hidden_size": 3584,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "intermediate_size": 18944,
    "num_hidden_layers": 28,
    "vocab_size": 152064,
    "vision_config": {
        "depth": 32,
        "embed_dim": 1280,
        "hidden_size": 3584,
        "mlp_ratio": 4,
        "num_heads": 16,
        "patch_size": 14,
        "spatial_merge_size": 2,
        "temporal_patch_size": 2,
    },
}


def test_qwen2_vl_vision_tower_geometry_reads_embed_dim() -> None:
    """Qwen2VLVisionConfig: the ViT is embed_dim wide with num_heads heads; hidden_size is the
    merger's output. A planted embed_dim not divisible by the heads is DL101 on embed_dim."""
    assert not [f for f in findings(QWEN2_VL) if f[0] == "DL101"]
    planted = json.loads(json.dumps(QWEN2_VL))
    planted["vision_config"]["embed_dim"] = 1288  # 1288 / 16 = 80.5
    assert ("DL101", "/vision_config/embed_dim") in findings(planted)
    fine = json.loads(json.dumps(QWEN2_VL))
    fine["vision_config"]["hidden_size"] = 3500  # the merger's output: no head split
    assert not [f for f in findings(fine) if f[0] == "DL101"]


def test_qwen2_vl_planted_width_really_fails_in_transformers() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.qwen2_vl.modeling_qwen2_vl import VisionAttention

    vision = transformers.Qwen2VLConfig().vision_config
    vision.embed_dim, vision.num_heads = 1288, 16
    attention = VisionAttention(vision)
    hidden = torch.zeros(4, 1288)
    cos = sin = torch.zeros(4, 1288 // 16)
    with pytest.raises(RuntimeError):
        attention(hidden, cu_seqlens=torch.tensor([0, 4]), position_embeddings=(cos, sin))
