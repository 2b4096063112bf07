"""Parameter counts against the models transformers builds (hf extra).

Every causal-LM model type of the installed transformers is built from its default config on
the meta device (no memory is allocated) and ``sum(p.numel() for p in model.parameters())`` —
tied weights once — is compared with :func:`dimlint.memory.model_parameters` on the same
config dict, lint-normalized. The class transformers chose is written into ``architectures``,
as ``save_pretrained`` would, since it decides which sub-models are built.
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from dimlint.config import architectures
from dimlint.config.normalize import specs_for_document
from dimlint.memory import model_parameters

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

#: Model types whose count is off, and why. Each entry must still be off (no stale entries)
#: and within ``MISS_BOUND``. Empty: the shape templates made AXK2, HY-V4 and Phi-4-multimodal
#: (its audio and image embedders) exact.
EXPLAINED: dict[str, str] = {}

#: An explained miss may be off by at most this share of the true count.
MISS_BOUND = 0.02

#: Families DOMAIN.md lists: these must be exact.
DOMAIN_FAMILIES = (
    "llama", "mistral", "mixtral", "qwen2", "gemma2", "gemma3_text", "phi3", "falcon", "gpt2",
    "deepseek_v3", "qwen3_moe",
)  # fmt: skip


def _causal_types() -> list[str]:
    return [
        name
        for name in architectures.model_types()
        if (record := architectures.lookup(name)) is not None and record.causal_lm
    ]


def _build(model_type: str) -> tuple[int, dict[str, Any]] | None:
    """(parameters, config dict) of the default model, or None when it does not build."""
    from transformers import AutoConfig, AutoModelForCausalLM

    try:
        config = AutoConfig.for_model(model_type)
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(config)
    except Exception:  # a default config that transformers itself cannot build is skipped
        return None
    document: dict[str, Any] = json.loads(config.to_json_string(use_diff=False))
    document["architectures"] = [type(model).__name__]
    return sum(p.numel() for p in model.parameters()), document


@pytest.fixture(scope="module")
def counts() -> dict[str, tuple[int, int] | None]:
    """model type → (transformers' count, dimlint's count), None when it does not build."""
    from transformers.utils import logging

    logging.set_verbosity_error()
    results: dict[str, tuple[int, int] | None] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model_type in _causal_types():
            built = _build(model_type)
            if built is None:
                results[model_type] = None
                continue
            truth, document = built
            ours = model_parameters(specs_for_document("config.json", document)).total
            results[model_type] = (truth, ours)
    return results


def _classify(counts: dict[str, tuple[int, int] | None]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {"exact": [], "close": [], "off": [], "unbuilt": []}
    for model_type, pair in counts.items():
        if pair is None:
            groups["unbuilt"].append(model_type)
        elif pair[0] == pair[1]:
            groups["exact"].append(model_type)
        elif abs(pair[1] - pair[0]) <= 0.001 * pair[0]:
            groups["close"].append(model_type)
        else:
            groups["off"].append(model_type)
    return groups


def test_report_and_share_exact(counts: dict[str, tuple[int, int] | None]) -> None:
    groups = _classify(counts)
    built = len(counts) - len(groups["unbuilt"])
    summary = (
        f"{built} causal-LM model types build from their default config: "
        f"exact {len(groups['exact'])}, within 0.1% {len(groups['close'])}, "
        f"off {len(groups['off'])} ({len(groups['unbuilt'])} do not build: "
        f"{', '.join(sorted(groups['unbuilt']))})"
    )
    print(summary)
    for model_type in groups["close"] + groups["off"]:
        truth, ours = counts[model_type] or (0, 0)
        print(f"  {model_type}: transformers {truth:,}, dimlint {ours:,}")
    assert built > 150, summary
    assert len(groups["exact"]) >= 0.95 * built, summary


def test_every_inexact_type_is_explained(counts: dict[str, tuple[int, int] | None]) -> None:
    groups = _classify(counts)
    unexplained = sorted(set(groups["close"] + groups["off"]) - set(EXPLAINED))
    assert not unexplained, {name: counts[name] for name in unexplained}


def test_no_stale_explanations(counts: dict[str, tuple[int, int] | None]) -> None:
    groups = _classify(counts)
    stale = sorted(set(EXPLAINED) & set(groups["exact"]))
    assert not stale
    assert set(EXPLAINED) <= set(counts), "explained types must exist in the table"
    for model_type in EXPLAINED:
        truth, ours = counts[model_type] or (0, 0)
        assert abs(ours - truth) <= MISS_BOUND * truth, model_type


@pytest.mark.parametrize("model_type", DOMAIN_FAMILIES)
def test_domain_families_are_exact(
    counts: dict[str, tuple[int, int] | None], model_type: str
) -> None:
    pair = counts[model_type]
    assert pair is not None
    assert pair[1] == pair[0]
