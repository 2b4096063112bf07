"""Remote-code families: model types transformers does not ship, read off their own modeling code.

A fifth of the released configs carry ``auto_map`` and a ``model_type`` transformers does not
know (``qwen``, ``chatglm``, ``baichuan``, ``internlm``…). Their key names resolve through
normalization's common spellings, but the *meaning* of a field can differ from the transformers
family it resembles, and a guess from names alone is what issue 9 measured wrong by 25–67%:

* Qwen v1 (``modeling_qwen.py``): ``intermediate_size`` is twice the MLP width — ``w1`` and
  ``w2`` are each ``intermediate_size // 2`` wide; ``c_attn`` has a bias, ``c_proj`` none.
* ChatGLM-6B (``modeling_chatglm.py``, v1: ``inner_hidden_size``, ``position_encoding_2d``): a
  plain GELU MLP with biases everywhere and LayerNorms, despite the GLU name. ChatGLM2/3 and
  GLM-4 remote code: a SwiGLU MLP (``dense_h_to_4h`` is ``2 × ffn_hidden_size``), QKV bias
  (``add_qkv_bias``), ``multi_query_group_num`` KV heads, RMSNorm (``rmsnorm``), untied head.
* Baichuan 1/2 (``W_pack`` fused QKV) and InternLM 1/2/2.5: Llama layouts; InternLM v1 puts a
  bias on q/k/v/o (``bias``, default true), InternLM2 on ``wqkv``/``wo`` when ``bias`` is set.
* phi-2 (``mixformer-sequential``, ``phi-msft``): a parallel attention/MLP block with one
  LayerNorm, biases everywhere, a plain MLP of ``n_inner`` or 4 × hidden, and a LayerNorm +
  biased linear head — transformers' ``phi`` layout.
* openPangu-Embedded (``PanguEmbedded``): Llama with a bias on q, k, v and o (``bias``, default
  true) and an untied head.
* MiniCPM: Llama with a tied head by default (``MiniCPMConfig.tie_word_embeddings = True``).
* Molmo: a Qwen2-style text model whose ``ff_proj`` holds gate and up together
  (``intermediate_size`` = 2 × the MLP width); its vision backbone and connector are built by the
  remote code from constants, not from the config, so the total is an estimate.
* Falcon ``RefinedWebModel`` (7B) is transformers' classic Falcon (``multi_query``: one KV
  head); ``RefinedWeb`` (40B/180B) is its new decoder architecture: ``n_head_kv`` KV heads in a
  fused ``(n_head + 2·n_head_kv)·head_dim`` QKV, ``ln_attn`` and ``ln_mlp`` per layer.

Training code that builds its own model is read the same way when its dialect is identified:

* nanoGPT (karpathy/nanoGPT ``model.py``; model type ``nanogpt``, given by the Python front end
  to a ``GPTConfig`` stating ``n_layer``, ``n_head``, ``n_embd``, ``block_size`` and ``bias``):
  token and learned position embeddings (``block_size`` rows), per layer ``ln_1``, ``c_attn``
  (fused QKV) and ``c_proj``, ``ln_2``, a plain 4 × ``n_embd`` GELU MLP (``c_fc``, ``c_proj``);
  ``ln_f``; the LM head tied to the token embedding. ``bias`` puts a bias on every Linear and
  LayerNorm (GPT-2's layout, ``bias=True``) or on none. ``tests/test_memory_nanogpt.py`` checks
  it against a hand derivation and transformers' GPT-2 built on the meta device.

``tests/test_memory_remote.py`` checks each against a published checkpoint's index
``total_size`` ÷ dtype bytes. A model type that is neither in transformers nor here is counted
as a Llama-like decoder and reported as an *estimate* (``Parameters.exact`` false).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dimlint.memory.parameters.decoder_traits import Decoder
from dimlint.records import Record


class RemoteFamily(Record):
    """What one remote-code family's modeling code builds from its config."""

    traits: Decoder
    #: config-class defaults of the remote code (used when the config leaves a key out)
    defaults: dict[str, Any]
    #: the MLP width from the raw config (None: the stated width)
    ffn: Callable[[dict[str, Any]], int | None] | None = None
    #: the stated ``intermediate_size`` holds gate and up together (twice the MLP width)
    fused_ffn: bool = False
    #: whether the count is the whole model (False: parts built from constants are missing)
    exact: bool = True
    #: why the count is an estimate (shown as a note)
    missing: str = ""
    #: dimensions the model cannot be built without (:class:`Cfg` attributes): when one is
    #: unknown, the count leaves its part out and is an estimate
    required: tuple[str, ...] = ()


def _int(raw: dict[str, Any], *keys: str) -> int | None:
    for key in keys:
        value = raw.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _half(*keys: str) -> Callable[[dict[str, Any]], int | None]:
    """Gate and up projections stored as one width: the MLP is half of it."""

    def width(raw: dict[str, Any]) -> int | None:
        stated = _int(raw, *keys)
        return stated // 2 if stated is not None else None

    return width


