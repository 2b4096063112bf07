"""``data/domain_probes.json`` against the pinned transformers (see
:mod:`dimlint.tools.generate_domain_probes`), and the guards it feeds.

Single-field builds cannot show two flags that interact, nor a field declared None that a
stated number changes, nor which law a field fitted through two values follows; a released
Falcon-180B with ``parallel_attn`` off was counted one norm per layer too many, and a YOLOS
with a patch of 17 550,656 parameters too many, both labelled exact. A fixed sample of types
is probed again (the whole table takes about 20 minutes); the released configs are compared
with meta builds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.memory.parameters import domain_probes, templates

transformers = pytest.importorskip("transformers")
pytest.importorskip("torch")

import released_ground_truth as truth  # noqa: E402

from dimlint.tools import generate_domain_probes  # noqa: E402

FALCON_180B = Path(__file__).parent / "data/released_configs/tune"
FALCON_180B /= "Alikhan13r__falcon-180B-chat__config.json"
#: Types whose rows record an interacting pair, a wrong single flip, a wrong move or an inert
#: None field.
SAMPLE = ("falcon", "deepseek_v2", "grounding-dino", "yolos")


def _falcon(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(FALCON_180B.read_text(encoding="utf-8"))
    raw.update(num_hidden_layers=2, **changes)
    return raw


def test_recorded_for_the_pinned_transformers() -> None:
    text = domain_probes.TABLE.data[:200].decode()
    assert f'"transformers_version": "{transformers.__version__}"' in text
    assert templates.transformers_version() == transformers.__version__


@pytest.mark.parametrize("model_type", SAMPLE)
def test_sample_probed_again(model_type: str) -> None:
    with domain_probes.ignored():
        result = generate_domain_probes.judged(model_type)
    assert result.get("interacting", []) == domain_probes.interacting(model_type)
    assert result.get("wrong_singles", []) == domain_probes.wrong_flips(model_type)
    assert result.get("wrong_moves", []) == domain_probes.wrong_moves(model_type)
    assert set(result.get("inert_unset", [])) == domain_probes.inert_unset(model_type)


def test_falcon_records_the_norm_pair() -> None:
    pair = [["new_decoder_architecture", True], ["parallel_attn", False]]
    assert pair in domain_probes.interacting("falcon")


@pytest.mark.parametrize(
    "changes",
    [
        {"parallel_attn": False},  # new decoder, sequential: input + post-attention norms
        {"num_ln_in_parallel_attn": 1},  # new decoder, one norm shared by both branches
        {"new_decoder_architecture": False, "num_ln_in_parallel_attn": 2},  # two norms
    ],
)
def test_falcon_variants_are_estimates_or_right(changes: dict[str, Any]) -> None:
    raw = _falcon(**changes)
    expected, ours, exact = truth.compared(raw)
    assert ours == expected or not exact, (expected, ours)
    assert not exact  # each lies outside what the template learned


def test_released_falcon_180b_stays_exact() -> None:
    expected, ours, exact = truth.compared(_falcon())
    assert (ours, exact) == (expected, True)


GROUNDING_DINO = Path(__file__).parent / "data/released_configs/tune"
GROUNDING_DINO /= "isaackogan__grounding-dino-tiny__config.json"


def test_unshared_box_head_is_an_estimate() -> None:
    # field learning saw decoder_bbox_embed_share as inert; unshared, each decoder layer
    # builds its own box head (663,060 parameters more than the template counted)
    raw = json.loads(GROUNDING_DINO.read_text(encoding="utf-8"))
    expected, ours, exact = truth.compared(raw)
    assert (ours, exact) == (expected, True)
    expected, ours, exact = truth.compared(dict(raw, decoder_bbox_embed_share=False))
    assert ours == expected or not exact, (expected, ours)
    assert ["decoder_bbox_embed_share", False] in domain_probes.wrong_flips("grounding-dino")


YOLOS = Path(__file__).parent / "data/released_configs/unseen9"
YOLOS /= "sushmitha-n07__EvidexAI__models__config.json"


@pytest.mark.parametrize("patch_size", [17, 8])
def test_patch_grid_off_the_default_is_an_estimate(patch_size: int) -> None:
    # (512 // p) · (864 // p) positions, fitted through p = 16 and 32 as a line: a patch of
    # 17 was counted 550,656 parameters high, labelled exact
    raw = json.loads(YOLOS.read_text(encoding="utf-8"))
    expected, ours, exact = truth.compared(raw)
    assert (ours, exact) == (expected, True)
    expected, ours, exact = truth.compared(dict(raw, patch_size=patch_size))
    assert ours == expected or not exact, (expected, ours)
    assert not exact


def test_scalar_beside_a_stated_derived_list() -> None:
    # DeepSeek-V3.2 derives mlp_layer_types from first_k_dense_replace and keeps a stated
    # list: a config saved by transformers states both, and moving only the number changes
    # nothing transformers builds (counted 11 billion low, labelled exact)
    entry = ["first_k_dense_replace", [3], ["mlp_layer_types"]]
    assert entry in domain_probes.wrong_moves("deepseek_v32")
    saved = dict(transformers.AutoConfig.for_model("deepseek_v32").to_dict())
    saved.update(architectures=["DeepseekV32ForCausalLM"], first_k_dense_replace=4)
    expected, ours, exact = truth.compared(saved)
    assert ours == expected or not exact, (expected, ours)
    assert not exact
    derived = dict(saved, num_hidden_layers=6)
    for derived_list in ("mlp_layer_types", "layer_types"):  # six layers: the class derives
        derived.pop(derived_list)
    for first_k in (1, 4):
        expected, ours, exact = truth.compared(dict(derived, first_k_dense_replace=first_k))
        assert (ours, exact) == (expected, True)  # the class derives the list from the number


def test_moves_two_sub_configs_deep_are_read() -> None:
    # ESMFold2's diffusion module sits in a sub-config of a sub-config: the guard walks every
    # dict of the path, as the generator that recorded it did
    path = "structure_head.diffusion_module.fourier_dim"
    assert [path, [256]] in domain_probes.wrong_moves("esmfold2")
    moved = {"structure_head": {"diffusion_module": {"fourier_dim": 257}}}
    reason = domain_probes.outside_move("esmfold2", moved)
    assert reason is not None
    assert reason.startswith(f"{path} = 257"), reason
    proven = {"structure_head": {"diffusion_module": {"fourier_dim": 256}}}
    assert domain_probes.outside_move("esmfold2", proven) is None


def test_inert_none_field_stays_exact() -> None:
    # DeepSeek-V2 routes over n_group groups of experts; the number sizes no tensor
    assert "n_group" in domain_probes.inert_unset("deepseek_v2")
    raw = dict(transformers.AutoConfig.for_model("deepseek_v2").to_dict(), n_group=8)
    raw.update(architectures=["DeepseekV2ForCausalLM"], num_hidden_layers=2)
    expected, ours, exact = truth.compared(raw)
    assert (ours, exact) == (expected, True)
