"""Which mixer and which feed-forward block each decoder layer has.

Hybrid and MoE models vary layer by layer, and configs say so in many dialects: transformers'
``layer_types`` / ``mlp_layer_types`` lists (written by ``save_pretrained`` since v4.5x), older
``layers_block_type`` and ``block_types`` lists, Nemotron-H's ``hybrid_override_pattern`` string,
Jamba's attention/expert periods, and the MoE placements ``first_k_dense_replace`` (DeepSeek),
``decoder_sparse_step`` + ``mlp_only_layers`` (Qwen-MoE), ``num_dense_layers`` (AFMoE), the
Ernie start/end/interval triple and Llama-4's ``moe_layers``. Parameter counting, the KV cache
and ``dimlint shapes`` all read the one plan built here.
"""

from __future__ import annotations

from typing import NamedTuple

from dimlint.memory.config_view import Cfg

#: Spellings of each mixer kind in ``layer_types``-like lists.
MIXER_KINDS = {
    "full_attention": "full",
    "attention": "full",
    "global": "full",
    "global_attention": "full",
    "full": "full",
    "indexed_attention": "full",
    "*": "full",
    "sliding_attention": "sliding",
    "sliding": "sliding",
    "local": "sliding",
    "local_attention": "sliding",
    "hybrid_sliding": "sliding",
    "chunked_attention": "chunked",
    "linear_attention": "linear",
    "linear": "linear",
    "mamba": "mamba",
    "mamba2": "mamba",
    "m": "mamba",
    "recurrent": "recurrent",
    "conv": "conv",
    "short_conv": "conv",
    "hybrid": "hybrid",
    "moe": "moe",
    "e": "moe",
    "mlp": "mlp",
    "-": "mlp",
}


def mixer_kinds(cfg: Cfg) -> list[str]:
    """One normalized mixer kind per layer (``full`` when the config says nothing)."""
    layers = cfg.layers
    for key in ("layer_types", "layers_block_type", "block_types", "attention_layers"):
        stated = cfg.list(key)
        if stated:
            kinds = [MIXER_KINDS.get(str(item).lower(), str(item).lower()) for item in stated]
            # block_types is a repeating pattern (RecurrentGemma); the others are per layer
            return [kinds[index % len(kinds)] for index in range(layers)]
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        kinds = [MIXER_KINDS.get(char.lower(), char) for char in pattern]
        return [kinds[index % len(kinds)] for index in range(layers)]
    if cfg.has("attn_layer_indices"):  # Bamba: attention at the listed layers, Mamba elsewhere
        chosen = {item for item in cfg.list("attn_layer_indices") or () if isinstance(item, int)}
        return ["full" if index in chosen else "mamba" for index in range(layers)]
    period = cfg.int("attn_layer_period")
    if period and cfg.has("attn_layer_offset"):
        offset = cfg.int("attn_layer_offset")
        return ["full" if index % period == offset else "mamba" for index in range(layers)]
    interval = cfg.first_int("full_attention_interval", "layer_group_size")
    interval = interval or LINEAR_INTERVALS.get(cfg.model_type, 0)
    if interval:  # Qwen3-Next, Qwen3.5, Bailing: linear attention, full every Nth layer
        return ["full" if (index + 1) % interval == 0 else "linear" for index in range(layers)]
    if cfg.model_type == "minimax":
        return ["full" if index % 2 == 0 else "linear" for index in range(layers)]
    if cfg.model_type == "kimi_linear":
        return ["full" if index and index % 4 == 0 else "linear" for index in range(layers)]
    pattern = _sliding_pattern(cfg)
    if pattern:
        return ["sliding" if (index + 1) % pattern else "full" for index in range(layers)]
    if cfg.model_type in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe") and _window(cfg):
        first = cfg.int("max_window_layers", layers)
        return ["sliding" if index >= first else "full" for index in range(layers)]
    if _window(cfg):
        return ["sliding"] * layers  # Mistral-7B-v0.1, Phi-3: every layer
    return ["full"] * layers


#: Hybrids whose older configs carry no ``layer_types``: one full-attention layer every N.
LINEAR_INTERVALS = {
    "qwen3_next": 4,
    "qwen3_5_text": 4,
    "qwen3_5_moe_text": 4,
}

#: Local:global patterns of families whose older configs carry no ``layer_types``.
SLIDING_PATTERNS = {
    "gemma2": 2,
    "gemma3_text": 6,
    "gemma3n_text": 5,
    "cohere2": 4,
    "vaultgemma": 2,
    "gpt_oss": 2,
    "exaone4": 4,
}


