"""KV cache bytes as a window-aware serving engine (vLLM) allocates them, per GPU.

Per layer (see :func:`dimlint.memory.parameters.layer_kinds.cache_plan`):

* attention: ``2 · kv_heads_per_gpu · head_dim · tokens`` elements, where a sliding-window
  or chunked layer holds at most its window, and each rank holds ``max(1, kv_heads / tp)``
  heads — past ``tp = kv_heads`` the heads are replicated, so the cache stops shrinking
  (vLLM's ``QKVParallelLinear``);
* multi-head latent attention (DeepSeek-V2/V3): ``kv_lora_rank + qk_rope_head_dim`` elements
  per token, the whole latent on every rank (DeepSeek-V3 in bf16: 70,272 B/token);
* linear-attention and state-space layers: a constant state per sequence (convolution window
  plus recurrent state), sharded over tp by heads;
* layers that reuse an earlier layer's KV (Gemma-3n/4), cross-attention layers and MLP-only
  layers: nothing;
* DeepSeek sparse-attention indexers (V3.2, GLM-5): ``index_head_dim`` more elements per token
  on the layers that have one, in the cache's dtype as transformers keeps them;
* DeepSeek-V4: one KV head whose keys are also its values (stored once), over a sliding window
  on every layer; its compressed layers add one ``head_dim`` entry per ``compress_rate`` tokens
  of the whole context and the compressor's state (see :func:`compressed_elements`);
* encoder-decoder models: the decoder's self-attention (``decoder_layers`` ×
  ``decoder_attention_heads``); their cross-attention caches hold encoder tokens and are not
  counted;
* encoder-only model types (none of their classes generates: ViT, wav2vec2, CLIP, DeBERTa):
  nothing; BERT-style encoders: nothing unless ``is_decoder`` makes them causal; GPT-1 and XLM
  keep no cache at all; XLNet keeps each layer's input (``mems``, ``d_model`` wide, up to
  ``mem_len`` tokens); CPM-Ant's ``prompt_length`` prompt tokens sit in every sequence's cache.

Token counts are rounded up to whole blocks (vLLM's default 16 tokens) per sequence.
"""

from __future__ import annotations

import math

from dimlint.config.model_classes import classes_of
from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.dtypes import dtype_bytes
from dimlint.memory.parameters.decoder_families import traits_for
from dimlint.memory.parameters.layer_kinds import CacheLayer, cache_plan
from dimlint.memory.parameters.mixer_params import (
    delta_dims,
    kda_dims,
    mamba2_groups,
    mamba_conv,
    mamba_inner,
    mamba_state,
)

#: Families whose every attention layer is local (Griffin's MQA blocks).
LOCAL_ATTENTION = frozenset({"recurrent_gemma"})

#: Families whose transformers implementation keeps no cache (each step recomputes the whole
#: prefix) and that no serving engine runs: GPT-1, XLM.
NO_CACHE = frozenset({"openai-gpt", "xlm"})

#: BERT-like encoders: attention sees the whole input, so there is no KV cache unless
#: ``is_decoder`` makes the stack causal (GIT's text decoder, causal whatever the flag says, is
#: not one of them).
BIDIRECTIONAL_ENCODERS = frozenset(
    {
        "bert",
        "bert-generation",
        "big_bird",
        "camembert",
        "data2vec-text",
        "electra",
        "ernie",
        "megatron-bert",
        "rembert",
        "roberta",
        "roberta-prelayernorm",
        "roc_bert",
        "roformer",
        "xlm-roberta",
        "xlm-roberta-xl",
        "xmod",
        "layoutlm",
        "nezha",
        "mpnet",
    }
)

#: Self-attention blocks per decoder layer where there is more than one: LongCat-Flash runs two
#: MLA blocks in every layer (its config derives ``num_hidden_layers = 2 * num_layers``).
ATTENTION_BLOCKS = {"longcat_flash": 2}

#: KV-head multipliers of sliding-window layers: MiMo-V2-Flash's sliding layers have twice
#: ``num_key_value_heads`` (``MiMoV2FlashAttention``), a rule of the code, not of the config.
SLIDING_KV_HEADS = {"mimo_v2_flash": 2}

