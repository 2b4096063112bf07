"""DeBERTa-v2 with its optional convolution (:mod:`dimlint.memory.parameters.deberta_conv`):
shapes of the released XLarge, XXLarge and their Japanese and Chinese descendants, shrunk,
against transformers on the meta device in every class."""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.memory.parameters import templates
from dimlint.memory.parameters.deberta_conv import conv_tensors
from dimlint.memory.parameters.templates import Refusal

pytestmark = pytest.mark.skipif(not templates.row("deberta-v2"), reason="no shapes table")

#: deberta-v2-xlarge's switches (conv, shared attention keys, log buckets), shrunk.
XLARGE = {"model_type": "deberta-v2", "hidden_size": 96, "intermediate_size": 192,
          "num_attention_heads": 4, "num_hidden_layers": 3, "vocab_size": 500,
          "max_position_embeddings": 128, "relative_attention": True, "position_buckets": 32,
          "norm_rel_ebd": "layer_norm", "share_att_key": True, "pos_att_type": "p2c|c2p",
          "conv_kernel_size": 3, "conv_act": "gelu", "position_biased_input": False,
          "type_vocab_size": 0}  # fmt: skip
CLASSES = ("DebertaV2Model", "DebertaV2ForMaskedLM", "DebertaV2ForSequenceClassification",
           "DebertaV2ForTokenClassification", "DebertaV2ForQuestionAnswering",
           "DebertaV2ForMultipleChoice")  # fmt: skip


def _counts(raw: dict[str, Any]) -> tuple[int, int | None, bool]:
    from released_ground_truth import compared

    return compared(raw)


@pytest.mark.parametrize("architecture", CLASSES)
@pytest.mark.parametrize(
    "change",
    [{}, {"conv_kernel_size": 5}, {"conv_groups": 4}, {"conv_act": "tanh"},
     {"position_buckets": 64, "num_hidden_layers": 5}, {"num_labels": 7}],
)  # fmt: skip
def test_the_convolution_is_counted_exactly(architecture: str, change: dict[str, Any]) -> None:
    raw = {**XLARGE, **change, "architectures": [architecture]}
    expected, ours, exact = _counts(raw)
    assert (ours, exact) == (expected, True)


def test_groups_that_do_not_divide_the_width_are_refused() -> None:
    counted = conv_tensors({**XLARGE, "conv_groups": 5}, "DebertaV2Model")
    assert isinstance(counted, Refusal)
    assert "not divisible" in counted.reason
