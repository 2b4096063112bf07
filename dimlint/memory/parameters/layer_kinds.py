"""Which mixer and which feed-forward block each decoder layer has.

Hybrid and MoE models vary layer by layer, and configs say so in many dialects: transformers'
``layer_types`` / ``mlp_layer_types`` lists (written by ``save_pretrained`` since v4.5x), older
``layers_block_type`` and ``block_types`` lists, Nemotron-H's ``hybrid_override_pattern`` string,
Jamba's attention/expert periods, and the MoE placements ``first_k_dense_replace`` (DeepSeek),
``decoder_sparse_step`` + ``mlp_only_layers`` (Qwen-MoE), ``num_dense_layers`` (AFMoE), the
Ernie start/end/interval triple and Llama-4's ``moe_layers`` or ``interleave_moe_layer_step``.
Parameter counting, the KV cache and ``dimlint shapes`` all read the one plan built here.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from typing import Any

from dimlint.config import architectures
from dimlint.memory.config_view import Cfg
from dimlint.records import Record

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
    "compressed_sparse_attention": "csa",
    "heavily_compressed_attention": "hca",
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


class LayerRule(Record):
    """A per-layer property as a function of the layer index, with what makes it vary: the
    indices where it may change (``breaks``) and a period it repeats with between them. That
    is what lets :func:`layer_groups` count 10**18 layers without visiting them."""

    at: Callable[[int], Any]
    breaks: tuple[int, ...] = ()
    period: int = 1


def _indices(items: list[Any] | None) -> set[int]:
    return {item for item in items or () if isinstance(item, int) and not isinstance(item, bool)}


def _around(indices: Iterable[int]) -> tuple[int, ...]:
    return tuple(edge for index in indices for edge in (index, index + 1))


def _repeating(kinds: list[str]) -> LayerRule:
    return LayerRule(lambda index: kinds[index % len(kinds)], (), len(kinds))


def mixer_rule(cfg: Cfg) -> LayerRule:
    """Which mixer layer ``index`` has (``full`` when the config says nothing)."""
    layers = cfg.layers
    for key in ("layer_types", "layers_block_type", "block_types", "attention_layers"):
        stated = cfg.list(key)
        if stated:
            # block_types is a repeating pattern (RecurrentGemma); the others are per layer
            kinds = [MIXER_KINDS.get(str(i).lower(), str(i).lower()) for i in stated]
            if cfg.model_type in LAST_LAYER_FULL and len(kinds) == layers and kinds:
                kinds[-1] = "full"
            return _repeating(kinds)
    if cfg.model_type in STATE_ONLY:
        return LayerRule(lambda index: "mamba")
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern:
        return _repeating([MIXER_KINDS.get(char.lower(), char) for char in pattern])
    if cfg.has("attn_layer_indices"):  # Bamba: attention at the listed layers, Mamba elsewhere
        chosen = _indices(cfg.list("attn_layer_indices"))
        return LayerRule(lambda index: "full" if index in chosen else "mamba", _around(chosen))
    period = cfg.int("attn_layer_period")
    if period > 0 and cfg.has("attn_layer_offset"):
        offset = cfg.int("attn_layer_offset")
        return LayerRule(lambda index: "full" if index % period == offset else "mamba", (), period)
    interval = cfg.first_int("full_attention_interval", "layer_group_size")
    interval = interval or LINEAR_INTERVALS.get(cfg.model_type, 0)
    if interval > 0:  # Qwen3-Next, Qwen3.5, Bailing: linear attention, full every Nth layer
        return LayerRule(
            lambda index: "full" if (index + 1) % interval == 0 else "linear", (), interval
        )
    if cfg.model_type == "minimax":
        return LayerRule(lambda index: "full" if index % 2 == 0 else "linear", (), 2)
    if cfg.model_type == "kimi_linear":
        return LayerRule(lambda index: "full" if index and index % 4 == 0 else "linear", (0, 1), 4)
    chunked = _chunked_rule(cfg)
    if chunked is not None:
        return chunked
    compressed = _compressed_rule(cfg)
    if compressed is not None:
        return compressed
    sliding = _sliding_pattern(cfg)
    if sliding > 0:
        last = (layers - 1,) if cfg.model_type in LAST_LAYER_FULL else ()
        return LayerRule(
            lambda index: "sliding" if (index + 1) % sliding and index not in last else "full",
            _around(last),
            sliding,
        )
    derived = _derived_rule(cfg.model_type, layers)
    if derived is not None:
        return derived
    if _window(cfg) and _declares(cfg.model_type, "max_window_layers"):
        # Qwen2, Qwen2-MoE, Qwen3: sliding from layer max_window_layers on. Qwen3-MoE's class
        # has no such field (a stated one is ignored): every layer slides there.
        first = cfg.int("max_window_layers", layers)
        return LayerRule(lambda index: "sliding" if index >= first else "full", (first,))
    if _window(cfg):
        return LayerRule(lambda index: "sliding")  # Mistral-7B-v0.1, Phi-3: every layer
    return LayerRule(lambda index: "full")


def _derived_rule(model_type: str, layers: int) -> LayerRule | None:
    """The plan a config class derives for ``layers`` layers when a config states none: one
    repeating period, with the first or last layer set apart where the class does so (OLMo-3:
    three sliding layers, then a full one; MiMo-V2: the first layer full too), as
    :func:`dimlint.tools.generate_derived_lists.layer_period` recorded it after checking that
    the class derives it so at several depths; None where it does not."""
    from dimlint.memory.parameters import derived_lists

    rule = derived_lists.defaults(model_type).get("rule:layer_types")
    period = rule.get("period") if isinstance(rule, dict) else None
    if not isinstance(rule, dict) or not isinstance(period, list) or not period:
        return None
    kinds = [MIXER_KINDS.get(str(name).lower(), str(name).lower()) for name in period]
    apart = {}
    if "first" in rule:
        apart[0] = MIXER_KINDS.get(str(rule["first"]).lower(), str(rule["first"]).lower())
    if "last" in rule:
        apart[layers - 1] = MIXER_KINDS.get(str(rule["last"]).lower(), str(rule["last"]).lower())
    return LayerRule(
        lambda index: apart.get(index, kinds[index % len(kinds)]), _around(apart), len(kinds)
    )


def _chunked_rule(cfg: Cfg) -> LayerRule | None:
    """Llama 4 without ``layer_types``: its config class derives them from ``no_rope_layers``
    (stated, or 1 except every ``no_rope_layer_interval``-th layer): layers that use rope attend
    within chunks of ``attention_chunk_size`` tokens, the NoPE layers to everything; a null
    chunk size makes every layer full."""
    if not _declares(cfg.model_type, "no_rope_layers") or cfg.get("attention_chunk_size") is None:
        return None
    stated = cfg.list("no_rope_layers")
    if stated:
        return _repeating(["chunked" if flag else "full" for flag in stated])
    interval = cfg.int("no_rope_layer_interval", 4) or 4
    return LayerRule(
        lambda index: "full" if (index + 1) % interval == 0 else "chunked", (), interval
    )


#: DeepSeek-V4's legacy per-layer ``compress_ratios`` (the config class maps exactly these).
COMPRESS_RATIO_KINDS = {0: "sliding", 4: "csa", 128: "hca"}
#: Tokens per compressed entry of each compressed kind when the config states no
#: ``compress_rates`` (``DeepseekV4Config.default_compress_rates``).
DEFAULT_COMPRESS_RATES = {"csa": 4, "hca": 128}


def _compressed_rule(cfg: Cfg) -> LayerRule | None:
    """DeepSeek-V4 without ``layer_types``: its config class derives them from the legacy
    ``compress_ratios`` (0: sliding window only, 4: compressed sparse attention, 128: heavily
    compressed), else two heavily compressed layers and then CSA and HCA alternating."""
    if not _declares(cfg.model_type, "compress_rates"):
        return None
    stated = cfg.list("compress_ratios")
    if stated:
        return _repeating([COMPRESS_RATIO_KINDS.get(ratio, "full") for ratio in stated])
    return LayerRule(lambda index: "hca" if index < 2 or index % 2 == 0 else "csa", (0, 1, 2), 2)


def compress_rate(cfg: Cfg, kind: str) -> int:
    """Source tokens per compressed entry of a ``csa`` or ``hca`` layer: ``compress_rates``
    (keyed by layer type), the legacy ``compress_rate_csa`` / ``compress_rate_hca``, else the
    class default."""
    name = "compressed_sparse_attention" if kind == "csa" else "heavily_compressed_attention"
    rates = cfg.get("compress_rates")
    if isinstance(rates, dict):
        stated = rates.get(name)
        if isinstance(stated, int) and not isinstance(stated, bool) and stated > 0:
            return stated
    return cfg.int(f"compress_rate_{kind}") or DEFAULT_COMPRESS_RATES[kind]


def _declares(model_type: str, field: str) -> bool:
    """Whether transformers' config class for ``model_type`` has ``field``."""
    record = architectures.lookup(model_type)
    return record is not None and field in record.fields


