"""DL610/DL611 from the shape templates, for model types without a hand-written plan.

The oracle is transformers: each model type is built scaled down on the CPU and written with
``save_pretrained`` (names, shapes and on-disk layout are the library's, including the
per-expert MoE layout it writes back from its fused experts), or — for a composite model at
its default size — built on the meta device and written as a sparse safetensors file with the
names ``save_pretrained`` writes (transformers' own ``remove_tied_weights_from_state_dict`` and
``revert_weight_conversion``) and, separately, in the layout released checkpoints use
(``language_model.model.…``, ``vision_tower.vision_model.…``), which loading renames. A saved
model must be clean; each planted defect must be reported with the right code, naming the
tensor, and pointing at the config value that explains it.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from checkpoint_builders import SMALL, checkpoint_findings, edit_config, header, read_config

from dimlint.config.normalize import specs_for_document
from dimlint.memory.checkpoint import load_names
from dimlint.memory.checkpoint.expected_tensors import plan_for
from dimlint.memory.checkpoint.template_plan import template_plan

pytest.importorskip("transformers", reason="the checkpoints are built with transformers")
pytest.importorskip("safetensors")

ENCODER = {k: v for k, v in SMALL.items() if k != "num_key_value_heads"}
CONV_POSITIONS = {"num_conv_pos_embeddings": 16, "num_conv_pos_embedding_groups": 4}
SEQ2SEQ = {
    "d_model": 64,
    "encoder_ffn_dim": 128,
    "decoder_ffn_dim": 128,
    "encoder_layers": 2,
    "decoder_layers": 2,
    "encoder_attention_heads": 4,
    "decoder_attention_heads": 4,
}
TOWER = {
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
}
VISION = {**TOWER, "image_size": 32, "patch_size": 8}

#: model type → (class ``architectures`` names, config): decoders, encoders, encoder-decoders,
#: MoE, vision, speech and composite vision-language models, scaled down.
TINY: dict[str, tuple[str, dict[str, Any]]] = {
    "olmo2": ("Olmo2ForCausalLM", SMALL),
    "starcoder2": ("Starcoder2ForCausalLM", SMALL),
    "cohere": ("CohereForCausalLM", SMALL),
    "exaone4": ("Exaone4ForCausalLM", SMALL),
    "helium": ("HeliumForCausalLM", {**SMALL, "head_dim": 16}),
    "stablelm": ("StableLmForCausalLM", SMALL),
    "bloom": (
        "BloomForCausalLM",
        {"hidden_size": 64, "n_layer": 2, "n_head": 4, "vocab_size": 256},
    ),
    "gptj": (
        "GPTJForCausalLM",
        {
            "n_embd": 64,
            "n_layer": 2,
            "n_head": 4,
            "vocab_size": 256,
            "n_positions": 128,
            "rotary_dim": 8,
        },
    ),
    "codegen": (
        "CodeGenForCausalLM",
        {
            "n_embd": 64,
            "n_layer": 2,
            "n_head": 4,
            "vocab_size": 256,
            "n_positions": 128,
            "n_ctx": 128,
            "rotary_dim": 8,
        },
    ),
    "olmoe": ("OlmoeForCausalLM", {**SMALL, "num_experts": 4, "num_experts_per_tok": 2}),
    "granitemoe": (
        "GraniteMoeForCausalLM",
        {**SMALL, "num_local_experts": 4, "num_experts_per_tok": 2},
    ),
    "phimoe": ("PhimoeForCausalLM", {**SMALL, "num_local_experts": 4}),
    "bert": ("BertForMaskedLM", ENCODER),
    "t5": (
        "T5ForConditionalGeneration",
        {
            "d_model": 64,
            "d_ff": 128,
            "d_kv": 16,
            "num_layers": 2,
            "num_heads": 4,
            "vocab_size": 256,
        },
    ),
    "mt5": (
        "MT5ForConditionalGeneration",
        {
            "d_model": 64,
            "d_ff": 128,
            "d_kv": 16,
            "num_layers": 2,
            "num_heads": 4,
            "vocab_size": 256,
        },
    ),
    # Switch keeps its experts in a ModuleDict (expert_0 … expert_3): numbered modules the
    # template folds to expert_*
    "switch_transformers": (
        "SwitchTransformersForConditionalGeneration",
        {
            "d_model": 64,
            "d_ff": 128,
            "d_kv": 16,
            "num_layers": 2,
            "num_decoder_layers": 2,
            "num_heads": 4,
            "vocab_size": 256,
            "num_experts": 4,
            "encoder_sparse_step": 1,
            "decoder_sparse_step": 1,
        },
    ),
    # ViT at its default image and patch sizes: its position-embedding template is a fit that
    # holds only while one of the two moves (see templates._linearized)
    "vit": (
        "ViTForImageClassification",
        {
            **VISION,
            "hidden_size": 64,
            "intermediate_size": 128,
            "image_size": 224,
            "patch_size": 16,
        },
    ),
    "git": (
        "GitForCausalLM",
        {**ENCODER, "vision_config": TOWER},  # its image and patch sizes are not learned
    ),
    "unispeech": ("UniSpeechForCTC", {**ENCODER, "vocab_size": 32, **CONV_POSITIONS}),
    "electra": ("ElectraForMaskedLM", {**ENCODER, "embedding_size": 128}),
    # No template plan for these (the template does not apply to a scaled-down config, or was
    # not confirmed on a second build): they must stay silent all the same.
    # A structural list the template was not fitted with: layer 0 dense, layer 1 MoE.
    "llama4_text": (
        "Llama4ForCausalLM",
        {
            **SMALL,
            "head_dim": 16,
            "num_local_experts": 4,
            "intermediate_size_mlp": 128,
            "moe_layers": [1],
        },
    ),
    "opt": (
        "OPTForCausalLM",
        {
            "hidden_size": 64,
            "ffn_dim": 128,
            "num_hidden_layers": 2,
            "num_attention_heads": 4,
            "vocab_size": 256,
            "max_position_embeddings": 128,
            "word_embed_proj_dim": 768,
        },
    ),
    "bart": ("BartForConditionalGeneration", {**SEQ2SEQ, "vocab_size": 256}),
    "whisper": (
        "WhisperForConditionalGeneration",
        {
            **SEQ2SEQ,
            "vocab_size": 51865,
            "max_source_positions": 64,
            "max_target_positions": 64,
            "num_mel_bins": 16,
        },
    ),
    "wav2vec2": ("Wav2Vec2ForCTC", {**ENCODER, "vocab_size": 32, **CONV_POSITIONS}),
    "swin": (
        "SwinForImageClassification",
        {
            "embed_dim": 16,
            "depths": [1, 1],
            "num_heads": [2, 2],
            "image_size": 32,
            "patch_size": 4,
            "window_size": 4,
        },
    ),
    "llava": (
        "LlavaForConditionalGeneration",
        {
            "text_config": {"model_type": "llama", **SMALL},
            "vision_config": {"model_type": "clip_vision_model", **VISION, "projection_dim": 32},
            "image_token_index": 255,
        },
    ),
    "qwen2_vl": (
        "Qwen2VLForConditionalGeneration",
        {
            "text_config": {
                "model_type": "qwen2_vl_text",
                **SMALL,
                "rope_scaling": {"type": "mrope", "mrope_section": [2, 3, 3]},
            },
            "vision_config": {
                "depth": 2,
                "embed_dim": 32,
                "hidden_size": 64,
                "num_heads": 4,
                "mlp_ratio": 2,
                "patch_size": 4,
                "spatial_merge_size": 2,
                "temporal_patch_size": 2,
            },
            "image_token_id": 250,
            "video_token_id": 251,
            "vision_start_token_id": 252,
        },
    ),
    "idefics3": (
        "Idefics3ForConditionalGeneration",
        {
            "text_config": {"model_type": "llama", **SMALL},
            "vision_config": VISION,
            "scale_factor": 2,
            "image_token_id": 255,
        },
    ),
    "gemma3": (
        "Gemma3ForConditionalGeneration",
        {
            "text_config": {"model_type": "gemma3_text", **SMALL, "head_dim": 16},
            "vision_config": {"model_type": "siglip_vision_model", **VISION},
            "mm_tokens_per_image": 4,
            "image_token_index": 255,
            "boi_token_index": 253,
            "eoi_token_index": 254,
        },
    ),
}
#: The types above whose checkpoints are compared tensor by tensor from the template.
TEMPLATED = (
    "olmo2", "starcoder2", "cohere", "exaone4", "helium", "stablelm", "bloom", "gptj",
    "codegen", "olmoe", "granitemoe", "phimoe", "bert", "t5", "mt5", "switch_transformers",
    "vit", "git", "unispeech", "gemma3", "wav2vec2", "electra", "bart",
)  # fmt: skip
TENSOR_CODES = ("DL610", "DL611")


def _save(model_type: str, folder: Path) -> None:
    import torch
    import transformers
    from transformers import AutoConfig

    class_name, overrides = TINY[model_type]
    config = AutoConfig.for_model(model_type, **overrides)
    config.architectures = [class_name]
    torch.manual_seed(0)
    model = getattr(transformers, class_name)(config)
    model.save_pretrained(folder)


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("templated")
    folders: dict[str, Path] = {}
    for model_type in TINY:
        folders[model_type] = root / model_type
        _save(model_type, folders[model_type])
    return folders


@pytest.fixture
def fresh(saved: dict[str, Path], tmp_path: Path) -> Any:
    def copy(model_type: str) -> Path:
        return Path(shutil.copytree(saved[model_type], tmp_path / model_type))

    return copy


def _spec(folder: Path) -> Any:
    path = folder / "config.json"
    return specs_for_document(str(path), json.loads(path.read_text(encoding="utf-8")))[0]


def _tensor_findings(folder: Path) -> list[dict[str, Any]]:
    return [f for f in checkpoint_findings(folder) if f["code"] in TENSOR_CODES]


def _only(found: list[dict[str, Any]], code: str) -> list[dict[str, Any]]:
    return [f for f in found if f["code"] == code]


@pytest.mark.parametrize("model_type", list(TINY))
def test_saved_model_is_clean(saved: dict[str, Path], model_type: str) -> None:
    folder = saved[model_type]
    assert plan_for(_spec(folder)) is None  # no hand plan: the templates' territory
    assert (template_plan(_spec(folder)) is not None) == (model_type in TEMPLATED)
    assert _tensor_findings(folder) == []


def _resave(folder: Path, change: Any) -> None:
    from safetensors.torch import load_file, save_file

    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    change(tensors)
    save_file(tensors, str(path), metadata={"format": "pt"})


#: (type, config key, wrong value, a tensor that then mismatches, its stored size).
CHANGED_DIM = [
    ("olmo2", "intermediate_size", 96, "model.layers.0.mlp.down_proj.weight", 128),
    ("bert", "intermediate_size", 96, "bert.encoder.layer.0.intermediate.dense.weight", 128),
    ("t5", "d_ff", 96, "encoder.block.0.layer.1.DenseReluDense.wi.weight", 128),
    ("vit", "intermediate_size", 96, "vit.encoder.layer.0.intermediate.dense.weight", 128),
    ("bloom", "vocab_size", 300, "transformer.word_embeddings.weight", 256),
]


@pytest.mark.parametrize(("model_type", "key", "value", "tensor", "stored"), CHANGED_DIM)
def test_changed_dimension(
    fresh: Any, model_type: str, key: str, value: int, tensor: str, stored: int
) -> None:
    folder = fresh(model_type)
    body = header(folder / "model.safetensors")
    shapes = {name: entry["shape"] for name, entry in body.items() if name != "__metadata__"}
    assert stored in shapes[tensor]  # the oracle: transformers saved this tensor, this size
    edit_config(folder, **{key: value})
    found = _only(_tensor_findings(folder), "DL610")
    named = [f for f in found if f["message"].startswith(f"{tensor} is ")]
    assert named, [f["message"] for f in found]
    assert f"{key} {stored} would explain it" in named[0]["message"]
    assert named[0]["pointer"] == f"/{key}"


def test_changed_dimension_of_a_vision_tower(fresh: Any) -> None:
    """GIT: a vision-tower field, stated in its sub-config, is found and pointed at."""
    folder = fresh("git")
    config = read_config(folder)
    config["vision_config"]["intermediate_size"] = 48
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    found = _only(_tensor_findings(folder), "DL610")
    assert found
    assert all(".vision_model." in f["message"] or "image_encoder" in f["message"] for f in found)
    assert "vision_config.intermediate_size 64 would explain it" in found[0]["message"]
    assert found[0]["pointer"] == "/vision_config/intermediate_size"


def test_more_experts_declared_than_stored(fresh: Any) -> None:
    """OLMoE on disk stores one module per expert; the model fuses them. Declaring 5 experts
    beside 4 stored ones makes the fused tensors (and the router) the wrong size."""
    folder = fresh("olmoe")
    names = header(folder / "model.safetensors")
    assert "model.layers.0.mlp.experts.3.gate_proj.weight" in names
    assert not any(name.endswith("gate_up_proj") for name in names)
    edit_config(folder, num_experts=5)
    found = _only(_tensor_findings(folder), "DL610")
    fused = [f for f in found if "gate_up_proj" in f["message"]]
    assert fused, [f["message"] for f in found]
    assert "merged on load from 8 tensors" in fused[0]["message"]
    assert "num_experts 4 would explain it" in fused[0]["message"]
    assert fused[0]["pointer"] == "/num_experts"


def test_expert_deleted(fresh: Any) -> None:
    folder = fresh("olmoe")

    def drop_expert(tensors: dict[str, Any]) -> None:
        for name in [n for n in tensors if re.search(r"\.experts\.3\.", n)]:
            del tensors[name]

    _resave(folder, drop_expert)
    found = _tensor_findings(folder)
    assert found
    assert all(f["code"] == "DL611" for f in found)
    assert "lacks 1 expert (3) of the 4" in found[0]["message"]
    assert "model.layers.0.mlp.experts.0." in found[0]["message"]


def test_numbered_expert_deleted(fresh: Any) -> None:
    """Switch's experts are numbered modules (``expert_3``): the one missing is named."""
    folder = fresh("switch_transformers")
    tensor = "encoder.block.1.layer.1.mlp.experts.expert_3.wi.weight"
    _resave(folder, lambda tensors: tensors.pop(tensor))
    (finding,) = _tensor_findings(folder)
    assert finding["code"] == "DL611"
    assert f"lacks {tensor} (7 of the 8 tensors" in finding["message"]


