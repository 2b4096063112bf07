"""Structure learning reached only through builds a one-field move never makes (issue 19).

Each of these left a released config outside its template, answered by a hand recipe:

- a field no size divides whose tensors follow a curve (Swin's ``window_size``: the position
  table has ``(2 * window_size - 1) ** 2`` rows): Donut-Swin at window 10 was 12% low;
- a flag the class refuses alone (BERT's ``add_cross_attention`` needs ``is_decoder``): the
  BERT and RoBERTa decoders of every TrOCR-style vision-encoder-decoder;
- a flag flipped in the primary class that adds a tensor another class holds anyway (MBart's
  untied decoder embedding, always present in ``MBartForCausalLM``): Nougat's decoder;
- a type no class builds at its default (ESM's ``vocab_size`` is None), whose string regimes
  (``position_embedding_type = "rotary"``, every ESM-2) nest inside the regime that builds;
- numbers that build only together (Dots1's routed and shared expert counts);
- a layer count a list counts too (GPT-Neo's ``attention_types``, a pattern repeated
  ``num_layers / 2`` times, which the validator checks): GPT-Neo-125M's 12 layers were 68% high.

Each relearns a model type and checks the run-time's count against the model transformers
builds on the meta device. The pure pieces are tested without transformers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from dimlint.memory.parameters import counted_lists
from dimlint.tools import (
    generate_shapes,
    list_items,
    regime_points,
    unset_numbers,
)
from tests.learned_rows_support import count_with_row, learned, transformers_or_skip, truth

#: CPU seconds each relearned type gets (the table's own budget).
_BUDGET_S = 60.0


def test_a_list_of_zeros_pairs_with_no_head_counts() -> None:
    lists = {"pretrained_window_sizes": [0, 0, 0, 0], "num_heads": [3, 6, 12, 24]}
    assert list_items.divisions(lists) == []
    widths = {"hidden_sizes": [64, 128], "num_attention_heads": [1, 2]}
    assert list_items.divisions(widths) == [["hidden_sizes", "num_attention_heads"]]


def test_numbers_that_build_only_together_are_all_required() -> None:
    def builds(class_name: str, changes: Mapping[str, object]) -> bool:
        return {"n_routed_experts", "n_shared_experts"} <= set(changes)

    fields = ["n_routed_experts", "n_shared_experts", "num_experts_per_tok"]
    found = unset_numbers.required_numbers(["Dots1Model"], fields, builds, 8)
    assert found == {"n_routed_experts": 8, "n_shared_experts": 8}
    assert unset_numbers.required_numbers(["Dots1Model"], fields, lambda *_: False, 8) == {}


def test_a_regime_every_row_lies_in_does_not_order_the_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    held = {"vocab_size": 8}
    assert not regime_points.nests("position_embedding_type", held)
    monkeypatch.setattr(generate_shapes, "_ROOTS", {"vocab_size"})
    assert generate_shapes._nests("position_embedding_type", held)
    assert not generate_shapes._nests("position_embedding_type", {"z": 1, **held})


class _Config:
    def __init__(self, **fields: Any) -> None:
        self.fields = fields

    def to_dict(self) -> dict[str, Any]:
        return dict(self.fields)


def test_a_list_that_counts_layers_is_scaled_with_them() -> None:
    config = _Config(
        num_layers=24,
        attention_types=[[["global", "local"], 12]],
        window_sizes=[3, 5],  # 3 · 12 / 24 is not whole: this list does not count layers
        layer_names=["a", "b"],
    )
    assert counted_lists.companions(config, "num_layers", 24, 12) == {
        "attention_types": [[["global", "local"], 6]]
    }
    assert counted_lists.companions(config, "num_layers", 24, 25) == {}
    assert counted_lists.companions(config, "text_config.num_layers", 24, 12) == {}


def test_a_layer_count_a_list_repeats_is_learned_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers_or_skip()
    row = learned("gpt_neo", _BUDGET_S)
    assert "num_layers" not in row["fixed"]
    raw = {"model_type": "gpt_neo", "hidden_size": 256, "num_heads": 4, "vocab_size": 1000}
    for layers in (4, 12, 32):
        stated = {
            **raw,
            "num_layers": layers,
            "attention_types": [[["global", "local"], layers // 2]],
        }
        counted = count_with_row(monkeypatch, row, stated, "GPTNeoForCausalLM")
        assert counted == truth(stated, "GPTNeoForCausalLM"), layers
    # the layer count moved alone: the class refuses it, so the template does not answer
    alone = count_with_row(monkeypatch, row, {**raw, "num_layers": 12}, "GPTNeoForCausalLM")
    assert isinstance(alone, str)
    assert "attention_types" in alone


def test_a_window_size_is_learned_on_its_curve(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers_or_skip()
    row = learned("swin", _BUDGET_S)
    assert "window_size" not in row["fixed"]
    raw = {
        "model_type": "swin",
        "embed_dim": 48,
        "depths": [2, 2, 2, 2],
        "num_heads": [3, 6, 12, 24],
        "image_size": 384,
        "window_size": 12,
    }
    for window in (10, 12, 16):
        stated = {**raw, "window_size": window}
        counted = count_with_row(monkeypatch, row, stated, "SwinModel")
        assert counted == truth(stated, "SwinModel"), window


def test_a_flag_refused_alone_is_learned_beside_its_companion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    transformers_or_skip()
    row = learned("bert", _BUDGET_S)
    assert "add_cross_attention" not in row["fixed"]
    raw = {
        "model_type": "bert",
        "hidden_size": 256,
        "num_attention_heads": 4,
        "intermediate_size": 1024,
        "num_hidden_layers": 6,
        "is_decoder": True,
        "add_cross_attention": True,
    }
    counted = count_with_row(monkeypatch, row, raw, "BertLMHeadModel")
    assert counted == truth(raw, "BertLMHeadModel")
    plain = {**raw, "add_cross_attention": False}
    assert count_with_row(monkeypatch, row, plain, "BertLMHeadModel") == truth(
        plain, "BertLMHeadModel"
    )
    assert counted != truth(plain, "BertLMHeadModel")


def test_a_tensor_another_class_holds_anyway_is_no_flag_tensor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    transformers_or_skip()
    row = learned("mbart", _BUDGET_S)
    assert not row["classes"]["MBartForCausalLM"].get("unlearned_flags")
    raw = {
        "model_type": "mbart",
        "d_model": 256,
        "encoder_layers": 2,
        "decoder_layers": 4,
        "encoder_attention_heads": 4,
        "decoder_attention_heads": 4,
        "encoder_ffn_dim": 512,
        "decoder_ffn_dim": 512,
        "vocab_size": 5000,
        "tie_word_embeddings": False,
    }
    for tie in (False, True):
        stated = {**raw, "tie_word_embeddings": tie}
        assert count_with_row(monkeypatch, row, stated, "MBartForCausalLM") == truth(
            stated, "MBartForCausalLM"
        )


def test_regimes_nest_inside_the_one_that_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers_or_skip()
    row = learned("esm", _BUDGET_S)
    assert row["regimes"] == [["vocab_size", ">", 0]]
    raw = {
        "model_type": "esm",
        "hidden_size": 320,
        "intermediate_size": 1280,
        "num_hidden_layers": 6,
        "num_attention_heads": 20,
        "vocab_size": 33,
        "position_embedding_type": "rotary",
        "emb_layer_norm_before": False,
        "pad_token_id": 1,
    }
    for architecture in ("EsmForMaskedLM", "EsmForSequenceClassification"):
        assert count_with_row(monkeypatch, row, raw, architecture) == truth(raw, architecture)
    unset = {key: value for key, value in raw.items() if key != "vocab_size"}
    assert isinstance(count_with_row(monkeypatch, row, unset, "EsmForMaskedLM"), str)


def test_numbers_required_together_open_a_nested_regime(monkeypatch: pytest.MonkeyPatch) -> None:
    transformers_or_skip()
    row = learned("dots1", _BUDGET_S)
    raw = {
        "model_type": "dots1",
        "hidden_size": 256,
        "intermediate_size": 512,
        "moe_intermediate_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 64,
        "vocab_size": 1000,
        "n_routed_experts": 8,
        "n_shared_experts": 1,
        "num_experts_per_tok": 2,
        "first_k_dense_replace": 1,
        "tie_word_embeddings": False,
    }
    assert count_with_row(monkeypatch, row, raw, "Dots1ForCausalLM") == truth(
        raw, "Dots1ForCausalLM"
    )


def test_a_stage_width_at_another_numbers_value_that_drops_a_tensor_is_paired() -> None:
    """A ResNet-like stage keeps its shortcut while its width differs from the stem's."""
    from dimlint.tools import item_equalities

    base = {("stem.weight", 0): ((64, 3), 1), ("stages.0.shortcut.weight", 0): ((256, 64), 1)}

    def build(changes: Mapping[str, object]) -> dict[tuple[str, int], tuple[tuple[int, ...], int]]:
        width = changes.get("hidden_sizes[0]", 256)
        groups = {("stem.weight", 0): ((64, 3), 1)}
        if width != 64:
            groups[("stages.0.shortcut.weight", 0)] = ((int(str(width)), 64), 1)
        return groups

    numbers = {"hidden_sizes[0]": 256, "embedding_size": 64, "num_channels": 3, "stem_id": 64}
    found = item_equalities.found(numbers, base, build, lambda path: path.endswith("_id"), 1e12)
    assert found == [["hidden_sizes[0]", "embedding_size"]]
    # past its deadline it probes nothing more
    assert item_equalities.found(numbers, base, build, lambda path: False, -1.0) == []


