"""dimlint over real Python model code: transformers' configuration files and litgpt's tables.

DOMAIN.md: a rule that fires on a shipping model is a bug in the rule. So every
``configuration_*.py`` of the installed transformers must lint without raising and without an
error-level finding, except the reviewed true defects of transformers' own defaults below (the
same ones ``tests/test_corpus.py`` knows from the JSON side), and litgpt's ``config.py`` — 140
configs of released models as ``dict(...)`` tables over a ``Config`` dataclass — must raise no
error at all.

litgpt is not installed (it pins an older transformers); its ``config.py`` is read from
``$DIMLINT_LITGPT_CONFIG`` or ``/tmp/litgpt/litgpt/config.py``, fetched with::

    pip download --no-deps litgpt -d /tmp/litgpt
    unzip -o -q /tmp/litgpt/litgpt-*.whl 'litgpt/config.py' -d /tmp/litgpt

and the test skips when it is absent (``.ci/run`` downloads it, and under
``DIMLINT_REQUIRE_SHARED`` the test fails instead of skipping).
``python tests/test_python_real_code.py`` prints the counts per rule for both.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TextIO

import pytest

from dimlint.diagnostics import Diagnostic, Severity
from dimlint.lint.parallel import lint_paths
from dimlint.lint.selection import Selection

#: Error findings on transformers' configuration files that are true defects of the defaults,
#: keyed (file, code, offending source line). Reviewed against the transformers 5.24 sources;
#: they are the KNOWN_INVALID_DEFAULTS of tests/test_corpus.py, seen from the Python side.
KNOWN_TRUE_POSITIVES: dict[tuple[str, str, str], str] = {
    ("configuration_aya_vision.py", "DL101", '"hidden_size": 1152,'): (
        "the default SigLIP vision tower (init_kwargs of the vision sub-config) is 1152 wide"
        " with 14 heads and no head_dim: transformers refuses to build it"
    ),
    ("configuration_glm4_moe.py", "DL101", "hidden_size: int = 4096"): (
        "4096 / 96 heads and no head_dim (the released GLM-4.5 states head_dim 128): head_dim"
        " floors to 42; Megatron and engines that require hidden % heads refuse it"
    ),
    ("configuration_glm4v_moe.py", "DL101", "hidden_size: int = 4096"): (
        "the same text tower as glm4_moe (Glm4vMoeTextConfig): 4096 / 96 heads, no head_dim"
    ),
    ("configuration_qwen3_omni_moe.py", "DL101", "hidden_size: int = 2048"): (
        "the thinker's text config: 2048 / 28 heads with no head_dim; head_dim floors to 73"
        " and the first forward fails in the rotary embedding"
    ),
}
LITGPT_DEFAULT = Path("/tmp/litgpt/litgpt/config.py")


def transformers_config_files() -> list[Path]:
    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        return []
    models = Path(spec.origin).parent / "models"
    return sorted(models.glob("*/configuration_*.py"))


def litgpt_config() -> Path | None:
    configured = os.environ.get("DIMLINT_LITGPT_CONFIG")
    path = Path(configured) if configured else LITGPT_DEFAULT
    return path if path.is_file() else None


def lint_all(paths: list[Path]) -> list[Diagnostic]:
    jobs = [(str(path), Selection()) for path in paths]
    return [d for result, _ in lint_paths(jobs) for d in result.diagnostics]


def _key(diagnostic: Diagnostic) -> tuple[str, str, str]:
    assert diagnostic.span is not None
    lines = Path(diagnostic.path).read_text(encoding="utf-8").splitlines()
    return (
        os.path.basename(diagnostic.path),
        diagnostic.code,
        lines[diagnostic.span.start_pos.line - 1].strip(),
    )


def test_transformers_configuration_files_raise_only_known_true_defects() -> None:
    files = transformers_config_files()
    if not files:
        pytest.skip("transformers is not installed")
    diagnostics = lint_all(files)
    errors = {_key(d): d.message for d in diagnostics if d.severity is Severity.ERROR}
    unexpected = {
        key: message for key, message in errors.items() if key not in KNOWN_TRUE_POSITIVES
    }
    assert not unexpected, "\n".join(f"{key}: {message}" for key, message in unexpected.items())
    # Each listed defect is still found: the list stays honest when transformers changes.
    assert set(errors) == set(KNOWN_TRUE_POSITIVES)
    assert not any(d.code == "DL001" for d in diagnostics)


def test_litgpt_config_tables_raise_no_error() -> None:
    path = litgpt_config()
    if path is None:
        message = f"litgpt's config.py is not at $DIMLINT_LITGPT_CONFIG or {LITGPT_DEFAULT}"
        if os.environ.get("DIMLINT_REQUIRE_SHARED"):
            pytest.fail(message + "; DIMLINT_REQUIRE_SHARED is set (.ci/run downloads it)")
        pytest.skip(message)
    diagnostics = lint_all([path])
    errors = [d for d in diagnostics if d.severity is Severity.ERROR]
    assert not errors, "\n".join(f"{d.span}: {d.message}" for d in errors)
    # The tables are read: Gemma's head_size 256 beside a narrower n_embd is the legal override.
    assert Counter(d.code for d in diagnostics)["DL105"] >= 10


def test_torch_nn_sources_lint_without_error() -> None:
    """torch's own layer definitions: unusual code (operators, shifts, star-args), no config."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        pytest.skip("torch is not installed")
    files = sorted((Path(spec.origin).parent / "nn").rglob("*.py"))
    assert lint_all(files) == []


def report(out: TextIO = sys.stdout) -> None:
    """Counts per rule and severity for both real-code sets."""
    sets = {"transformers configuration_*.py": transformers_config_files()}
    litgpt = litgpt_config()
    if litgpt is not None:
        sets["litgpt config.py"] = [litgpt]
    for name, files in sets.items():
        counts = Counter((d.code, d.severity.label) for d in lint_all(files))
        out.write(f"{name} ({len(files)} files)\n")
        for (code, severity), count in sorted(counts.items()):
            out.write(f"  {code} {severity:8} {count}\n")


if __name__ == "__main__":
    report()
