"""Tests for dimlint/data/architectures.json, the table dimlint reads instead of transformers.

The table is generated, so these tests check the shape the checks rely on and that the file still
matches what the installed transformers generates (drift), naming the model types that differ.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from dimlint.tools.generate_architectures import DEFAULT_OUTPUT, differing_entries, generate, render

ENTRY_KEYS = {"aliases", "auto_sub_configs", "defaults", "fields", "sub_configs", "causal_lm"}


@pytest.fixture(scope="module")
def table() -> dict[str, Any]:
    """Load the committed table once; every test reads the same file dimlint ships."""
    loaded: dict[str, Any] = json.loads(DEFAULT_OUTPUT.read_text(encoding="utf-8"))
    return loaded


def test_table_covers_transformers_model_types(table: dict[str, Any]) -> None:
    """A near-empty table would silently turn every model type into 'unknown'."""
    model_types = table["model_types"]
    assert len(model_types) > 700
    incomplete = sorted(name for name, entry in model_types.items() if set(entry) != ENTRY_KEYS)
    assert not incomplete, f"entries without exactly {sorted(ENTRY_KEYS)}: {incomplete}"


def test_gpt2_aliases_resolve_standard_names(table: dict[str, Any]) -> None:
    """gpt2 stores hidden_size as n_embd; checks must read the stored key."""
    assert table["model_types"]["gpt2"]["aliases"]["hidden_size"] == "n_embd"


def test_llama_defaults_are_declared_not_derived(table: dict[str, Any]) -> None:
    """head_dim/num_key_value_heads are derived when absent, so their default must stay null."""
    defaults = table["model_types"]["llama"]["defaults"]
    assert defaults["num_key_value_heads"] is None
    assert defaults["head_dim"] is None
    assert defaults["hidden_size"] == 4096


def test_table_matches_installed_transformers(table: dict[str, Any]) -> None:
    """Regenerating must reproduce the file byte for byte, or the table is stale."""
    transformers = pytest.importorskip("transformers")
    if transformers.__version__ != table["transformers_version"]:
        pytest.skip(
            f"table generated from transformers {table['transformers_version']}, "
            f"installed is {transformers.__version__}"
        )
    regenerated = generate()
    text = DEFAULT_OUTPUT.read_text(encoding="utf-8")
    if render(regenerated) != text:
        changes = differing_entries(table, regenerated) or ["formatting only"]
        pytest.fail(
            "dimlint/data/architectures.json is stale; run "
            f"`python -m dimlint.tools.generate_architectures`. Differences: {', '.join(changes)}"
        )