def mixer_counts(cfg: Cfg) -> dict[str, int]:
    """How many layers have each mixer kind (in bounded work: see :func:`layer_groups`)."""
    rule = mixer_rule(cfg)
    counts: dict[str, int] = {}
    for index, count in layer_groups(cfg):
        kind = rule.at(index)
        counts[kind] = counts.get(kind, 0) + count
    return counts


def mixer_kinds(cfg: Cfg) -> list[str]:
    """One normalized mixer kind per layer (for callers that bound the layer count first)."""
    rule = mixer_rule(cfg)
    return [rule.at(index) for index in range(cfg.layers)]


#: Families whose every layer is a recurrent or state-space block (no attention at all).
STATE_ONLY = frozenset({"mamba", "falcon_mamba", "mamba2", "rwkv", "xlstm"})

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
    "gemma4_text": 6,
    "gemma4_unified_text": 6,
    "diffusion_gemma_text": 6,
    "embedding_gemma2_text": 6,
}

#: Families whose config class forces the last layer to full attention, whatever its
#: ``layer_types`` or pattern say (Gemma-4: "Last layer must use `full_attention`").
LAST_LAYER_FULL = frozenset(
    {"gemma4_text", "gemma4_unified_text", "diffusion_gemma_text", "embedding_gemma2_text"}
)


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
    if cfg.model_type in WINDOW_PLUS_QUERY and cfg.int("sliding_window_size") > 0:
        return cfg.int("sliding_window_size") + 1
    return cfg.first_int("sliding_window", "attention_window_size", "sliding_window_size")


