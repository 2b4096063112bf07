"""The YAML reader under the hostile inputs of issue 20: fixes keep the file readable, tags and
non-finite numbers are DL003, aliases are bounded in work, absurd sizes are not layouts."""

from __future__ import annotations

import codecs
import io
import time
import tracemalloc
from pathlib import Path

import pytest

from dimlint.cli import main
from dimlint.diagnostics import Applicability, Edit, Fix
from dimlint.fix.apply import fix_file
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection
from dimlint.sources import yamlfile

HEADS = "  num_attention_heads: 32\n  num_layers: 2\n"


def _lint(text: str | bytes, name: str = "m.yaml") -> FileResult:
    data = text.encode() if isinstance(text, str) else text
    return lint_bytes(name, data, Selection())


def _found(text: str | bytes) -> list[tuple[str, int, int]]:
    return [
        (d.code, d.span.start_pos.line, d.span.start_pos.column)
        for d in _lint(text).diagnostics
        if d.span is not None
    ]


def _fixed(text: str | bytes, unsafe: bool = True) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    outcome = fix_file(data, _lint(data), _lint, unsafe=unsafe)
    return outcome.fixed if outcome.fixed is not None else data


def _parses(data: bytes) -> bool:
    document, problem = yamlfile.load("m.yaml", data)
    return document is not None and problem is None


def test_a_fix_keeps_the_anchor_other_keys_refer_to() -> None:
    text = "model:\n  hidden_size: &h 4096.0\n" + HEADS + "  other: *h\n"
    assert ("DL003", 2, 19) in _found(text)  # at the scalar, not at the anchor
    fixed = _fixed(text, unsafe=False)
    assert b"hidden_size: &h 4096\n" in fixed
    assert _parses(fixed)
    assert _found(fixed.decode()) == []


def test_a_fix_on_a_block_scalar_does_not_join_lines() -> None:
    text = "model:\n  hidden_size: >\n    4096\n" + HEADS
    fixed = _fixed(text)
    assert fixed.decode().splitlines()[1:4] == [
        "  hidden_size: 4096",
        "  num_attention_heads: 32",
        "  num_layers: 2",
    ]
    assert _parses(fixed)


def test_two_byte_order_marks_do_not_shift_spans() -> None:
    data = codecs.BOM_UTF8 * 2 + ("model:\n  hidden_size: 4100\n" + HEADS).encode()
    assert ("DL101", 2, 16) in _found(data)
    fixed = _fixed(data)
    assert fixed.startswith(codecs.BOM_UTF8 * 2)  # written back as they were
    assert b"  hidden_size: 4096\n" in fixed
    assert _parses(fixed)


def test_a_fix_that_breaks_the_file_is_rolled_back_and_said() -> None:
    text = "model:\n  hidden_size: 4100\n" + HEADS
    data = text.encode()
    first = _lint(data)
    (finding,) = [d for d in first.diagnostics if d.code == "DL101"]
    assert finding.fix is not None
    assert finding.span is not None
    broken = Fix(
        Applicability.SAFE, "a fix that writes an unclosed list", (Edit(finding.span, "[1"),)
    )
    first.diagnostics = [finding._replace(fix=broken)]
    outcome = fix_file(data, first, _lint, unsafe=False)
    assert outcome.fixed is None
    assert [d.code for d, _ in outcome.refused] == ["DL101"]
    shown = [d for d in outcome.result.diagnostics if d.code == "DL101"]
    assert shown[0].fix is not None
    assert shown[0].fix.applicability is Applicability.DISPLAY
    assert "not applied: the fixed file would not read" in shown[0].fix.message


