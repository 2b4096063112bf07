"""A literal whose own comment says it is unused (``hidden_size=1,  # not used``) is a
placeholder, not a size: no finding on it, in Python and in YAML (``dimlint/lint/placeholders.py``);
the same literal without the comment is still judged."""

from __future__ import annotations

import pytest

from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection

PYTHON = """\
from transformers import LlamaConfig

config = LlamaConfig(
    num_hidden_layers=2,
    hidden_size=4100,{comment}
    num_attention_heads=32,
)
"""
YAML = """\
model:
  num_layers: 2
  hidden_size: 4100{comment}
  num_attention_heads: 32
"""


@pytest.mark.parametrize(("name", "template"), [("cfg.py", PYTHON), ("cfg.yaml", YAML)])
@pytest.mark.parametrize(
    "comment", ["  # not used", "  # unused here", "  # placeholder: set by the launcher"]
)
def test_a_value_marked_unused_gives_no_finding(name: str, template: str, comment: str) -> None:
    plain = lint_bytes(name, template.format(comment="").encode(), Selection())
    line = 5 if name.endswith(".py") else 3
    judged = [d for d in plain.diagnostics if d.span and d.span.start_pos.line == line]
    assert judged, "the literal without its comment is judged"
    marked = lint_bytes(name, template.format(comment=comment).encode(), Selection())
    assert not [d for d in marked.diagnostics if d.span and d.span.start_pos.line == line]
    assert any("a comment there says the value is not used" in note for note in marked.notes)


def test_a_comment_line_or_another_word_does_not_mark_a_value() -> None:
    text = YAML.format(comment="  # used by the decoder").replace(
        "model:\n", "model:\n  # hidden_size below is not used by the encoder\n"
    )
    result = lint_bytes("cfg.yaml", text.encode(), Selection())
    assert [d.code for d in result.diagnostics if d.code == "DL101"] == ["DL101"]


RAISES = """\
import unittest

import pytest
from transformers import LlamaConfig


def test_refused():
    with pytest.raises(ValueError, match="divisible"):
        LlamaConfig(hidden_size=100, num_attention_heads=12)


class Case(unittest.TestCase):
    def test_refused(self):
        with self.assertRaises(ValueError):
            LlamaConfig(hidden_size=770, num_attention_heads=12)


def test_built():
    with open("x") as handle:
        LlamaConfig(hidden_size=4100, num_attention_heads=32)
"""


@pytest.mark.parametrize("fast", [True, False])
def test_a_config_a_test_expects_to_be_refused_is_not_judged(fast: bool) -> None:
    """``with pytest.raises(...)`` / ``self.assertRaises(...)``: the test says the config is
    invalid; only the config built under an ordinary ``with`` is judged (both readings)."""
    from dimlint.lint.python_front import lint_python

    result = lint_python("test_x.py", RAISES.encode(), Selection(), fast=fast)
    built = RAISES[: RAISES.index("hidden_size=4100")].count("\n") + 1
    assert {d.span.start_pos.line for d in result.diagnostics if d.span} == {built}
    assert result.read == (1, 0)


BUILT_BEFORE = """\
import unittest

import pytest
from transformers import LlamaConfig

CONFIG = {"hidden_size": 100, "num_attention_heads": 12}  # a module name: importable, judged


def test_only_in_the_block():
    config_dict = {"hidden_size": 128, "num_attention_heads": 12}
    with pytest.raises(ValueError):
        build(config_dict)


def test_callable_form():
    config = LlamaConfig(hidden_size=130, num_attention_heads=12)
    pytest.raises(ValueError, build, config)
    pytest.raises(ValueError, LlamaConfig, hidden_size=132, num_attention_heads=12)


class Case(unittest.TestCase):
    def test_method(self):
        config = {"hidden_size": 134, "num_attention_heads": 12}
        with self.assertRaises(ValueError):
            build(config)
        self.assertRaises(ValueError, LlamaConfig, hidden_size=138, num_attention_heads=12)


def test_read_outside_too():
    config_dict = {"hidden_size": 140, "num_attention_heads": 12}
    print(config_dict)
    with pytest.raises(ValueError):
        build(config_dict)


def test_updated_outside():
    config_dict = {"hidden_size": 142, "num_attention_heads": 12}
    config_dict["vocab_size"] = 8
    with pytest.raises(ValueError):
        build(config_dict)


def test_read_by_a_closure():
    config_dict = {"hidden_size": 146, "num_attention_heads": 12}
    helper = lambda: build(config_dict)
    with pytest.raises(ValueError):
        build(config_dict)
    helper()


def test_global():
    global shared
    shared = {"hidden_size": 150, "num_attention_heads": 12}
    with pytest.raises(ValueError):
        build(shared)


def test_never_read():
    unused = {"hidden_size": 154, "num_attention_heads": 12}
    with pytest.raises(ValueError):
        build(other)
"""


@pytest.mark.parametrize("fast", [True, False])
def test_a_config_read_only_where_a_raise_is_expected_is_not_judged(fast: bool) -> None:
    """A config assigned to a local name that is read only inside ``pytest.raises`` /
    ``assertRaises`` (blocks or callable forms) is the test's invalid input; one read anywhere
    else, or one a module, a closure or a ``global`` can see, is judged (both readings)."""
    from dimlint.lint.python_front import lint_python

    result = lint_python("test_x.py", BUILT_BEFORE.encode(), Selection(), fast=fast)
    judged = {int(d.message.split()[1]) for d in result.diagnostics if d.code == "DL101" and d.span}
    assert judged == {100, 140, 142, 146, 150, 154}


DOUBLE = """\
from types import SimpleNamespace
from unittest import mock


def test_dims_from_hf_config():
    config = SimpleNamespace(
        hidden_size=2048,
        layer_types=["sliding_attention", "attention"],
        num_attention_heads=16,
        num_hidden_layers=24,
    )
    other = mock.MagicMock(hidden_size=4100, num_attention_heads=32)
"""


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(
    ("path", "judged"),
    [("test_utils.py", False), ("pkg/tests/helpers.py", False), ("utils_test.py", False),
     ("model_args.py", True)],
)  # fmt: skip
def test_a_test_double_in_a_test_module_is_not_judged(fast: bool, path: str, judged: bool) -> None:
    """open-instruct's ``SimpleNamespace`` handed to a mocked ``AutoConfig.from_pretrained``
    (held-out batch 3: a false DL602): in a test module a namespace or mock is a stand-in no
    framework builds; outside tests the same call is still read as a config."""
    from dimlint.lint.python_front import lint_python

    result = lint_python(path, DOUBLE.encode(), Selection(), fast=fast)
    codes = {d.code for d in result.diagnostics}
    assert ({"DL602", "DL101"} <= codes) is judged, codes
    assert result.read[0] == (2 if judged else 0)
