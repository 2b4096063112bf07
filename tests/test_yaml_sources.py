"""The YAML front end on hand-written inputs: positions, anchors, hostile files, walks."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

from dimlint.cli import main
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection


def _found(name: str, text: str) -> list[tuple[str, int, int]]:
    result = lint_bytes(name, text.encode(), Selection())
    return [
        (d.code, d.span.start_pos.line, d.span.start_pos.column)
        for d in result.diagnostics
        if d.span is not None
    ]


def test_anchor_and_merge_key_point_at_the_definition() -> None:
    text = (
        "base: &base\n"
        "  hidden_size: 4100\n"
        "  num_layers: 2\n"
        "model:\n"
        "  <<: *base\n"
        "  num_attention_heads: 32\n"
    )
    # the merged hidden size is written on line 2; that is where the finding and the fix go
    assert ("DL101", 2, 16) in _found("m.yaml", text)


def test_gpt_neox_json_with_comments_parses_as_yaml() -> None:
    text = (
        '{\n  # a comment\n  "hidden-size": 770,\n  "num-attention-heads": 12,\n'
        '  "num-layers": 2\n}\n'
    )
    assert ("DL101", 3, 18) in _found("neox.yml", text)


def test_invalid_value_in_a_hyphenated_key() -> None:
    text = 'model:\n  hidden-size: "abc"\n  num-attention-heads: 32\n  num-layers: 2\n'
    assert _found("x.yml", text) == [("DL003", 2, 16)]


def test_syntax_error_position() -> None:
    assert _found("x.yaml", "a: [1, 2\nhidden_size: 3\n") == [("DL001", 2, 12)]


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]']
    for name, previous in zip("bcdefgh", "abcdefg", strict=True):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{previous}"] * 10) + "]")
    text = "\n".join([*lines, "hidden_size: 4096", "num_attention_heads: 32", ""])
    start = time.monotonic()
    found = _found("bomb.yaml", text)
    assert time.monotonic() - start < 10
    assert [code for code, *_ in found] == ["DL001"]


def test_a_walk_skips_yaml_that_is_not_a_model(tmp_path: Path) -> None:
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    (workflows / "ci.yml").write_text("on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    # a Helm template: mentions a "dim" key, does not parse, names no model key
    (tmp_path / "chart.yaml").write_text("{{ if .Values.x }}\ndim: {{ .Values.dim }}\n")
    model = tmp_path / "model.yaml"
    model.write_text("model:\n  d_model: 1024\n  n_heads: 16\n  n_layers: 4\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(tmp_path), "--output-format", "json", "--verbose"], out, err)
    assert json.loads(out.getvalue()) == []
    assert code == 0
    assert "model.yaml: read 1 config, 0 findings" in err.getvalue()
    assert "ci.yml: no model section" in err.getvalue()
    assert "chart.yaml: not valid YAML" in err.getvalue()


def test_file_parallel_sizes_become_a_target() -> None:
    text = (
        "tensor_model_parallel_size: 8\nnum_layers: 24\nhidden_size: 768\nnum_attention_heads: 12\n"
    )
    found = lint_bytes("megatron.yaml", text.encode(), Selection()).diagnostics
    dl401 = [d for d in found if d.code == "DL401"]
    assert len(dl401) == 1
    assert dl401[0].span is not None
    assert dl401[0].span.start_pos.line == 4
    assert "tensor_model_parallel_size: 8" in dl401[0].message


def test_noqa_comments_suppress_yaml_findings_and_unused_ones_are_reported() -> None:
    text = (
        "model:\n"
        "  hidden_size: 4100  # noqa: DL101\n"
        "  num_layers: 24\n"
        "  num_attention_heads: 32 # noqa: DL999\n"
        '  name: "a # noqa: DL201 in a quoted string is no comment"\n'
    )
    found = _found("m.yaml", text)
    assert ("DL101", 2, 16) not in found  # suppressed on its line
    assert ("DL201", 2, 16) in found  # a code the comment does not list
    assert ("DL701", 4, 27) in found  # DL999 is no rule: the comment suppresses nothing