def test_more_numbered_experts_declared_than_stored(fresh: Any) -> None:
    folder = fresh("switch_transformers")
    edit_config(folder, num_experts=8)
    found = _tensor_findings(folder)
    counted = [f for f in _only(found, "DL611") if "expert_*" in f["message"]]
    assert counted, [f["message"] for f in found]
    assert "holds 8 of each of the 4 tensors" in counted[0]["message"]
    assert "implies 16" in counted[0]["message"]
    assert "num_experts 4 would explain it" in counted[0]["message"]
    assert counted[0]["pointer"] == "/num_experts"


@pytest.mark.parametrize(
    ("model_type", "tensor"),
    [
        ("olmo2", "model.layers.1.post_attention_layernorm.weight"),
        ("bert", "bert.encoder.layer.1.output.dense.weight"),
        ("t5", "decoder.block.1.layer.2.DenseReluDense.wo.weight"),
        ("t5", "decoder.block.1.layer.1.layer_norm.weight"),
        ("mt5", "encoder.block.1.layer.1.DenseReluDense.wi_1.weight"),  # gated: wi_* folded
        ("granitemoe", "model.layers.1.self_attn.k_proj.weight"),
    ],
)
def test_deleted_tensor(fresh: Any, model_type: str, tensor: str) -> None:
    folder = fresh(model_type)
    _resave(folder, lambda tensors: tensors.pop(tensor))
    (finding,) = _tensor_findings(folder)
    assert finding["code"] == "DL611"
    assert f"lacks {tensor} " in finding["message"]


