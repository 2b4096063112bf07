"""BART-style encoder-decoder transformers (BART, mBART, Pegasus, Marian, Blenderbot, Whisper's
text decoder, TrOCR…) and their decoder-only causal-LM classes.

Layers are Q, K, V, output (biases except where noted), LayerNorm, cross-attention with its
LayerNorm (decoder only), two-layer MLP with biases, LayerNorm. Positions are learned (BART
keeps two extra rows: ``max_position_embeddings + 2``), or a sinusoidal table that Marian and
Pegasus nevertheless store as a parameter. ``…ForCausalLM`` classes hold the decoder only; the
full model adds the encoder, sharing the token embedding with the decoder and the tied head.
"""

from __future__ import annotations

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.param_tally import Tally
from dimlint.records import Record


class Seq2Seq(Record):
    #: extra position rows (BART's learned embedding is offset by 2); ``None``: no parameter
    position_offset: int | None = 2
    #: LayerNorm right after the embeddings
    embed_norm: bool = True
    #: LayerNorm after the last layer
    final_norm: bool = False
    qkv_bias: bool = True
    #: Whisper's key projection has no bias
    k_bias: bool = True
    #: the causal-LM class keeps an untied head whatever the config says
    untied_causal_head: bool = False


SEQ2SEQ: dict[str, Seq2Seq] = {
    "bart": Seq2Seq(),
    "mbart": Seq2Seq(final_norm=True),
    "mvp": Seq2Seq(),
    "plbart": Seq2Seq(),
    "bigbird_pegasus": Seq2Seq(position_offset=0, qkv_bias=False, untied_causal_head=True),
    "blenderbot": Seq2Seq(position_offset=0, embed_norm=False, final_norm=True),
    "blenderbot-small": Seq2Seq(position_offset=0),
    "marian": Seq2Seq(position_offset=0, embed_norm=False),
    "pegasus": Seq2Seq(position_offset=0, embed_norm=False, final_norm=True),
    "trocr": Seq2Seq(),
    "whisper": Seq2Seq(position_offset=0, embed_norm=False, final_norm=True, k_bias=False),
}


def _stack(cfg: Cfg, traits: Seq2Seq, side: str, tally: Tally) -> None:
    """One side (``encoder`` or ``decoder``) of the model, without the shared token embedding."""
    hidden = cfg.first_int("d_model", "hidden_size")
    layers = cfg.first_int(f"{side}_layers", "num_hidden_layers")
    ffn = cfg.first_int(f"{side}_ffn_dim", "ffn_dim", default=4 * hidden)
    positions = _positions(cfg, side)
    if traits.position_offset is not None and positions:
        tally.embed((positions + traits.position_offset) * hidden)
    if traits.embed_norm and _flag_default(cfg, "layernorm_embedding", True):
        tally.add(blocks.norm("ln", hidden))
    attention = blocks.attention(
        hidden, 1, 1, hidden, qkv_bias=traits.qkv_bias, o_bias=traits.qkv_bias
    )
    if traits.qkv_bias and not traits.k_bias:
        attention -= hidden
    per_layer = attention + blocks.norm("ln", hidden)
    if side == "decoder":
        per_layer += attention + blocks.norm("ln", hidden)
    per_layer += blocks.mlp(hidden, ffn, gated=False, bias=True) + blocks.norm("ln", hidden)
    tally.add(per_layer * layers)
    if traits.final_norm:
        tally.add(blocks.norm("ln", hidden))


def _flag_default(cfg: Cfg, key: str, default: bool) -> bool:
    value = cfg.get(key)
    return value if isinstance(value, bool) else default


def _positions(cfg: Cfg, side: str) -> int:
    if cfg.model_type == "whisper":
        key = "max_target_positions" if side == "decoder" else "max_source_positions"
        return cfg.int(key)
    if cfg.model_type == "trocr" and not _flag_default(
        cfg, "use_learned_position_embeddings", True
    ):
        return 0
    return cfg.max_positions


def count_seq2seq(cfg: Cfg, traits: Seq2Seq, architecture: str) -> Tally:
    tally = Tally()
    hidden = cfg.first_int("d_model", "hidden_size")
    vocab = cfg.vocab
    tally.embed(vocab * hidden)
    decoder_only = "causallm" in architecture.lower() or not cfg.flag("is_encoder_decoder", True)
    if not cfg.tie or (decoder_only and traits.untied_causal_head):
        tally.embed(vocab * hidden)
    shared = tally.total
    if not decoder_only:
        if cfg.model_type == "whisper":
            tally.note("the audio front end (two convolutions) is counted with the encoder")
            mel = cfg.int("num_mel_bins", 80)
            tally.add(
                blocks.linear(mel * 3, hidden, True) + blocks.linear(hidden * 3, hidden, True)
            )
        _stack(cfg, traits, "encoder", tally)
    encoder = tally.total - shared
    _stack(cfg, traits, "decoder", tally)
    if not decoder_only:
        tally.parts = [
            ("embeddings", shared),
            ("encoder", encoder),
            ("decoder", tally.total - shared - encoder),
        ]
    return tally
