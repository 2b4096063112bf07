"""What the tests of the shape generator share: transformers (or a skip), the parameter count
of the model transformers builds on the meta device, a freshly learned row, and the run-time's
count of a config from a given row."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from dimlint.memory.parameters import templates


def transformers_or_skip() -> Any:
    """transformers (with torch), quiet, or a skip where they are not installed."""
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("torch")
    transformers.logging.set_verbosity_error()
    return transformers


def truth(raw: dict[str, Any], architecture: str) -> int:
    """Parameters of the ``architecture`` transformers builds from ``raw`` (tied weights once),
    on the meta device."""
    import torch

    transformers = transformers_or_skip()
    kwargs = {key: value for key, value in raw.items() if key != "model_type"}
    config = transformers.AutoConfig.for_model(raw["model_type"], **kwargs)
    with warnings.catch_warnings(), torch.device("meta"):
        warnings.simplefilter("ignore")
        model = getattr(transformers, architecture)(config)
    return sum(int(p.numel()) for p in model.parameters())


def learned(model_type: str, budget_s: float = 120.0) -> dict[str, Any]:
    """The row the generator learns for ``model_type`` now (a generous CPU budget: the default
    cuts builds on a loaded machine)."""
    from dimlint.tools import generate_shapes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate_shapes.learn(model_type, budget_s=budget_s)


def count_with_row(
    monkeypatch: pytest.MonkeyPatch, row: dict[str, Any], raw: dict[str, Any], architecture: str
) -> int | str:
    """The run-time's count of ``raw`` from ``row`` (or its refusal)."""
    monkeypatch.setattr(templates, "row", lambda model_type: row)
    found = templates.learned_tensors(raw, architecture)
    if isinstance(found, templates.Refusal):
        return found.reason
    return sum(tensor.numel for tensor in found)
