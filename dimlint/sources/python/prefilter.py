"""The cheap test that keeps non-model Python files away from libcst.

Building a concrete syntax tree costs about a hundred times more than reading a file and running
one regular expression over it, and most Python files in a repository are not model code. A file
is parsed only when its bytes contain

* a config key written as a key — ``hidden_size=``, ``n_embd:``, ``"dim":`` — for any spelling of
  a dimension normalization knows (the same alias table) and the few other keys the rules read;
* a call of a torch layer the layer checks read (``MultiheadAttention(``, ``Linear(``…);
* a ``DLxxx`` code, which a ``# noqa`` comment may carry (DL701 must see it);
* transformers' ``CausalLMModelTester``, whose subclasses state a test model through its
  defaults (:mod:`dimlint.sources.python.testers`), possibly without a size of their own.

A file with none of them cannot yield a finding, so skipping it changes no result; the test errs
towards parsing (``dim=-1`` in any torch code passes it).
"""

from __future__ import annotations

import functools
import re

from dimlint.config.normalize import INT_FIELDS

#: Keys the rules read besides the dimensions themselves.
OTHER_KEYS = (
    "model_type",
    "multiple_of",
    "ffn_dim_multiplier",
    "n_query_groups",
    "n_expert",
    "padded_vocab_size",
    "partial_rotary_factor",
    "rotary_pct",
    "rotary_percentage",
    "rope_scaling",
    "rope_parameters",
    "layer_types",
    "MODEL_DIMS",  # Pax's experiment classes (PAX_RENAMES)
    "heads",  # the ViT family's head count beside ``width`` (trainingkeys.width_is_width)
)
LAYER_CALLS = (
    r"(?:MultiheadAttention|Transformer(?:Encoder|Decoder)?Layer|Transformer|Linear|Embedding)"
)


@functools.cache
def _pattern() -> re.Pattern[bytes]:
    keys = {key for standard, spellings in INT_FIELDS.values() for key in (standard, *spellings)}
    words = "|".join(sorted(keys | set(OTHER_KEYS)))
    # a head count under a model's name prefix (nanoVLM's ``vit_n_heads``: prefixed_models)
    prefixed = r"\b[A-Za-z0-9]+_(?:n_heads?|num_heads|num_attention_heads)"
    pattern = (
        rf"\b(?:{words})\b[\"']?\s*[:=]|{prefixed}\b[\"']?\s*[:=]|\b{LAYER_CALLS}\s*\(|"
        r"\bDL\d{3}\b|\bCausalLMModelTester\b"
    )
    return re.compile(pattern.encode("ascii"))


def may_have_configs(data: bytes) -> bool:
    """Whether a Python file can contain anything dimlint checks (false: skip it unparsed)."""
    return _pattern().search(data) is not None