def _sliding_pattern(cfg: Cfg) -> int:
    if not _window(cfg):
        return 0
    stated = cfg.first_int(
        "sliding_window_pattern", "_sliding_window_pattern", "global_attn_every_n_layers"
    )
    return stated or SLIDING_PATTERNS.get(cfg.model_type, 0)


def _window(cfg: Cfg) -> int:
    """The attention window of sliding layers, if the config has one.

    ``use_sliding_window: false`` (stated, or the default of Qwen2/Qwen2-MoE/Qwen3/Qwen3-MoE,
    the Qwen-VL text towers and SmolLM3) makes the config class set ``sliding_window`` to None
    (Qwen2-MoE: 0), so every layer attends to the whole context whatever ``max_window_layers``
    or ``layer_types`` say.
    """
    if cfg.get("use_sliding_window") is False:
        return 0
    return cfg.first_int("sliding_window", "attention_window_size", "sliding_window_size")


class CacheLayer(NamedTuple):
    """What one layer keeps per sequence while generating.

    ``kind``: ``kv`` (keys and values per token, up to ``window`` tokens when set), ``latent``
    (MLA: one compressed vector per token), ``state`` (a constant recurrent/conv state), or
    ``none`` (an MLP-only layer, or one that reuses an earlier layer's KV). ``state`` marks
    layers that keep a recurrent state besides their KV (Falcon-H1 runs attention and Mamba
    side by side; Zamba's hybrid layers add the shared attention block to a Mamba layer).
    """

    kind: str
    window: int | None
    state: bool = False


#: Families whose attention layers also carry a Mamba state (all of them, or the hybrid ones).
PARALLEL_STATE = frozenset({"falcon_h1", "zamba", "zamba2"})


def cache_plan(cfg: Cfg) -> list[CacheLayer]:
    """Per layer, what its cache holds (see :class:`CacheLayer`)."""
    kinds = mixer_kinds(cfg)
    window = _window(cfg)
    chunk = cfg.int("attention_chunk_size")
    shared = cfg.int("num_kv_shared_layers")
    plan = []
    for index, kind in enumerate(kinds):
        if shared and index >= len(kinds) - shared:
            plan.append(CacheLayer("none", None))
        elif kind in ("full", "sliding", "chunked", "hybrid"):
            limit = None
            if kind == "sliding" and window:
                limit = window
            elif kind == "chunked" and chunk:
                limit = chunk
            kv = "latent" if cfg.at_layer(index).spec.is_mla else "kv"
            plan.append(CacheLayer(kv, limit, cfg.model_type in PARALLEL_STATE))
        elif kind in ("mlp", "moe"):
            plan.append(CacheLayer("none", None))
        else:
            plan.append(CacheLayer("state", None))
    return plan


def moe_layers(cfg: Cfg) -> list[bool]:
    """Whether each layer's feed-forward block is a mixture of experts."""
    layers = cfg.layers
    stated = cfg.list("mlp_layer_types")
    if stated and len(stated) >= layers:
        return [str(item).lower() not in ("dense", "mlp", "none") for item in stated[:layers]]
    if cfg.experts <= 0 or cfg.get("is_moe") is False:
        return [False] * layers
    moe_list = cfg.list("moe_layers")
    if moe_list is not None:
        chosen = {item for item in moe_list if isinstance(item, int)}
        return [index in chosen for index in range(layers)]
    if cfg.has("expert_layer_period"):
        period = max(1, cfg.int("expert_layer_period", 1))
        offset = cfg.int("expert_layer_offset")
        return [index % period == offset for index in range(layers)]
    if cfg.has("moe_layer_start_index"):
        start = cfg.int("moe_layer_start_index")
        end = cfg.int("moe_layer_end_index", layers - 1)
        end = layers - 1 if end < 0 else end
        interval = max(1, cfg.int("moe_layer_interval", 1))
        return [(index + 1) % interval == 0 and start <= index <= end for index in range(layers)]
    dense_first = cfg.first_int("first_k_dense_replace", "num_dense_layers", default=0)
    frequency = max(1, cfg.first_int("moe_layer_freq", "decoder_sparse_step", default=1))
    step_key = "decoder_sparse_step" if cfg.has("decoder_sparse_step") else "moe_layer_freq"
    dense_only = {item for item in cfg.list("mlp_only_layers") or () if isinstance(item, int)}
    result = []
    for index in range(layers):
        if index < dense_first or index in dense_only:
            result.append(False)
        elif step_key == "decoder_sparse_step":
            result.append((index + 1) % frequency == 0)
        else:
            result.append(index % frequency == 0)
    return result
