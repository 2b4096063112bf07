"""A template answers only inside what it learned (issue 19): cases found on released configs.

Each case is a released config that a template once counted as exact although transformers
builds another model (see ``tests/data/released_configs``): the template must now refuse with
the reason, so ``mem`` labels its count an estimate. The same config inside the learned domain
still gets the template's tensors, so these tests fail if the guard refuses everything.
"""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.memory.parameters.templates import Refusal, learned_tensors

pytestmark = pytest.mark.skipif(not templates.row("albert"), reason="no shapes table")


def _labels(count: int) -> dict[str, str]:
    return {str(index): f"LABEL_{index}" for index in range(count)}


def _refusal(raw: dict[str, Any], architecture: str) -> str:
    found = learned_tensors(raw, architecture)
    assert isinstance(found, Refusal), f"{architecture} counted outside its learned domain"
    return found.reason


def _counted(raw: dict[str, Any], architecture: str) -> int:
    found = learned_tensors(raw, architecture)
    assert isinstance(found, list), found
    return sum(tensor.numel for tensor in found)


def test_head_learned_with_a_field_equal_to_the_label_count() -> None:
    # ALBERT's classifier axis was once fitted as type_vocab_size (2, like the default labels);
    # relearned with the label count moved, its head reads the labels.
    raw = {"model_type": "albert", "architectures": ["AlbertForSequenceClassification"]}
    assert _agrees({**raw, "id2label": _labels(7)})


def test_head_of_a_row_learned_at_two_labels_only() -> None:
    # A row learned before label counts were (Swin's): its head was seen with 2 labels only.
    raw = {"model_type": "swin", "architectures": ["SwinForImageClassification"]}
    assert _counted({**raw, "id2label": _labels(2)}, "SwinForImageClassification") > 0
    # relearned with the label count moved, ImageNet's 1000 rows are counted, as transformers
    # builds them
    assert _agrees({**raw, "id2label": _labels(1000)})


def test_roberta_like_head_is_a_label_head() -> None:
    # ELECTRA's (and RoBERTa's) head ends in ``classifier.out_proj``: a KcELECTRA-small fine-tune
    # with 11 labels was counted with the 2 rows the default build had.
    raw = {"model_type": "electra", "architectures": ["ElectraForSequenceClassification"]}
    # relearned with the label count moved, the 11-label head is counted, not refused
    assert _agrees({**raw, "id2label": _labels(11)})


def test_head_axis_fitted_to_a_field_the_config_moves() -> None:
    # CamemBERT states type_vocab_size 1: the head axis fitted as type_vocab_size would give its
    # two labels one row (transformers builds a 2-row out_proj).
    raw = {"model_type": "camembert", "architectures": ["CamembertForSequenceClassification"]}
    labelled = {**raw, "id2label": _labels(2)}
    assert _counted(labelled, "CamembertForSequenceClassification") > 0
    # relearned with the label count moved, the head reads the labels, not type_vocab_size
    assert _agrees({**labelled, "type_vocab_size": 1})


def test_head_behind_a_flatten_is_a_label_head() -> None:
    # ResNet's head is ``classifier.1`` (after a Flatten): 1000 ImageNet labels.
    raw = {"model_type": "resnet", "architectures": ["ResNetForImageClassification"]}
    assert _agrees({**raw, "id2label": _labels(1000)})


def test_sub_config_of_another_model_type() -> None:
    # ViT-GPT2 captioning: the template's decoder is the default BERT, this one is GPT-2.
    raw = {
        "model_type": "vision-encoder-decoder",
        "encoder": {"model_type": "vit"},
        "decoder": {"model_type": "gpt2", "add_cross_attention": True},
    }
    reason = _refusal(raw, "VisionEncoderDecoderModel")
    assert reason.startswith("decoder.model_type = gpt2: the template was learned with bert")
    bert = {**raw, "decoder": {"model_type": "bert", "add_cross_attention": True}}
    found = learned_tensors(bert, "VisionEncoderDecoderModel")
    assert not (isinstance(found, Refusal) and "model_type" in found.reason)


def test_boolean_named_like_an_id_is_varied() -> None:
    # ERNIE 3.0's use_task_id adds task-type embeddings; the generator once skipped it as a
    # token id (its name ends in ``_id``), so no build had them. Now it is a learned switch.
    raw = {"model_type": "ernie", "architectures": ["ErnieForMaskedLM"]}
    assert _agrees({**raw, "use_task_id": False})
    assert _agrees({**raw, "use_task_id": True, "task_type_vocab_size": 5})


