"""``# noqa`` in Python code: what it suppresses, and DL701 for the ones that suppress nothing."""

from __future__ import annotations

import pytest
from conftest import lint_text

from dimlint.checks import catalogue
from dimlint.checks.catalogue import Marker
from dimlint.diagnostics import Applicability, Diagnostic
from dimlint.fix.apply import apply_edits, fix_file
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

HEADER = "from transformers import LlamaConfig\n\n"
BAD = "LlamaConfig(hidden_size=4096, num_attention_heads=24)"
GOOD = "LlamaConfig(hidden_size=4096, num_attention_heads=32)"


def lint(body: str, select: tuple[str, ...] | None = None) -> list[Diagnostic]:
    return lint_text(HEADER + body, path="model.py", select=select)


def codes(diagnostics: list[Diagnostic]) -> list[str]:
    return [d.code for d in diagnostics]


def fixed(body: str, select: tuple[str, ...] | None = None) -> str:
    """The text after applying the safe fixes (what ``--fix`` does)."""
    text = HEADER + body
    diagnostics = lint(body, select)
    edits = [e for d in diagnostics if d.fix is not None for e in d.fix.edits]
    assert all(
        d.fix.applicability is Applicability.SAFE
        for d in diagnostics
        if d.fix and d.code == "DL701"
    )
    return apply_edits(text, edits)[len(HEADER) :]


def test_without_noqa_the_finding_is_reported() -> None:
    assert codes(lint(f"a = {BAD}\n")) == ["DL101"]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: DL101",
        "# noqa:DL101",
        "#noqa: DL101",
        "# NOQA: DL101",
        "# noqa: E501, DL101",
        "# noqa",
    ],
)
def test_noqa_on_the_line_suppresses(comment: str) -> None:
    assert lint(f"a = {BAD}  {comment}\n") == []


def test_noqa_for_another_code_does_not_suppress() -> None:
    found = lint(f"a = {BAD}  # noqa: DL102\n")
    assert codes(found) == ["DL101", "DL701"]


def test_noqa_applies_to_the_line_the_finding_starts_on() -> None:
    body = (
        "a = LlamaConfig(  # noqa: DL101\n    hidden_size=4096,\n    num_attention_heads=24,\n)\n"
    )
    found = lint(body)
    assert codes(found) == ["DL701", "DL101"]
    assert found[1].span is not None
    assert found[1].span.start_pos.line == 4


def test_unused_noqa_is_dl701_with_a_safe_fix_removing_it() -> None:
    found = lint(f"a = {GOOD}  # noqa: DL101\n")
    assert codes(found) == ["DL701"]
    (diagnostic,) = found
    assert diagnostic.span is not None
    assert (diagnostic.span.start_pos.line, diagnostic.span.start_pos.column) == (3, 60)
    assert diagnostic.fix is not None
    assert diagnostic.fix.applicability is Applicability.SAFE
    assert fixed(f"a = {GOOD}  # noqa: DL101\n") == f"a = {GOOD}\n"


@pytest.mark.parametrize(
    ("comment", "after"),
    [
        ("# noqa: DL101, E501", "# noqa: E501"),
        ("# noqa: E501, DL101", "# noqa: E501"),
        ("# noqa: DL101 DL202 F401", "# noqa: F401"),
        (
            "# noqa: DL101  -- 4096 is fixed by the checkpoint",
            "# -- 4096 is fixed by the checkpoint",
        ),
        ("# type: ignore  # noqa: DL101", "# type: ignore"),
    ],
)
def test_dl701_fix_keeps_other_codes_and_text(comment: str, after: str) -> None:
    assert fixed(f"a = {GOOD}  {comment}\n") == f"a = {GOOD}  {after}\n"


def test_partly_used_noqa_reports_only_the_unused_code() -> None:
    found = lint(f"a = {BAD}  # noqa: DL101, DL202\n")
    assert codes(found) == ["DL701"]
    assert "DL202" in found[0].message
    assert "DL101" not in found[0].message.split(":")[1]
    assert fixed(f"a = {BAD}  # noqa: DL101, DL202\n") == f"a = {BAD}  # noqa: DL101\n"


def test_unknown_dl_code_is_unused() -> None:
    found = lint(f"a = {GOOD}  # noqa: DL999\n")
    assert codes(found) == ["DL701"]
    assert "DL999 is not a dimlint rule" in found[0].message


def test_codes_of_rules_that_did_not_run_are_left_alone() -> None:
    """Under --select DL2 the DL101 rule did not run: its noqa may be needed, so no DL701."""
    assert lint(f"a = {GOOD}  # noqa: DL101\n", select=("DL2", "DL701")) == []
    assert codes(lint(f"a = {GOOD}  # noqa: DL101\n", select=("DL1", "DL701"))) == ["DL701"]


def test_bare_noqa_and_other_tools_codes_are_never_dl701() -> None:
    assert lint(f"a = {GOOD}  # noqa\n") == []
    assert lint("import os  # noqa: F401\nx = LlamaConfig(hidden_size=4096)\n") == []


def test_noqa_text_in_strings_is_not_a_directive() -> None:
    body = f'a = {GOOD}\nb = "# noqa: DL101"\n'
    assert lint(body) == []


def test_dl701_can_be_deselected() -> None:
    assert lint(f"a = {GOOD}  # noqa: DL101\n", select=("DL1",)) == []


def test_suppressed_findings_offer_no_fix_to_apply() -> None:
    text = HEADER + f"a = {BAD}  # noqa: DL101\n"
    data = text.encode()
    selection = Selection()
    first = lint_bytes("model.py", data, selection)
    outcome = fix_file(data, first, lambda new: lint_bytes("model.py", new, selection), unsafe=True)
    assert outcome.fixed is None


def test_a_noqa_left_unused_by_a_fix_is_removed_in_the_next_round() -> None:
    """Fixing DL101 also aligns the width DL201 was suppressed for; the rounds of --fix then
    find the noqa unused and remove it, and a second run has nothing to do."""
    text = HEADER + "a = LlamaConfig(hidden_size=4100, num_attention_heads=32)  # noqa: DL201\n"
    data = text.encode()
    selection = Selection()
    first = lint_bytes("model.py", data, selection)
    assert codes(first.diagnostics) == ["DL101"]
    outcome = fix_file(data, first, lambda new: lint_bytes("model.py", new, selection), unsafe=True)
    assert outcome.fixed is not None
    assert (
        outcome.fixed.decode()
        == HEADER + "a = LlamaConfig(hidden_size=4096, num_attention_heads=32)\n"
    )
    assert outcome.result.diagnostics == []


def test_python_marker_lines_in_catalogue_blocks() -> None:
    lines = [
        "x = nn.MultiheadAttention(1024, 16)  # noqa: DL101",
        "#                                    ^^^^^^^^^^^^^ DL701",
        "# an ordinary comment stays",
    ]
    text, markers = catalogue.parse_block(lines, "<test>", "python")
    assert (
        text == "x = nn.MultiheadAttention(1024, 16)  # noqa: DL101\n# an ordinary comment stays\n"
    )
    assert markers == (Marker("DL701", 1, 38, 51),)
