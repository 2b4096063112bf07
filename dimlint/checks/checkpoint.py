"""DL503, DL610, DL611, DL612: the config against the weights beside it.

These rules read the safetensors headers (and index) in the config's folder, so they are not
spec checks: the linter runs them through :func:`dimlint.lint.checkpoint.check_beside` when
discovery found weights beside a ``config.json``. They are registered here for the catalogue,
the CLI and filtering.
"""

from __future__ import annotations

from dimlint.checks.registry import register
from dimlint.diagnostics import Severity

register(
    "DL503",
    "declared-size-mismatch",
    Severity.WARNING,
    "A declared size (the checkpoint index's total_size or total_parameters) differs from the"
    " computed one.",
)
register(
    "DL610",
    "checkpoint-shape",
    Severity.ERROR,
    "A tensor's shape in the safetensors headers disagrees with the config.",
)
register(
    "DL611",
    "checkpoint-tensors",
    Severity.ERROR,
    "Tensors are missing or extra for the config: layer count, experts, tied head, biases.",
)
register(
    "DL612",
    "checkpoint-dtype",
    Severity.INFO,
    "The weights are stored in another dtype than the config's torch_dtype/dtype.",
)