@pytest.mark.parametrize(
    ("raw", "architecture", "tensor"),
    [
        # Falcon-180B: the new-architecture fused QKV was seen at the default width only.
        (
            {"model_type": "falcon", "new_decoder_architecture": True, "hidden_size": 14848,
             "num_attention_heads": 232, "num_kv_heads": 8, "num_hidden_layers": 80},
            "FalconForCausalLM",
            "query_key_value",
        ),
        # DeBERTa-v3: relative embeddings (sized by position_buckets) seen in one build only.
        (
            {"model_type": "deberta-v2", "relative_attention": True, "position_buckets": 256,
             "hidden_size": 1024, "num_hidden_layers": 24, "num_attention_heads": 16,
             "intermediate_size": 4096, "position_biased_input": False},
            "DebertaV2Model",
            "rel_embeddings",
        ),
    ],
)  # fmt: skip
def test_constant_axis_of_a_tensor_only_a_flipped_flag_builds(
    raw: dict[str, Any], architecture: str, tensor: str
) -> None:
    # once refused (the flag's tensor seen at the default sizes only): Falcon's fused QKV is
    # now fitted as a width plus a product, DeBERTa's relative embeddings in the regime of
    # position_buckets; the count is exact where it is labelled so
    found = learned_tensors(raw, architecture)
    assert not (isinstance(found, Refusal) and tensor in found.reason)
    assert _agrees({**raw, "architectures": [architecture]})


def test_flipped_flag_at_the_default_sizes_still_counts() -> None:
    # At the learned width the one build is the model: the template still answers.
    assert _counted({"model_type": "falcon", "new_decoder_architecture": True}, "") > 0


def _plan(kinds: str) -> list[str]:
    names = {"a": "full_attention", "s": "sliding_attention", "c": "conv", "l": "linear_attention"}
    return [names[kind] for kind in kinds]


def test_per_layer_plan_inside_a_sub_config() -> None:
    # LFM2.5-VL: the text tower's conv layers (no default lfm2 build has any) were once counted
    # as attention; the variant learned from a seed plan with them counts each kind.
    text = {"model_type": "lfm2", "num_hidden_layers": 6}
    raw = {"model_type": "lfm2_vl", "text_config": {**text, "layer_types": _plan("ccacac")}}
    architecture = "Lfm2VlForConditionalGeneration"
    assert _agrees({**raw, "architectures": [architecture]})
    # a sliding layer (built as attention) is no kind the seed plan learned beside convolutions
    sliding = {**raw, "text_config": {**text, "layer_types": _plan("ccscac")}}
    assert _refusal(sliding, architecture).startswith("text_config.layer_types states")
    # The plan the class derives (all attention) is the one the template learned.
    same = {"model_type": "lfm2_vl", "text_config": {**text, "layer_types": _plan("aaaaaa")}}
    assert _counted(same, "Lfm2VlForConditionalGeneration") == _counted(
        {"model_type": "lfm2_vl", "text_config": text}, "Lfm2VlForConditionalGeneration"
    )


def test_per_layer_plan_at_the_top_level() -> None:
    raw = {"model_type": "lfm2", "num_hidden_layers": 4, "layer_types": _plan("caca")}
    assert _agrees({**raw, "architectures": ["Lfm2ForCausalLM"]})
    assert "2 attention, 2 conv" in _refusal(
        {**raw, "layer_types": _plan("cscs")}, "Lfm2ForCausalLM"
    )


def test_mixed_plan_the_template_learned() -> None:
    # Qwen3-Next's default mixes linear and full attention layers: a template learned on that
    # mix counts a stated plan with the same split; another split, or attention only, is
    # outside. Sliding and full attention layers share their weights (gpt-oss alternates them).
    raw = {"model_type": "qwen3_next", "num_hidden_layers": 8}
    derived = _counted(raw, "Qwen3NextForCausalLM")
    assert _counted({**raw, "layer_types": _plan("lllallla")}, "Qwen3NextForCausalLM") == derived
    other = _refusal({**raw, "layer_types": _plan("llaallla")}, "Qwen3NextForCausalLM")
    assert other.startswith("layer_types states 3 attention, 5 linear layers")
    only = _refusal({**raw, "layer_types": _plan("a" * 8)}, "Qwen3NextForCausalLM")
    assert only.startswith("layer_types states 8 attention layers; the template was learned on")
    oss = {"model_type": "gpt_oss", "num_hidden_layers": 4}
    assert _counted({**oss, "layer_types": _plan("sasa")}, "GptOssForCausalLM") == _counted(
        oss, "GptOssForCausalLM"
    )


def test_attention_only_plan_for_a_template_learned_on_other_mixers() -> None:
    # Granite-4-hybrid's default layers are all Mamba: an all-attention plan is another model,
    # counted from the variant learned with attention layers beside the Mamba ones (the legacy
    # name "attention" read as transformers renames it)
    raw = {"model_type": "granitemoehybrid", "num_hidden_layers": 4}
    architecture = "GraniteMoeHybridForCausalLM"
    assert _agrees({**raw, "layer_types": ["attention"] * 4, "architectures": [architecture]})
    assert _agrees(
        {**raw, "layer_types": ["mamba", "attention"] * 2, "architectures": [architecture]}
    )


