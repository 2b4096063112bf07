"""Given a released model's fixed dimensions, ``suggest`` finds its FFN width (issue 23).

The widths are searched at the family's own roundings (Llama-3's ``multiple_of`` 1024/4096)
and within the FFN ratio range of the family's released models, so a released shape must be
reachable: Qwen2.5-1.5B's 8960 is 5.83 × hidden, above the 5.5 × a hand-written cap allowed.
The models and their dimensions are rows of the released-shape table (from the shared corpus).
"""

from __future__ import annotations

import io
import json

import pytest

from dimlint.cli import main
from dimlint.fix.suggest.reference import released

#: (table name, --like): dense releases of each family the search writes.
RELEASES = [
    ("Llama-3.1-8B", "llama"),
    ("Llama-3.1-70B", "llama"),
    ("qwen25_1_5b", "qwen2"),
    ("qwen2_0_5b", "qwen2"),
    ("mistral_7b_v03", "mistral"),
    ("gemma2_9b", "gemma2"),
]


@pytest.mark.parametrize(("name", "like"), RELEASES)
def test_fixed_dimensions_reach_the_released_ffn(name: str, like: str) -> None:
    model = next(m for m in released() if m.name == name)
    head_dim = model.head_dim or model.hidden // model.heads
    argv = ["suggest", "--params", str(model.params), "--like", like, "--vocab", str(model.vocab)]
    argv += ["--hidden", str(model.hidden), "--heads", str(model.heads), "--head-dim"]
    argv += [str(head_dim), "--kv-heads", str(model.kv_heads), "--layers", str(model.layers)]
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv, "--top", "3", "--output-format", "json"], out, err)
    assert code == 0, err.getvalue()
    widths = [c["config"]["intermediate_size"] for c in json.loads(out.getvalue())["candidates"]]
    assert model.ffn in widths
