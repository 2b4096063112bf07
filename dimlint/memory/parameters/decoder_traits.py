"""The traits that set one decoder-only family apart from Llama.

Most causal LMs in transformers are Llama with a few switches flipped: LayerNorm instead of
RMSNorm, biases on some projections, four norms a layer instead of two, q/k norms, learned
positions, a gated or plain MLP, MoE routers with or without biases. :class:`Decoder` holds
those switches; ``dimlint.memory.parameters.decoder_families`` maps each model type to its traits. A
trait that the config can switch (``attention_bias``…) names the config key; a fixed one is a
constant.
"""

from __future__ import annotations

from dimlint.records import Record

#: A trait that is fixed (bool) or read from the named boolean config key.
Flag = bool | str


class Decoder(Record):
    """Switches of a Llama-like decoder. Defaults are Llama's."""

    #: per-layer norm: ``rms`` (one vector), ``ln`` (weight + bias), ``none`` (non-parametric)
    norm: str = "rms"
    #: whether an ``ln`` norm has its bias (nanoGPT's ``LayerNorm(ndim, bias)``: weight only
    #: when ``bias`` is false)
    norm_bias: Flag = True
    #: norms of hidden width per layer (2: pre-attention and pre-MLP; Gemma-2/3: 4)
    norms: int = 2
    #: kind of the final norm (``""``: none)
    final_norm: str = "same"
    qkv_bias: Flag = "attention_bias"
    o_bias: Flag = "attention_bias"
    mlp_bias: Flag = "mlp_bias"
    #: gated MLP (gate/up/down); ``None``: from the activation (normalization's guess)
    gated: Flag | None = True
    #: q/k norms: ``head`` (one head_dim vector each), ``proj`` (the whole projection width),
    #: ``head_ln`` (LayerNorm with bias over head_dim); ``""``: none
    qk_norm: str = ""
    qk_norm_flag: Flag = True
    #: learned absolute positions: rows = max positions + this offset; ``None``: none
    positions: int | None = None
    #: a bias on the LM head
    head_bias: Flag = False
    #: a norm right after the embedding (``ln``/``rms``; ``""``: none)
    embed_norm: str = ""
    #: per-head attention sinks (GPT-OSS)
    sinks: Flag = False
    #: output gate of attention: ``proj`` (hidden → heads·head_dim), ``heads`` (hidden → heads)
    attn_gate: str = ""
    #: a bias on the MoE router
    router_bias: Flag = False
    #: DeepSeek-style ``e_score_correction_bias`` stored as a parameter (one per expert)
    score_bias: Flag = False
    #: a sigmoid gate (hidden → 1) on the shared expert (Qwen-MoE)
    shared_gate: Flag = False
    #: config key of the shared expert's width when it is not one of the usual spellings
    #: (Llama-4: ``intermediate_size``, one shared expert as wide as a routed one)
    shared_key: str = ""
    #: biases inside the experts (GPT-OSS)
    expert_bias: Flag = False
    #: the mixer of non-attention layers (``layer_types`` linear/mamba/conv): a key of
    #: :data:`dimlint.memory.parameters.mixer_params.MIXERS`
    linear: str = ""
    #: the config key of the MLP width when normalization does not know it (CTRL's ``dff``)
    ffn_key: str = ""
