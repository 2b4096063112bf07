"""The shipped shapes table inside regimes several switches open together (issue 19).

Released DeBERTa-v3 configs switch relative attention on with ``position_buckets = 256``,
``norm_rel_ebd = "layer_norm"``, ``share_att_key`` and ``pos_att_type`` stated as a list or a
joined string; DeBERTa-v1 configs state ``pos_att_type`` as ``"c2p|p2c"``; wav2vec2
classifiers state ``use_weighted_layer_sum`` and ``do_stable_layer_norm``; a
wav2vec2-conformer CTC head needs ``vocab_size``. Each config (small, so the builds stay
quick) is counted from the table and compared with the model transformers builds from it on
the meta device: where the table answers, it must be right, and inside these regimes it must
answer."""

from __future__ import annotations

from typing import Any

import pytest

from dimlint.memory.parameters import templates
from tests.learned_rows_support import truth

_V2 = {
    "model_type": "deberta-v2",
    "hidden_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "intermediate_size": 1024,
    "vocab_size": 1000,
    "relative_attention": True,
    "max_relative_positions": -1,
    "position_biased_input": False,
    "type_vocab_size": 0,
}
_CASES = [
    # DeBERTa-v3: every switch together, the list in either spelling, keys shared or not
    (
        {**_V2, "position_buckets": 256, "norm_rel_ebd": "layer_norm", "share_att_key": True,
         "pos_att_type": ["p2c", "c2p"]},
        "DebertaV2ForSequenceClassification",
    ),
    (
        {**_V2, "position_buckets": 128, "norm_rel_ebd": "layer_norm", "share_att_key": True,
         "pos_att_type": "p2c|c2p"},
        "DebertaV2ForMaskedLM",
    ),
    (
        {**_V2, "position_buckets": 256, "norm_rel_ebd": "layer_norm", "share_att_key": False,
         "pos_att_type": ["p2c", "c2p"]},
        "DebertaV2ForTokenClassification",
    ),
    # DeBERTa-v1: the joined string adds both position projections
    (
        {"model_type": "deberta", "relative_attention": True, "pos_att_type": "c2p|p2c",
         "max_relative_positions": -1, "position_biased_input": False, "hidden_size": 256,
         "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 1024,
         "vocab_size": 1000, "type_vocab_size": 0},
        "DebertaForSequenceClassification",
    ),
    (
        {"model_type": "wav2vec2", "use_weighted_layer_sum": True, "do_stable_layer_norm": True,
         "feat_extract_norm": "layer", "num_feat_extract_layers": 7, "num_hidden_layers": 3,
         "hidden_size": 256, "num_attention_heads": 4, "intermediate_size": 1024},
        "Wav2Vec2ForSequenceClassification",
    ),
    (
        {"model_type": "wav2vec2-conformer", "vocab_size": 40, "num_hidden_layers": 2,
         "hidden_size": 256, "num_attention_heads": 4, "intermediate_size": 1024},
        "Wav2Vec2ConformerForCTC",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "architecture"), _CASES)
def test_a_config_inside_several_regimes_is_counted_exactly(
    raw: dict[str, Any], architecture: str
) -> None:
    found = templates.learned_tensors(dict(raw), architecture)
    assert not isinstance(found, templates.Refusal), found.reason
    assert sum(tensor.numel for tensor in found) == truth(raw, architecture)
