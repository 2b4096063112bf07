"""Each decoder family's traits (see :mod:`dimlint.memory.parameters.decoder_traits`), by model
type.

A model type not listed here is counted as Llama (RMSNorm, GQA, gated MLP, biases from
``attention_bias``/``mlp_bias``), which is what most decoder-only types in transformers are.
The entries were read off each family's modeling code in transformers, and
``tests/test_memory_ground_truth.py`` checks them against the model built on the meta device.

``ADJUST`` holds the families whose traits depend on the config (Falcon's norm count follows
``parallel_attn`` and ``new_decoder_architecture``) and ``DENSE_FFN`` those whose MLP width is
not the stated ``intermediate_size``; parameters a family adds to the Llama skeleton are in
:mod:`dimlint.memory.parameters.family_additions`.
"""

from __future__ import annotations

from collections.abc import Callable

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.decoder_traits import Decoder

_GPT2 = Decoder(norm="ln", qkv_bias=True, o_bias=True, mlp_bias=True, gated=False, positions=0)
_GPTJ = Decoder(
    norm="ln", norms=1, qkv_bias=False, o_bias=False, mlp_bias=True, gated=False, head_bias=True
)
_PERSIMMON = Decoder(
    norm="ln",
    qkv_bias=True,
    o_bias=True,
    mlp_bias=True,
    gated=False,
    qk_norm="head_ln",
    qk_norm_flag="qk_layernorm",
)
_QK = Decoder(qk_norm="head")
_QK_PROJ_POST = Decoder(qk_norm="proj")  # OLMo-2 style: post-norms, q/k norms over projections
_COHERE = Decoder(norms=1)
_GEMMA2 = Decoder(norms=4)
_GEMMA3 = Decoder(norms=4, qk_norm="head")
_DSA = Decoder()  # DeepSeek sparse attention: MLA + indexer (EXTRA)

FAMILIES: dict[str, Decoder] = {
    "afmoe": Decoder(norms=4, qk_norm="head", attn_gate="proj", score_bias=True),
    "apertus": Decoder(gated=False, qk_norm="head"),
    "apertus1p5_text": Decoder(gated=False, qk_norm="head"),
    "arcee": Decoder(gated=False),
    "beam": Decoder(norms=4, qk_norm="head", attn_gate="proj"),
    "bloom": Decoder(
        norm="ln", qkv_bias=True, o_bias=True, mlp_bias=True, gated=False, embed_norm="ln"
    ),
    "codegen": _GPTJ,
    # CohereLayerNorm((num_heads, head_dim)): one weight per head and channel
    "cohere": _COHERE._replace(qk_norm="proj", qk_norm_flag="use_qk_norm"),
    "cohere2": _COHERE,
    "cohere2_moe": _COHERE,
    "deepseek_v32": _DSA,
    "diffllama": Decoder(),
    "exaone4": _QK,
    "exaone_moe": _QK,
    "falcon": Decoder(norm="ln", qkv_bias="bias", o_bias="bias", mlp_bias="bias", gated=False),
    "flex_olmo": _QK_PROJ_POST,
    "flint": Decoder(qk_norm="head", sinks=True),
    "gemma2": _GEMMA2,
    "gemma3_text": _GEMMA3,
    "glm": Decoder(o_bias=False),
    "glm4": Decoder(norms=4, o_bias=False),
    "glm4_moe": Decoder(qk_norm="head", qk_norm_flag="use_qk_norm"),
    "glm_moe_dsa": _DSA,
    "gpt-sw3": _GPT2,
    "gpt2": _GPT2,
    "gpt_bigcode": _GPT2,
    "gpt_neo": _GPT2._replace(qkv_bias=False),
    "gpt_neox": Decoder(norm="ln", mlp_bias=True, gated=False),
    "gpt_neox_japanese": Decoder(
        norm="ln", qkv_bias=False, o_bias=False, mlp_bias=False, gated=False
    ),
    "gpt_oss": Decoder(sinks=True, router_bias=True, expert_bias=True),
    "gptj": _GPTJ,
    "granite_swa": Decoder(sinks=True),
    "granitemoe_swa": Decoder(sinks=True),
    "hy_v3": _QK,
    "jais2": Decoder(norm="ln", gated=False),
    "kolibri1": Decoder(norms=4, qk_norm="head"),
    "laguna": Decoder(qk_norm="head", attn_gate="heads", score_bias=True),
    "mellum": _QK,
    "minimax_m2": Decoder(qk_norm="proj"),
    "minimax_m3_vl_text": _QK,
    "mpt": Decoder(qkv_bias=False, o_bias=False, mlp_bias=False, gated=False),
    "nanochat": Decoder(norm="none", gated=False),
    "olmo": Decoder(norm="none"),
    "olmo2": _QK_PROJ_POST,
    "olmo3": _QK_PROJ_POST,
    "olmoe": _QK_PROJ_POST,
    "persimmon": _PERSIMMON,
    "phi": _PERSIMMON._replace(norms=1, head_bias=True),
    "phimoe": Decoder(norm="ln", head_bias="lm_head_bias"),
    "qwen2": Decoder(qkv_bias=True, o_bias=False),
    "qwen2_moe": Decoder(qkv_bias="qkv_bias", o_bias=False, shared_gate=True),
    "qwen3": _QK,
    "qwen3_moe": _QK,
    "sarvam_moe": Decoder(qk_norm="head", qk_norm_flag="use_qk_norm"),
    "seed_oss": Decoder(o_bias="attention_out_bias"),
    "stablelm": Decoder(qkv_bias="use_qkv_bias", o_bias=False, norm="ln"),
    "starcoder2": Decoder(
        norm="ln", qkv_bias="use_bias", o_bias="use_bias", mlp_bias="use_bias", gated=False
    ),
    "ernie4_5_moe": Decoder(qkv_bias="use_bias", o_bias="use_bias", score_bias=True),
    "ernie4_5": Decoder(qkv_bias="use_bias", o_bias="use_bias", mlp_bias="use_bias"),
    "xglm": Decoder(norm="ln", qkv_bias=True, o_bias=True, mlp_bias=True, gated=False),
    "biogpt": Decoder(
        norm="ln", qkv_bias=True, o_bias=True, mlp_bias=True, gated=False, positions=2
    ),
    # hybrids: attention layers plus linear-attention / state-space layers
    "bamba": Decoder(linear="mamba2"),
    "granitemoehybrid": Decoder(linear="mamba2"),
    "jamba": Decoder(linear="mamba1"),
    "qwen3_next": Decoder(
        qk_norm="head", attn_gate="proj", shared_gate=True, linear="gated_deltanet"
    ),
    "qwen3_5_text": Decoder(qk_norm="head", attn_gate="proj", linear="gated_deltanet"),
    "qwen3_5_moe_text": Decoder(
        qk_norm="head", attn_gate="proj", shared_gate=True, linear="gated_deltanet"
    ),
    "lara_mini": Decoder(qk_norm="head", linear="gated_deltanet"),
    "olmo_hybrid": Decoder(qk_norm="proj", linear="gated_deltanet"),
    "kimi_linear": Decoder(linear="kda"),
    "bailing_hybrid": Decoder(linear="kda_bailing", attn_gate="heads"),
    "minimax": Decoder(linear="lightning"),
    "lfm2": Decoder(qk_norm="head", linear="short_conv"),
    "lfm3": Decoder(norms=4, qk_norm="head", attn_gate="heads", linear="short_conv"),
    "falcon_h1": Decoder(),
    "llama4_text": Decoder(shared_key="intermediate_size"),
    "gemma4_text": _GEMMA3,
    "gemma4_unified_text": _GEMMA3,
    "gemma3n_text": _GEMMA3,
    "dots3_note_text": Decoder(attn_gate="heads"),
    "doge": Decoder(qk_norm="head"),
    "moshi": Decoder(),
    "openai-gpt": _GPT2._replace(final_norm=""),
    "ctrl": _GPT2._replace(positions=None, head_bias=True, ffn_key="dff"),
    "xlm": _GPT2._replace(embed_norm="ln", final_norm="", head_bias=True),
    "opt": Decoder(
        norm="ln",
        qkv_bias="enable_bias",
        o_bias="enable_bias",
        mlp_bias="enable_bias",
        gated=False,
        positions=2,
    ),
}