def test_list_learned_at_its_default_only() -> None:
    # UniSpeech's feature encoder widths: all 512 by default, so rotating them changed nothing
    # and no build learned another value.
    raw = {"model_type": "unispeech", "vocab_size": 32}
    assert _counted({**raw, "conv_dim": [512] * 7}, "UniSpeechForCTC") > 0
    reason = _refusal({**raw, "conv_dim": [256] * 6 + [512]}, "UniSpeechForCTC")
    assert reason.startswith("conv_dim"), reason
    assert "256" in reason, reason
    # wav2vec2's, relearned at a larger budget, are learned item by item
    wav2vec2 = {"model_type": "wav2vec2", "vocab_size": 32, "architectures": ["Wav2Vec2ForCTC"]}
    assert _agrees({**wav2vec2, "conv_dim": [256] * 6 + [512]})


def test_index_list_selecting_as_many_layers() -> None:
    # SAM's global-attention layers: which ones does not change the count, how many does.
    raw = {"model_type": "sam_vision_model", "num_hidden_layers": 12}
    same = _counted({**raw, "global_attn_indexes": [2, 5, 8, 11]}, "SamVisionModel")
    assert _counted({**raw, "global_attn_indexes": [1, 4, 7, 10]}, "SamVisionModel") == same
    reason = _refusal({**raw, "global_attn_indexes": [5, 11]}, "SamVisionModel")
    assert reason.startswith("global_attn_indexes = [5, 11] differs")


def test_index_list_inside_a_sub_config() -> None:
    # Qwen3-VL's deepstack mergers: one per entry of vision_config.deepstack_visual_indexes.
    raw = {"model_type": "qwen3_vl", "vision_config": {"model_type": "qwen3_vl_vision"}}
    vision = raw["vision_config"]
    same = _counted(raw, "Qwen3VLForConditionalGeneration")
    moved = {**raw, "vision_config": {**vision, "deepstack_visual_indexes": [5, 11, 17]}}
    assert _counted(moved, "Qwen3VLForConditionalGeneration") == same
    fewer = {**raw, "vision_config": {**vision, "deepstack_visual_indexes": [5, 11]}}
    reason = _refusal(fewer, "Qwen3VLForConditionalGeneration")
    assert reason.startswith("vision_config.deepstack_visual_indexes = [5, 11] differs"), reason


def test_derived_index_list_shown_by_the_tensors() -> None:
    # Mllama's text tower derives cross_attention_layers (8 of 40 layers): at that value it is
    # the learned model, another selection of 8 has the same tensors, 4 entries do not.
    raw = {"model_type": "mllama", "text_config": {"model_type": "mllama_text_model"}}
    text = raw["text_config"]
    learned = _counted(raw, "MllamaForConditionalGeneration")
    eight = {**raw, "text_config": {**text, "cross_attention_layers": list(range(1, 40, 5))}}
    assert _counted(eight, "MllamaForConditionalGeneration") == learned
    four = {**raw, "text_config": {**text, "cross_attention_layers": [3, 13, 23, 33]}}
    reason = _refusal(four, "MllamaForConditionalGeneration")
    assert reason.startswith("text_config.cross_attention_layers selects 4 layers"), reason


def test_derived_flag_list_equal_to_the_class_default() -> None:
    # SmolLM3's no_rope_layers (a NoPE layer every 4th) is derived, so only its recorded
    # default is known learned: another pattern is refused (no tensor shows NoPE layers).
    raw = {"model_type": "smollm3"}
    default = [int((index + 1) % 4 != 0) for index in range(36)]
    assert _counted({**raw, "no_rope_layers": default}, "SmolLM3ForCausalLM") > 0
    reason = _refusal({**raw, "no_rope_layers": [1] * 18 + [0] * 18}, "SmolLM3ForCausalLM")
    assert reason.startswith("no_rope_layers marks 18 of 36 layers"), reason


def test_mixed_plan_with_the_kinds_counts_swapped() -> None:
    # DeepSeek-V4 learned 23 heavily and 20 sparsely compressed layers: 23 sparse and 20
    # heavy ones pass the repeat counts but are another model.
    kinds = {"c": "compressed_sparse_attention", "h": "heavily_compressed_attention"}
    default = "hh" + "".join("c" if index % 2 else "h" for index in range(41))
    swapped = "cc" + "".join("h" if index % 2 else "c" for index in range(41))
    raw = {"model_type": "deepseek_v4"}
    plan = [kinds[kind] for kind in default]
    assert _counted({**raw, "layer_types": plan}, "DeepseekV4ForCausalLM") == _counted(
        raw, "DeepseekV4ForCausalLM"
    )
    # the layer tensors are tagged with their kinds: a plan of other counts is counted
    swapped_plan = [kinds[kind] for kind in swapped]
    arch = {"architectures": ["DeepseekV4ForCausalLM"]}
    assert _agrees({**raw, **arch, "layer_types": swapped_plan})


