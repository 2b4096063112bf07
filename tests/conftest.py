"""Shared test helpers: where ../shared is, and linting text without touching the disk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from dimlint.deploy.targets import Deployment
from dimlint.diagnostics import Diagnostic
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


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
