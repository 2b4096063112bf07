"""KV cache bytes against transformers' cache tensors for every causal-LM model type (hf extra).

Every model type of ``MODEL_FOR_CAUSAL_LM_MAPPING_NAMES`` is taken at its default config,
scaled down by :func:`tests.kv_oracle_support.scaled_overrides` (few layers but the default's
layer pattern, narrow widths, the default's query:KV ratio), built on the CPU and run once with
``use_cache=True`` on a short input; the bytes of the cache it returns, converted to the
engine's layout (see ``test_memory_kv_oracle.py``), must equal
:func:`dimlint.memory.kv_cache_bytes` for the same config as ``save_pretrained`` would write
it. Expected values come only from the forward pass.

Types that do not run are listed in :data:`NOT_RUN` with the reason, and each must still fail
(no stale entries). :data:`VARIANTS` adds the settings the defaults leave out: sliding windows
switched on and off with ``max_window_layers``, explicit ``layer_types``, Gemma's local:global
patterns, hybrids with attention placed explicitly.
"""

from __future__ import annotations

import json
import time
import warnings
from typing import Any

import pytest

from dimlint.config.normalize import specs_for_document
from dimlint.memory import kv_cache_bytes
from dimlint.memory.estimates import language_spec

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.kv_oracle_support import (  # noqa: E402  (needs torch)
    VOCAB,
    engine_bytes,
    layer_lists,
    scaled_overrides,
)

LENGTH, BATCH = 12, 2

_NO_DEFAULT = "transformers 5.24 cannot build its own default config: "

#: Model types that cannot be built or run here, and why (each must still fail).
NOT_RUN: dict[str, str] = {
    "bamba": "the default places no attention layer (attn_layer_indices None) and transformers'"
    " cache then fails in get_seq_length; the hybrid runs as a variant",
    "granitemoehybrid": "the default's layer_types are all Mamba and transformers' cache then"
    " fails in get_seq_length; the hybrid runs as a variant",
    "blenderbot": "BlenderbotForCausalLM sizes its cache by num_hidden_layers (= encoder_layers,"
    " 2) but runs decoder_layers (24): IndexError, at the default too",
    "blt": "BltForCausalLM's forward reads config.num_hidden_layers, which BltConfig lacks",
    "cohere_compass_text": _NO_DEFAULT + "KeyError 'full_attention' in the rotary setup",
    "dbrx": _NO_DEFAULT + "DbrxAttentionConfig has no rope_theta",
    "dots3_note": "its vision and audio adapters must match the text width through fields the"
    " generic scaling does not know; the text decoder dots3_note_text runs",
    "gemma3n": "the vision tower needs the optional timm package; gemma3n_text runs",
    "gemma4_assistant": _NO_DEFAULT + "hidden_size_per_layer_input must be 0",
    "gemma4_unified_assistant": "a drafter whose layers read the target model's KV: its config"
    " rejects any layer pattern that does not mirror a target",
    "lfm2_moe": _NO_DEFAULT + "layer_types None is subscripted; explicit types run as a variant",
    "musicgen": "the causal LM is built from the decoder sub-config, not the composite one",
    "musicgen_melody": "the causal LM is built from the decoder sub-config, not the composite",
    "qwen4_exp": _NO_DEFAULT + "None // None in the modeling code",
    "qwen4_exp_text": _NO_DEFAULT + "None // None in the modeling code",
    "reformer": "ReformerModelWithLMHead asserts is_decoder=True, the default is False",
}

#: The failure each NOT_RUN type must still show: (exception class, part of its message). Any
#: other exception — a bug in the measurement or in dimlint's reading of the config — fails.
NOT_RUN_ERRORS: dict[str, tuple[str, str]] = {
    "bamba": ("ValueError", "`get_seq_length` can only be called on Attention layers"),
    "granitemoehybrid": ("ValueError", "`get_seq_length` can only be called on Attention layers"),
    "blenderbot": ("IndexError", "list index out of range"),
    "blt": ("AttributeError", "'BltConfig' object has no attribute 'num_hidden_layers'"),
    "cohere_compass_text": ("KeyError", "'full_attention'"),
    "dbrx": ("AttributeError", "'DbrxAttentionConfig' object has no attribute 'rope_theta'"),
    "dots3_note": (
        "StrictDataclassClassValidationError",
        "vision adapter output width must match",
    ),
    "gemma3n": ("ImportError", "requires the timm library"),
    "gemma4_assistant": (
        "StrictDataclassClassValidationError",
        "hidden_size_per_layer_input must be 0",
    ),
    "gemma4_unified_assistant": (
        "ValueError",
        "The set of layer types producing a cache is different",
    ),
    "lfm2_moe": ("TypeError", "'NoneType' object is not subscriptable"),
    "musicgen": ("AttributeError", "'MusicgenConfig' object has no attribute 'dropout'"),
    "musicgen_melody": (
        "AttributeError",
        "'MusicgenMelodyConfig' object has no attribute 'dropout'",
    ),
    "qwen4_exp": ("TypeError", "unsupported operand type(s) for //: 'NoneType' and 'NoneType'"),
    "qwen4_exp_text": (
        "TypeError",
        "unsupported operand type(s) for //: 'NoneType' and 'NoneType'",
    ),
    "reformer": ("AssertionError", "make sure that `is_decoder=True`"),
}

