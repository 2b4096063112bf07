"""Parameter counts of every model type × registered class against transformers' builds.

``data/shapes.json`` records, for every model type of the pinned transformers and every class
it registers (base model, causal LM, seq2seq, image-text-to-text, speech, CTC, masked LM, image
and sequence classification), the parameter count of the model transformers built from the
default config on the meta device (``sum(p.numel() for p in model.parameters())``, tied weights
once), and for a class that does not build, the exception it raised. That record is checked
against fresh builds of a fixed sample in ``tests/test_shapes_table.py``; here every recorded
class is compared with what ``mem`` counts for the same default config (with ``architectures``
naming the class, as ``save_pretrained`` writes it) — through the learned templates where the
class has one, else through the family recipes. Building nothing, this covers all classes in
seconds.

Denominators (``pytest tests/test_memory_templates_ground_truth.py -s -q`` prints them): every
model type of ``CONFIG_MAPPING_NAMES`` has a row; the types with a registered class of which at
least one builds from the default config; the classes that build. The types that build nothing
are named below with the reason, and so is every class whose count is not exact.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import model_parameters
from dimlint.memory.parameters import templates

transformers = pytest.importorskip("transformers")

#: Share of the classes that build whose count must be exact (all of them are today).
REQUIRED_SHARE = 0.97

#: Every class whose count is not exact, ``"type/Class": "cause"``: four classes whose rows the
#: stop-30 relearn could not fit (their counts are estimates, labelled so). A class missing
#: from here that misses fails, and so does an entry that became exact (stale).
KNOWN_MISSES: dict[str, str] = {
    "deit/DeiTForMaskedImageModeling": "tensors not fitted in the stop-30 relearn: an estimate",
    "pp_doclayout_v3/PPDocLayoutV3ForObjectDetection": "tensors not fitted: an estimate",
}

#: An explained miss may be off by at most this share of the true count: an entry documents a
#: small, understood gap, never a wrong model.
MISS_BOUND = 0.02

#: Model types with a registered class none of which builds from the default config:
#: ``type → (class, exception, what transformers says)`` for the first class by name. The
#: exception is the one the generator recorded; ``tests/test_shapes_table.py`` rebuilds a
#: fixed sample and checks it still raises. Most are defaults transformers leaves unset
#: (``prediction_length``, ``rope_theta``, ``head_dim``); the ``ImportError`` ones need a
#: library the ``hf`` extra does not install (timm with torchvision, natten, torchaudio,
#: detectron2).
NOT_BUILT: dict[str, tuple[str, str, str]] = {
    "autoformer": (
        "AutoformerModel",
        "ValueError",
        "The prediction_length config needs to be specified.",
    ),
    "aya_vision": (
        "AyaVisionForConditionalGeneration",
        "ValueError",
        "embed_dim must be divisible by num_heads (got embed_dim: 1152 and num_heads: 14)",
    ),
    "chameleon": (
        "ChameleonForConditionalGeneration",
        "AttributeError",
        "'NoneType' object has no attribute 'get'",
    ),
    "cohere_compass": ("CohereCompassForConditionalGeneration", "KeyError", "'full_attention'"),
    "cohere_compass_text": ("CohereCompassForCausalLM", "KeyError", "'full_attention'"),
    "conditional_detr": ("ConditionalDetrModel", "ImportError", "needs timm"),
    "dab-detr": ("DabDetrModel", "ImportError", "needs timm"),
    "deepseek_ocr2": (
        "DeepseekOcr2ForConditionalGeneration",
        "TypeError",
        "'NoneType' object is not subscriptable",
    ),
    "deformable_detr": ("DeformableDetrModel", "ImportError", "needs timm"),
    "detr": ("DetrModel", "ImportError", "needs timm"),
    "diffusion_gemma": (
        "DiffusionGemmaForBlockDiffusion",
        "TypeError",
        "empty(): argument 'size' (position 1) must be tuple of ints, but found element o",
    ),
    "dinat": ("DinatForImageClassification", "ImportError", "needs natten"),
    "dots1": (
        "Dots1ForCausalLM",
        "TypeError",
        "empty() takes 1 positional argument but 3 were given",
    ),
    "edgetam": ("EdgeTamModel", "ImportError", "needs timm"),
    "edgetam_vision_model": ("EdgeTamVisionModel", "ImportError", "needs timm"),
    "emu3": (
        "Emu3ForCausalLM",
        "AttributeError",
        "'Emu3Config' object has no attribute 'pad_token_id'",
    ),
    "esm": (
        "EsmForMaskedLM",
        "TypeError",
        "empty(): argument 'size' (position 1) must be tuple of ints, but found element o",
    ),
    "fast_vlm": ("FastVlmForConditionalGeneration", "ImportError", "needs timm"),
    "gemma3n": ("Gemma3nForConditionalGeneration", "ImportError", "needs timm"),
    "gemma3n_vision": ("TimmWrapperModel", "ImportError", "needs timm"),
    "granite4_vision": (
        "Granite4VisionForConditionalGeneration",
        "TypeError",
        "object of type 'NoneType' has no len()",
    ),
    "higgs_audio_v2_tokenizer": ("HiggsAudioV2TokenizerModel", "ImportError", "needs torchaudio"),
    "hunyuan_v1_dense": (
        "HunYuanDenseV1ForCausalLM",
        "TypeError",
        "unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'",
    ),
    "hunyuan_v1_moe": (
        "HunYuanMoEV1ForCausalLM",
        "TypeError",
        "unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'",
    ),
    "hunyuan_vl": (
        "HunYuanVLForConditionalGeneration",
        "TypeError",
        "unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'",
    ),
    "hunyuan_vl_text": (
        "HunYuanVLTextModel",
        "TypeError",
        "unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'",
    ),
    "informer": (
        "InformerModel",
        "ValueError",
        "The prediction_length config needs to be specified.",
    ),
    "layoutlmv2": ("LayoutLMv2ForSequenceClassification", "ImportError", "needs detectron2"),
    "lfm2_moe": ("Lfm2MoeForCausalLM", "TypeError", "'NoneType' object is not subscriptable"),
    "ministral": (
        "MinistralForCausalLM",
        "TypeError",
        "unsupported operand type(s) for ** or pow(): 'NoneType' and 'float'",
    ),
    "moonshine_streaming": (
        "MoonshineStreamingForConditionalGeneration",
        "AttributeError",
        "'MoonshineStreamingConfig' object has no attribute 'num_key_value_heads'",
    ),
    "nemotron": (
        "NemotronForCausalLM",
        "TypeError",
        "unsupported operand type(s) for //: 'int' and 'NoneType'",
    ),
    "omdet-turbo": ("OmDetTurboForObjectDetection", "ImportError", "needs timm"),
    "pe_audio_video": ("PeAudioVideoModel", "ImportError", "needs timm"),
    "pe_audio_video_encoder": ("PeAudioVideoEncoder", "ImportError", "needs timm"),
    "pe_video": ("PeVideoModel", "ImportError", "needs timm"),
    "pe_video_encoder": ("PeVideoEncoder", "ImportError", "needs timm"),
    "perception_lm": ("PerceptionLMForConditionalGeneration", "ImportError", "needs timm"),
    "pp_ocrv6_medium_det": (
        "PPOCRV6MediumDetModel",
        "TypeError",
        "'NoneType' object is not subscriptable",
    ),
    "qwen4_exp": (
        "Qwen4ExpForCausalLM",
        "AttributeError",
        "'Qwen4ExpConfig' object has no attribute 'vocab_size'",
    ),
    "qwen4_exp_text": (
        "Qwen4ExpForCausalLM",
        "TypeError",
        "unsupported operand type(s) for //: 'NoneType' and 'NoneType'",
    ),
    "t5gemma2_encoder": (
        "T5Gemma2Encoder",
        "AttributeError",
        "'T5Gemma2TextConfig' object has no attribute 'dropout_rate'",
    ),
    "table-transformer": ("TableTransformerModel", "ImportError", "needs timm"),
    "time_series_transformer": (
        "TimeSeriesTransformerModel",
        "ValueError",
        "The prediction_length config needs to be specified.",
    ),
    "timm_backbone": ("TimmBackbone", "ImportError", "needs timm"),
    "timm_wrapper": ("TimmWrapperForImageClassification", "ImportError", "needs timm"),
}

#: Model types whose default config itself fails: ``type → exception``.
CONFIG_FAILS: dict[str, str] = {
    "gemma4_assistant": "StrictDataclassClassValidationError",  # hidden_size_per_layer_input
    "nougat": "ValueError",  # sub-config type donut_swin unregistered; nougat has no class
}


def _document(model_type: str, class_name: str) -> dict[str, Any] | None:
    from transformers import AutoConfig

    try:
        config = AutoConfig.for_model(model_type)
    except Exception:  # the generator recorded no class for a type whose config fails
        return None
    document: dict[str, Any] = json.loads(config.to_json_string(use_diff=False))
    document["architectures"] = [class_name]
    return document


@pytest.fixture(scope="module")
def counts() -> dict[str, tuple[int, int, bool]]:
    """ "type/Class" → (transformers' count, dimlint's count, counted from a template)."""
    from transformers.utils import logging

    from dimlint.memory.parameters.templated import templated_parameters
    from dimlint.memory.parameters.templates import Refusal

    logging.set_verbosity_error()
    results: dict[str, tuple[int, int, bool]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in templates.model_type_names():
            row = templates.row(model_type) or {}
            for class_name, record in row.get("classes", {}).items():
                document = _document(model_type, class_name)
                if document is None:
                    continue
                specs = specs_for_document("config.json", document)
                ours = model_parameters(specs).total
                learned = not isinstance(templated_parameters(specs, class_name), Refusal)
                results[f"{model_type}/{class_name}"] = (record["total"], ours, learned)
    return results


def test_share_exact(counts: dict[str, tuple[int, int, bool]]) -> None:
    exact = [key for key, (truth, ours, _) in counts.items() if truth == ours]
    learned = [key for key, (_, _, used) in counts.items() if used]
    types = {key.split("/")[0] for key in counts}
    summary = (
        f"{len(counts)} classes of {len(types)} model types build from their default config: "
        f"exact {len(exact)} ({len(exact) / max(1, len(counts)):.1%}), "
        f"{len(learned)} counted from templates"
    )
    print(summary)
    for key, (truth, ours, used) in sorted(counts.items()):
        if truth != ours:
            print(f"  {key}: transformers {truth:,}, dimlint {ours:,} (template: {used})")
    assert len(counts) > 1000, summary
    assert len(exact) >= REQUIRED_SHARE * len(counts), summary


def test_every_miss_is_listed_with_its_cause(counts: dict[str, tuple[int, int, bool]]) -> None:
    misses = {key for key, (truth, ours, _) in counts.items() if truth != ours}
    assert misses - set(KNOWN_MISSES) == set(), "unexplained misses"
    assert set(KNOWN_MISSES) - misses == set(), "stale entries: these are exact now"


def test_explained_misses_are_bounded(counts: dict[str, tuple[int, int, bool]]) -> None:
    for key in KNOWN_MISSES:
        truth, ours, templated = counts[key]
        # a class its template refuses is labelled an estimate, whatever the recipe's gap
        assert not templated or abs(ours - truth) <= MISS_BOUND * truth, (key, truth, ours)


def test_every_template_is_exact(counts: dict[str, tuple[int, int, bool]]) -> None:
    """A template reproduces the build it was learned from; a miss is a generator bug."""
    wrong = {key: pair for key, pair in counts.items() if pair[2] and pair[0] != pair[1]}
    assert not wrong


def _registered(model_type: str) -> list[str]:
    """The classes the auto mappings register for ``model_type`` that this transformers has."""
    from transformers.models.auto import modeling_auto

    from dimlint.tools.generate_shapes import MAPPINGS

    names: list[str] = []
    for mapping in MAPPINGS:
        entry = getattr(modeling_auto, mapping).get(model_type)
        for name in [entry] if isinstance(entry, str) else list(entry or ()):
            if name not in names and hasattr(transformers, name):
                names.append(name)
    return names


def test_denominators_and_types_that_do_not_build() -> None:
    """Every model type has a row; a type without a built class is one that registers no class,
    one whose config fails, or one named in ``NOT_BUILT`` with the exception recorded."""
    from transformers.models.auto import configuration_auto

    all_types = set(configuration_auto.CONFIG_MAPPING_NAMES)
    rows = {name: templates.row(name) or {} for name in templates.model_type_names()}
    assert set(rows) == all_types, "the table does not cover every model type"
    unregistered = {name for name in all_types if not _registered(name)}
    building = {name for name, row in rows.items() if row.get("classes")}
    classes = sum(len(row["classes"]) for row in rows.values() if row.get("classes"))
    failed_classes = sum(len(row.get("unbuilt", {})) for name, row in rows.items())
    print(
        f"{len(all_types)} model types; {len(all_types - unregistered)} register a class; "
        f"{len(building)} build at least one; {classes} classes build, {failed_classes} do not"
    )
    not_building = all_types - building - unregistered
    assert not_building == set(NOT_BUILT) | (set(CONFIG_FAILS) - unregistered)
    for name, (class_name, exception, _) in NOT_BUILT.items():
        assert rows[name]["unbuilt"].get(class_name) == exception, name
    for name, exception in CONFIG_FAILS.items():
        assert rows[name]["error"] == f"config: {exception}", name
