"""KV cache of attention kinds as released configs state them (issue 19, item 4): shrunk
released configs, keys as their config.json states them (no derived ``layer_types``), one CPU
forward with ``use_cache=True``, the cache tensors transformers keeps against ``mem``'s bytes."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from kv_oracle_support import engine_bytes  # noqa: E402

from dimlint.config.normalize import specs_for_document  # noqa: E402
from dimlint.memory import kv_cache_bytes  # noqa: E402
from dimlint.memory.estimates import language_spec  # noqa: E402

LENGTH, BATCH = 12, 2

#: Llama-4-Scout's text config (meta-llama/Llama-4-Scout-17B-16E, text_config) shrunk: its
#: no_rope_layers pattern (every 4th layer NoPE, full attention) over 8 layers, chunked
#: attention with chunks shorter than the sequence.
SCOUT: dict[str, Any] = {
    "model_type": "llama4_text",
    "architectures": ["Llama4ForCausalLM"],
    "hidden_size": 128,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "intermediate_size": 64,
    "intermediate_size_mlp": 256,
    "num_hidden_layers": 8,
    "num_local_experts": 2,
    "num_experts_per_tok": 1,
    "interleave_moe_layer_step": 1,
    "vocab_size": 512,
    "attention_chunk_size": 4,
    "no_rope_layers": [1, 1, 1, 0, 1, 1, 1, 0],
    "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "use_qk_norm": True,
}  # fmt: skip

CASES = {
    "llama4-scout-chunked": SCOUT,
    "llama4-no-rope-interval": {
        **{k: v for k, v in SCOUT.items() if k != "no_rope_layers"},
        "no_rope_layer_interval": 2,
    },
    "llama4-chunk-off": {**SCOUT, "attention_chunk_size": None},
}


def _measure(document: dict[str, Any]) -> tuple[int, int]:
    import transformers

    transformers.logging.set_verbosity_error()  # type: ignore[no-untyped-call]
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kwargs = {k: v for k, v in document.items() if k != "model_type"}
        config = transformers.AutoConfig.for_model(document["model_type"], **kwargs)
        model = getattr(transformers, document["architectures"][0])(config).eval()
        ids = torch.randint(3, 500, (BATCH, LENGTH))
        with torch.no_grad():
            output = model(ids, use_cache=True)
    measured = engine_bytes(output.past_key_values, LENGTH)
    spec = language_spec(specs_for_document("config.json", json.loads(json.dumps(document))))
    ours = kv_cache_bytes(spec, context=LENGTH, batch=BATCH, kv_dtype="fp32", block_size=1)
    return measured, ours


@pytest.mark.parametrize("name", sorted(CASES))
def test_released_attention_kinds_match_transformers(name: str) -> None:
    measured, ours = _measure(CASES[name])
    assert measured > 0
    assert ours == measured