def _n_inner(raw: dict[str, Any]) -> int | None:
    stated = _int(raw, "n_inner")
    hidden = _int(raw, "n_embd", "hidden_size")
    return stated or (4 * hidden if hidden else None)


_UNTIED = {"tie_word_embeddings": False}
_PHI2 = RemoteFamily(
    Decoder(
        norm="ln",
        norms=1,
        qkv_bias=True,
        o_bias=True,
        mlp_bias=True,
        gated=False,
        head_bias=True,
    ),
    _UNTIED,
    _n_inner,
)


def _four_times(raw: dict[str, Any]) -> int | None:
    """nanoGPT's MLP: ``4 * n_embd`` whatever else the config states."""
    hidden = _int(raw, "n_embd", "hidden_size")
    return 4 * hidden if hidden else None


#: nanoGPT's ``GPT`` (see the module docstring).
NANOGPT = RemoteFamily(
    Decoder(
        norm="ln",
        norm_bias="bias",
        qkv_bias="bias",
        o_bias="bias",
        mlp_bias="bias",
        gated=False,
        positions=0,
        head_bias=False,
    ),
    {"tie_word_embeddings": True, "bias": True},
    _four_times,
    required=("hidden", "heads", "layers", "vocab", "max_positions"),
)

#: Remote-code families by ``model_type`` (ChatGLM-6B v1 is picked by :func:`family_for`).
REMOTE: dict[str, RemoteFamily] = {
    "qwen": RemoteFamily(
        Decoder(qkv_bias=True, o_bias=False, mlp_bias=False),
        _UNTIED,
        _half("intermediate_size"),
        fused_ffn=True,
    ),
    "chatglm": RemoteFamily(
        Decoder(
            qkv_bias="add_qkv_bias",
            o_bias="add_bias_linear",
            mlp_bias="add_bias_linear",
        ),
        {**_UNTIED, "add_qkv_bias": False, "add_bias_linear": False},
    ),
    "baichuan": RemoteFamily(Decoder(qkv_bias=False, o_bias=False, mlp_bias=False), _UNTIED),
    "internlm": RemoteFamily(
        Decoder(qkv_bias="bias", o_bias="bias", mlp_bias=False), {**_UNTIED, "bias": True}
    ),
    "internlm2": RemoteFamily(
        Decoder(qkv_bias="bias", o_bias="bias", mlp_bias=False), {**_UNTIED, "bias": True}
    ),
    "minicpm": RemoteFamily(
        Decoder(qkv_bias="attention_bias", o_bias="attention_bias", mlp_bias=False),
        {"tie_word_embeddings": True},
    ),
    # openPangu-Embedded (modeling_openpangu_dense.py): Llama with ``bias`` on q/k/v/o
    "PanguEmbedded": RemoteFamily(
        Decoder(qkv_bias="bias", o_bias="bias", mlp_bias=False), {**_UNTIED, "bias": True}
    ),
    "mixformer-sequential": _PHI2,
    "phi-msft": _PHI2,
    "molmo": RemoteFamily(
        Decoder(qkv_bias="qkv_bias", o_bias=False, mlp_bias=False),
        {**_UNTIED, "qkv_bias": False},
        _half("intermediate_size"),
        fused_ffn=True,
        exact=False,
        missing=(
            "molmo's vision backbone and connector are built by its remote code from constants,"
            " not from the config: they are not counted (estimate)"
        ),
    ),
    "nanogpt": NANOGPT,
}

#: ChatGLM-6B (the first release): plain GELU MLP, LayerNorm, biases on every projection.
CHATGLM_V1 = RemoteFamily(
    Decoder(norm="ln", qkv_bias=True, o_bias=True, mlp_bias=True, gated=False), _UNTIED
)

#: Remote model types that are a transformers family under another name, with the defaults their
#: remote config class implies (Falcon's original checkpoints).
ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "RefinedWebModel": ("falcon", {}),
    "RefinedWeb": ("falcon", {"new_decoder_architecture": True}),
}


def family_for(model_type: str, raw: dict[str, Any]) -> RemoteFamily | None:
    """The remote family of a config, or None when dimlint does not know it."""
    first_chatglm = "inner_hidden_size" in raw or "position_encoding_2d" in raw
    if model_type == "chatglm" and "multi_query_attention" not in raw and first_chatglm:
        return CHATGLM_V1
    return REMOTE.get(model_type)


def is_fused_ffn(model_type: str | None) -> bool:
    """Whether the stated ``intermediate_size`` holds gate and up together (Qwen v1, Molmo);
    the rules read the same fact from :mod:`dimlint.config.remote_semantics`."""
    family = REMOTE.get(model_type or "")
    return family is not None and family.fused_ffn
