"""DL605: the tokenizer beside the config has ids the embedding does not have.

Like the checkpoint rules it reads files beside ``config.json`` (``tokenizer.json``,
``tokenizer_config.json``, ``added_tokens.json``), so the linter runs it through
:func:`dimlint.lint.checkpoint.check_beside`; it is registered here for the catalogue, the CLI
and filtering.
"""

from __future__ import annotations

from dimlint.checks.registry import register
from dimlint.diagnostics import Severity

register(
    "DL605",
    "tokenizer-vocab",
    Severity.ERROR,
    "The tokenizer beside the config has token ids ≥ vocab_size.",
)