def test_a_breaking_fix_among_good_ones_is_found_and_the_others_applied() -> None:
    text = "a:\n  hidden_size: 4096.0\n" + HEADS + "b:\n  hidden_size: 2048.0\n" + HEADS
    data = text.encode()

    def with_a_bad_fix(new: bytes) -> FileResult:
        """Lint, then give the finding on /b a fix that writes an unclosed mapping."""
        result = _lint(new)
        result.diagnostics = [
            d._replace(fix=Fix(Applicability.SAFE, "break", (Edit(d.span, "{"),)))
            if d.pointer == "/b/hidden_size" and d.span is not None
            else d
            for d in result.diagnostics
        ]
        return result

    outcome = fix_file(data, with_a_bad_fix(data), with_a_bad_fix, unsafe=False)
    assert outcome.fixed is not None
    assert b"a:\n  hidden_size: 4096\n" in outcome.fixed
    assert b"b:\n  hidden_size: 2048.0\n" in outcome.fixed
    assert [d.pointer for d, _ in outcome.refused] == ["/b/hidden_size"]
    assert _parses(outcome.fixed)


def test_nested_merge_keys_parse() -> None:
    text = (
        "a: &a {hidden_size: 4100}\n"
        "b: &b {<<: *a, num_layers: 2}\n"
        "model:\n  <<: *b\n  num_attention_heads: 32\n"
    )
    assert ("DL101", 1, 21) in _found(text)


def test_a_mapping_merging_itself_ends() -> None:
    assert _found("a: &a\n  <<: *a\n  hidden_size: 4096\n  num_attention_heads: 32\n") == []


def _dl003_on_hidden(value: str) -> None:
    result = _lint(f"model:\n  hidden_size: {value}\n" + HEADS)
    assert [d.code for d in result.diagnostics] == ["DL003"], value
    assert result.diagnostics[0].span is not None
    assert result.diagnostics[0].span.start_pos.line == 2
    assert "bug" not in result.diagnostics[0].message


def test_bool_tag_on_a_number_is_dl003() -> None:
    _dl003_on_hidden("!!bool 1")


def test_timestamp_tag_on_a_word_is_dl003() -> None:
    _dl003_on_hidden("!!timestamp x")


def test_int_tag_on_an_empty_string_is_dl003() -> None:
    _dl003_on_hidden('!!int ""')


def test_float_tag_on_a_word_is_dl003() -> None:
    _dl003_on_hidden("!!float abc")


def test_infinite_and_nan_widths_are_dl003() -> None:
    _dl003_on_hidden(".inf")
    _dl003_on_hidden(".nan")


def test_olmo_infinite_mlp_ratio_is_dl003_and_zero_is_unused() -> None:
    zero = "model:\n  d_model: 4096\n  n_heads: 32\n  n_layers: 2\n  mlp_ratio: 0\n"
    assert _found(zero + "  mlp_hidden_size: 22016\n") == []
    for value in (".inf", ".nan", "-.inf", "-2"):
        text = f"model:\n  d_model: 4096\n  n_heads: 32\n  n_layers: 2\n  mlp_ratio: {value}\n"
        assert _found(text) == [("DL003", 5, 14)], value


def test_a_framework_tag_is_not_an_error() -> None:
    result = _lint("model:\n  hidden_size: !ENV ${WIDTH}\n" + HEADS)
    assert result.diagnostics == []
    assert result.document is not None
    assert any("!ENV" in note for note in result.document.notes)


def test_a_huge_base_60_integer_is_dl003_quickly() -> None:
    start = time.monotonic()
    result = _lint("model:\n  hidden_size: " + ":".join(["1"] * 20_000) + "\n" + HEADS)
    assert time.monotonic() - start < 5
    assert [d.code for d in result.diagnostics] == ["DL003"]
    assert "20000 digits" in result.diagnostics[0].message


def test_chained_aliases_of_a_long_key_are_bounded_in_work() -> None:
    key = "k" * 1000
    lines = [f"a0: &a0 {{{key}: 1}}"]
    for index in range(1, 9):
        previous = f"*a{index - 1}"
        lines.append(f"a{index}: &a{index} {{{key}: [{', '.join([previous] * 8)}]}}")
    text = "\n".join([*lines, "hidden_size: 4096", "num_attention_heads: 32", ""])
    assert len(text) < 40_000
    start = time.monotonic()
    result = _lint(text)
    assert time.monotonic() - start < 10
    assert [d.code for d in result.diagnostics] == ["DL001"]
    assert "characters of key paths" in result.diagnostics[0].message