@pytest.mark.parametrize(
    ("model_type", "tensor"),
    [("olmo2", "model.norm.weight"), ("vit", "vit.layernorm.bias")],
)
def test_deleted_single_tensor(fresh: Any, model_type: str, tensor: str) -> None:
    folder = fresh(model_type)
    _resave(folder, lambda tensors: tensors.pop(tensor))
    (finding,) = _tensor_findings(folder)
    assert finding["code"] == "DL611"
    assert tensor in finding["message"]


@pytest.mark.parametrize(
    ("model_type", "key", "prefix"),
    [
        ("olmo2", "num_hidden_layers", "model.layers."),
        ("starcoder2", "num_hidden_layers", "model.layers."),
        ("bert", "num_hidden_layers", "bert.encoder.layer."),
        ("gptj", "n_layer", "transformer.h."),
    ],
)
def test_added_layer(fresh: Any, model_type: str, key: str, prefix: str) -> None:
    """A third layer stored beside a config of two: reported once, with the layer count."""
    folder = fresh(model_type)

    def add_layer(tensors: dict[str, Any]) -> None:
        for name in [n for n in tensors if n.startswith(f"{prefix}1.")]:
            tensors[f"{prefix}2." + name[len(prefix) + 2 :]] = tensors[name].clone()

    _resave(folder, add_layer)
    (finding,) = _tensor_findings(folder)
    assert finding["code"] == "DL611"
    assert f"{key} 3 would explain it" in finding["message"]
    assert finding["pointer"] == f"/{key}"


