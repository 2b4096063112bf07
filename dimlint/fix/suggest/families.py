"""The families ``suggest`` writes: their config keys, conventions, and closed-form sizes.

A :class:`Shape` is the search's point: every dimension the designer could choose.
:func:`config_for` writes it with the keys and conventions of one family (Llama: RMSNorm,
SwiGLU widths at Llama-2's multiple of 256 or Llama-3's ``multiple_of`` 1024/4096, untied head
from 4B up; Qwen2: QKV bias; Gemma-2: tied head, four norms a layer, soft-capping, head dim
independent of the width; DeepSeek-V3: MLA and routed + shared experts).
:func:`closed_form` counts its parameters by the formulas of DOMAIN.md — only to prune the
search; every shape printed is recounted by :mod:`dimlint.memory`, as ``mem`` does.
"""

from __future__ import annotations

from typing import Any

from dimlint.records import Record


class Family(Record):
    """One family's conventions."""

    name: str
    model_type: str
    architecture: str
    #: (model type, class) of its mixture-of-experts variant, or None.
    moe: tuple[str, str] | None
    #: Head dims the search tries when ``--head-dim`` is not given.
    head_dims: tuple[int, ...]
    #: Default heads per KV head (``--gqa-ratio``), what the family's released models use.
    gqa: tuple[int, int]
    vocab: int
    #: The FFN width is a multiple of this (the recipe's ``multiple_of``).
    ffn_multiple: int
    #: ffn / hidden of the dense MLP (the family's released models).
    ffn_ratio: tuple[float, float]
    #: "always", "small" (below :data:`TIE_BELOW`) or "never".
    tie: str
    norms_per_layer: int
    qkv_bias: bool
    #: heads × head_dim may differ from hidden (Gemma-2, DeepSeek MLA).
    free_attention_width: bool
    max_positions: int
    #: Coarser roundings the family's released models use, tried beside ``ffn_multiple``
    #: (Llama-3's ``multiple_of`` is 1024 at 8B and 4096 at 70B/405B; Llama-2's was 256;
    #: Mistral-7B/Nemo and Gemma-2 widths are multiples of 1024).
    ffn_roundings: tuple[int, ...] = ()
    #: RoPE θ when the released-shape table holds none of the family's releases.
    rope_theta: float = 10000.0


#: Llama-3.2 (1B, 3B) and Qwen2.5 (≤ 3B) tie the output head to the embeddings; 7B+ do not.
TIE_BELOW = 4_000_000_000

FAMILIES: dict[str, Family] = {
    "llama": Family(
        "llama", "llama", "LlamaForCausalLM", ("mixtral", "MixtralForCausalLM"), (64, 128),
        (4, 8), 128256, 256, (2.6, 3.6), "small", 2, False, False, 8192, (1024, 4096), 500000.0,
    ),
    "mistral": Family(
        "mistral", "mistral", "MistralForCausalLM", ("mixtral", "MixtralForCausalLM"), (128,),
        (4, 8), 32768, 256, (2.6, 3.6), "never", 2, False, False, 32768, (1024,), 1000000.0,
    ),
    "qwen2": Family(
        "qwen2", "qwen2", "Qwen2ForCausalLM", ("qwen2_moe", "Qwen2MoeForCausalLM"), (64, 128),
        (4, 8), 151936, 256, (2.6, 5.5), "small", 2, True, False, 32768, (), 1000000.0,
    ),
    "gemma2": Family(
        "gemma2", "gemma2", "Gemma2ForCausalLM", None, (128, 256),
        (2, 2), 256000, 256, (4.0, 8.0), "always", 4, False, True, 8192, (1024,),
    ),
    "deepseek_v3": Family(
        "deepseek_v3", "deepseek_v3", "DeepseekV3ForCausalLM",
        ("deepseek_v3", "DeepseekV3ForCausalLM"), (192,),
        (1, 1), 129280, 256, (2.5, 3.0), "never", 2, False, True, 163840,
    ),
}  # fmt: skip