def _falcon(cfg: Cfg, traits: Decoder) -> Decoder:
    new_arch = cfg.flag("new_decoder_architecture")
    parallel = cfg.flag("parallel_attn", True)
    two = not parallel or new_arch or cfg.int("num_ln_in_parallel_attn") == 2
    return traits._replace(norms=2 if two else 1)


def _hyperclovax(cfg: Cfg, traits: Decoder) -> Decoder:
    return traits._replace(norms=4 if cfg.flag("use_post_norm") else 2)


def _opt(cfg: Cfg, traits: Decoder) -> Decoder:
    keep = cfg.flag("do_layer_norm_before", True) and not cfg.flag("_remove_final_layer_norm")
    affine = cfg.flag("layer_norm_elementwise_affine", True)
    return traits._replace(
        norm="ln" if affine else "none", final_norm=("ln" if affine else "none") if keep else ""
    )


ADJUST: dict[str, Callable[[Cfg, Decoder], Decoder]] = {
    "falcon": _falcon,
    "hyperclovax": _hyperclovax,
    "opt": _opt,
}


def _lfm2_ffn(cfg: Cfg) -> int:
    """LFM2 shrinks the stated width to 2/3 and rounds it (``block_auto_adjust_ff_dim``)."""
    ffn = cfg.ffn
    if cfg.flag("block_auto_adjust_ff_dim", True):
        ffn = int(2 * ffn / 3)
        multiplier = cfg.get("block_ffn_dim_multiplier")
        if isinstance(multiplier, int | float) and not isinstance(multiplier, bool):
            multiple = cfg.int("block_multiple_of", 256)
            ffn = int(multiplier * ffn)
            ffn = multiple * ((ffn + multiple - 1) // multiple)
    return ffn


#: Dense MLP widths that are not the stated ``intermediate_size``.
DENSE_FFN: dict[str, Callable[[Cfg], int]] = {
    "lfm2": _lfm2_ffn,
    "llama4_text": lambda cfg: cfg.int("intermediate_size_mlp") or cfg.ffn,
    # fc1 holds gate and up together: ffn_dim is twice the gated width
    "moshi": lambda cfg: cfg.int("ffn_dim") // 2,
}


def traits_for(cfg: Cfg) -> Decoder:
    traits = FAMILIES.get(cfg.model_type, Decoder())
    adjust = ADJUST.get(cfg.model_type)
    return adjust(cfg, traits) if adjust is not None else traits


def dense_ffn_for(cfg: Cfg) -> int | None:
    rule = DENSE_FFN.get(cfg.model_type)
    return rule(cfg) if rule is not None else None