#: Families whose single KV tensor is read as both keys and values (DeepSeek-V4's shared-KV
#: MQA): an engine stores it once.
SHARED_KV = frozenset({"deepseek_v4"})

#: Prompt tokens a family prepends to every input, by the key that counts them (CPM-Ant).
PROMPT_TOKENS = {"cpmant": "prompt_length"}


def kv_heads_per_gpu(kv_heads: int, tp: int) -> int:
    """KV heads one rank holds: ``max(1, kv/tp)``, replicated once ``tp`` exceeds them."""
    return max(1, math.ceil(kv_heads / max(1, tp)))


def _kv_width(cfg: Cfg, tp: int, sliding: bool = False) -> int:
    """Elements per token per layer for keys + values on one rank (sliding layers with their
    own ``swa_*`` head counts use those: Inkling)."""
    head_dim = cfg.head_dim
    v_head_dim = cfg.int("v_head_dim") or head_dim
    kv_heads = cfg.kv_heads
    if sliding:
        head_dim = cfg.int("swa_head_dim") or head_dim
        v_head_dim = cfg.int("swa_v_head_dim") or (cfg.int("swa_head_dim") or v_head_dim)
        kv_heads = cfg.int("swa_num_key_value_heads") or kv_heads
        kv_heads *= SLIDING_KV_HEADS.get(cfg.model_type, 1)
    if cfg.model_type in SHARED_KV:
        return kv_heads_per_gpu(kv_heads, tp) * head_dim
    return kv_heads_per_gpu(kv_heads, tp) * (head_dim + v_head_dim)