#: DeepSeek-V2/V3's latent attention dimensions (the same in V2-Lite, V2 and V3).
MLA_KV_RANK = 512
MLA_ROPE = 64
MLA_NOPE = 128
MLA_V = 128
#: V2 and V3 compress queries (rank 1536) from hidden 5120 up; V2-Lite (2048) does not.
MLA_Q_RANK = 1536
MLA_Q_FROM = 4096


class Shape(Record):
    """Every dimension of one candidate."""

    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    #: Dense MLP width (for DeepSeek MoE: its leading dense layers).
    ffn: int
    vocab: int
    tie: bool
    experts: int = 0
    top_k: int = 0
    shared: int = 0
    expert_ffn: int = 0
    mla: bool = False
    #: Leading dense layers of a DeepSeek MoE (``first_k_dense_replace``).
    dense_layers: int = 0

    @property
    def q_lora_rank(self) -> int | None:
        return MLA_Q_RANK if self.mla and self.hidden >= MLA_Q_FROM else None

    @property
    def attention_width(self) -> int:
        return self.heads * (MLA_V if self.mla else self.head_dim)

    def describe(self) -> str:
        """``4096 × 32 layers, 32/8 heads × 128, ffn 14336`` (with experts when MoE)."""
        attention = f"{self.heads} heads MLA" if self.mla else f"{self.heads}/{self.kv_heads} heads"
        text = f"{self.hidden} × {self.layers} layers, {attention} × {self.head_dim}"
        if self.experts:
            shared = f" + {self.shared} shared" if self.shared else ""
            return f"{text}, {self.experts}{shared} experts × {self.expert_ffn} top-{self.top_k}"
        return f"{text}, ffn {self.ffn}"


def family_moe(family: Family) -> tuple[str, str]:
    assert family.moe is not None
    return family.moe