def test_legacy_lists_folded_as_the_class_folds_them() -> None:
    # DeepSeek-V4's compress_ratios become layer_types (0 sliding, 4 CSA, 128 HCA); the
    # default's ratios are the learned model, a released plan with sliding layers is not.
    ratios = [128, 128] + [4 if index % 2 else 128 for index in range(41)]
    raw = {"model_type": "deepseek_v4"}
    assert _counted({**raw, "compress_ratios": [*ratios, 0]}, "DeepseekV4ForCausalLM") == (
        _counted(raw, "DeepseekV4ForCausalLM")
    )
    released = {**raw, "compress_ratios": [0, 0] + [4 if i % 2 == 0 else 128 for i in range(42)]}
    found = learned_tensors(released, "DeepseekV4ForCausalLM")
    # a plan with sliding layers, a kind the default never builds, stays outside
    assert isinstance(found, Refusal) or _agrees(
        {**released, "architectures": ["DeepseekV4ForCausalLM"]}
    )
    # A compression rate other than the class's sizes the compressor's position bias.
    reason = _refusal({**raw, "compress_rate_csa": 8}, "DeepseekV4ForCausalLM")
    assert reason.startswith("compress_rates = "), reason
    assert _counted({**raw, "compress_rate_csa": 4}, "DeepseekV4ForCausalLM") > 0
    # Kimi-Linear's linear_attn_config: 1-indexed full and KDA layers, the KDA head sizes.
    kimi = {"model_type": "kimi_linear", "num_experts": 256, "num_shared_experts": 1}
    full = [index + 1 for index in range(27) if index and index % 4 == 0]
    kda = [index for index in range(1, 28) if index not in full]
    linear = {"full_attn_layers": full, "kda_layers": kda, "head_dim": 128, "num_heads": 32}
    assert _counted({**kimi, "linear_attn_config": linear}, "KimiLinearForCausalLM") == (
        _counted(kimi, "KimiLinearForCausalLM")
    )
    moved = {**linear, "full_attn_layers": [*full, 27], "kda_layers": kda[:-1]}
    # 7 full and 20 linear layers: each kind's tagged tensors counted from the plan
    assert _agrees(
        {**kimi, "linear_attn_config": moved, "architectures": ["KimiLinearForCausalLM"]}
    )
    wider = {**linear, "num_heads": 16}
    reason = _refusal({**kimi, "linear_attn_config": wider}, "KimiLinearForCausalLM")
    assert "linear_num_heads" in reason, reason


def test_legacy_lists_left_as_written_when_the_class_would_fail() -> None:
    # A Kimi plan that names a layer twice or leaves one out, under a hostile layer count, is
    # not folded (nor allocated): the template refuses it as the legacy key it still is.
    from dimlint.memory.legacy_fields import folded

    lists = {"full_attn_layers": [1], "kda_layers": [2]}
    raw = {"model_type": "kimi_linear", "num_hidden_layers": 10**18, "linear_attn_config": lists}
    assert folded(raw, "kimi_linear") is raw
    short = {"model_type": "deepseek_v4", "num_hidden_layers": 43, "compress_ratios": [0, 4]}
    assert "compress_ratios" in folded(short, "deepseek_v4")
    reason = _refusal(short, "DeepseekV4ForCausalLM")
    assert reason == "compress_ratios is a legacy key deepseek_v4's config class maps", reason


# Rows learned with the label count and string fields moved (issue 19, items 1 and 2): checked
# first on a synthetic row (the run-time's reading of ``labels_range``, ``num_labels`` axes,
# ``strings``, ``variants`` and ``unlearned_flags``), then on released-like configs of the
# relearned rows against transformers' own builds.


def _dim(field: str) -> list[list[object]]:
    return [[1, 1, [[field, 1]]]]


def _row(**extra: Any) -> dict[str, Any]:
    one = [[1, 1, []]]
    head = ["head.weight", one, [_dim("num_labels"), _dim("d_model")], []]
    wi = ["wi.weight", one, [_dim("d_ff"), _dim("d_model")], [["is_gated_act", False]]]
    wi_0 = ["wi_0.weight", one, [_dim("d_ff"), _dim("d_model")], [["is_gated_act", True]]]
    record = {"total": 0, "num_labels": 2, "labels_range": [1, 9], "tensors": [head, wi, wi_0]}
    encoder = {**record, "unlearned_flags": ["is_gated_act"]}
    fields = {"d_model": 8, "d_ff": 16, "is_gated_act": False}
    return {
        "primary": "T5Model",
        "classes": {"T5Model": record, "T5EncoderModel": encoder},
        "defaults": fields,
        "declared": fields,
        "examined": sorted(fields),
        "strings": {
            "feed_forward_proj": {
                "default": "relu",
                "inside": {"gated-gelu": {"is_gated_act": True}},
                "switches": ["gated-silu"],
            }
        },
        **extra,
    }


