"""Composites with towers of other types than their template learned
(:mod:`dimlint.memory.parameters.swapped_towers`): LLaVA-style models with Mistral, Qwen2 or
Gemma text towers and SigLIP vision towers, against transformers on the meta device; and the
composites where no such count is certain, refused."""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.memory.parameters.swapped_towers import INJECTING, swapped

pytestmark = pytest.mark.skipif(not templates.row("llava"), reason="no shapes table")

TEXT = {
    "mistral": {"model_type": "mistral", "hidden_size": 96, "intermediate_size": 192,
                "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                "vocab_size": 500},
    "qwen2": {"model_type": "qwen2", "hidden_size": 128, "intermediate_size": 160,
              "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 1,
              "vocab_size": 700, "tie_word_embeddings": False},
    "gemma": {"model_type": "gemma", "hidden_size": 64, "intermediate_size": 96,
              "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
              "head_dim": 32, "vocab_size": 300},
}  # fmt: skip
SIGLIP = {"model_type": "siglip_vision_model", "hidden_size": 48, "intermediate_size": 96,
          "num_hidden_layers": 3, "num_attention_heads": 4, "image_size": 56,
          "patch_size": 14}  # fmt: skip


def _counts(raw: dict[str, Any]) -> tuple[int, int | None, bool]:
    import released_ground_truth as truth

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    expected, why = truth.transformers_count(copy.deepcopy(raw))
    assert expected is not None, why
    ours, exact, notes = truth.dimlint_count(copy.deepcopy(raw))
    assert not exact or ours == expected, f"false exact: {ours} vs {expected} ({notes})"
    return expected, ours, exact


@pytest.mark.parametrize("text", sorted(TEXT))
@pytest.mark.parametrize("vision", [None, SIGLIP], ids=["clip", "siglip"])
@pytest.mark.parametrize(
    ("model_type", "architecture"),
    [("llava", "LlavaForConditionalGeneration"), ("llava", "LlavaModel"),
     ("llava_next", "LlavaNextForConditionalGeneration"),
     ("video_llava", "VideoLlavaForConditionalGeneration"),
     ("vipllava", "VipLlavaForConditionalGeneration")],
)  # fmt: skip
def test_swapped_towers_are_exact(
    model_type: str, architecture: str, text: str, vision: dict[str, Any] | None
) -> None:
    raw: dict[str, Any] = {"model_type": model_type, "architectures": [architecture],
                           "text_config": TEXT[text]}  # fmt: skip
    if vision is not None:
        raw["vision_config"] = vision
    expected, ours, exact = _counts(raw)
    assert (ours, exact) == (expected, True)


@pytest.mark.parametrize(
    ("model_type", "key", "tower"),
    [
        # its vision fields were never moved in learning: the projector's width is a constant
        ("mistral_large4", "vision_config", SIGLIP),
        # the config class converts any vision_config to Qwen3-VL's, whatever it states
        ("cosmos3_omni", "vision_config", SIGLIP),
        # the config class completes a stated text_config with its own default one
        ("voxtral", "text_config", TEXT["qwen2"]),
    ],
)
def test_composites_whose_swap_is_uncertain_are_not_exact(
    model_type: str, key: str, tower: dict[str, Any]
) -> None:
    _counts({"model_type": model_type, key: tower})  # asserts no false exact


def test_a_tower_of_the_default_type_is_not_swapped() -> None:
    assert swapped({"model_type": "llava", "text_config": {"model_type": "llama"}}) == []
    assert swapped({"model_type": "llava", "text_config": {"model_type": "qwen2"}}) == [
        "text_config"
    ]


def test_the_injecting_composites_are_those_of_transformers_source() -> None:
    transformers = pytest.importorskip("transformers")
    models = Path(transformers.__file__).parent / "models"
    pattern = re.compile(r"init_kwargs, \*\*")
    found = {
        path.parent.name
        for path in models.glob("*/configuration_*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    }
    assert found == INJECTING
