"""Python styles the front end once left unread (issue 20): a ``torch.nn.Module``'s ``__init__``
defaults, transformers' ``ModelTester`` defaults in test files, and a config set attribute by
attribute after it is built. Each is read only where the object is identified, its findings sit
at the literal the user edits, and both readings of a file (``ast`` and libcst) agree."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_python_fastscan import outcome

from dimlint.diagnostics import Diagnostic
from dimlint.lint.python_front import lint_python
from dimlint.lint.selection import Selection


def _lint(text: str, path: str) -> list[Diagnostic]:
    fast = lint_python(path, text.encode(), Selection())
    slow = lint_python(path, text.encode(), Selection(), fast=False)
    assert outcome(fast) == outcome(slow)  # the ast reading and libcst's agree
    return fast.diagnostics


def _found(text: str, path: str = "model.py") -> list[tuple[str, int, str]]:
    """(code, line, severity) of each finding."""
    return [
        (d.code, d.span.start_pos.line, d.severity.name.lower())
        for d in _lint(text, path)
        if d.span is not None
    ]


def _line(text: str, fragment: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


# --- nn.Module __init__ defaults ------------------------------------------------------------

MODULE = """import torch.nn as nn


class Transformer(nn.Module):
    def __init__(self, vocab_size, dim=4100, n_layers=32, n_heads=32, n_kv_heads=8):
        super().__init__()
        self.layers = nn.ModuleList()
"""


def test_module_defaults_are_a_model_found_at_the_literal() -> None:
    found = _found(MODULE)
    line = _line(MODULE, "dim=4100")
    assert ("DL101", line, "error") in found
    diagnostic = next(d for d in _lint(MODULE, "model.py") if d.code == "DL101")
    assert diagnostic.span is not None
    assert MODULE.splitlines()[line - 1][diagnostic.span.start_pos.column - 1 :].startswith("4100")
    assert "the module's own attention code decides" in diagnostic.message
    assert "transformers" not in diagnostic.message  # the class is the user's own
    assert diagnostic.fix is not None  # the default's literal is rewritten
    assert "dim=4096" in _fixed(MODULE, diagnostic)


def _fixed(text: str, diagnostic: Diagnostic) -> str:
    assert diagnostic.fix is not None
    for edit in sorted(diagnostic.fix.edits, key=lambda e: e.span.start, reverse=True):
        text = text[: edit.span.start] + edit.content + text[edit.span.end :]
    return text


@pytest.mark.parametrize(
    "text",
    [
        MODULE.replace("nn.Module", "Base"),  # not a torch module: not identified
        MODULE.replace("dim=4100", "dim"),  # a width the caller passes: heads alone
        MODULE.replace("dim=4100", "dim=4096"),  # a valid model
        MODULE.replace("n_heads=32", "n_heads=None"),  # heads set later
        # lucidrains' explicit head width: the attention is heads × dim_head, whatever dim
        MODULE.replace("n_kv_heads=8", "dim_head=64"),
        MODULE.replace("n_kv_heads=8", "*, dim_head"),  # a head width the caller passes
    ],
)
def test_module_defaults_stay_silent_when_nothing_is_certain(text: str) -> None:
    assert [f for f in _found(text) if f[2] == "error"] == []


LUCIDRAINS = """from torch.nn import Module


class SigLIP(Module):
    def __init__(self, image_size=224, patch_size=14, dim=1153, depth=27, heads=16):
        super().__init__()
        self.dim_head = dim // heads
