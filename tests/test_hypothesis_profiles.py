"""The hypothesis profiles of ``tests/conftest.py``: a fixed seed in CI, real counts nightly."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from tests.conftest import NIGHTLY_FACTOR, examples

REPO = Path(__file__).resolve().parent.parent


def test_the_loaded_profile() -> None:
    """CI (the default): the counts as written, a fixed seed, no database; nightly otherwise."""
    if settings().max_examples > 100:  # pytest --hypothesis-profile nightly
        assert (examples(40), settings().derandomize) == (40 * NIGHTLY_FACTOR, False)
    else:
        assert (examples(40), settings().derandomize, settings().database) == (40, True, None)


@pytest.mark.parametrize("ci", [{}, {"CI": "true"}], ids=["this-environment", "CI=true"])
def test_nightly_multiplies_the_counts_and_draws_new_seeds(ci: dict[str, str]) -> None:
    """Also where CI is set: hypothesis then loads its own built-in "ci" profile first."""
    code = (
        "from hypothesis import settings\n"
        "from tests.conftest import examples\n"
        "print(examples(40), settings().derandomize)\n"
    )
    env = {**os.environ, "DIMLINT_HYPOTHESIS_PROFILE": "nightly", "PYTHONPATH": str(REPO), **ci}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == [str(40 * NIGHTLY_FACTOR), "False"]
