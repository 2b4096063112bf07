"""Pax's experiment classes state the model in upper-case class attributes (batch 7: paxml).

google/paxml's ``tasks/lm/params`` classes set ``NUM_LAYERS``, ``NUM_HEADS``, ``MODEL_DIMS``,
``HIDDEN_DIMS`` and ``DIMS_PER_HEAD`` as class attributes that ``task()`` hands to praxis;
with ``DIMS_PER_HEAD = None`` praxis' ``DotProductAttention`` takes ``MODEL_DIMS //
NUM_HEADS`` and asserts the product, so heads that do not divide the width fail. Upper-case
attributes of any other class stay constants, not config fields.
"""

from __future__ import annotations

import pytest

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

PAX = """\
from paxml import experiment_registry
from paxml.tasks.lm import model_params


@experiment_registry.register
class C4SpmdGpt3AdamOrgHP(model_params.TransformerLmSpmdAdam):
  \"\"\"GPT-3 175B.\"\"\"

  NUM_LAYERS = 96
  NUM_HEADS = 96
  MODEL_DIMS = {width}
  HIDDEN_DIMS = MODEL_DIMS * 4
  DIMS_PER_HEAD = {per_head}
  VOCAB_SIZE = 51200


class C4SpmdGpt3Smaller(C4SpmdGpt3AdamOrgHP):
  MODEL_DIMS = {smaller}
"""


def _lines(text: str, fast: bool) -> dict[str, set[int]]:
    from dimlint.lint.python_front import lint_python

    result = lint_python("paxml/tasks/lm/params/c4.py", text.encode(), Selection(), fast=fast)
    found: dict[str, set[int]] = {}
    for d in result.diagnostics:
        assert d.span is not None
        found.setdefault(d.code, set()).add(d.span.start_pos.line)
    return found


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("per_head", ["None", "128"])
def test_pax_model_attributes_are_read(fast: bool, per_head: str) -> None:
    """With ``DIMS_PER_HEAD`` stated, paxml's ``task()`` asserts ``MODEL_DIMS == NUM_HEADS *
    DIMS_PER_HEAD``: the heads must divide the width either way."""
    clean = _lines(PAX.format(width=12288, smaller=6144, per_head=per_head), fast)
    assert "DL101" not in clean
    wrong = _lines(PAX.format(width=12289, smaller=6144, per_head=per_head), fast)
    assert wrong.get("DL101") == {11}
    # a subclass of a Pax class of the same file overrides the width it inherits the heads of
    child = _lines(PAX.format(width=12288, smaller=6145, per_head=per_head), fast)
    assert child.get("DL101") == {18}


def test_pax_files_pass_the_pre_filter_and_count_as_read() -> None:
    result = lint_bytes(
        "c4.py", PAX.format(width=12288, smaller=6144, per_head="None").encode(), Selection()
    )
    assert result.read[0] == 2
    assert result.skipped is None


def test_upper_case_attributes_of_other_classes_stay_constants() -> None:
    text = "class Limits:\n    MODEL_DIMS = 1025\n    MAX_BATCH = 7\n"
    result = lint_bytes("limits.py", text.encode(), Selection())
    assert not result.diagnostics
    assert result.read[0] == 0