def test_an_absurd_parallel_size_is_not_a_layout() -> None:
    text = (
        "model:\n  hidden_size: 4096\n" + HEADS + "  tensor_model_parallel_size: " + "1" + "0" * 30
    )
    assert [code for code, *_ in _found(text + "\n")] == []
    assert ("DL401", 3, 24) in _found(text[: -len("0" * 30)] + "7\n")  # 17 is judged


def test_a_derived_gated_width_is_placed_and_quoted_as_written() -> None:
    olmo = "model:\n  d_model: 4096\n  n_heads: 32\n  n_layers: 2\n  activation_type: swiglu\n"
    result = _lint(olmo + "  mlp_hidden_size: 22010\n")
    (finding,) = [d for d in result.diagnostics if d.code == "DL201"]
    assert finding.span is not None
    assert finding.span.start_pos.line == 6  # on mlp_hidden_size, not on d_model
    assert finding.message.startswith("mlp_hidden_size 22010 (gated: 11005 per branch)")
    result = _lint(olmo + "  mlp_ratio: 2.7\n")
    (finding,) = [d for d in result.diagnostics if d.code == "DL201"]
    assert finding.span is not None
    assert finding.span.start_pos.line == 6
    assert "mlp_ratio 2.7 (× d_model 4096 = 11059, gated: 5529 per branch)" in finding.message


def test_chained_aliases_are_bounded_in_memory() -> None:
    """The alias bomb of issue 20 (chained anchors of a long key) once built key paths until
    ~11 GB: the work cap bounds the memory too, not only the time."""
    key = "k" * 1000
    lines = [f"a0: &a0 {{{key}: 1}}"]
    for index in range(1, 9):
        lines.append(f"a{index}: &a{index} {{{key}: [{', '.join([f'*a{index - 1}'] * 8)}]}}")
    text = "\n".join([*lines, "hidden_size: 4096", "num_attention_heads: 32", ""])
    tracemalloc.start()
    try:
        result = _lint(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [d.code for d in result.diagnostics] == ["DL001"]
    assert peak < 64 * 2**20, peak


def test_a_parallel_size_written_as_an_expression_is_not_a_layout() -> None:
    """``tensor_model_parallel_size: 10**30`` as the issue writes it: a string, no layout."""
    text = "model:\n  hidden_size: 4096\n" + HEADS + "  tensor_model_parallel_size: 10**30\n"
    assert _found(text) == []


HOSTILE = {
    "bool.yaml": "model:\n  hidden_size: !!bool 1\n" + HEADS,
    "timestamp.yaml": "model:\n  hidden_size: !!timestamp x\n" + HEADS,
    "int.yaml": 'model:\n  hidden_size: !!int ""\n' + HEADS,
    "inf.yaml": "model:\n  d_model: 4096\n  n_heads: 32\n  n_layers: 2\n  mlp_ratio: .inf\n",
    "base60.yaml": "model:\n  hidden_size: " + ":".join(["1"] * 20_000) + "\n" + HEADS,
}


@pytest.mark.parametrize("output", ["full", "concise", "json", "github", "sarif"])
def test_hostile_values_print_in_every_output_format(tmp_path: Path, output: str) -> None:
    """The tagged, non-finite and 20,000-part base-60 values reached "a bug in dimlint" or made
    the message printer raise: each is one DL003, printed by every output format."""
    for name, text in HOSTILE.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(tmp_path), "--no-config", "--output-format", output], out, err)
    assert code == 1, err.getvalue()
    printed = out.getvalue() + err.getvalue()
    assert "bug" not in printed.lower()
    assert "Traceback" not in printed
    assert printed.count("DL003") >= len(HOSTILE)
