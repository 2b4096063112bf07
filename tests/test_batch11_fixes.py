"""Causes found on batch 11 of issue 20's training repositories (``tests/data/
training_repos_more/BATCH11.md``), each fixed for its general reason:

* a test's config judged on a value the test does not write (a class default) is a fixture
  for the parts that test builds (OLMo-core's ``FlexOlmoConfig(num_experts=2)``, whose
  default top-k 5 only a router would refuse, in a test that converts a state dict): no error
  is judged on the default; what the test writes is judged as before;
* the ViT family's depth named as GPT-2 names it (open_clip's Whisper sizes,
  ``dict(n_layer=4, width=384, heads=6)``): ``width`` beside ``heads`` and ``n_layer`` is the
  model's width, as beside ``layers`` or ``depth``.
"""

from __future__ import annotations

import pytest

from dimlint.config.spec import Located
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.python_findings import names_value
from dimlint.lint.selection import Selection


def _codes(path: str, text: str) -> set[tuple[str, int]]:
    found = lint_bytes(path, text.encode(), Selection()).diagnostics
    return {(d.code, d.span.start_pos.line) for d in found if d.span is not None}


MOE_TEST = """\
from transformers import MixtralConfig

def test_router_weights_convert():
    config = MixtralConfig(vocab_size=64, hidden_size=64, num_local_experts=1)
    return config.num_local_experts
"""


@pytest.mark.parametrize(
    ("path", "flagged"),
    [
        ("tests/nn/convert_test.py", False),  # a test: top-k is the class default (2)
        ("models/moe.py", True),  # model code: the default top-k 2 over 1 expert fails
    ],
)
def test_a_tests_experts_under_the_default_top_k(path: str, flagged: bool) -> None:
    assert (("DL107", 4) in _codes(path, MOE_TEST)) is flagged
    # the top-k written in the test: judged as written
    written = MOE_TEST.replace("experts=1)", "experts=1, num_experts_per_tok=2)")
    assert ("DL107", 4) in _codes(path, written)


@pytest.mark.parametrize(
    ("message", "key", "named"),
    [
        ("num_experts_per_tok 5 exceeds num_experts 2", "num_experts_per_tok", True),
        ("layer_types has 3 entries but num_hidden_layers is 5", "num_hidden_layers", True),
        ("n_group 4 does not divide num_experts_per_tok=5.", "num_experts_per_tok", True),
        ("num_experts_per_tok 50 exceeds num_experts 2", "num_experts_per_tok", False),
        ("num_experts_per_tok 5.5 is no count", "num_experts_per_tok", False),
        ("moe.num_experts_per_tok 5 exceeds 2", "num_experts_per_tok", False),  # another key
        ("Choose num_experts_per_tok ≤ 5", "num_experts_per_tok", False),  # a suggestion
    ],
)
def test_a_message_names_the_values_it_judges(message: str, key: str, named: bool) -> None:
    assert names_value(message, Located(5, key, "/k", "default")) is named


SIZES = """\
def encoder(name):
    sizes = {
        "tiny": dict(n_layer=4, width=384, heads=6),
        "base": dict(n_layer=6, width=512, heads=8),
    }
    return sizes[name]
"""


def test_a_vit_familys_depth_may_be_named_n_layer() -> None:
    assert not _codes("audio/encoder.py", SIZES)
    planted = SIZES.replace("width=384", "width=449")
    assert ("DL101", 3) in _codes("audio/encoder.py", planted)
    # an image's width and height beside a depth and heads: no model width
    image = planted.replace("heads=6)", "heads=6, height=224)")
    assert ("DL101", 3) not in _codes("audio/encoder.py", image)
