"""T5X's gin files (``network.T5Config.emb_dim = 4096``): read with T5X's semantics.

T5X's attention is ``num_heads × head_dim`` wide whatever ``emb_dim`` is, so no divisibility is
asked of the width; sizes are read where they are written (a binding's literal, or the macro
definition it names), and what the file does not state is left out with a ``--verbose`` note.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from dimlint.diagnostics import Diagnostic, Severity
from dimlint.lint.discovery import _wanted_name
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection
from dimlint.sources import ginfile

BASE = """\
# T5.1.1 XXL model.
include 't5x/examples/t5/t5_1_1/base.gin'  # imports vocab, optimizer and model.
from __gin__ import dynamic_registration
from t5x.examples.t5 import network

network.Transformer.config = @network.T5Config()
network.T5Config:
  emb_dim = {emb_dim}
  num_heads = 64
  num_encoder_layers = 24
  num_decoder_layers = 24
  head_dim = {head_dim}
  mlp_dim = 10240
  mlp_activations = ('gelu', 'linear')
  dropout_rate = %DROPOUT_RATE
"""


def _lint(text: str, name: str = "model.gin") -> FileResult:
    return lint_bytes(name, text.encode("utf-8"), Selection())


def _at(result: FileResult, text: str) -> set[tuple[str, str]]:
    """(code, the written text the finding spans) of each finding."""
    found: set[tuple[str, str]] = set()
    for d in result.diagnostics:
        assert d.span is not None
        found.add((d.code, text[d.span.start : d.span.end]))
    return found


def _codes(diagnostics: list[Diagnostic]) -> set[str]:
    return {d.code for d in diagnostics}


def test_t5x_model_is_read_without_hf_divisibility() -> None:
    # 4100 over 64 heads would be DL101 in transformers' names; T5X's heads are head_dim wide
    text = BASE.format(emb_dim=4100, head_dim=64)
    result = _lint(text)
    assert result.read == (1, 0)
    assert "DL101" not in _codes(result.diagnostics)
    assert ("DL201", "4100") in _at(result, text)  # the width itself is still a GEMM width


def test_released_t5x_sizes_give_no_finding() -> None:
    # T5.1.1 XXL, and T5 1.0 11B's 128 heads of 128 over a 1024 width (legal in T5X)
    assert _lint(BASE.format(emb_dim=4096, head_dim=64)).diagnostics == []
    eleven_b = BASE.format(emb_dim=1024, head_dim=128).replace("mlp_dim = 10240", "mlp_dim = 65536")
    eleven_b = eleven_b.replace("num_heads = 64", "num_heads = 128")
    assert _lint(eleven_b).diagnostics == []


def test_head_dim_is_judged_where_it_is_written() -> None:
    text = BASE.format(emb_dim=4096, head_dim=100)
    assert ("DL104", "100") in _at(_lint(text), text)


def test_macros_of_the_file_are_read_at_their_definition() -> None:
    text = (
        "EMB_DIM = 4100\n"
        "HEADS = 32\n"
        "network.T5Config.emb_dim = %EMB_DIM\n"
        "network.T5Config.num_heads = %HEADS\n"
        "network.T5Config.head_dim = 128\n"
        "network.T5Config.num_layers = 24\n"
    )
    result = _lint(text)
    (diagnostic,) = [d for d in result.diagnostics if d.code == "DL201"]
    assert diagnostic.span is not None
    assert diagnostic.span.start_pos.line == 1  # the macro's literal, where a fix edits it
    assert text[diagnostic.span.start : diagnostic.span.end] == "4100"
    assert "emb_dim" in diagnostic.message


def test_a_macro_defined_elsewhere_is_not_read_and_said() -> None:
    text = (
        "network.T5Config.emb_dim = %EMB_DIM\n"
        "network.T5Config.num_heads = 32\n"
        "network.T5Config.head_dim = 128\n"
        "network.T5Config.num_layers = 24\n"
    )
    result = _lint(text)
    assert result.diagnostics == []
    assert any("%EMB_DIM is defined outside this file" in note for note in result.notes)


def test_heads_without_head_dim_are_not_read() -> None:
    # head_dim comes from the included base or the class default: 4100 / 64 is no finding
    text = BASE.format(emb_dim=4096, head_dim=64).replace("  head_dim = 64\n", "")
    result = _lint(text)
    assert result.read == (1, 0)
    assert result.diagnostics == []
    assert any("num_heads: not read" in note for note in result.notes)


def test_reader_names_and_gating() -> None:
    text = BASE.format(emb_dim=4096, head_dim=64)
    document = ginfile.load("model.gin", text)
    section = document.value["network.T5Config"]
    assert section["hidden_size"] == 4096
    assert section["num_attention_heads"] == 64
    assert section["intermediate_size"] == 10240
    assert section["num_hidden_layers"] == 24  # the encoder's depth
    assert section["gated_linear_unit"] is True
    assert any(note.startswith("include ") for note in document.notes)


def test_a_file_without_model_bindings_is_skipped() -> None:
    text = "adafactor.Adafactor:\n  decay_rate = 0.8\n  step_offset = 0\n"
    assert _lint(text).skipped is not None


def test_gin_files_are_walked(tmp_path: Path) -> None:
    assert _wanted_name("xxl.gin")
    (tmp_path / "xxl.gin").write_text(BASE.format(emb_dim=4100, head_dim=64), encoding="utf-8")
    command = [sys.executable, "-m", "dimlint", "check", str(tmp_path), "--no-config"]
    done = subprocess.run(
        [*command, "--output-format", "json"], capture_output=True, text=True, check=False
    )
    findings = json.loads(done.stdout)
    assert [(f["code"], f["line"]) for f in findings] == [("DL201", 8)]


FLAXFORMER = """\
# mLongT5 Base model with transient global attention.
include 'flaxformer/t5x/configs/longt5/architectures/longt5_1_1_transient_global_flaxformer.gin'
NUM_EMBEDDINGS = 256384  # vocab size rounded to a multiple of 128 for TPU efficiency

