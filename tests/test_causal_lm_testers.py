"""transformers' ``CausalLMModelTester`` subclasses: the config their tests build, read from the
parent's documented defaults and what the subclass hands to ``super().__init__`` or sets itself
(:mod:`dimlint.sources.python.testers`); uncertain testers unread, with a ``--verbose`` note."""

from __future__ import annotations

from pathlib import Path

import pytest

from dimlint.diagnostics import Diagnostic
from dimlint.lint.python_front import lint_python
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection

PATH = "tests/models/demo/test_modeling_demo.py"

HEADER = """\
import unittest

from transformers import is_torch_available

from ...causal_lm_tester import CausalLMModelTest, CausalLMModelTester

if is_torch_available():
    from transformers import LlamaConfig, LlamaModel, MistralModel, Qwen3MoeModel
"""


def _lint(body: str, path: str = PATH, *, fast: bool = True) -> FileResult:
    return lint_python(path, (HEADER + body).encode(), Selection(), fast=fast)


def _found(result: FileResult) -> set[tuple[str, int]]:
    return {(d.code, d.span.start_pos.line) for d in result.diagnostics if d.span is not None}


def _line(body: str, needle: str) -> int:
    return (HEADER + body).splitlines().index(needle) + 1


def test_a_tester_that_names_its_classes_is_read_with_the_parents_defaults() -> None:
    body = (
        "\n\nclass DemoModelTester(CausalLMModelTester):\n"
        "    if is_torch_available():\n"
        "        config_class = LlamaConfig\n"
        "        base_model_class = LlamaModel\n"
    )
    result = _lint(body)
    assert result.read == (1, 0)  # hidden 32, 2 heads, 2 KV heads: nothing to say
    assert result.diagnostics == []


def test_a_size_handed_to_super_is_judged_at_its_default() -> None:
    body = (
        "\n\nclass DemoModelTester(CausalLMModelTester):\n"
        "    if is_torch_available():\n"
        "        base_model_class = MistralModel\n"
        "\n"
        "    def __init__(self, parent, num_attention_heads=3):\n"
        "        super().__init__(parent, num_attention_heads=num_attention_heads)\n"
    )
    result = _lint(body)
    # 3 heads over the parent's 2 KV heads: Mistral's grouped attention cannot share them
    line = _line(body, "    def __init__(self, parent, num_attention_heads=3):")
    assert _found(result) == {("DL102", line)}
    (diagnostic,) = result.diagnostics
    assert diagnostic.fix is not None  # the default's literal is this file's to edit


def test_the_parents_floor_divided_head_dim_is_passed_where_the_class_takes_it() -> None:
    # hidden 32 over 3 heads and 3 KV heads: the parent passes head_dim = 32 // 3 = 10, which
    # Mistral's config takes (a test model that runs): no DL101
    body = (
        "\n\nclass DemoModelTester(CausalLMModelTester):\n"
        "    if is_torch_available():\n"
        "        base_model_class = MistralModel\n"
        "\n"
        "    def __init__(self, parent):\n"
        "        super().__init__(parent=parent, num_attention_heads=3, num_key_value_heads=3)\n"
    )
    result = _lint(body)
    assert result.read == (1, 0)
    assert "DL101" not in {d.code for d in result.diagnostics}


def test_sizes_set_after_super_are_the_models_but_the_head_dim_is_the_parents() -> None:
    body = (
        "\n\nclass DemoModelTester(CausalLMModelTester):\n"
        "    if is_torch_available():\n"
        "        base_model_class = MistralModel\n"
        "\n"
        "    def __init__(self, parent):\n"
        "        super().__init__(parent=parent)\n"
        "        self.num_attention_heads = 4\n"
        "        self.num_key_value_heads = 3\n"
    )
    result = _lint(body)
    assert _found(result) == {("DL102", _line(body, "        self.num_key_value_heads = 3"))}


