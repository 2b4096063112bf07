"""Composite configs whose sub-configs or top-level keys lie outside what a template learned.

- A sub-config of another registered model type than the one the composite's template was
  learned with is another model (LLaVA with a Qwen2 language model has q/k/v biases the Llama
  one lacks): never exact from that template. Where the composite builds that tower with an
  auto class, the tower is counted by its own type's template (:mod:`swapped_towers`) and the
  total is exact; otherwise it is an estimate whose reason names the type.
- A top-level key the composite's config class does not declare (older releases wrote
  ``vocab_size`` beside ``text_config``) is inert when it repeats the language model's value:
  Voxtral-Mini-3B's released config is exact; at another value it stays an estimate. The
  same holds for a mirror of another sub-model's field (Florence-2's ``projection_dim``).
- A sub-config whose stated type transformers does not register is read as the class's own
  sub-config where that class is fixed (Florence-2's ``davit`` vision config): exact.
- A field the config class overwrites from another (VibeVoice's diffusion-head width, copied
  from the language model's) is read at the original's value, never at the stated one; one
  the class replaces from no single field is an estimate when stated at another value.
- A stated sub-config leaving out a field whose composite default differs from its class's
  declared default (PE-Audio's ModernBERT text config, 1024 wide where the class says 768) is
  an estimate: which value the class fills in was never learned.

Every count labelled exact is compared with the model transformers builds on the meta device.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from released_ground_truth import dimlint_count, transformers_count  # noqa: E402

from dimlint.memory.parameters import templates  # noqa: E402

COMPOSITES = HERE / "data" / "composites"
RELEASED = HERE / "data" / "released_configs"
FLORENCE = RELEASED / "tune" / "muhammadwaqas476074__Florence2-Changes__config.json"
VIBEVOICE = RELEASED / "tune" / "tenstorrent__tt-forge-models__vibevoice__pytorch__config.json"
VOXTRAL = (
    HERE
    / "data"
    / "released_configs"
    / "tune"
    / (
        "tenstorrent__tt-metal__models__tt_transformers__model_params__Voxtral-Mini-3B-2507__config.json"
    )
)


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        pytest.skip(f"{path.name} is absent")
    with open(path, encoding="utf-8") as handle:
        raw: dict[str, Any] = json.load(handle)
    return raw


def _truth(raw: dict[str, Any]) -> int:
    pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    transformers.logging.set_verbosity_error()
    truth, why = transformers_count(raw)
    assert truth is not None, why
    return truth


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("llava_qwen2.json", "text_config.model_type = qwen2"),
        ("llava_siglip.json", "vision_config.model_type = siglip_vision_model"),
        ("mistral3_qwen3.json", "text_config.model_type = qwen3"),
    ],
)
def test_other_sub_model_type_is_counted_by_its_own_template(name: str, reason: str) -> None:
    raw = _load(COMPOSITES / name)
    ours, exact, notes = dimlint_count(raw)
    truth = _truth(raw)
    assert (ours, exact) == (truth, True), notes
    # the composite's own template alone refuses it, naming the type
    from dimlint.memory.parameters.templates import Refusal, learned_tensors

    alone = learned_tensors(raw, raw["architectures"][0])
    assert isinstance(alone, Refusal)
    assert reason in alone.reason


def test_top_level_mirror_of_the_language_model_is_inert() -> None:
    raw = _load(VOXTRAL)
    assert raw["vocab_size"] == raw["text_config"]["vocab_size"]
    ours, exact, notes = dimlint_count(raw)
    assert exact, notes
    assert ours == _truth(raw)


def test_top_level_key_at_another_value_stays_an_estimate() -> None:
    raw = _load(COMPOSITES / "voxtral_stray_vocab.json")
    ours, exact, notes = dimlint_count(raw)
    truth = _truth(raw)
    assert not exact, f"{ours} labelled exact (transformers: {truth})"
    assert "vocab_size is not a field of voxtral" in notes


def test_unregistered_label_of_a_fixed_sub_config_class_is_read_as_that_class() -> None:
    raw = _load(FLORENCE)
    assert raw["vision_config"]["model_type"] == "davit"
    assert raw["projection_dim"] == raw["vision_config"]["projection_dim"]
    ours, exact, notes = dimlint_count(raw)
    assert exact, notes
    assert ours == _truth(raw)


def test_unregistered_label_of_an_auto_sub_config_stays_an_estimate() -> None:
    raw = _load(FLORENCE)
    bart = {**raw["text_config"], "model_type": "not_a_registered_type"}
    ours, exact, notes = dimlint_count({**raw, "text_config": bart})
    assert not exact, f"{ours} labelled exact"
    assert "not_a_registered_type" in notes


def test_a_field_the_class_copies_is_read_at_the_original() -> None:
    # VibeVoice-1.5B states a 1536-wide diffusion head; the class copies the language model's
    # width over it (the default 4096: the config's ``decoder_config`` is not a key it reads)
    raw = _load(VIBEVOICE)
    assert raw["diffusion_head_config"]["hidden_size"] == 1536
    ours, exact, notes = dimlint_count(raw)
    assert exact, notes
    assert ours == _truth(raw)


def test_a_field_the_class_replaces_from_no_single_field_is_refused() -> None:
    learned = {"defaults": {"a.width": 64}, "overwritten": {"a.width": None}}
    assert templates._overwritten_statement({"a": {"width": 64}}, learned) is None
    reason = templates._overwritten_statement({"a": {"width": 32}}, learned)
    assert reason is not None
    assert reason.startswith("a.width = 32 is replaced by the config class")
    copied = {**learned, "overwritten": {"a.width": "b.width"}}
    assert templates._overwritten_statement({"a": {"width": 32}}, copied) is None
    values = templates._Values({"a": {"width": 32}, "b": {"width": 48}}, copied)
    assert values.get("a.width") == 48


def test_sub_config_leaving_out_a_field_the_composite_defaults_otherwise() -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    empty = {"model_type": "pe_audio", "text_config": {}}
    stated = {"model_type": "pe_audio", "text_config": {"hidden_size": 1024}}
    for raw in (empty, stated):
        built, why = transformers_count(raw)
        assert built is not None, why
        ours, exact, notes = dimlint_count(raw)
        assert not exact or ours == built, notes
    assert not dimlint_count(empty)[1]  # counted at the class's 768 before


@pytest.mark.parametrize(
    "raw",
    [
        # ShieldGemma-2 ties its head whatever a top-level tie_word_embeddings says
        {"model_type": "shieldgemma2", "architectures": ["ShieldGemma2ForImageClassification"],
         "tie_word_embeddings": False},
        # LLaVA builds its text_config from defaults: a flat vocab_size is not the text tower's
        {"model_type": "llava", "architectures": ["LlavaForConditionalGeneration"],
         "vocab_size": 32064},
    ],
)  # fmt: skip
def test_flat_text_keys_are_read_only_where_the_class_reads_them(raw: dict[str, Any]) -> None:
    ours, exact, notes = dimlint_count(raw)
    truth = _truth(raw)
    assert ours == truth or not exact, notes


@pytest.mark.parametrize(("encoder_layers", "num_hidden_layers"), [(24, 12), (12, 24), (24, None)])
def test_sub_config_alias_wins_over_its_field(
    encoder_layers: int, num_hidden_layers: int | None
) -> None:
    # Florence-2's BART text config states num_hidden_layers beside encoder_layers; BART's
    # attribute_map makes the first set the second, so the encoder has num_hidden_layers layers
    # (a probe moving encoder_layers alone found 24 counted where transformers built 12).
    raw = _load(FLORENCE)
    raw["text_config"]["encoder_layers"] = encoder_layers
    if num_hidden_layers is None:
        raw["text_config"].pop("num_hidden_layers", None)
    else:
        raw["text_config"]["num_hidden_layers"] = num_hidden_layers
    expected, _ = transformers_count(raw)
    if expected is None:
        pytest.skip("transformers does not build it here")
    ours, exact, notes = dimlint_count(raw)
    assert (ours, exact) == (expected, True), notes