"""


def test_lucidrains_heads_and_depth_are_a_modules_heads_and_layers() -> None:
    """vit-pytorch's ``SigLIP(dim=1152, depth=27, heads=16)``: heads and layers under
    x-transformers' names; the message names the module's own parameters."""
    line = _line(LUCIDRAINS, "dim=1153")
    # 1153 is also off the Tensor Core alignment (DL201, a warning: 1153 wide is no toy)
    assert _found(LUCIDRAINS) == [("DL101", line, "error"), ("DL201", line, "warning")]
    diagnostic = next(d for d in _lint(LUCIDRAINS, "model.py") if d.code == "DL101")
    assert diagnostic.message.startswith("dim 1153 is not divisible by heads 16")
    assert _found(LUCIDRAINS.replace("dim=1153", "dim=1152")) == []


def test_a_prefixed_head_width_is_another_attentions() -> None:
    """``SigLIPVAT(dim=512, heads=8, dim_head=64, self_attn_dim_head=32)``: the module's heads
    are 64 wide (8 × 64 = 512); the prefixed width sizes another attention."""
    text = LUCIDRAINS.replace(
        "dim=1153, depth=27, heads=16",
        "dim=512, depth=27, heads=8, dim_head=64, self_attn_heads=4, self_attn_dim_head=32",
    )
    assert _found(text) == []
    narrower = text.replace("dim_head=64,", "dim_head=32,")
    assert [code for code, _, _ in _found(narrower)] == ["DL105"]  # 8 × 32 = 256 ≠ 512


def test_a_test_sized_module_gets_no_performance_warning() -> None:
    """The noise budget: a module 36 wide (< 256, dimlint's toy line) is a unit-test model,
    its width's Tensor Core alignment is not worth a warning; a crash still is an error."""
    small = (
        MODULE.replace("dim=4100", "dim=36")
        .replace("n_heads=32", "n_heads=4")
        .replace("n_kv_heads=8", "n_kv_heads=2")
    )
    assert _found(small) == []
    broken = small.replace("dim=36", "dim=38")
    assert [code for code, _, _ in _found(broken)] == ["DL101"]


# --- transformers' ModelTester in test files --------------------------------------------------

TESTER = """import unittest

from transformers import MPNetConfig


class MPNetModelTester:
    def __init__(
        self,
        parent,
        batch_size=13,
        seq_length=7,
        vocab_size=99,
        hidden_size=129,
        num_hidden_layers=5,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=512,
    ):
        self.parent = parent
        self.batch_size = batch_size
        self.seq_length = seq_length
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.intermediate_size = intermediate_size
        self.max_position_embeddings = max_position_embeddings

    def get_config(self):
        return MPNetConfig(
            vocab_size=self.vocab_size,
            hidden_size=self.hidden_size,
            num_hidden_layers=self.num_hidden_layers,
            num_attention_heads=self.num_attention_heads,
            intermediate_size=self.intermediate_size,
            max_position_embeddings=self.max_position_embeddings,
        )


class MPNetModelTest(unittest.TestCase):
    def setUp(self):
        self.model_tester = MPNetModelTester(self)
"""


def test_model_tester_defaults_are_the_config_its_tests_build() -> None:
    found = _found(TESTER, "tests/test_modeling_mpnet.py")
    assert found == [("DL101", _line(TESTER, "hidden_size=129"), "error")]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        (TESTER, "mpnet_helpers.py"),  # not a test module: self.x is what a caller passed
        (TESTER.replace("hidden_size=129", "hidden_size=128"), "tests/test_modeling_mpnet.py"),
        (  # reassigned elsewhere in the class: which value the config gets is not known
            TESTER.replace(
                "    def get_config(self):",
                "    def shrink(self):\n        self.hidden_size = 64\n\n    def get_config(self):",
            ),
            "tests/test_modeling_mpnet.py",
        ),
        (  # set under a condition in __init__
            TESTER.replace(
                "        self.hidden_size = hidden_size",
                "        if parent:\n            self.hidden_size = hidden_size",
            ),
            "tests/test_modeling_mpnet.py",
        ),
    ],
)
def test_model_tester_values_that_are_not_certain_are_not_read(text: str, path: str) -> None:
    assert [f for f in _found(text, path) if f[0] == "DL101"] == []


CONFIG_TESTER = """import unittest

from transformers import SwiftFormerConfig


class SwiftFormerModelTest(unittest.TestCase):
    def setUp(self):
        self.config_tester = ConfigTester(
            self,
            config_class=SwiftFormerConfig,
            has_text_modality=False,
            hidden_size=32,
            num_attention_heads=12,
            num_hidden_layers=12,
        )
"""


COMPOSITE_TESTER = """from transformers import Glm4vMoeConfig


class Glm4vMoeVisionText2TextModelTester:
    def __init__(
        self,
        parent,
        text_config={
            "hidden_size": 16,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "num_hidden_layers": 2,
            "rope_parameters": {"type": "default", "mrope_section": [1, 1]},
        },
    ):
        self.parent = parent
        self.text_config = text_config

    def get_config(self):
        return Glm4vMoeConfig(text_config=self.text_config)
"""


def test_a_testers_sub_config_dict_is_read_by_the_call_that_takes_it() -> None:
    """The ``text_config`` default is GLM-4V-MoE's text config (it rotates half of each head
    by default: 8 × 0.5 / 2 = 2 frequencies, the sections' sum), not an untyped dict of its
    own that would rotate all 8. A sum that is wrong for the typed reading is still found."""
    path = "tests/models/glm4v_moe/test_modeling_glm4v_moe.py"
    assert _found(COMPOSITE_TESTER, path) == []
    wrong = COMPOSITE_TESTER.replace("[1, 1]", "[1, 2]")
    assert _found(wrong, path) == [("DL604", _line(wrong, "[1, 2]"), "warning")]


def test_a_config_test_helpers_keywords_are_no_model() -> None:
    """transformers' ConfigTester sets odd values on the class to round-trip them (SwiftFormer
    has no attention heads; BERT's is tested with hidden_size=37): no model is built from
    them, so nothing is judged. The same call outside a test module is read as before."""
    path = "tests/models/swiftformer/test_modeling_swiftformer.py"
    assert _found(CONFIG_TESTER, path) == []
    assert [code for code, _, _ in _found(CONFIG_TESTER, "setup_model.py")] == ["DL101"]


