"""Parameters a family adds to the Llama skeleton of
:mod:`dimlint.memory.parameters.decoder_params`.

Each entry is small and names what it counts; the ground-truth test checks every one against
the model transformers builds.
"""

from __future__ import annotations

from collections.abc import Callable

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.layer_kinds import moe_count
from dimlint.memory.parameters.mixer_params import mamba2
from dimlint.memory.parameters.param_tally import Tally


def _raw_layer_types(cfg: Cfg) -> list[str]:
    return [str(item) for item in cfg.list("layer_types") or ()]


def dsa_indexer(cfg: Cfg, tally: Tally) -> None:
    """DeepSeek sparse attention's lightning indexer on each indexed layer: a query projection
    from the query latent, one key head with its LayerNorm, and per-head weights."""
    heads = cfg.int("index_n_heads")
    head_dim = cfg.int("index_head_dim")
    q_rank = cfg.int("q_lora_rank") or cfg.hidden
    per_layer = q_rank * heads * head_dim + cfg.hidden * head_dim + 2 * head_dim
    per_layer += cfg.hidden * heads
    types = _raw_layer_types(cfg)
    indexed = sum(kind == "indexed_attention" for kind in types) if types else cfg.layers
    tally.add(per_layer * indexed)


def dots3(cfg: Cfg, tally: Tally) -> None:
    """Dots3: the indexer on indexed layers, and a norm over the rotary key part everywhere."""
    dsa_indexer(cfg, tally)
    tally.add(cfg.int("qk_rope_head_dim") * cfg.layers)


def per_layer_inputs(cfg: Cfg, tally: Tally) -> None:
    """Gemma-3n/4 per-layer input embeddings: a second embedding table of
    ``layers × hidden_size_per_layer_input`` per token, its projection from the hidden state
    and norm, and on every layer a gate, a projection back and a norm."""
    width = cfg.int("hidden_size_per_layer_input")
    if not width:
        return
    hidden, layers = cfg.hidden, cfg.layers
    vocab = cfg.int("vocab_size_per_layer_input") or cfg.vocab
    tally.embed(vocab * layers * width)
    tally.add(hidden * layers * width + width)
    tally.add(layers * (2 * hidden * width + hidden))


def gemma3n(cfg: Cfg, tally: Tally) -> None:
    """Gemma-3n: per-layer inputs, AltUp (alternating updates: input/output projections and
    per-layer router and coefficients) and LAuReL low-rank residual blocks."""
    per_layer_inputs(cfg, tally)
    hidden, layers = cfg.hidden, cfg.layers
    inputs = cfg.int("altup_num_inputs", 4)
    rank = cfg.int("laurel_rank", 64)
    tally.add(2 * (inputs - 1) * hidden * hidden)
    altup = hidden + inputs * inputs + inputs * inputs * inputs + inputs * hidden + hidden
    laurel = 2 * hidden * rank + hidden
    tally.add(layers * (altup + laurel))


def mimo_v2_flash(cfg: Cfg, tally: Tally) -> None:
    """MiMo-V2-Flash: sliding layers have twice the KV heads and per-head attention sinks."""
    head_dim = cfg.head_dim
    v_head_dim = cfg.int("v_head_dim") or head_dim
    sliding = sum(kind == "sliding_attention" for kind in _raw_layer_types(cfg))
    extra_kv = cfg.kv_heads * (head_dim + v_head_dim) * cfg.hidden
    tally.add(sliding * (extra_kv + cfg.heads))


def doge(cfg: Cfg, tally: Tally) -> None:
    """Doge's dynamic mask attention (A and dt projection per head) and two residual
    scales per layer."""
    hidden, heads = cfg.hidden, cfg.heads
    tally.add(cfg.layers * (heads + hidden * heads + 2 * hidden))


def modernbert_decoder(cfg: Cfg, tally: Tally) -> None:
    """ModernBERT's prediction head (dense + norm) and decoder bias."""
    hidden = cfg.hidden
    tally.add(blocks.linear(hidden, hidden, cfg.flag("classifier_bias")) + hidden)
    if cfg.flag("decoder_bias", True):
        tally.add(cfg.vocab)


def zaya(cfg: Cfg, tally: Tally) -> None:
    """ZAYA: convolutional q/k mixing in attention, an MLP router in place of the linear one,
    and learned residual scales."""
    hidden, layers = cfg.hidden, cfg.layers
    qk = cfg.heads * cfg.head_dim + cfg.kv_heads * cfg.head_dim
    kernel0, kernel1 = cfg.int("cca_time0", 2), cfg.int("cca_time1", 2)
    conv = qk * kernel0 + qk + qk * cfg.head_dim * kernel1 + qk + 2
    router_width = cfg.int("router_hidden_size", 256)
    experts = cfg.experts
    router = blocks.linear(hidden, router_width, True) + router_width
    router += 2 * blocks.linear(router_width, router_width, True)
    router += router_width * (experts + 1) - hidden * experts  # replaces the linear router
    tally.add(layers * (conv + router + 8 * hidden) + router_width * (layers - 1))
    tally.add(2 * hidden)


EXTRA: dict[str, Callable[[Cfg, Tally], None]] = {
    # every layer runs attention and a Mamba-2 mixer side by side
    "falcon_h1": lambda cfg, tally: tally.add(mamba2(cfg) * cfg.layers),
    # eight extra embedding rows for image tokens; two gates and q/k norms per cross layer
    "mllama_text_model": lambda cfg, tally: tally.add(
        8 * cfg.hidden + len(cfg.list("cross_attention_layers") or ()) * (2 + 2 * cfg.head_dim)
    ),
    # language embeddings
    "xlm": lambda cfg, tally: tally.add(
        cfg.int("n_langs", 1) * cfg.hidden
        if cfg.int("n_langs", 1) > 1 and cfg.flag("use_lang_emb", True)
        else 0
    ),
    # four λ vectors of head_dim per layer (differential attention)
    "diffllama": lambda cfg, tally: tally.add(4 * cfg.head_dim * cfg.layers),
    # sub-norms before o_proj (hidden) and before down_proj (ffn)
    "bitnet": lambda cfg, tally: tally.add((cfg.hidden + cfg.ffn) * cfg.layers),
    # xIELU activation: two learned scalars per MLP
    "apertus": lambda cfg, tally: tally.add(2 * cfg.layers),
    "apertus1p5_text": lambda cfg, tally: tally.add(2 * cfg.layers),
    # a learned gate bias per head
    "beam": lambda cfg, tally: tally.add(cfg.heads * cfg.layers),
    # the last layer's attention output has a bias of its own
    "gpt_neox_japanese": lambda cfg, tally: tally.add(cfg.hidden),
    "deepseek_v32": dsa_indexer,
    "glm_moe_dsa": dsa_indexer,
    "dots3_note_text": dots3,
    # a norm after each MoE block
    "axk1": lambda cfg, tally: tally.add(cfg.hidden * moe_count(cfg)),
    "gemma4_text": per_layer_inputs,
    "gemma3n_text": gemma3n,
    "mimo_v2_flash": mimo_v2_flash,
    "doge": doge,
    "modernbert-decoder": modernbert_decoder,
    "zaya": zaya,
    # one extra embedding row (the untied head keeps the stated vocabulary)
    "moshi": lambda cfg, tally: tally.embed(cfg.hidden),
}


def add_extra(cfg: Cfg, tally: Tally) -> None:
    extra = EXTRA.get(cfg.model_type)
    if extra is not None:
        extra(cfg, tally)