# Architecture overrides
NUM_ENCODER_LAYERS = 12
NUM_DECODER_LAYERS = 12
NUM_HEADS = 12
HEAD_DIM = {head_dim}
EMBED_DIM = {embed_dim}
MLP_DIM = 2048
Z_LOSS = 0.0001
"""


def test_flaxformer_size_macros_are_the_model() -> None:
    assert _lint(FLAXFORMER.format(head_dim=64, embed_dim=768)).diagnostics == []
    text = FLAXFORMER.format(head_dim=64, embed_dim=772)
    result = _lint(text)
    assert result.read == (1, 0)
    assert _at(result, text) == {("DL201", "772")}  # not DL101: heads are HEAD_DIM wide


def test_flaxformer_heads_need_head_dim_in_the_file() -> None:
    text = FLAXFORMER.format(head_dim=64, embed_dim=772).replace("HEAD_DIM = 64\n", "")
    result = _lint(text)
    assert _codes(result.diagnostics) == {"DL201"}
    assert any(note.startswith("/NUM_HEADS: not read") for note in result.notes)


def test_an_architecture_file_of_required_macros_is_no_model() -> None:
    text = "NUM_HEADS = %gin.REQUIRED\nHEAD_DIM = %gin.REQUIRED\nEMBED_DIM = %gin.REQUIRED\n"
    result = _lint(text)
    assert result.read is None
    assert result.skipped is not None
    assert result.diagnostics == []


# --- the stored gin files of t5x and flaxformer ----------------------------------------------

CORPUS = Path(__file__).parent / "data" / "training_repos_more"
_STORED_WIDTH = re.compile(r"(?m)^(\s*(?:emb_dim|EMBED_DIM)\s*=\s*)(\d+)")


def _stored() -> list[Path]:
    return sorted(
        [
            *(CORPUS / "google-research__t5x").rglob("*.gin"),
            *(CORPUS / "google__flaxformer").rglob("*.gin"),
        ]
    )


def test_stored_gin_files_are_read_without_errors_or_warnings() -> None:
    files = _stored()
    assert len(files) >= 120
    for path in files:
        result = lint_bytes(str(path), path.read_bytes(), Selection())
        assert result.read is not None, path
        assert result.read[0] >= 1, path
        assert not [d for d in result.diagnostics if d.severity >= Severity.WARNING], path


def test_a_width_planted_in_each_stored_gin_file_is_found_at_its_line() -> None:
    cases = 0
    for path in _stored():
        text = path.read_text(encoding="utf-8")
        found = _STORED_WIDTH.search(text)
        if found is None or int(found.group(2)) < 64:
            continue  # unit-test-sized models (tiny.gin) are below the noise line
        cases += 1
        planted = text[: found.start(2)] + str(int(found.group(2)) + 65) + text[found.end(2) :]
        line = text.count("\n", 0, found.start(2)) + 1
        result = lint_bytes(str(path), planted.encode(), Selection())
        assert any(
            d.code == "DL201" and d.span and d.span.start_pos.line == line
            for d in result.diagnostics
        ), path
    assert cases >= 100


def test_a_fix_edits_the_macro_definition(tmp_path: Path) -> None:
    gin = tmp_path / "model.gin"
    gin.write_text(
        "EMB_DIM = 4100\n"
        "network.T5Config:\n"
        "  emb_dim = %EMB_DIM\n"
        "  num_heads = 32\n"
        "  head_dim = 128\n"
        "  num_layers = 24\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "dimlint", "check", str(gin), "--no-config"]
    subprocess.run([*command, "--fix", "--unsafe-fixes"], capture_output=True, check=False)
    text = gin.read_text(encoding="utf-8")
    assert text.startswith("EMB_DIM = 4096\n")
    assert "  emb_dim = %EMB_DIM\n" in text
    assert _lint(text).diagnostics == []


def test_a_noqa_comment_silences_a_gin_finding() -> None:
    text = BASE.format(emb_dim=4100, head_dim=64).replace(
        "  emb_dim = 4100\n", "  emb_dim = 4100  # noqa: DL201\n"
    )
    assert _lint(text).diagnostics == []