def test_a_tester_of_a_tester_in_the_same_file_inherits_its_values() -> None:
    body = (
        "\n\nclass BaseTester(CausalLMModelTester):\n"
        "    if is_torch_available():\n"
        "        base_model_class = MistralModel\n"
        "\n"
        "    def __init__(self, parent, num_key_value_heads=3):\n"
        "        super().__init__(parent, num_key_value_heads=num_key_value_heads)\n"
        "\n"
        "\nclass DemoModelTester(BaseTester):\n"
        "    def __init__(self, parent):\n"
        "        super().__init__(parent)\n"
        "        self.num_attention_heads = 6\n"
    )
    result = _lint(body)
    # the base: 2 heads over 3 KV heads; the subclass: 6 over 3, fine
    assert _found(result) == {
        ("DL102", _line(body, "    def __init__(self, parent, num_key_value_heads=3):"))
    }
    assert result.read == (2, 0)


@pytest.mark.parametrize(
    ("body", "note"),
    [
        (
            "\n\nclass DemoModelTester(SomeOtherTester):\n    pass\n",
            None,  # not a CausalLMModelTester: nothing read, nothing said
        ),
        (
            "\n\nclass DemoModelTester(CausalLMModelTester):\n"
            "    def __init__(self, parent):\n"
            "        self.parent = parent\n",
            "does not call super().__init__ once",
        ),
        (
            "\n\nclass DemoModelTester(CausalLMModelTester):\n"
            "    if is_torch_available():\n"
            "        base_model_class = MistralModel\n"
            "\n"
            "    def __init__(self, parent, heads):\n"
            "        super().__init__(parent, num_attention_heads=heads)\n",
            "num_attention_heads not known",
        ),
        (
            "\n\nclass DemoModelTester(CausalLMModelTester):\n"
            "    def __init__(self, parent):\n"
            "        super().__init__(parent, num_attention_heads=3)\n",
            "no config class or model class it names",
        ),
        (
            "\n\nclass DemoModelTester(CausalLMModelTester):\n"
            "    if is_torch_available():\n"
            "        base_model_class = MistralModel\n"
            "\n"
            "    def __init__(self, parent, big=False):\n"
            "        super().__init__(parent)\n"
            "        if big:\n"
            "            self.hidden_size = 64\n",
            "self.hidden_size is set more than once",
        ),
    ],
)
def test_uncertain_testers_are_not_read_and_say_why(body: str, note: str | None) -> None:
    result = _lint(body)
    assert result.diagnostics == []
    if note is None:
        assert result.notes == []
    else:
        assert any(note in said for said in result.notes), result.notes


def test_only_in_test_modules() -> None:
    body = (
        "\n\nclass DemoModelTester(CausalLMModelTester):\n"
        "    if is_torch_available():\n"
        "        base_model_class = MistralModel\n"
        "\n"
        "    def __init__(self, parent, num_attention_heads=3):\n"
        "        super().__init__(parent, num_attention_heads=num_attention_heads)\n"
    )
    assert _lint(body, "src/demo/modeling_demo.py").diagnostics == []


def _outcome(result: FileResult) -> tuple[object, ...]:
    diagnostics: list[Diagnostic] = result.diagnostics
    return ([(d.code, d.message, d.span, d.fix) for d in diagnostics], result.read, result.notes)


def test_the_ast_and_libcst_readings_agree(tmp_path: Path) -> None:
    bodies = [
        "\n\nclass A(CausalLMModelTester):\n"
        "    if is_torch_available():\n"
        "        base_model_class = MistralModel\n"
        "\n"
        "    def __init__(self, parent, num_attention_heads=3, intermediate_size=40):\n"
        "        super().__init__(\n"
        "            parent,\n"
        "            num_attention_heads=num_attention_heads,\n"
        "            intermediate_size=intermediate_size,\n"
        "        )\n"
        "        self.num_key_value_heads = 2\n"
        "\n\nclass B(A):\n"
        "    def __init__(self, parent):\n"
        "        super().__init__(parent)\n"
        "        self.hidden_size = 64\n",
        "\n\nclass C(CausalLMModelTester):\n"
        "    config_class = LlamaConfig\n"
        "    base_model_class = Qwen3MoeModel\n",
    ]
    for body in bodies:
        assert _outcome(_lint(body)) == _outcome(_lint(body, fast=False))