def config_for(
    family: Family, shape: Shape, max_positions: int, context: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The ``config.json`` of ``shape`` in ``family``'s format (keys its config class reads).

    ``context`` holds the position keys (:func:`dimlint.fix.suggest.positions.position_keys`)
    and the router keys (:func:`~dimlint.fix.suggest.positions.routing_keys`) the family
    releases; they replace the defaults written here."""
    moe = shape.experts > 0
    model_type, architecture = (
        family_moe(family) if moe else (family.model_type, family.architecture)
    )
    config: dict[str, Any] = {
        "architectures": [architecture],
        "model_type": model_type,
        "hidden_size": shape.hidden,
        "intermediate_size": shape.ffn,
        "num_hidden_layers": shape.layers,
        "num_attention_heads": shape.heads,
        "num_key_value_heads": shape.kv_heads,
        "vocab_size": shape.vocab,
        "max_position_embeddings": max_positions,
        "hidden_act": "silu",
        "rms_norm_eps": 1e-5 if family.name in ("llama", "mistral") else 1e-6,
        "tie_word_embeddings": shape.tie,
        "torch_dtype": "bfloat16",
        "initializer_range": 0.02,
    }
    if family.name == "deepseek_v3":
        config.update(_deepseek(shape))
    else:
        config["head_dim"] = shape.head_dim
    if family.name == "llama":
        config.update({"rope_theta": 500000.0, "attention_bias": False, "mlp_bias": False})
    elif family.name == "mistral":
        config.update({"rope_theta": 1000000.0, "sliding_window": None})
    elif family.name == "qwen2":
        config.update(
            {
                "rope_theta": 1000000.0,
                "use_sliding_window": False,
                "max_window_layers": shape.layers,
            }
        )
    elif family.name == "gemma2":
        config.update(
            {
                "hidden_act": "gelu_pytorch_tanh",
                "hidden_activation": "gelu_pytorch_tanh",
                "query_pre_attn_scalar": shape.head_dim,
                "sliding_window": 4096,
                "attn_logit_softcapping": 50.0,
                "final_logit_softcapping": 30.0,
                "rope_theta": 10000.0,
            }
        )
    if moe and model_type == "mixtral":
        config["intermediate_size"] = shape.expert_ffn
        config.update(
            {
                "num_local_experts": shape.experts,
                "num_experts_per_tok": shape.top_k,
                "router_aux_loss_coef": 0.02,
            }
        )
    elif moe and model_type == "qwen2_moe":
        config.update(
            {
                "num_experts": shape.experts,
                "num_experts_per_tok": shape.top_k,
                "moe_intermediate_size": shape.expert_ffn,
                "shared_expert_intermediate_size": shape.shared * shape.expert_ffn,
                "decoder_sparse_step": 1,
                "mlp_only_layers": [],
                "norm_topk_prob": False,
            }
        )
    for key, value in (context or {}).items():
        if value is None:
            config.pop(key, None)
        else:
            config[key] = value
    return config


def _deepseek(shape: Shape) -> dict[str, Any]:
    """DeepSeek-V3's attention and expert keys (dense layers only when no experts)."""
    experts = shape.experts or 1
    return {
        "num_key_value_heads": shape.heads,
        "q_lora_rank": shape.q_lora_rank,
        "kv_lora_rank": MLA_KV_RANK,
        "qk_rope_head_dim": MLA_ROPE,
        "qk_nope_head_dim": MLA_NOPE,
        "v_head_dim": MLA_V,
        "n_routed_experts": experts,
        "num_experts_per_tok": shape.top_k or 1,
        "n_shared_experts": shape.shared,
        "moe_intermediate_size": shape.expert_ffn or shape.ffn,
        "first_k_dense_replace": shape.dense_layers if shape.experts else shape.layers,
        "n_group": 1,
        "topk_group": 1,
        "norm_topk_prob": True,
        "routed_scaling_factor": 2.5,
        "rope_theta": 10000.0,
    }


def attention_parameters(family: Family, shape: Shape) -> int:
    """One layer's attention (GQA, or MLA with DOMAIN.md's formula)."""
    h, n = shape.hidden, shape.heads
    if shape.mla:
        q_rank = shape.q_lora_rank
        qk = MLA_NOPE + MLA_ROPE
        query = h * q_rank + q_rank + q_rank * n * qk if q_rank else h * n * qk
        latent = h * (MLA_KV_RANK + MLA_ROPE) + MLA_KV_RANK
        return query + latent + MLA_KV_RANK * n * (MLA_NOPE + MLA_V) + n * MLA_V * h
    q, kv = n * shape.head_dim, shape.kv_heads * shape.head_dim
    bias = q + 2 * kv if family.qkv_bias else 0
    return 2 * h * q + 2 * h * kv + bias


def closed_form(family: Family, shape: Shape) -> tuple[int, int]:
    """(total, active) parameters, close to the exact count (pruning only)."""
    h = shape.hidden
    per_layer = attention_parameters(family, shape) + family.norms_per_layer * h
    embedding = shape.vocab * h * (1 if shape.tie else 2) + h
    if not shape.experts:
        total = embedding + shape.layers * (per_layer + 3 * h * shape.ffn)
        return total, total
    expert = 3 * h * shape.expert_ffn
    shared = shape.shared * expert + (h if family.name == "qwen2" else 0)
    router = shape.experts * h
    moe_layers = shape.layers - shape.dense_layers
    dense = shape.dense_layers * (per_layer + 3 * h * shape.ffn)
    common = embedding + dense + moe_layers * (per_layer + shared + router)
    total = common + moe_layers * shape.experts * expert
    active = common + moe_layers * shape.top_k * expert
    return total, active


def round_up(value: float, multiple: int) -> int:
    return int(-(-value // multiple) * multiple)


def dense_ffn(hidden: int, multiple: int = 256) -> int:
    """Llama's recipe without multiplier: multiple_of · ceil(int(8h/3) / multiple_of)."""
    return round_up(int(8 * hidden / 3), multiple)
