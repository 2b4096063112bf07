"""Position conversion of the language server: code-point columns to UTF-16/8/32 and back.

Expected values come from Python's own codecs (``str.encode``), not from the converter.
"""

from __future__ import annotations

import pytest

from dimlint.commands.server.positions import LineIndex, LspPosition, encoding_of

TEXT = '{\n  "name_😀": "\U0001d518\U0001d52b\U0001d526", "hidden_size": 4100\r\n}\n'


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    return len(text)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_columns_after_non_bmp_characters(encoding: str) -> None:
    index = LineIndex(TEXT, encoding)  # type: ignore[arg-type]
    line = TEXT.split("\n")[1]
    column = line.index("4100") + 1  # dimlint's 1-based code-point column
    expected = _units(line[: column - 1], encoding)
    assert index.to_lsp(2, column) == LspPosition(1, expected)
    offset = TEXT.index("4100")
    assert index.offset_to_lsp(offset) == LspPosition(1, expected)
    assert index.offset_of(LspPosition(1, expected)) == offset


def test_utf16_counts_surrogate_pairs() -> None:
    index = LineIndex("😀x\n", "utf-16")
    assert index.to_lsp(1, 2) == LspPosition(0, 2)  # after one emoji: two UTF-16 units
    assert index.offset_of(LspPosition(0, 2)) == 1


def test_past_the_end_of_a_line_and_file() -> None:
    index = LineIndex('{"a": 1', "utf-16")
    assert index.to_lsp(1, 9) == LspPosition(0, 7)  # one past the last character: its end
    assert index.offset_of(LspPosition(5, 0)) == len('{"a": 1')


def test_crlf_line_ending_is_not_a_column() -> None:
    index = LineIndex("ab\r\ncd", "utf-16")
    assert index.line_text(0) == "ab"
    assert index.to_lsp(2, 2) == LspPosition(1, 1)


def test_encoding_names() -> None:
    assert encoding_of("utf-8") == "utf-8"
    assert encoding_of(None) == "utf-16"
    assert encoding_of("utf-7") == "utf-16"
