"""What each supported family calls its tensors in a checkpoint.

The names are those ``save_pretrained`` writes with transformers 5 — which are also the names of
the released checkpoints on the Hub: transformers 5 keeps its fused in-memory MoE experts in the
per-expert layout on disk (``experts.0.gate_proj``, Mixtral's ``block_sparse_moe.experts.0.w1``).
``tests/test_checkpoint_families.py`` builds each family with transformers and compares.

Only the names live here; what exists and how big it is comes from the parameter-counting
knowledge of :mod:`dimlint.memory` (see :mod:`dimlint.memory.checkpoint.expected_tensors`).
"""

from __future__ import annotations

from dimlint.records import Record


class Names(Record):
    """Module names of one family; ``style`` says how its attention projections are laid out.

    Styles: ``split`` (separate q/k/v, or one fused ``qkv`` of ``(heads + 2·kv)·head_dim`` rows
    when ``qkv`` is set), ``mha`` (one fused projection of ``3·hidden``, GPT-2 and GPT-NeoX) and
    ``falcon`` (fused ``(heads + 2·kv)·head_dim``, the output projection ``hidden × hidden``).
    Latent attention (DeepSeek) is chosen by the config, not the family.
    """

    style: str = "split"
    #: Prefix of the base model: checkpoints saved from the base class (GPT-2 on the Hub) lack it.
    base: str = "model."
    embed: str = "model.embed_tokens"
    positions: str = ""
    layers: str = "model.layers"
    attn: str = "self_attn"
    qkv: str = ""
    o: str = "o_proj"
    qk_norms: tuple[str, str] = ("q_norm", "k_norm")
    mlp: str = "mlp"
    gated: tuple[str, str, str] = ("gate_proj", "up_proj", "down_proj")
    gate_up: str = ""
    plain: tuple[str, str] = ("fc1", "fc2")
    moe: str = "mlp"
    expert: tuple[str, str, str] = ("gate_proj", "up_proj", "down_proj")
    router: str = "gate"
    shared: str = "shared_experts"
    shared_gate: str = "shared_expert_gate"
    #: A persistent buffer of the router (DeepSeek-V3's ``e_score_correction_bias``).
    score_buffer: str = ""
    final_norm: str = "model.norm"
    head: str = "lm_head"
    #: GPT-2's ``Conv1D`` stores weights as ``[in, out]``, the transpose of ``nn.Linear``.
    conv1d: bool = False
    #: Persistent buffers older checkpoints still carry (attention masks), as regexes.
    buffers: tuple[str, ...] = ()


#: Names of the per-layer norms by how many a layer has (Gemma-2/3: four).
NORMS = {
    1: ("input_layernorm",),
    2: ("input_layernorm", "post_attention_layernorm"),
    4: (
        "input_layernorm",
        "post_attention_layernorm",
        "pre_feedforward_layernorm",
        "post_feedforward_layernorm",
    ),
}

_LLAMA = Names()

FAMILY_NAMES: dict[str, Names] = {
    "llama": _LLAMA,
    "mistral": _LLAMA,
    "qwen2": _LLAMA,
    "qwen3": _LLAMA,
    "qwen2_moe": _LLAMA._replace(shared="shared_expert"),
    "qwen3_moe": _LLAMA,
    "mixtral": _LLAMA._replace(moe="block_sparse_moe", expert=("w1", "w3", "w2")),
    "gemma": _LLAMA,
    "gemma2": _LLAMA,
    "gemma3_text": _LLAMA,
    "phi3": _LLAMA._replace(qkv="qkv_proj", gate_up="gate_up_proj"),
    "phi": _LLAMA._replace(
        o="dense", qk_norms=("q_layernorm", "k_layernorm"), final_norm="model.final_layernorm"
    ),
    "deepseek_v2": _LLAMA,
    "deepseek_v3": _LLAMA._replace(score_buffer="e_score_correction_bias"),
    "gpt2": Names(
        style="mha",
        base="transformer.",
        embed="transformer.wte",
        positions="transformer.wpe",
        layers="transformer.h",
        attn="attn",
        qkv="c_attn",
        o="c_proj",
        plain=("c_fc", "c_proj"),
        final_norm="transformer.ln_f",
        conv1d=True,
        buffers=(r"\.attn\.(masked_)?bias$",),
    ),
    "gpt_neox": Names(
        style="mha",
        base="gpt_neox.",
        embed="gpt_neox.embed_in",
        layers="gpt_neox.layers",
        attn="attention",
        qkv="query_key_value",
        o="dense",
        plain=("dense_h_to_4h", "dense_4h_to_h"),
        final_norm="gpt_neox.final_layer_norm",
        head="embed_out",
        buffers=(r"\.attention\.(masked_)?bias$",),
    ),
    "falcon": Names(
        style="falcon",
        base="transformer.",
        embed="transformer.word_embeddings",
        layers="transformer.h",
        attn="self_attention",
        qkv="query_key_value",
        o="dense",
        plain=("dense_h_to_4h", "dense_4h_to_h"),
        final_norm="transformer.ln_f",
    ),
}

#: GPT-2's two per-layer norms.
GPT2_NORMS = ("ln_1", "ln_2")
#: Falcon's new decoder architecture (40B, 180B) names its two parallel norms differently.
FALCON_PARALLEL_NORMS = ("ln_attn", "ln_mlp")