#: Families whose class sets ``sliding_window`` one past a stated ``sliding_window_size``, over
#: a stated ``sliding_window`` (MiMo-V2-Flash: its reference implementation attends that many
#: previous tokens plus the query).
WINDOW_PLUS_QUERY = frozenset({"mimo_v2_flash"})


class CacheLayer(Record):
    """What one layer keeps per sequence while generating.

    ``kind``: ``kv`` (keys and values per token, up to ``window`` tokens when set), ``latent``
    (MLA: one compressed vector per token), ``state`` (a constant recurrent/conv state), or
    ``none`` (an MLP-only layer, a cross-attention layer, or one that reuses an earlier
    layer's KV). ``state`` marks layers that keep a recurrent state besides their KV (Falcon-H1
    runs attention and Mamba side by side; Zamba's hybrid layers add the shared attention block
    to a Mamba layer). ``sliding`` marks sliding-window layers (MiMo-V2 gives them their own
    head counts, ``swa_*``); ``indexer`` layers also keep the keys of a DeepSeek sparse
    attention indexer, ``index_head_dim`` per token. ``compress`` (DeepSeek-V4's compressed
    layers) is the number of source tokens per compressed KV entry the layer keeps beside its
    sliding window; ``overlap`` marks compressed sparse attention, whose overlapping windows
    and Lightning Indexer keep more (see :func:`dimlint.memory.kvcache.compressed_elements`).
    """

    kind: str
    window: int | None
    state: bool = False
    sliding: bool = False
    indexer: bool = False
    compress: int = 0
    overlap: bool = False


#: Families whose attention layers also carry a Mamba state (all of them, or the hybrid ones).
PARALLEL_STATE = frozenset({"falcon_h1", "zamba", "zamba2"})