def test_config_asks_for_more_layers(fresh: Any) -> None:
    folder = fresh("cohere")
    edit_config(folder, num_hidden_layers=3)
    (finding,) = _tensor_findings(folder)
    assert finding["code"] == "DL611"
    assert "no tensors for layer 2 (model.layers.2.*) of the 3" in finding["message"]
    assert "num_hidden_layers 2 would explain it" in finding["message"]


def test_config_asks_for_fewer_layers(fresh: Any) -> None:
    folder = fresh("cohere")
    edit_config(folder, num_hidden_layers=1)
    (finding,) = _tensor_findings(folder)
    assert finding["code"] == "DL611"
    assert "holds 2 layers of model.layers.*" in finding["message"]
    assert "does not load layer 1, so the model runs without it" in finding["message"]
    assert "num_hidden_layers 2 would explain it" in finding["message"]


def test_untied_head_missing(fresh: Any) -> None:
    folder = fresh("olmo2")
    assert "lm_head.weight" in header(folder / "model.safetensors")
    _resave(folder, lambda tensors: tensors.pop("lm_head.weight"))
    (finding,) = _tensor_findings(folder)
    assert "tie_word_embeddings is false" in finding["message"]
    assert "lm_head.weight" in finding["message"]


# --- a composite model at its default size, in both on-disk layouts -----------------------


