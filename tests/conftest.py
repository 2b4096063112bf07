"""Shared test helpers: where ../shared is, linting text without touching the disk, and the
hypothesis profiles.

Hypothesis runs under one of two profiles. ``ci`` (the default, what CI runs): a fixed seed
(``derandomize``), no example database, and each property's moderate count as written in its
test, so a failure reproduces on every run and the suite stays fast. ``nightly``
(``pytest --hypothesis-profile nightly``, or ``DIMLINT_HYPOTHESIS_PROFILE=nightly``): random
seeds and :data:`NIGHTLY_FACTOR` times the examples, the search a scheduled job runs. Properties
take their count through :func:`examples`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from dimlint.deploy.targets import Deployment
from dimlint.diagnostics import Diagnostic
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"

#: How many times the CI count of examples the nightly profile runs.
NIGHTLY_FACTOR = 25
_DEFAULT = settings.get_profile("default")
settings.register_profile(
    "ci", parent=_DEFAULT, derandomize=True, database=None, deadline=None, max_examples=100
)
settings.register_profile(
    "nightly", parent=_DEFAULT, derandomize=False, deadline=None, max_examples=100 * NIGHTLY_FACTOR
)
# This module is imported twice (as pytest's conftest and as tests.conftest): the second import
# must not replace the profile pytest loaded from --hypothesis-profile. Hypothesis itself loads
# a built-in profile named "ci" when it sees a CI environment (the CI variable): ours replaces it.
if settings.get_current_profile_name() in ("default", "ci"):
    settings.load_profile(os.environ.get("DIMLINT_HYPOTHESIS_PROFILE", "ci"))


#: A clean Llama-3-8B-like config: the base the reliability and containment tests perturb.
LLAMA_8B: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "vocab_size": 32000,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
}


def llama_json(**overrides: Any) -> str:
    """:data:`LLAMA_8B` with ``overrides``, as a config.json's text (one key per line)."""
    return json.dumps({**LLAMA_8B, **overrides}, indent=2, ensure_ascii=False) + "\n"


def examples(ci: int) -> int:
    """A property's example count: ``ci`` under the CI profile, ``NIGHTLY_FACTOR`` × ``ci``
    under the nightly one (read from the loaded profile's ``max_examples``)."""
    return ci * settings().max_examples // 100 if settings().max_examples > 100 else ci


def shared_path(*parts: str) -> Path:
    """A path under ../shared; skips the test when it is absent (fails under CI's variable)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = f"{path} is not available (the shared corpus sits beside the checkout)"
        if os.environ.get("DIMLINT_REQUIRE_SHARED"):
            pytest.fail(message + "; DIMLINT_REQUIRE_SHARED is set")
        pytest.skip(message)
    return path


def lint_text(
    text: str,
    *,
    path: str = "config.json",
    select: tuple[str, ...] | None = None,
    deployment: Deployment | None = None,
) -> list[Diagnostic]:
    """Lint a JSON document given as text, with an optional rule selection and deployment."""
    selection = Selection(select=select, deployment=deployment)
    return lint_bytes(path, text.encode("utf-8"), selection).diagnostics


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics]