@pytest.fixture
def synthetic(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    learned = _row()
    # learned with the string stated (its own default): another tensor
    variant = _row()
    variant["strings"] = {"feed_forward_proj": {"default": "gated-silu", "inside": {}}}
    variant["stated"] = {"feed_forward_proj": "gated-silu"}  # as the generator records it
    gate = ["gate.weight", [[1, 1, []]], [_dim("d_model")], []]
    variant["classes"]["T5Model"] = {**learned["classes"]["T5Model"], "tensors": [gate]}
    learned["variants"] = {"feed_forward_proj=gated-silu": variant}
    monkeypatch.setattr(templates, "row", lambda model_type: learned)
    return learned


def _shapes(raw: dict[str, Any], architecture: str) -> dict[str, tuple[int, ...]]:
    found = learned_tensors({"model_type": "t5", **raw}, architecture)
    assert isinstance(found, list), found
    return {tensor.name: tensor.shape for tensor in found}


def test_head_rows_read_the_label_count(synthetic: dict[str, Any]) -> None:
    assert _shapes({}, "T5Model")["head.weight"] == (2, 8)
    assert _shapes({"id2label": _labels(7)}, "T5Model")["head.weight"] == (7, 8)
    assert _shapes({"num_labels": 9}, "T5Model")["head.weight"] == (9, 8)
    reason = _refusal({"model_type": "t5", "id2label": _labels(10)}, "T5Model")
    assert reason == "T5Model's head was learned with 1 to 9 labels, not 10"


def test_a_string_that_sets_a_learned_flag(synthetic: dict[str, Any]) -> None:
    gated = _shapes({"feed_forward_proj": "gated-gelu"}, "T5Model")
    assert "wi_0.weight" in gated
    assert "wi.weight" not in gated
    assert "wi.weight" in _shapes({"feed_forward_proj": "relu"}, "T5Model")


def test_a_string_never_learned_is_outside(synthetic: dict[str, Any]) -> None:
    reason = _refusal({"model_type": "t5", "feed_forward_proj": "swiglu"}, "T5Model")
    assert reason == (
        "feed_forward_proj = 'swiglu' lies outside what the template learned"
        " (only 'relu', 'gated-gelu')"
    )


def test_a_switching_string_uses_its_variant(synthetic: dict[str, Any]) -> None:
    assert _shapes({"feed_forward_proj": "gated-silu"}, "T5Model") == {"gate.weight": (8,)}


def test_a_flag_a_class_was_not_learned_with(synthetic: dict[str, Any]) -> None:
    assert "wi.weight" in _shapes({}, "T5EncoderModel")
    reason = _refusal({"model_type": "t5", "feed_forward_proj": "gated-gelu"}, "T5EncoderModel")
    assert reason == "T5EncoderModel was not learned with is_gated_act = True (only False)"


def _agrees(raw: dict[str, Any]) -> bool:
    """Whether mem labels ``raw``'s count exact; a count labelled exact equals transformers'."""
    import released_ground_truth as truth

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    expected, why = truth.transformers_count(raw)
    assert expected is not None, why
    ours, exact, notes = truth.dimlint_count(raw)
    assert not exact or ours == expected, f"false exact: {ours} vs {expected} ({notes})"
    return exact


@pytest.mark.parametrize("labels", [1, 7, 9, 10, 13, 150])
def test_token_classifier_on_both_sides_of_its_switch(labels: int) -> None:
    # LayoutLMv3ForTokenClassification: a linear classifier below 10 labels, a two-layer head
    # from 10 on (the second regime learned from a build with 10 labels)
    raw = {"model_type": "layoutlmv3", "architectures": ["LayoutLMv3ForTokenClassification"]}
    assert _agrees({**raw, "id2label": _labels(labels), "hidden_size": 1024,
                    "num_attention_heads": 16, "intermediate_size": 4096})  # fmt: skip


T5_V1_1 = {"model_type": "t5", "d_model": 256, "d_ff": 640, "d_kv": 32, "num_heads": 8,
           "num_layers": 4, "vocab_size": 1000, "feed_forward_proj": "gated-gelu"}  # fmt: skip


@pytest.mark.parametrize("architecture", ["T5EncoderModel", "T5ForConditionalGeneration"])
def test_gated_t5_stacks(architecture: str) -> None:
    # T5 v1.1: "gated-gelu" sets is_gated_act; the encoder-only class gates its one stack
    assert _agrees({**T5_V1_1, "architectures": [architecture]})
    other = {**T5_V1_1, "feed_forward_proj": "gated-swish", "architectures": [architecture]}
    assert not _agrees(other)
    assert "feed_forward_proj = 'gated-swish' lies outside" in _refusal(other, architecture)


@pytest.mark.parametrize("model_type", ["t5", "longt5", "mt5", "umt5", "pop2piano", "udop"])
@pytest.mark.parametrize(("projection", "gated"), [("gated-gelu", False), ("relu", True)])
def test_a_stated_flag_beats_the_string_that_derives_it(
    model_type: str, projection: str, gated: bool
) -> None:
    # T5's __post_init__ derives is_gated_act from feed_forward_proj, then the leftover
    # kwargs are set: a stated is_gated_act wins (a BLIP-2 with a FLAN-T5 tower stating
    # is_gated_act: false was 15% high, labelled exact)
    _agrees({"model_type": model_type, "feed_forward_proj": projection, "is_gated_act": gated})


@pytest.mark.parametrize("layers", [6, 11, 12, 32])
@pytest.mark.parametrize("indexes", [None, [2, 5, 8, 11], [7, 15, 23, 31], [2, 2, 5, 8]])
def test_layer_indices_beyond_the_layers(layers: int, indexes: list[int] | None) -> None:
    # SAM's template repeats its global-attention tensors once per global_attn_indexes entry
    # (four, learned at 12 layers and more); an index past the last layer, or a repeated one,
    # names no layer of its own (SAM-huge's [7, 15, 23, 31] over 16 layers names two)
    vision: dict[str, Any] = {"num_hidden_layers": layers}
    if indexes is not None:
        vision["global_attn_indexes"] = indexes
    selected = indexes or [2, 5, 8, 11]
    exact = _agrees({"model_type": "sam", "architectures": ["SamModel"], "vision_config": vision})
    assert exact == (len({index for index in selected if index < layers}) == len(selected))


def test_towers_saved_with_an_empty_model_type() -> None:
    # transformers 4.2x saved SAM's towers with "model_type": "": they are still SAM's towers,
    # judged against their own class's defaults
    import json
    from pathlib import Path

    released = Path(__file__).parent / "data" / "released_configs" / "tune"
    path = released / "incroyable229__sam-vit-huge__config.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert raw["vision_config"]["model_type"] == ""
    assert _agrees(raw)
    raw["vision_config"]["num_hidden_layers"] = 16
    assert not _agrees(raw)


@pytest.mark.parametrize(("model_type", "learned"), [("deberta-v2", False), ("bert", True)])
def test_a_size_the_code_reads_off_the_config(model_type: str, learned: bool) -> None:
    # DeBERTa-v2 sizes its embeddings by getattr(config, "embedding_size", hidden_size), a key
    # its class does not declare (a stated 128 was counted 80% high as exact); BERT only tests
    # for it, and builds probed it inert
    raw = {"model_type": model_type, "hidden_size": 256, "num_attention_heads": 4}
    assert _agrees({**raw, "embedding_size": 128}) == learned


@pytest.mark.parametrize(
    ("extra", "learned"),
    [
        ({}, True),
        ({"true_hidden_size": 128}, True),  # what the class derives: every release states it
        ({"true_hidden_size": 129}, False),
        ({"use_bottleneck": False, "true_hidden_size": 128}, False),  # was 172% high as exact
    ],
)
def test_a_stated_field_the_class_derives(extra: dict[str, Any], learned: bool) -> None:
    # MobileBERT sets true_hidden_size in __post_init__; a stated one overrides the attribute,
    # but some modules recompute it from intra_bottleneck_size or hidden_size
    raw = {"model_type": "mobilebert", "architectures": ["MobileBertForPreTraining"]}
    assert _agrees({**raw, **extra}) == learned


def test_classifier_with_a_thousand_labels() -> None:
    raw = {"model_type": "vit", "architectures": ["ViTForImageClassification"]}
    assert _agrees({**raw, "id2label": _labels(1000)})


def test_class_declaring_its_own_label_count() -> None:
    # PvtConfig declares num_labels = 1000: a config stating no labels gets 1000, not 2
    assert _agrees({"model_type": "pvt", "architectures": ["PvtForImageClassification"]})


def test_flag_inert_in_the_primary_is_unchecked_in_a_head() -> None:
    # wav2vec2's ``use_weighted_layer_sum`` changes nothing in the class the row was learned
    # from, so no head was built with it; the sequence classifier gains ``layer_weights``
    # (one weight per hidden state): a released emotion model was counted 13 short as exact.
    raw = {"model_type": "wav2vec2", "architectures": ["Wav2Vec2ForSequenceClassification"]}
    assert _agrees(raw)
    # flipped in every class at generation: the head's layer_weights is a learned row now
    assert _agrees({**raw, "use_weighted_layer_sum": True})


def test_sub_config_inside_a_sub_config() -> None:
    # Qwen2.5-Omni: the thinker's vision tower is a sub-config of thinker_config, whose fields
    # no build moved; a released config stating another one was once counted 3584 wide.
    raw = {
        "model_type": "qwen2_5_omni",
        "architectures": ["Qwen2_5OmniForConditionalGeneration"],
        "thinker_config": {"vision_config": {"hidden_size": 1024, "depth": 32}},
    }
    reason = _refusal(raw, "Qwen2_5OmniForConditionalGeneration")
    assert reason.startswith("thinker_config.vision_config.")
    assert "a sub-config inside a sub-config" in reason
    # restating the default's values (a full dump) stays inside; stating none does too
    default = templates.row("qwen2_5_omni")["nested"]["thinker_config.vision_config"]
    for nested in ({"hidden_size": default["hidden_size"]}, {}):
        stated = {**raw, "thinker_config": {"vision_config": nested}}
        found = learned_tensors(stated, "Qwen2_5OmniForConditionalGeneration")
        assert not (isinstance(found, Refusal) and "inside a sub-config" in found.reason)


def test_a_number_stated_where_the_class_default_is_none() -> None:
    """Nemotron-H's ``moe_latent_size``: None builds no latent projection around the experts,
    a number adds two per expert layer (MMS's ``adapter_attn_dim`` the same); a row learned
    without that regime refuses it rather than count the model without them."""
    for model_type, architecture, key, value in (
        ("nemotron_h", "NemotronHForCausalLM", "moe_latent_size", 1024),
        # MMS's adapters: None builds none; 16 adds one to every stable-layer-norm layer
        ("wav2vec2", "Wav2Vec2ForCTC", "adapter_attn_dim", 16),
    ):
        row = templates.row(model_type)
        if any(regime[0] == key for regime in row.get("regimes", [])):
            continue  # the installed row learned the number as a regime: counted, not refused
        raw = {"model_type": model_type, key: value, "do_stable_layer_norm": True}
        reason = _refusal(raw, architecture)
        assert reason.startswith(f"{key} = {value} is stated where the class default is None")
        found = learned_tensors({"model_type": model_type}, architecture)
        assert not (isinstance(found, Refusal) and "default is None" in found.reason)


def test_sub_config_stated_without_its_inner_sub_config() -> None:
    # PI0: a stated vlm_config with no vision_config builds PaliGemma's own default vision
    # tower, not the one PI0's default vlm_config holds (counted exact 13 million off before);
    # Qwen2.5-Omni's thinker builds the same audio tower either way (no refusal above)
    assert templates.row("pi0")["nested_injected"] == ["vlm_config.vision_config"]
    reason = _refusal({"model_type": "pi0", "vlm_config": {}}, "")
    assert reason.startswith("vlm_config states no vision_config")
    inner = templates.row("pi0")["nested"]["vlm_config.vision_config"]
    stated = {"model_type": "pi0", "vlm_config": {"vision_config": dict(inner)}}
    found = learned_tensors(stated, "")
    assert not (isinstance(found, Refusal) and "states no" in found.reason)


@pytest.mark.parametrize(
    ("raw", "architecture"),
    [
        # GPT-2's n_inner: None means four times the width (a stand-in at factor 4); a
        # fine-tune stating 1152 for a 256-wide model was once counted with 1024-wide MLPs
        ({"model_type": "gpt2", "n_embd": 256, "n_head": 8, "n_inner": 1152}, "GPT2LMHeadModel"),
        ({"model_type": "gpt2", "n_embd": 256, "n_head": 8}, "GPT2LMHeadModel"),
    ],
)
def test_a_number_the_class_leaves_none_is_counted_where_learned(
    raw: dict[str, Any], architecture: str
) -> None:
    import warnings

    transformers = pytest.importorskip("transformers")
    torch = pytest.importorskip("torch")
    found = learned_tensors(raw, architecture)
    assert not isinstance(found, Refusal), found
    config = transformers.AutoConfig.for_model(
        raw["model_type"], **{k: v for k, v in raw.items() if k != "model_type"}
    )
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = getattr(transformers, architecture)(config)
    assert sum(tensor.numel for tensor in found) == sum(p.numel() for p in model.parameters())


def test_private_keys_of_a_nested_sub_config_are_not_judged() -> None:
    from dimlint.memory.parameters.nested_configs import flat_numbers

    stated = {"_attn_implementation_autoset": True, "pad_token_id": 0, "inner": {"depth": 2}}
    assert list(flat_numbers(stated)) == [("inner.depth", 2)]


def test_a_scaling_float_the_template_saw_at_its_default_only() -> None:
    # EfficientNet's default is B7 (width 2.0, depth 3.1): a released B0 states 1.0 and 1.0,
    # and was once counted as B7, labelled exact
    raw = {"model_type": "efficientnet", "architectures": ["EfficientNetForImageClassification"]}
    assert _agrees(raw)
    b0 = {**raw, "width_coefficient": 1.0, "depth_coefficient": 1.0, "hidden_dim": 1280}
    # the template refuses it; mem counts EfficientNet by its own layout (efficientnet_blocks)
    assert "width_coefficient" in _refusal(b0, "EfficientNetForImageClassification")
    assert _agrees(b0)


OPT_SMALL = {"model_type": "opt", "architectures": ["OPTForCausalLM"], "hidden_size": 64,
             "ffn_dim": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
             "vocab_size": 256, "max_position_embeddings": 128}  # fmt: skip


def test_derived_field_at_its_default_but_off_its_derivation() -> None:
    # OPT's word_embed_proj_dim is derived from hidden_size, and every build held it there;
    # stated 768 (its default) beside a hidden size of 64 it is off the derivation, and OPT
    # then adds project_in/project_out: once counted exact without them
    assert "not what the class derives from hidden_size" in _refusal(
        {**OPT_SMALL, "word_embed_proj_dim": 768}, "OPTForCausalLM"
    )
    assert not _agrees({**OPT_SMALL, "word_embed_proj_dim": 768})
    assert _agrees({**OPT_SMALL, "word_embed_proj_dim": 64})  # on the derivation: exact


def test_empty_list_where_the_class_derives_a_full_one() -> None:
    # Llama-4 derives moe_layers (every interleave_moe_layer_step-th layer) when it is None;
    # stated empty, no layer has experts: once counted with experts everywhere, as exact
    raw = {"model_type": "llama4_text", "architectures": ["Llama4ForCausalLM"],
           "num_hidden_layers": 4, "hidden_size": 64, "intermediate_size": 128,
           "intermediate_size_mlp": 96, "num_attention_heads": 4, "num_key_value_heads": 2,
           "head_dim": 16, "vocab_size": 100, "num_local_experts": 4}  # fmt: skip
    assert "moe_layers = [] where the class has" in _refusal(
        {**raw, "moe_layers": []}, "Llama4ForCausalLM"
    )
    assert not _agrees({**raw, "moe_layers": []})


def test_one_number_where_the_class_holds_a_list() -> None:
    # Gemma-3n's intermediate_size is a per-layer list (the template saw 16384 in every
    # place); a config stating one other number was counted at 16384, as exact
    raw = {"model_type": "gemma3n_text", "architectures": ["Gemma3nForCausalLM"],
           "num_hidden_layers": 4, "hidden_size": 256, "num_attention_heads": 4,
           "num_key_value_heads": 2, "head_dim": 64, "vocab_size": 1000,
           "vocab_size_per_layer_input": 1000, "hidden_size_per_layer_input": 64,
           "layer_types": ["sliding_attention", "full_attention"] * 2,
           "num_kv_shared_layers": 2, "activation_sparsity_pattern": [0.0] * 4}  # fmt: skip
    assert "the template saw a list of 16384 only" in _refusal(
        {**raw, "intermediate_size": 8192}, "Gemma3nForCausalLM"
    )
    assert not _agrees({**raw, "intermediate_size": 8192})
    assert _agrees({**raw, "intermediate_size": 16384})


def test_one_number_where_the_template_learned_a_list_item_by_item() -> None:
    # ConvNeXt's hidden_sizes were learned item by item (hidden_sizes[0]…): one number
    # stated in their place is no list the template can read
    assert "is one number where the template learned a list" in _refusal(
        {"model_type": "convnext", "hidden_sizes": 96}, "ConvNextModel"
    )


def test_private_stage_selection_an_older_save_wrote() -> None:
    # older save_pretrained wrote a backbone-capable config's stage selection as the private
    # _out_features / _out_indices: which stages are returned, no tensor's shape
    stages = ["stem", *(f"stage{index}" for index in range(1, 13))]
    raw = {"model_type": "dinov2", "architectures": ["Dinov2ForImageClassification"],
           "_out_features": ["stage12"], "_out_indices": [12], "stage_names": stages,
           "id2label": _labels(3)}  # fmt: skip
    assert _agrees(raw)


def test_a_nested_dump_of_old_base_keys_at_their_defaults_is_inside() -> None:
    """transformers 4 wrote its generation and output keys into every sub-config; restated at
    their defaults they are the config the row was built with, at another value they are not."""
    from dimlint.memory.parameters.nested_configs import unlearned_nested

    recorded = {"hidden_size": 64, "num_hidden_layers": 2}
    dump = {"hidden_size": 64, "num_hidden_layers": 2, "add_cross_attention": False,
            "num_beams": 1, "is_decoder": False}  # fmt: skip
    raw = {"outer": {"inner": dump}}
    assert unlearned_nested(raw, "outer", "inner", recorded) is None
    moved = {"outer": {"inner": {**dump, "is_decoder": True}}}
    assert "is_decoder" in (unlearned_nested(moved, "outer", "inner", recorded) or "")
    counted = {"outer": {"inner": {**dump, "num_beams": True}}}  # a flag is no count
    assert unlearned_nested(counted, "outer", "inner", recorded) is not None


def test_a_width_its_heads_do_not_divide_is_an_estimate() -> None:
    """ELECTRA builds attention 255 wide for a width of 256 over 5 heads (int(256 / 5) · 5);
    every template build divided whole, so the count is an estimate (a perturbation probe
    found it labelled exact), while 4 heads stay exact."""
    from dimlint.config.normalize import specs_for_document
    from dimlint.memory import model_parameters

    raw = {
        "model_type": "electra",
        "architectures": ["ElectraForTokenClassification"],
        "embedding_size": 128,
        "hidden_size": 256,
        "intermediate_size": 1024,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
    }
    assert model_parameters(specs_for_document("config.json", raw)).exact
    counted = model_parameters(specs_for_document("config.json", {**raw, "num_attention_heads": 5}))
    assert not counted.exact
    assert "hidden_size 256 is not a multiple of num_attention_heads 5" in counted.notes[0]
