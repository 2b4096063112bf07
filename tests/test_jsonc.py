"""JSON with comments: read as its owner's reader reads it, positions as in the file."""

from __future__ import annotations

import io
import json
from pathlib import Path

from dimlint.cli import main
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection
from dimlint.sources.jsonc import blank_comments

# Coqui TTS's style (tests/inputs/test_align_tts.json): line comments, a URL in a string
COQUI_STYLE = """{
    "model": "align_tts",
    // AUDIO PARAMETERS
    "url": "https://example.org/a//b", /* a "quoted" block
       comment over two lines */
    "model_args": {
        "hidden_size": 4097,   // the width
        "num_attention_heads": 16,
        "num_hidden_layers": 6
    }
}
"""


def test_blank_comments_keeps_strings_offsets_and_line_breaks() -> None:
    blanked = blank_comments(COQUI_STYLE)
    assert blanked is not None
    assert len(blanked) == len(COQUI_STYLE)
    assert blanked.count("\n") == COQUI_STYLE.count("\n")
    assert "https://example.org/a//b" in blanked
    assert "//" not in blanked.replace("https://example.org/a//b", "")
    assert json.loads(blanked)["model_args"]["hidden_size"] == 4097


def test_blank_comments_of_plain_json_escapes_and_open_block() -> None:
    assert blank_comments('{"a": "x\\\\"}') is None  # no comment: not JSONC
    assert blank_comments('{"a": "\\" // not a comment"}') is None
    assert blank_comments('{"a": 1} /* never closed') is None


def test_a_jsonc_model_config_is_checked_at_its_lines(tmp_path: Path) -> None:
    path = tmp_path / "test_align_tts.json"
    result = lint_bytes(str(path), COQUI_STYLE.encode(), Selection())
    found = [(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span is not None]
    assert ("DL101", 7) in found
    assert all(code != "DL001" for code, _ in found)
    assert any("JSON with comments" in note for note in result.notes)


def test_config_json_with_comments_is_still_invalid(tmp_path: Path) -> None:
    """transformers loads config.json with json.load, which refuses a comment."""
    path = tmp_path / "config.json"
    result = lint_bytes(str(path), COQUI_STYLE.encode(), Selection())
    assert [d.code for d in result.diagnostics] == ["DL001"]


def test_a_walk_over_jsonc_configs_reports_no_dl001(tmp_path: Path) -> None:
    clean = COQUI_STYLE.replace("4097", "4096")
    (tmp_path / "tests" / "inputs").mkdir(parents=True)
    (tmp_path / "tests" / "inputs" / "test_glow_tts.json").write_text(clean)
    out = io.StringIO()
    assert main(["check", str(tmp_path), "--output-format", "json"], out, io.StringIO()) == 0
    assert json.loads(out.getvalue()) == []


def test_fix_never_rewrites_json_with_comments(tmp_path: Path) -> None:
    """The document read holds the blanked text: writing it back would delete the comments,
    bytes dimlint does not own. The fixes are shown, not applied."""
    path = tmp_path / "model.json"
    path.write_text(COQUI_STYLE)
    out = io.StringIO()
    code = main(
        ["check", str(path), "--fix", "--unsafe-fixes", "--no-config", "--output-format", "json"],
        out,
        io.StringIO(),
    )
    assert code == 1
    assert path.read_text() == COQUI_STYLE
    found = json.loads(out.getvalue())
    assert any(f["code"] == "DL101" for f in found)
    assert all("not applied" in f["fix"]["message"] for f in found if f.get("fix"))