def compressed_elements(cfg: Cfg, layer: CacheLayer, context: int, block_size: int) -> int:
    """What a DeepSeek-V4 compressed layer keeps beyond its sliding window, per sequence, as
    transformers' ``DeepseekV4HCACache`` / ``DeepseekV4CSACache`` hold it after ``context``
    tokens (``m`` = ``layer.compress``):

    * one compressed entry (``head_dim``) per whole window of ``m`` source tokens;
    * the tokens of the open window (``context mod m``), projected and gated, waiting for it
      to close: ``head_dim`` each for keys and gate (HCA), twice that under CSA's two
      overlapping series;
    * CSA only: the previous window's first series (keys and gate, ``m × head_dim`` each)
      once a window has closed, and the Lightning Indexer's own compressed keys, open window
      and overlap at ``index_head_dim``.
    """
    rate = layer.compress
    entries = _tokens(context // rate, None, block_size)
    head_dim, index_dim = cfg.head_dim, cfg.int("index_head_dim")
    open_tokens = context % rate
    closed = context >= rate
    if not layer.overlap:
        return entries * head_dim + open_tokens * 2 * head_dim
    per_width = entries + open_tokens * 4 + (2 * rate if closed else 0)
    return per_width * (head_dim + index_dim)


#: Parts of a class name that mark a class which generates token by token (and so keeps a
#: cache): causal LMs and their LM-head spellings, conditional generation, seq2seq and
#: speech/text generation classes, encoder-decoder composites.
_GENERATING = (
    "CausalLM",
    "LMHead",
    "ConditionalGeneration",
    "SpeechToText",
    "TextToSpeech",
    "Text2Text",
    "TextToText",
    "CausalImageModeling",
    "MTModel",
    "EncoderDecoderModel",
)


def _never_generates(model_type: str) -> bool:
    """Whether transformers registers classes for ``model_type`` and none of them generates
    (ViT, wav2vec2, CLIP, DeBERTa, DistilBERT): an encoder runs once over its input and keeps
    no cache. A type it does not know (remote code) is taken to be a decoder."""
    classes = classes_of(model_type) if model_type else ()
    return bool(classes) and not any(part in name for name in classes for part in _GENERATING)


def _no_cache(cfg: Cfg) -> bool:
    """Models that keep nothing between steps (module doc)."""
    if cfg.model_type in NO_CACHE or _never_generates(cfg.model_type):
        return True
    return cfg.model_type in BIDIRECTIONAL_ENCODERS and cfg.get("is_decoder") is not True


def _special_width(cfg: Cfg, tp: int) -> tuple[int, int | None] | None:
    """(elements per token, window) of the families whose cache is not one entry per decoder
    layer: XLNet's memories and encoder-decoder models (the decoder's self-attention); None
    for the others."""
    if cfg.model_type == "xlnet":
        return cfg.layers * cfg.hidden, cfg.int("mem_len") or None
    if cfg.get("is_encoder_decoder") is not True:
        return None
    layers = cfg.first_int("decoder_layers", "num_decoder_layers", default=cfg.layers)
    heads = cfg.first_int(
        "decoder_attention_heads", "num_decoder_attention_heads", default=cfg.heads
    )
    head_dim = cfg.int("d_kv") or (cfg.hidden // heads if heads else 0)
    return layers * kv_heads_per_gpu(heads, tp) * 2 * head_dim, None


def _latent_width(cfg: Cfg) -> int:
    return cfg.int("kv_lora_rank") + cfg.int("qk_rope_head_dim")


def _state_kind(cfg: Cfg) -> str:
    linear = traits_for(cfg).linear
    if linear:
        return linear
    return {
        "mamba": "mamba1",
        "falcon_mamba": "mamba1",
        "zamba": "mamba1",
        "mamba2": "mamba2",
        "zamba2": "mamba2",
        "nemotron_h": "mamba2",
        "falcon_h1": "mamba2",
        "rwkv": "rwkv",
        "xlstm": "xlstm",
        "recurrent_gemma": "rg_lru",
        "lfm2_moe": "short_conv",  # LFM2's convolution blocks with MoE feed-forwards
    }.get(cfg.model_type, "")


def state_elements(cfg: Cfg, tp: int = 1) -> int:
    """Elements of one layer's recurrent + convolution state for one sequence, on one rank.

    Convolution states keep ``kernel - 1`` columns (vLLM's layout; transformers pads its
    copy to the full kernel).
    """
    kind = _state_kind(cfg)
    tp = max(1, tp)
    if kind == "mamba1":
        inner = mamba_inner(cfg)
        elements = inner * (mamba_conv(cfg) - 1) + inner * mamba_state(cfg)
    elif kind == "mamba2":
        inner, state = mamba_inner(cfg), mamba_state(cfg)
        conv_dim = inner + 2 * mamba2_groups(cfg) * state
        elements = conv_dim * (mamba_conv(cfg) - 1) + inner * state
    elif kind == "gated_deltanet":
        key_heads, key_dim, value_heads, value_dim = delta_dims(cfg)
        conv_dim = 2 * key_heads * key_dim + value_heads * value_dim
        kernel = cfg.int("linear_conv_kernel_dim", 4)
        elements = conv_dim * (kernel - 1) + value_heads * key_dim * value_dim
    elif kind in ("kda", "kda_bailing"):
        heads, head_dim = kda_dims(cfg)
        kernel = cfg.int("linear_conv_kernel_dim", 4)
        elements = 3 * heads * head_dim * (kernel - 1) + heads * head_dim * head_dim
    elif kind == "lightning":
        elements = cfg.heads * cfg.head_dim * cfg.head_dim
    elif kind == "short_conv":
        elements = cfg.hidden * (cfg.int("conv_L_cache", 3) - 1)
    elif kind == "rwkv":
        elements = 5 * cfg.hidden
    elif kind == "xlstm":
        heads = cfg.int("num_heads", 8)
        qk = int(cfg.hidden * cfg.number("qk_dim_factor", 0.5))
        v = int(cfg.hidden * cfg.number("v_dim_factor", 1.0))
        elements = qk * v // heads + qk + heads
    elif kind == "rg_lru":
        lru = cfg.int("lru_width") or cfg.hidden
        elements = lru + lru * (cfg.int("conv1d_width", 4) - 1)
    else:
        elements = 0
    return math.ceil(elements / tp)


def _tokens(context: int, window: int | None, block_size: int) -> int:
    held = context if window is None else min(context, window)
    block = max(1, block_size)
    return math.ceil(held / block) * block


def _copies(cfg: Cfg, index: int) -> int:
    """How many caches layer ``index`` keeps: Dory runs its recurrent stage (the
    ``n_recurrent_layers`` after the ``n_input_layers``) ``n_recurrent_loops`` times and, in
    its default ``per_loop`` mode, keeps one cache per loop (``last_loop`` keeps one)."""
    loops = cfg.int("n_recurrent_loops")
    if loops <= 1 or cfg.get("recurrent_kv_cache_mode", "per_loop") != "per_loop":
        return 1
    start = cfg.int("n_input_layers")
    stage = cfg.int("n_recurrent_layers") or cfg.layers - start - cfg.int("n_output_layers")
    return loops if start <= index < start + stage else 1


def _layer_elements(
    cfg: Cfg, index: int, layer: CacheLayer, context: int, tp: int, block_size: int
) -> int:
    own = cfg.at_layer(index)
    window = layer.window
    if cfg.model_type in LOCAL_ATTENTION and layer.kind == "kv":
        window = cfg.int("attention_window_size") or window
    extra = state_elements(own, tp) if layer.state else 0
    tokens = _tokens(context, window, block_size)
    if layer.indexer:
        extra += own.int("index_head_dim") * tokens
    if layer.compress:
        extra += compressed_elements(own, layer, context, block_size)
    blocks = ATTENTION_BLOCKS.get(cfg.model_type, 1)
    if layer.kind == "kv":
        return blocks * _kv_width(own, tp, layer.sliding) * tokens + extra
    if layer.kind == "latent":
        return blocks * _latent_width(own) * tokens + extra
    if layer.kind == "state":
        return state_elements(own, tp)
    return 0


def kv_cache_bytes(
    spec: ModelSpec,
    *,
    context: int,
    batch: int,
    kv_dtype: str,
    tp: int = 1,
    block_size: int = 16,
) -> int:
    """Cache bytes on one GPU for ``batch`` sequences of ``context`` tokens (see module doc)."""
    # Layouts that share a tp share the per-sequence count (plan asks once per tp × pp).
    key = f"kv_elements:{context}:{tp}:{block_size}"
    per_sequence: int | None = spec.memo.get(key)
    if per_sequence is None:
        cfg = Cfg(spec)
        context += cfg.int(PROMPT_TOKENS.get(cfg.model_type, ""))
        special = _special_width(cfg, tp)
        if _no_cache(cfg):
            per_sequence = 0
        elif special is not None:
            per_sequence = special[0] * _tokens(context, special[1], block_size)
        else:
            per_sequence = sum(
                _layer_elements(cfg, index, layer, context, tp, block_size)
                * count
                * _copies(cfg, index)
                for index, layer, count in cache_plan(cfg)
            )
        spec.memo[key] = per_sequence
    return math.ceil(per_sequence * batch * dtype_bytes(kv_dtype))


def kv_bytes_per_token(spec: ModelSpec, kv_dtype: str, tp: int = 1) -> float:
    """Bytes one more token of context adds on one GPU: the layers whose cache grows without
    bound (full attention, MLA). Window-limited and state layers add nothing once full, so
    ``(free bytes - kv_cache_bytes(context=0)) / kv_bytes_per_token`` bounds the context.
    """
    cfg = Cfg(spec)
    if _no_cache(cfg):
        return 0.0
    special = _special_width(cfg, tp)
    if special is not None:
        return 0.0 if special[1] is not None else special[0] * dtype_bytes(kv_dtype)
    elements = 0.0
    blocks = ATTENTION_BLOCKS.get(cfg.model_type, 1)
    for index, layer, count in cache_plan(cfg):
        if layer.compress:  # one compressed entry (and indexer key) per `compress` tokens
            own = cfg.at_layer(index)
            width = own.head_dim + (own.int("index_head_dim") if layer.overlap else 0)
            elements += width * count / layer.compress
        if layer.window is not None or (cfg.model_type in LOCAL_ATTENTION and layer.kind == "kv"):
            continue
        own = cfg.at_layer(index)
        indexer = own.int("index_head_dim") if layer.indexer else 0
        copies = count * _copies(cfg, index)
        if layer.kind == "kv":
            elements += (blocks * _kv_width(own, tp) + indexer) * copies
        elif layer.kind == "latent":
            elements += (blocks * _latent_width(own) + indexer) * copies
    return elements * dtype_bytes(kv_dtype)
