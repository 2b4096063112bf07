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


def test_placeholders_are_not_read_and_each_branch_is_a_model() -> None:
    dummy = "ARGS='--num-layers -1 --hidden-size -1 --num-attention-heads -1'\n"
    assert _lint(dummy).diagnostics == []
    branches = (
        'if [ "$SIZE" = 7b ]; then\n  HIDDEN=4096\nelse\n  HIDDEN=4100\nfi\n'
        "python train.py --num-layers 2 --hidden-size $HIDDEN --num-attention-heads 32\n"
    )
    result = _lint(branches)
    assert result.read == (2, 0)  # the 7b branch's model and the else branch's
    found = {(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span}
    assert ("DL101", 4) in found  # HIDDEN=4100, in the else branch
    assert all(line == 4 for _, line in found)
    (fix,) = [d.fix for d in result.diagnostics if d.code == "DL101"]
    assert fix is not None
    assert fix.edits[0].span.start_pos.line == 4
    # arguments written in each branch (MODEL_ARGS per size), one model each
    written = (
        "if [ $MODEL_SIZE = 0.6B ]; then\n"
        "    MODEL_ARGS='--hidden-size 1024 --num-attention-heads 16'\n"
        "elif [ $MODEL_SIZE = 4B ]; then\n"
        "    MODEL_ARGS='--hidden-size 2500 --num-attention-heads 32'\n"
        "fi\ntorchrun pretrain.py $MODEL_ARGS --num-layers 28\n"
    )
    result = _lint(written)
    assert result.read == (2, 0)
    assert {
        (d.code, d.span.start_pos.line) for d in result.diagnostics if d.span and d.code == "DL101"
    } == {("DL101", 4)}
    # a variable assigned twice outside any branch is still not read
    twice = "HIDDEN=4096\nHIDDEN=4100\npython t.py --num-layers 2 --hidden-size $HIDDEN"
    twice += " --num-attention-heads 32\n"
    assert any("assigned more than once" in note for note in _lint(twice).notes)


def test_a_script_without_model_arguments_is_skipped() -> None:
    assert _lint("#!/bin/sh\npip install -e .\n").skipped is not None


CASES = """\
#!/bin/bash
# the arguments of the script, parsed in a case of its own (no model sizes)
while [[ $# -gt 0 ]]; do
    case $1 in
        --model-size) MODEL_SIZE=$2; shift 2 ;;
        *) shift ;;
    esac
done
case "${MODEL_SIZE}" in
    # Megatron-LM's examples/mamba/train.sh writes its sizes so
    "800M")
        HIDDEN_SIZE=1024
        NUM_ATTENTION_HEADS=16
        ;;
    "8B"|8b)
        HIDDEN_SIZE=4100
        NUM_ATTENTION_HEADS=32
        ;;
    13B) HIDDEN_SIZE=5120; NUM_ATTENTION_HEADS=40;;
    70B)
        if [ "$LONG" = 1 ]; then
            SEQ=8192
        fi;;
    *)
        echo "unknown size"; exit 1
        ;;
esac
torchrun pretrain_mamba.py --num-layers 24 --hidden-size ${HIDDEN_SIZE} \\
    --num-attention-heads ${NUM_ATTENTION_HEADS}
"""


def test_each_case_arm_is_a_model() -> None:
    """``case … esac`` arms are read as ``if``/``elif`` branches are: only one runs, so each
    arm setting sizes is a model of its own, found and fixed at its literal; an arm that sets
    none (70B here, the argument parser's arms) is no model."""
    result = _lint(CASES)
    assert result.read == (3, 0)  # 800M, 8B and the one-line 13B arm
    found = {(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span}
    line = CASES[: CASES.index("HIDDEN_SIZE=4100")].count("\n") + 1
    assert ("DL101", line) in found
    assert {line for _, line in found} == {line}
    (fix,) = [d.fix for d in result.diagnostics if d.code == "DL101"]
    assert fix is not None
    assert fix.edits[0].span.start_pos.line == line
    # the one-line arm's literal, planted, is found where it is written
    planted = CASES.replace("13B) HIDDEN_SIZE=5120", "13B) HIDDEN_SIZE=5130")
    lines = {d.span.start_pos.line for d in _lint(planted).diagnostics if d.code == "DL101"}
    assert planted[: planted.index("5130")].count("\n") + 1 in lines
    # a one-line ``case … esac`` is no statement of arms: the variable stays ambiguous
    one_line = "case $S in a) H=4100;; b) H=4096;; esac\npython t.py --num-layers 2"
    one_line += " --hidden-size $H --num-attention-heads 32\n"
    assert any("assigned more than once" in note for note in _lint(one_line).notes)


def test_underscore_spelled_arguments_are_megatrons_too() -> None:
    """epfLLM's Megatron-LLM defines ``--hidden_size``, ``--num_attention_heads`` (held-out batch
    4: 24 launch scripts skipped as having no model arguments); its
    ``--group_query_attention`` switches the query groups on as Megatron-LM's hyphenated flag
    does, and torchrun's ``--master_port`` is no ``--master`` argument."""
    script = (
        "torchrun --master_port 6000 finetune.py --num_layers 32 --hidden_size 4100 \\\n"
        "    --num_attention_heads 32 --num_attention_heads_kv 8\n"
    )
    found = {(d.code, d.span.start_pos.line) for d in _lint(script).diagnostics if d.span}
    assert ("DL101", 1) in found
    groups = "--num_layers 32 --hidden_size 4096 --num_attention_heads 32 --num_query_groups 5"
    assert not {d.code for d in _lint(groups + "\n").diagnostics} & {"DL102", "DL103"}
    judged = {d.code for d in _lint(groups + " --group_query_attention\n").diagnostics}
    assert "DL103" in judged or "DL102" in judged


def test_each_command_of_a_script_is_a_model() -> None:
    """A training run and its resume (bigcode's Megatron-LM functional tests, held-out batch 4):
    a width written differently in the two commands was "given more than once with different
    values" and read in neither; each command is its own model, judged at its own line, and
    the arguments in a shared variable stay common to both."""
    script = (
        'COMMON="--num-attention-heads 8 \\\\\n    --seq-length 1024"\n'
        "# python pretrain_gpt.py --hidden-size 7\n"
        "python pretrain_gpt.py $COMMON --num-layers 12 \\\n    --hidden-size 577 --eval-iters 5\n"
        "python pretrain_gpt.py $COMMON --num-layers 12 \\\n    --hidden-size 512 --load ckpt\n"
    )
    result = _lint(script)
    assert result.read == (2, 0)
    assert {(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span} >= {("DL101", 5)}
    assert not [d for d in result.diagnostics if d.code == "DL101" and d.span.start_pos.line != 5]
    one = "python pretrain_gpt.py --num-layers 12 --hidden-size 577 --num-attention-heads 8\n"
    assert _lint(one).read == (1, 0)


def test_head_divisibility_says_what_megatron_does() -> None:
    """DL101 in a launch script, in a Megatron YAML section and in a transformers config: each
    message opens with the framework that reads the file (issue 20: megatron-core floor-divides
    the head width and runs; Megatron-LM's validate_args refuses; transformers is not named
    where it never reads the file)."""
    script = next(d for d in _lint(SCRIPT).diagnostics if d.code == "DL101").message
    assert script.split(": ", 1)[1].startswith("Megatron-LM refuses to start: validate_args")
    assert "kv_channels = 4100 // 32 = 128, an attention 4096 wide" in script
    assert "transformers" not in script
    assert "state --kv-channels explicitly" in script
    section = "model:\n  hidden_size: 4100\n  num_attention_heads: 32\n  num_layers: 4\n"
    nemo = section + "  ffn_hidden_size: 11008\n"
    found = lint_bytes("m.yaml", nemo.encode(), Selection()).diagnostics
    message = next(d for d in found if d.code == "DL101").message
    assert message.split(": ", 1)[1].startswith("Megatron-LM's validate_args and NeMo's")
    assert "megatron-core's TransformerConfig (NeMo's mcore models) floor-divides" in message
    assert "transformers" not in message
    assert "state kv_channels explicitly" in message
    # no Megatron name: the reader does not know who reads it, transformers' wording stays
    found = lint_bytes("m.yaml", section.encode(), Selection()).diagnostics
    plain = next(d for d in found if d.code == "DL101").message
    assert plain.split(": ", 1)[1].startswith("transformers")
    assert "state head_dim explicitly" in plain