# --- attribute assignments on a built config ---------------------------------------------

ASSIGNED = """from transformers import LlamaConfig


def build():
    config = LlamaConfig(hidden_size=4096, num_attention_heads=32, num_hidden_layers=2)
    config.hidden_size = 4100
    return config
"""


def test_an_assigned_attribute_overrides_the_constructor() -> None:
    found = _found(ASSIGNED)
    line = _line(ASSIGNED, "config.hidden_size = 4100")
    assert ("DL101", line, "error") in found
    assert all(found_line == line for _, found_line, _ in found)  # the call itself is valid
    diagnostic = next(d for d in _lint(ASSIGNED, "model.py") if d.code == "DL101")
    assert "config.hidden_size = 4096" in _fixed(ASSIGNED, diagnostic)


def test_an_assigned_head_count_over_the_class_defaults() -> None:
    text = (
        "from transformers import LlamaConfig\n\ncfg = LlamaConfig()\ncfg.num_attention_heads = 7\n"
    )
    assert _found(text) == [("DL101", 4, "error")]  # Llama's default width 4096 / 7


@pytest.mark.parametrize(
    "text",
    [
        # two arms: which one runs is not known, neither is read over the constructor
        ASSIGNED.replace(
            "    config.hidden_size = 4100\n",
            "    if small:\n        config.hidden_size = 1000\n"
            "    else:\n        config.num_attention_heads = 7\n",
        ),
        # an attribute assigned twice with different values in one block
        ASSIGNED.replace(
            "    config.hidden_size = 4100\n",
            "    config.hidden_size = 4100\n    config.hidden_size = 4096\n",
        ),
        # a receiver that is not a config dimlint knows
        ASSIGNED.replace("LlamaConfig(hidden_size", "make_config(hidden_size"),
        # a later block changes the heads: the arm is read on its own (width alone)
        ASSIGNED.replace(
            "    config.hidden_size = 4100\n",
            "    if small:\n        config.hidden_size = 1000\n"
            "    config.num_attention_heads = 10\n",
        ),
    ],
)
def test_assignments_that_are_not_certain_are_not_judged(text: str) -> None:
    assert [f for f in _found(text) if f[2] == "error"] == []


MEGATRON = """from megatron.core.transformer import TransformerConfig


def get_vision_model_config(config: TransformerConfig) -> TransformerConfig:
    config.num_layers = 32
    config.num_attention_heads = 16
    config.hidden_size = 1280
    config.kv_channels = config.hidden_size // config.num_attention_heads
    config.num_query_groups = 6
    return config
"""


def test_a_megatron_config_parameter_set_attribute_by_attribute() -> None:
    """verl's and FlagScale's vision configs: the parameter is megatron-core's config (the
    file imports it); kv_channels is computed from the assigned sizes as the code does."""
    line = _line(MEGATRON, "num_query_groups = 6")
    assert ("DL102", line, "error") in _found(MEGATRON)  # 16 heads in 6 groups
    valid = MEGATRON.replace("num_query_groups = 6", "num_query_groups = 16")
    assert _found(valid) == []
    # a width the heads do not divide: kv_channels floors it, megatron-core runs narrower
    narrower = valid.replace("hidden_size = 1280", "hidden_size = 1281")
    assert [f for f in _found(narrower) if f[2] == "error"] == []
    # a parameter in a file that imports no Megatron: not identified
    plain = valid.replace("from megatron.core.transformer import", "from mylib import")
    assert _found(plain.replace("num_query_groups = 16", "num_query_groups = 6")) == []


def test_the_real_files_of_these_styles_read_alike(tmp_path: Path) -> None:
    """The styles written out as files: the ast reading and libcst's report the same."""
    for name, text in (("m.py", MODULE), ("a.py", ASSIGNED), ("v.py", MEGATRON)):
        (tmp_path / name).write_text(text)
        _lint(text, str(tmp_path / name))


def test_a_model_tester_config_is_a_fixture_for_the_noise_budget() -> None:
    """A tester's config 384 wide (above dimlint's toy width) with an FFN of 37 (LoRA's
    vendored ConvBERT tests): a unit-test fixture, no performance warning; a crash is still an
    error."""
    wide = TESTER.replace("hidden_size=129", "hidden_size=384").replace(
        "intermediate_size=64", "intermediate_size=37"
    )
    assert _found(wide, "tests/test_modeling_mpnet.py") == []
    broken = wide.replace("num_attention_heads=4", "num_attention_heads=5")
    found = _found(broken, "tests/test_modeling_mpnet.py")
    assert found == [("DL101", _line(broken, "hidden_size=384"), "error")]
