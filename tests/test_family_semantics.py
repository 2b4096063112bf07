"""Per-family semantics the rules need beyond the common names (issue 20's batch leftovers).

Each case is a false finding seen on a training repository, fixed at its cause and pinned here
beside the finding that must stay: MobileBERT's attention splits its bottleneck width, MusicGen's
decoder embedding has a row past its vocabulary, a helper function of the same file states the
head width its callers leave out, an adapter's MLP is sized against the width it projects into,
a ViT-family tower is no language model's MLP, and transformers' Mamba-2 names are a recurrence.
"""

from __future__ import annotations

import json

import pytest
from conftest import lint_text

from dimlint.diagnostics import Severity


def _found(text: str, path: str = "config.json") -> set[tuple[str, int]]:
    """(code, line) of each warning or error."""
    return {
        (d.code, d.span.start_pos.line)
        for d in lint_text(text, path=path)
        if d.span is not None and d.severity >= Severity.WARNING
    }


def _codes(text: str, path: str = "config.json") -> set[str]:
    return {code for code, _ in _found(text, path)}


# --- MobileBERT: the heads split intra_bottleneck_size while use_bottleneck is on ------------


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        # hidden_size need not divide: the blocks run at intra_bottleneck_size (default 128)
        ("MobileBertConfig(hidden_size=37)", set()),
        ("MobileBertConfig(hidden_size=510, intra_bottleneck_size=128)", set()),
        # a bottleneck the heads do not divide is the error, found on the key that states it
        ("MobileBertConfig(hidden_size=512, intra_bottleneck_size=130)", {"DL101"}),
        # without the bottleneck the blocks run at hidden_size itself
        ("MobileBertConfig(hidden_size=510, use_bottleneck=False)", {"DL101", "DL201"}),
    ],
)
def test_mobilebert_heads_split_the_bottleneck_width(call: str, expected: set[str]) -> None:
    text = f"from transformers import MobileBertConfig\n\nconfig = {call}\n"
    assert _codes(text, "model.py") == expected


def test_mobilebert_json_finding_sits_on_the_bottleneck_key() -> None:
    config = {
        "model_type": "mobilebert",
        "hidden_size": 512,
        "intra_bottleneck_size": 130,
        "num_attention_heads": 4,
        "num_hidden_layers": 24,
        "vocab_size": 30528,
    }
    text = json.dumps(config, indent=2)
    (diagnostic,) = [d for d in lint_text(text) if d.code == "DL101"]
    assert diagnostic.span is not None
    line = text.splitlines()[diagnostic.span.start_pos.line - 1]
    assert '"intra_bottleneck_size": 130' in line


# --- MusicGen: nn.Embedding(vocab_size + 1, ...) --------------------------------------------


@pytest.mark.parametrize("model_type", ["musicgen_decoder", "musicgen_melody_decoder"])
def test_musicgen_pad_id_is_the_extra_embedding_row(model_type: str) -> None:
    config = {
        "model_type": model_type,
        "hidden_size": 1024,
        "num_attention_heads": 16,
        "num_hidden_layers": 24,
        "vocab_size": 2048,
        "pad_token_id": 2048,
        "bos_token_id": 2048,
    }
    assert "DL603" not in _codes(json.dumps(config, indent=2))
    config["pad_token_id"] = 2049  # past the extra row too
    assert ("DL603", 7) in _found(json.dumps(config, indent=2))


def test_other_decoders_keep_dl603_at_the_vocabulary_size() -> None:
    config = {
        "model_type": "llama",
        "hidden_size": 1024,
        "num_attention_heads": 16,
        "num_hidden_layers": 2,
        "vocab_size": 2048,
        "pad_token_id": 2048,
    }
    assert "DL603" in _codes(json.dumps(config))


def test_musicgen_composite_in_python() -> None:
    text = (
        "from transformers import MusicgenConfig, MusicgenDecoderConfig\n"
        "\n"
        "decoder = MusicgenDecoderConfig(hidden_size=1024, bos_token_id=2048, pad_token_id=2048)\n"
        "wrong = MusicgenDecoderConfig(hidden_size=1024, pad_token_id=4096)\n"
    )
    assert _found(text, "model.py") == {("DL603", 4)}


# --- a helper function of this file states the head width ------------------------------------

HELPER = """\
def _config(*, embed_dim, num_heads, num_kv_heads):
    return TransformerConfig(
        embed_dim=embed_dim,
        num_heads=num_heads,
        head_dim={head_dim},
        num_kv_heads=num_kv_heads,
    )


BIG = _config(embed_dim=2560, num_heads=8, num_kv_heads=2)
"""


def test_a_helper_that_states_head_dim_gives_it_to_its_callers() -> None:
    # 2560 / 8 = 320 would exceed the kernels' 256 (DL104); the helper makes the heads 256 wide
    assert _codes(HELPER.format(head_dim=256), "model.py") == set()
    # the helper's own head width is still judged (as the call's, at the call)
    assert ("DL104", 10) in _found(HELPER.format(head_dim=320), "model.py")