#: Types that run but whose cache dimlint does not model yet, with the cause (strict xfail:
#: each must still differ).
MISSES: dict[str, str] = {
    "inkling_text": "each hybrid layer keeps four short-convolution states beside its KV",
    "inkling2_text": "each hybrid layer keeps four short-convolution states beside its KV",
    "inkling2_loop_text": "four short-convolution states per hybrid layer, and looped layers",
    "zaya": "CCA layers keep a q/k convolution history ((heads + kv_heads) x head_dim x"
    " (cca_time0 + cca_time1 - 2)) and a value state beside their KV",
    "recurrent_gemma": "its cache lives in the modules' buffers, not in the forward's output,"
    " so the oracle measures 0",
}

_QWEN_WINDOW = {"sliding_window": 8, "max_window_layers": 3}
_MIXED = ["full_attention", "sliding_attention", "sliding_attention"] * 2

#: Settings the defaults leave out: name → (model type, overrides on top of the scaled ones).
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "qwen2-window-off": ("qwen2", {**_QWEN_WINDOW, "use_sliding_window": False}),
    "qwen2-window-on": ("qwen2", {**_QWEN_WINDOW, "use_sliding_window": True}),
    "qwen2_moe-window-on": ("qwen2_moe", {**_QWEN_WINDOW, "use_sliding_window": True}),
    "qwen3-window-off": ("qwen3", {**_QWEN_WINDOW, "use_sliding_window": False}),
    "qwen3-window-on": ("qwen3", {**_QWEN_WINDOW, "use_sliding_window": True}),
    "qwen3_moe-window-on": ("qwen3_moe", {**_QWEN_WINDOW, "use_sliding_window": True}),
    "qwen3-explicit-layer-types": (
        "qwen3",
        {"sliding_window": 8, "use_sliding_window": True, "layer_types": _MIXED},
    ),
    "ministral-explicit-layer-types": ("ministral", {"sliding_window": 8, "layer_types": _MIXED}),
    "gemma3_text-12-layers": ("gemma3_text", {"num_hidden_layers": 12}),
    "gemma3_text-2-to-1": ("gemma3_text", {"layer_types": _MIXED}),
    "gemma2-explicit": ("gemma2", {"layer_types": _MIXED}),
    "cohere2-explicit": ("cohere2", {"layer_types": _MIXED}),
    "bamba-hybrid": ("bamba", {"attn_layer_indices": [1, 4]}),
    "granitemoehybrid-hybrid": (
        "granitemoehybrid",
        {"layer_types": ["mamba", "attention", "mamba", "mamba", "attention", "mamba"]},
    ),
    "lfm2_moe-explicit": (
        "lfm2_moe",
        {"layer_types": ["conv", "conv", "full_attention", "conv", "full_attention", "conv"]},
    ),
    "jamba-attention-every-3": ("jamba", {"attn_layer_period": 3, "attn_layer_offset": 1}),
    "qwen3_next-full-every-2": ("qwen3_next", {"full_attention_interval": 2}),
}


def _causal_types() -> list[str]:
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    return sorted(MODEL_FOR_CAUSAL_LM_MAPPING_NAMES)


