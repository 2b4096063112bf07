"""``data/derived_lists.json`` against the pinned transformers: the lists and dicts each
config class derives at its default config (see :mod:`dimlint.tools.generate_derived_lists`).

A fixed sample of model types is rebuilt (the whole table takes about 45 s); a stale table
would let a template call a released list learned that it never saw, or refuse the one it did.
"""

from __future__ import annotations

import pytest

from dimlint.memory.parameters import derived_lists, templates
from dimlint.tools import generate_derived_lists

transformers = pytest.importorskip("transformers")

#: Types whose lists shape tensors or plans: NoPE flags, cross-attention layers, MoE layers,
#: dense-first MoE plans, compressed-attention plans, deepstack mergers.
SAMPLE = ("smollm3", "mllama", "llama4", "kimi_linear", "deepseek_v4", "qwen3_vl", "lfm2")


def test_recorded_for_the_pinned_transformers() -> None:
    text = derived_lists.TABLE.data[:200].decode()
    assert f'"transformers_version": "{transformers.__version__}"' in text
    assert templates.transformers_version() == transformers.__version__


@pytest.mark.parametrize("model_type", SAMPLE)
def test_sample_rebuilt(model_type: str) -> None:
    assert derived_lists.defaults(model_type) == generate_derived_lists.derived(model_type)


def test_derived_values_are_what_the_class_sets() -> None:
    # SmolLM3: a NoPE layer every no_rope_layer_interval (4) of its 36 layers.
    expected = [int((index + 1) % 4 != 0) for index in range(36)]
    assert derived_lists.defaults("smollm3")["no_rope_layers"] == expected
    assert derived_lists.defaults("no such type") == {}