def _write_sparse(folder: Path, shapes: dict[str, list[int]]) -> None:
    """One BF16 safetensors file holding ``shapes``: a real header, sparse data."""
    body: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape in shapes.items():
        size = 2 * math.prod(shape)
        body[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    encoded = json.dumps(body).encode()
    encoded += b" " * (-len(encoded) % 8)
    path = folder / "model.safetensors"
    with path.open("wb") as handle:
        handle.write(len(encoded).to_bytes(8, "little"))
        handle.write(encoded)
    with path.open("r+b") as handle:
        handle.truncate(8 + len(encoded) + offset)


def _gemma3_default() -> tuple[Any, dict[str, list[int]], dict[str, list[int]]]:
    """Gemma-3 (its default: 4B-sized) on the meta device: the config, the names and shapes
    ``save_pretrained`` writes, and the model's own (tied copies left out, as saving does)."""
    import torch
    from transformers import AutoConfig, Gemma3ForConditionalGeneration
    from transformers.core_model_loading import revert_weight_conversion
    from transformers.modeling_utils import remove_tied_weights_from_state_dict

    config = AutoConfig.for_model("gemma3")
    config.architectures = ["Gemma3ForConditionalGeneration"]
    with torch.device("meta"):
        model = Gemma3ForConditionalGeneration(config)
    state = remove_tied_weights_from_state_dict(model.state_dict(), model)
    saved = revert_weight_conversion(model, dict(state))
    return (
        config,
        {name: list(t.shape) for name, t in saved.items()},
        {name: list(t.shape) for name, t in state.items()},
    )


#: How released Gemma-3 and LLaVA checkpoints name the towers (transformers 4's layout), as
#: opposed to the model's own names; ``save_pretrained`` writes a third layout between the two.
RELEASED_PREFIXES = (
    ("model.language_model.", "language_model.model."),
    ("model.vision_tower.", "vision_tower.vision_model."),
    ("model.multi_modal_projector.", "multi_modal_projector."),
)


def _released(name: str) -> str:
    for new, old in RELEASED_PREFIXES:
        if name.startswith(new):
            return old + name[len(new) :]
    return name


@pytest.fixture(scope="module")
def gemma3(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The model's own names, the names ``save_pretrained`` writes, the released layout."""
    config, saved, state = _gemma3_default()
    layouts = (
        state,
        saved,
        {_released(name): shape for name, shape in state.items()},
    )
    assert len({frozenset(names) for names in layouts}) == 3
    folders = []
    for number, shapes in enumerate(layouts):
        folder = tmp_path_factory.mktemp(f"gemma3-{number}")
        config.save_pretrained(folder)
        _write_sparse(folder, shapes)
        folders.append(folder)
    return folders[0], folders[1], folders[2]


def test_composite_default_size_in_every_layout(gemma3: tuple[Path, Path, Path]) -> None:
    for folder in gemma3:
        assert template_plan(_spec(folder)) is not None
        assert _tensor_findings(folder) == []


def test_composite_wrong_text_vocab(gemma3: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """Released layout, and a text-tower value changed in its sub-config."""
    folder = Path(shutil.copytree(gemma3[2], tmp_path / "gemma3"))
    config = read_config(folder)
    stored = config.get("text_config", {}).get("vocab_size", 262208)
    config.setdefault("text_config", {})["vocab_size"] = stored + 64
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    found = _only(_tensor_findings(folder), "DL610")
    embed = [f for f in found if "embed_tokens.weight" in f["message"]]
    assert embed, [f["message"] for f in found]
    assert embed[0]["message"].startswith("language_model.model.embed_tokens.weight is ")
    assert f"text_config.vocab_size {stored} would explain it" in embed[0]["message"]
    assert embed[0]["pointer"] == "/text_config/vocab_size"


def test_composite_missing_vision_layer(gemma3: tuple[Path, Path, Path], tmp_path: Path) -> None:
    folder = Path(shutil.copytree(gemma3[2], tmp_path / "gemma3"))
    body = header(folder / "model.safetensors")
    shapes = {name: entry["shape"] for name, entry in body.items() if name != "__metadata__"}
    last = max(int(m.group(1)) for n in shapes if (m := re.search(r"encoder\.layers\.(\d+)", n)))
    dropped = {n: s for n, s in shapes.items() if f"encoder.layers.{last}." not in n}
    _write_sparse(folder, dropped)
    found = _tensor_findings(folder)
    assert found
    assert all(f["code"] == "DL611" for f in found)
    # The template counts the tower's layers by vision_config.num_hidden_layers: the finding
    # says the checkpoint holds one layer fewer and which value would explain it.
    (finding,) = found
    assert "encoder.layers.*" in finding["message"]
    assert f"vision_config.num_hidden_layers {last} would explain it" in finding["message"]
    assert finding["pointer"] == "/vision_config/num_hidden_layers"


def test_composite_deleted_tensor_named_as_stored(
    gemma3: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    folder = Path(shutil.copytree(gemma3[2], tmp_path / "gemma3"))
    body = header(folder / "model.safetensors")
    shapes = {name: entry["shape"] for name, entry in body.items() if name != "__metadata__"}
    victim = "language_model.model.layers.5.mlp.down_proj.weight"
    assert victim in shapes
    _write_sparse(folder, {n: s for n, s in shapes.items() if n != victim})
    (finding,) = _tensor_findings(folder)
    assert finding["code"] == "DL611"
    assert f"lacks {victim} " in finding["message"]


def test_released_names_map_onto_the_model() -> None:
    """The renames are those of transformers: the model's own state dict is the oracle."""
    _, _, state = _gemma3_default()
    naming = load_names.naming("gemma3", "Gemma3ForConditionalGeneration")
    assert naming is not None
    expected = {load_names.fold(name) for name in state}
    released = {_released(name): tuple(shape) for name, shape in state.items()}
    assert not set(released) & set(state)
    mapped = load_names.to_model_names(released, naming, expected)
    assert mapped is not None
    assert mapped.unexpected == []
    assert {n: list(s) for n, s in mapped.shapes.items()} == state


def test_table_records_its_transformers_version() -> None:
    import transformers

    assert load_names.transformers_version() == transformers.__version__


@pytest.mark.parametrize("model_type", ["olmoe", "t5", "wav2vec2"])
def test_table_rows_match_transformers(model_type: str) -> None:
    """The generated rows are what the generator learns from the installed transformers."""
    from dimlint.tools.generate_load_names import learn

    assert json.loads(json.dumps(learn(model_type))) == load_names.row(model_type)


def test_halved_build_unsets_token_ids_past_the_vocabulary() -> None:
    """Phi-3's pad_token_id (32000) lies past its halved vocabulary (16032): the validating
    build unsets it instead of failing, so Phi-3 checkpoints are compared tensor by tensor."""
    import torch
    import transformers

    from dimlint.memory.parameters import templates
    from dimlint.tools.generate_load_names import _halved, learn

    config = transformers.AutoConfig.for_model("phi3")
    halved = _halved(config, templates.row("phi3") or {})
    assert halved.vocab_size == config.vocab_size // 2
    assert halved.pad_token_id is None
    with torch.device("meta"):
        transformers.Phi3ForCausalLM(halved)
    assert learn("phi3")["Phi3ForCausalLM"]["validated"] is True
    assert load_names.validated("phi3", "Phi3ForCausalLM")