def cache_layer(cfg: Cfg, index: int, kind: str) -> CacheLayer:
    """What layer ``index``, whose mixer is ``kind``, keeps in its cache."""
    shared = cfg.int("num_kv_shared_layers")
    if shared > 0 and index >= cfg.layers - shared:
        return CacheLayer("none", None)
    if index in _indices(cfg.list("cross_attention_layers")):
        return CacheLayer("none", None)  # Mllama: their keys are the image's, not the text's
    if kind in ("full", "sliding", "chunked", "hybrid"):
        limit = None
        window = _window(cfg)
        chunk = cfg.int("attention_chunk_size")
        if kind == "sliding" and window:
            limit = window
        elif kind == "chunked" and chunk:
            limit = chunk
        kv = "latent" if cfg.at_layer(index).spec.is_mla else "kv"
        state = cfg.model_type in PARALLEL_STATE
        return CacheLayer(kv, limit, state, kind == "sliding", _has_indexer(cfg, index))
    if kind in ("csa", "hca"):
        rate = compress_rate(cfg, kind)
        return CacheLayer("kv", _window(cfg) or None, compress=rate, overlap=kind == "csa")
    if kind in ("mlp", "moe"):
        return CacheLayer("none", None)
    return CacheLayer("state", None)


def _has_indexer(cfg: Cfg, index: int) -> bool:
    """Whether layer ``index`` caches DeepSeek sparse-attention indexer keys: ``layer_types``
    says ``indexed_attention`` (or the config has an indexer and no ``layer_types``, as older
    DeepSeek-V3.2 configs), and ``indexer_types`` does not mark it ``shared`` (HY-V4 layers
    that reuse an earlier layer's top-k keep no indexer keys of their own)."""
    if cfg.int("index_head_dim") <= 0 or _declares(cfg.model_type, "compress_rates"):
        return False  # DeepSeek-V4's indexer keys are its CSA compressor's (CacheLayer.overlap)
    shared = cfg.list("indexer_types")
    if shared and str(shared[index % len(shared)]) == "shared":
        return False
    kinds = cfg.list("layer_types")
    if kinds:
        return str(kinds[index % len(kinds)]) == "indexed_attention"
    return True


def cache_plan(cfg: Cfg) -> list[tuple[int, CacheLayer, int]]:
    """(representative layer, what its cache holds, how many layers hold the same), over
    :func:`layer_groups` (see :class:`CacheLayer`)."""
    mixer = mixer_rule(cfg)
    return [
        (index, cache_layer(cfg, index, mixer.at(index)), count)
        for index, count in layer_groups(cfg)
    ]


def moe_rule(cfg: Cfg) -> LayerRule:
    """Whether layer ``index``'s feed-forward block is a mixture of experts."""
    layers = cfg.layers
    stated = cfg.list("mlp_layer_types")
    if stated and len(stated) >= layers:
        flags = [str(item).lower() not in ("dense", "mlp", "none") for item in stated[:layers]]
        return LayerRule(lambda index: flags[index], tuple(range(len(flags))))
    if cfg.experts <= 0 or cfg.get("is_moe") is False or cfg.get("enable_moe_block") is False:
        return LayerRule(lambda index: False)
    moe_list = cfg.list("moe_layers")
    if moe_list is not None:
        chosen = _indices(moe_list)
        return LayerRule(lambda index: index in chosen, _around(chosen))
    step = cfg.int("interleave_moe_layer_step")
    if step > 0 and _declares(cfg.model_type, "interleave_moe_layer_step"):
        # Llama-4 without ``moe_layers``: its config class derives them as every step-th layer
        # (``range(step - 1, layers, step)``: Maverick's step of 2 makes every other one dense)
        return LayerRule(lambda index: (index + 1) % step == 0, (), step)
    if cfg.has("expert_layer_period"):
        period = max(1, cfg.int("expert_layer_period", 1))
        offset = cfg.int("expert_layer_offset")
        return LayerRule(lambda index: index % period == offset, (), period)
    if cfg.has("moe_layer_start_index"):
        start = cfg.int("moe_layer_start_index")
        end = cfg.int("moe_layer_end_index", layers - 1)
        end = layers - 1 if end < 0 else end
        interval = max(1, cfg.int("moe_layer_interval", 1))
        return LayerRule(
            lambda index: (index + 1) % interval == 0 and start <= index <= end,
            (start, end + 1),
            interval,
        )
    dense_first = cfg.first_int("first_k_dense_replace", "num_dense_layers", default=0)
    frequency = max(1, cfg.first_int("moe_layer_freq", "decoder_sparse_step", default=1))
    sparse_step = cfg.has("decoder_sparse_step")
    dense_only = _indices(cfg.list("mlp_only_layers"))

    def is_moe(index: int) -> bool:
        if index < dense_first or index in dense_only:
            return False
        if sparse_step:
            return (index + 1) % frequency == 0
        return index % frequency == 0

    return LayerRule(is_moe, (dense_first, *_around(dense_only)), frequency)