def test_a_helper_that_computes_head_dim_leaves_its_callers_unread() -> None:
    text = HELPER.format(head_dim="embed_dim // num_heads + 1")
    assert _codes(text, "model.py") == set()


def test_a_helper_that_states_no_head_dim_is_read_in_the_callers_values() -> None:
    text = HELPER.format(head_dim="None").replace("2560, num_heads=8", "1000, num_heads=3")
    assert ("DL101", 10) in _found(text, "model.py")


def test_a_helper_that_passes_head_dim_on_is_read_in_the_callers_values() -> None:
    text = (
        "def _config(*, embed_dim, num_heads, head_dim=None):\n"
        "    return TransformerConfig(embed_dim=embed_dim, num_heads=num_heads,"
        " head_dim=head_dim)\n"
        "\n"
        "\n"
        "BAD = _config(embed_dim=1000, num_heads=3)\n"
    )
    assert ("DL101", 5) in _found(text, "model.py")


# --- DL301: an adapter's projector and the ViT family's towers -------------------------------


def test_an_adapter_mlp_is_judged_against_the_width_it_projects_into() -> None:
    adapter = {
        "hidden_size": 1152,
        "num_attention_heads": 16,
        "num_hidden_layers": 2,
        "head_dim": 72,
        "hidden_act": "silu",
        "intermediate_size": 18944,
        "text_hidden_size": 3584,
    }
    assert "DL301" not in _codes(json.dumps(adapter))
    adapter["text_hidden_size"] = 1152  # projecting into its own width: 16.4 × is a typo
    assert "DL301" in _codes(json.dumps(adapter))


def test_vit_family_towers_are_not_judged_by_language_model_ratios() -> None:
    tower = {
        "embed_dim": 832,
        "vision_cfg": {
            "width": 832,
            "depth": 21,
            "num_heads": 13,
            "intermediate_size": 1408,
            "use_swiglu_ffn": True,
            "hidden_act": "silu",
        },
    }
    assert "DL301" not in _codes(json.dumps(tower, indent=2))
    # the same sizes in a language model's names are judged
    model = {"hidden_size": 832, "num_attention_heads": 13, "num_hidden_layers": 21}
    model |= {"intermediate_size": 1408, "hidden_act": "silu", "model_type": "llama"}
    assert "DL301" in _codes(json.dumps(model))


# --- Mamba-2 in transformers' names -----------------------------------------------------------


def test_mamba2_state_size_marks_a_recurrence() -> None:
    text = (
        "cfg = dict(hidden_size=768, num_heads=24, head_dim=64, state_size=128,"
        " num_hidden_layers=24, expand=2, n_groups=8)\n"
    )
    assert not [d for d in lint_text(text, path="model.py") if d.code == "DL105"]
    attention = text.replace("state_size=128, ", "")
    assert [d for d in lint_text(attention, path="model.py") if d.code == "DL105"]


# --- a config that names its class but not its model type ------------------------------------


@pytest.mark.parametrize(
    ("architecture", "width", "heads"),
    [
        ("MT5ForConditionalGeneration", 512, 6),  # d_kv 64 by default: 6 heads of 64
        ("T5ForConditionalGeneration", 4672, 64),  # ByT5-XXL's sizes, heads of 64
        ("GptOssForCausalLM", 2880, 64),  # head_dim 64 by default, 2880 / 64 = 45 is no head
    ],
)
def test_a_named_class_gives_its_default_head_width(
    architecture: str, width: int, heads: int
) -> None:
    config = {"architectures": [architecture], "d_model": width, "num_heads": heads}
    config |= {"num_layers": 8, "vocab_size": 32128}
    assert not {"DL101", "DL104"} & _codes(json.dumps(config, indent=2))
    config["architectures"] = ["SomethingUnknownForCausalLM"]  # no class, no head width
    assert "DL101" in _codes(json.dumps(config, indent=2)) or width % heads == 0


def test_a_named_class_gives_no_other_default() -> None:
    # a stripped BLOOM entry without its width: BLOOM's default 64 is not taken for it
    config = {"architectures": ["BloomForCausalLM"], "n_layer": 70, "num_attention_heads": 112}
    assert "DL101" not in _codes(json.dumps(config))


def test_a_composite_written_flat_takes_its_text_models_head_width() -> None:
    # Megatron-Bridge's Qwen3.5 test dict: the text model's keys at the top level of a
    # ``qwen3_5`` config; Qwen3_5TextConfig's heads are 256 wide by default
    config = {
        "model_type": "qwen3_5",
        "architectures": ["Qwen3_5ForCausalLM"],
        "hidden_size": 5120,
        "num_attention_heads": 24,
        "num_key_value_heads": 4,
        "num_hidden_layers": 64,
        "intermediate_size": 17408,
        "vocab_size": 248320,
    }
    assert "DL101" not in _codes(json.dumps(config, indent=2))
    # LLaVA's text model (llama) has no default head width: its flat heads must divide
    config |= {"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"]}
    assert "DL101" in _codes(json.dumps(config, indent=2))