def _config(model_type: str, extra: dict[str, Any]) -> Any:
    """The scaled config; per-layer lists the class does not rebuild are cut to the depth."""
    from transformers import AutoConfig

    default = AutoConfig.for_model(model_type).to_dict()
    overrides = {**scaled_overrides(default), **extra}
    original = next(
        (default[k] for k in ("num_hidden_layers", "n_layer", "num_layers") if k in default),
        None,
    )
    lists = layer_lists(default, original) if isinstance(original, int) else {}
    try:
        config = AutoConfig.for_model(model_type, **overrides)
    except Exception:  # a per-layer list the class validates against the new depth
        config = None
    depth = getattr(config, "num_hidden_layers", None) if config is not None else None
    if config is None or (isinstance(depth, int) and depth != original):
        depth = depth or next(
            (
                overrides[k]
                for k in ("num_hidden_layers", "n_layer", "num_layers")
                if k in overrides
            ),
            original,
        )
        stale = {
            key: default[key][:depth]
            for key in lists
            if key not in extra
            and (config is None or len(getattr(config, key, None) or ()) == original)
        }
        if stale or config is None:
            config = AutoConfig.for_model(model_type, **overrides, **stale)
    return config


def _cache(output: Any) -> Any:
    for name in ("past_key_values", "cache_params", "state", "mems"):
        found = getattr(output, name, None)
        if found is not None:
            return found
    return None


def measure(model_type: str, extra: dict[str, Any]) -> tuple[int, int]:
    """(bytes transformers keeps, dimlint's bytes) for one scaled config."""
    from transformers import AutoModelForCausalLM
    from transformers.utils import logging

    logging.set_verbosity_error()
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = _config(model_type, extra)
        model = AutoModelForCausalLM.from_config(config).eval()
        if hasattr(model, "set_default_language"):  # X-MOD routes through a language adapter
            model.set_default_language(config.default_language or "en_XX")
        ids = torch.randint(3, VOCAB - 32, (BATCH, LENGTH))
        with torch.no_grad():
            measured = engine_bytes(_cache(model(ids, use_cache=True)), LENGTH)
    document: dict[str, Any] = json.loads(config.to_json_string(use_diff=False))
    document["architectures"] = [type(model).__name__]
    spec = language_spec(specs_for_document("config.json", document))
    ours = kv_cache_bytes(spec, context=LENGTH, batch=BATCH, kv_dtype="fp32", block_size=1)
    return measured, ours


@pytest.fixture(scope="module")
def results() -> dict[str, tuple[int, int] | str]:
    """model type → (measured, ours), or the error that stopped it."""
    found: dict[str, tuple[int, int] | str] = {}
    start = time.perf_counter()
    for model_type in _causal_types():
        try:
            found[model_type] = measure(model_type, {})
        except Exception as error:  # listed in NOT_RUN, checked below
            found[model_type] = f"{type(error).__name__}: {error}"[:300]
    print(f"\n{len(found)} model types in {time.perf_counter() - start:.1f} s")
    return found


@pytest.mark.parametrize("model_type", _causal_types())
def test_cache_bytes_match_transformers(
    model_type: str, results: dict[str, tuple[int, int] | str]
) -> None:
    found = results[model_type]
    if model_type in NOT_RUN:
        assert isinstance(found, str), f"{model_type} runs now: remove it from NOT_RUN"
        kind, fragment = NOT_RUN_ERRORS[model_type]
        assert found.startswith(f"{kind}: "), f"{model_type} fails otherwise now: {found}"
        assert fragment in found, f"{model_type} fails otherwise now: {found}"
        pytest.skip(NOT_RUN[model_type])
    assert not isinstance(found, str), found
    measured, ours = found
    if model_type in MISSES:
        assert ours != measured, f"{model_type} is exact now: remove it from MISSES"
        pytest.xfail(MISSES[model_type])
    assert ours == measured


def test_every_type_not_run_names_its_failure() -> None:
    assert sorted(NOT_RUN_ERRORS) == sorted(NOT_RUN)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variant_cache_bytes_match_transformers(name: str) -> None:
    model_type, extra = VARIANTS[name]
    measured, ours = measure(model_type, extra)
    assert measured > 0
    assert ours == measured


def test_denominators(results: dict[str, tuple[int, int] | str], capsys: Any) -> None:
    """Every causal-LM type is accounted for: it runs and is compared, or NOT_RUN says why."""
    ran = {name: found for name, found in results.items() if not isinstance(found, str)}
    exact = [name for name, (measured, ours) in ran.items() if measured == ours]
    cached = [name for name, (measured, _) in ran.items() if measured > 0]
    assert set(results) - set(ran) == set(NOT_RUN)
    assert set(ran) - set(exact) == set(MISSES)
    with capsys.disabled():
        print(
            f"\nKV oracle: {len(results)} model types, {len(ran)} run "
            f"({len(cached)} keep a cache), {len(exact)} exact; {len(NOT_RUN)} not run"
        )