def moe_count(cfg: Cfg) -> int:
    """How many layers have a mixture-of-experts block (in bounded work)."""
    rule = moe_rule(cfg)
    return sum(count for index, count in layer_groups(cfg) if rule.at(index))


def moe_layers(cfg: Cfg) -> list[bool]:
    """Whether each layer's feed-forward block is a mixture of experts (for callers that bound
    the layer count first)."""
    rule = moe_rule(cfg)
    return [rule.at(index) for index in range(cfg.layers)]


#: Up to this many layers every layer is its own group: the plan is exactly the per-layer one.
EXACT_LAYERS = 4096
#: More groups than this means a config too irregular to count in bounded time.
MAX_GROUPS = 1 << 16


class TooIrregular(ValueError):
    """A config whose layers cannot be grouped in bounded work (huge coprime periods)."""


def _common_breaks(cfg: Cfg) -> list[int]:
    """Indices where per-layer settings outside the mixer and MoE rules change: the shared-KV
    tail, ``per_layer_config`` overrides, and per-layer MLP widths."""
    breaks = []
    shared = cfg.int("num_kv_shared_layers")
    if shared > 0:
        breaks.append(cfg.layers - shared)
    overrides = cfg.get("per_layer_config")
    if isinstance(overrides, dict):
        keys = (str(key) for key in overrides)
        breaks += _around(
            int(key) for key in keys if key.isascii() and key.isdigit() and len(key) < 20
        )
    widths = cfg.get("intermediate_size")
    if isinstance(widths, list):
        breaks += range(len(widths) + 1)
    return breaks


def layer_groups(cfg: Cfg) -> list[tuple[int, int]]:
    """The layers as (representative index, count) pairs, every layer of a group alike in every
    per-layer property (mixer, MoE, cache, overrides, widths).

    Up to :data:`EXACT_LAYERS` layers this is every layer once. Beyond, the indices where some
    property may change split the layers into segments, and within a segment the properties
    repeat with the least common multiple of their periods, so each residue is one group:
    10**18 layers of one kind are one group, and the work does not grow with the count.
    """
    layers = cfg.layers
    if layers <= EXACT_LAYERS:
        return [(index, 1) for index in range(max(0, layers))]
    mixer, moe = mixer_rule(cfg), moe_rule(cfg)
    period = math.lcm(mixer.period, moe.period)
    if period > EXACT_LAYERS:
        raise TooIrregular(f"layer patterns repeat only every {period:,} layers")
    edges = {0, layers}
    edges.update(edge for edge in (*mixer.breaks, *moe.breaks, *_common_breaks(cfg)))
    ordered = sorted(edge for edge in edges if 0 <= edge <= layers)
    groups: list[tuple[int, int]] = []
    for start, stop in itertools.pairwise(ordered):
        if stop - start <= period:
            groups += ((index, 1) for index in range(start, stop))
        else:  # residue r of the period: layers start + r, start + r + period, … below stop
            groups += ((start + r, -(-(stop - start - r) // period)) for r in range(period))
        if len(groups) > MAX_GROUPS:
            raise TooIrregular(f"more than {MAX_GROUPS:,} distinct kinds of layer")
    return groups
