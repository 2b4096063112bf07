"""Recipes for older architectures with their own layer layouts: XLNet, ProphetNet's decoder
and CPM-Ant."""

from __future__ import annotations

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.param_tally import Tally


def count_xlnet(cfg: Cfg) -> Tally:
    """XLNet: two-stream relative attention (q, k, v, o and the relative-position projection
    r, plus three bias vectors and segment embeddings per layer), then a post-LN MLP."""
    tally = Tally()
    hidden = cfg.hidden
    width = cfg.heads * (cfg.int("d_head") or cfg.head_dim)
    inner = cfg.int("d_inner") or 4 * hidden
    per_layer = 5 * hidden * width + 3 * width + 2 * width + blocks.norm("ln", hidden)
    per_layer += blocks.mlp(hidden, inner, False, True) + blocks.norm("ln", hidden)
    tally.add(per_layer * cfg.layers + hidden)  # + mask embedding
    tally.embed(cfg.vocab * hidden)
    tally.add(cfg.vocab)  # the tied head's bias
    return tally


def count_prophetnet(cfg: Cfg) -> Tally:
    """ProphetNet's n-stream decoder (the causal-LM class): self-attention with a relative
    position projection, cross-attention, MLP, all post-LN with biases."""
    tally = Tally()
    hidden, vocab = cfg.hidden, cfg.vocab
    heads = cfg.int("num_decoder_attention_heads") or cfg.heads
    ffn = cfg.int("decoder_ffn_dim") or 4 * hidden
    layers = cfg.int("num_decoder_layers") or cfg.layers
    tally.embed(vocab * hidden + cfg.max_positions * hidden)
    tally.add(cfg.int("ngram", 2) * hidden + blocks.norm("ln", hidden))
    attention = blocks.attention(hidden, 1, 1, hidden, qkv_bias=True, o_bias=True)
    per_layer = attention + blocks.linear(hidden, cfg.int("num_buckets", 32) * heads, True)
    per_layer += blocks.norm("ln", hidden)
    if cfg.flag("add_cross_attention", True):
        per_layer += attention + blocks.norm("ln", hidden)
    per_layer += blocks.mlp(hidden, ffn, False, True) + blocks.norm("ln", hidden)
    tally.add(per_layer * layers)
    if not cfg.tie:
        tally.embed(vocab * hidden)
    return tally


def count_cpmant(cfg: Cfg) -> Tally:
    """CPM-Ant: prompt and segment embeddings, a segment-aware relative position bias, and
    pre-norm layers (RMS-style norms, no biases, gated MLP); the head is never tied."""
    tally = Tally()
    hidden, vocab = cfg.hidden, cfg.vocab
    heads = cfg.heads
    head_dim = cfg.int("dim_head") or cfg.head_dim
    prompts = cfg.int("prompt_types") * cfg.int("prompt_length")
    segments = cfg.int("segment_types")
    tally.embed((vocab + prompts) * hidden)
    tally.add(segments * hidden)
    tally.add((segments * segments + cfg.int("position_bias_num_buckets")) * heads)
    attention = blocks.attention(hidden, heads, heads, head_dim)
    per_layer = attention + blocks.mlp(hidden, cfg.int("dim_ff"), True) + 2 * hidden
    tally.add(per_layer * cfg.layers + hidden)
    tally.embed(vocab * hidden)
    return tally