def _resnet(layer_type: str, depths: list[int], widths: list[int]) -> dict[str, Any]:
    return {
        "model_type": "resnet",
        "architectures": ["ResNetForImageClassification"],
        "layer_type": layer_type,
        "depths": depths,
        "hidden_sizes": widths,
        "embedding_size": 64,
        "num_labels": 10,
    }


@pytest.mark.parametrize(
    "raw",
    [
        _resnet("basic", [2, 2, 2, 2], [64, 128, 256, 512]),  # ResNet-18: no first shortcut
        _resnet("basic", [3, 4, 6, 3], [64, 128, 256, 512]),  # ResNet-34
        _resnet("bottleneck", [3, 4, 6, 3], [256, 512, 1024, 2048]),  # ResNet-50
        _resnet("basic", [2, 2, 2, 2], [128, 256, 512, 1024]),  # a first shortcut again
    ],
)
def test_the_table_counts_resnets_whose_first_stage_is_as_wide_as_the_stem(
    raw: dict[str, Any],
) -> None:
    from dimlint.memory.parameters import templates

    found = templates.learned_tensors(raw, "ResNetForImageClassification")
    assert not isinstance(found, templates.Refusal), found
    assert sum(t.numel for t in found) == truth(raw, "ResNetForImageClassification")


def test_without_its_equality_regime_the_row_refuses_the_equal_widths(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from dimlint.memory.parameters import templates

    row = templates.row("resnet")
    assert row is not None
    assert ["hidden_sizes[0]", "embedding_size"] in row["unequal"]
    plain = {key: value for key, value in row.items() if key not in ("variants", "regimes")}
    resnet18 = _resnet("bottleneck", [2, 2, 2, 2], [64, 128, 256, 512])
    refused = count_with_row(monkeypatch, plain, resnet18, "ResNetForImageClassification")
    assert isinstance(refused, str)
    assert "hidden_sizes[0] equals embedding_size (64)" in refused
