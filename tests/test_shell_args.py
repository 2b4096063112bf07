"""Megatron launch scripts: ``--hidden-size 4096`` in a ``.sh`` file, read with Megatron's
semantics, located at the literal that takes effect, fixed there (issue 20)."""

from __future__ import annotations

import io
from pathlib import Path

from dimlint.cli import main
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection

SCRIPT = """#!/bin/bash
HIDDEN=4100
NLAYERS=${NLAYERS:-32}
# --hidden-size 9999 is a comment
GPT_ARGS="--num-layers $NLAYERS \\
    --hidden-size $HIDDEN \\
    --num-attention-heads 32 \\
    --swiglu \\
    --ffn-hidden-size 11008 \\
    --seq-length 2048"
torchrun pretrain_gpt.py $GPT_ARGS --tokenizer-model ${TOKENIZER}
"""


def _lint(text: str) -> FileResult:
    return lint_bytes("train.sh", text.encode(), Selection())


def test_a_variable_is_followed_to_its_assignment() -> None:
    result = _lint(SCRIPT)
    found = [
        (d.code, d.span.start_pos.line, d.span.start_pos.column)
        for d in result.diagnostics
        if d.span
    ]
    assert ("DL101", 2, 8) in found  # at HIDDEN=4100, the literal that takes effect
    assert {d.code for d in result.diagnostics} <= {"DL101", "DL201"}


def test_a_launch_script_is_found_by_a_walk_and_fixed(tmp_path: Path) -> None:
    script = tmp_path / "train.sh"
    script.write_text(SCRIPT)
    err = io.StringIO()
    main(["check", str(tmp_path), "--verbose"], io.StringIO(), err)
    assert "train.sh: read 1 config" in err.getvalue()
    main(["check", str(tmp_path), "--fix", "--unsafe-fixes"], io.StringIO(), io.StringIO())
    assert "HIDDEN=4096\n" in script.read_text()
    assert "--hidden-size $HIDDEN" in script.read_text()


def test_placeholders_and_branches_are_not_read() -> None:
    dummy = "ARGS='--num-layers -1 --hidden-size -1 --num-attention-heads -1'\n"
    assert _lint(dummy).diagnostics == []
    branches = (
        'if [ "$SIZE" = 7b ]; then\n  HIDDEN=4096\nelse\n  HIDDEN=4100\nfi\n'
        "python train.py --num-layers 2 --hidden-size $HIDDEN --num-attention-heads 32\n"
    )
    result = _lint(branches)
    assert result.diagnostics == []
    assert any("assigned more than once" in note for note in result.notes)


def test_a_script_without_model_arguments_is_skipped() -> None:
    assert _lint("#!/bin/sh\npip install -e .\n").skipped is not None
