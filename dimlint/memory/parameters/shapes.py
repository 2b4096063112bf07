"""One decoder layer, stage by stage: tensor shapes and parameters (``dimlint shapes``).

The walk follows what the modeling code does to a ``[batch, seq]`` batch of token ids:
embedding, norm, Q/K/V projections (or MLA's latent projections), the split into heads —
with GQA/MQA as they really are (``kv_heads`` key/value heads, each shared by
``heads / kv_heads`` query heads) — attention scores, the head merge, the output projection,
and the feed-forward block (gate/up/down, or the MoE router, routed and shared experts).
Parameter counts come from the same blocks :mod:`dimlint.memory.parameters.decoder_params` counts
with, so the per-layer sums, plus the model-level stages, give :func:`count_parameters`' total.
"""

from __future__ import annotations

from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import block_params as blocks
from dimlint.memory.parameters.count import count_parameters
from dimlint.memory.parameters.decoder_families import dense_ffn_for
from dimlint.memory.parameters.decoder_params import (
    ATTENTION_KINDS,
    attention_params,
    dense_ffn,
    is_gated,
    kv_shared,
    norm_kind,
    shared_expert_ffn,
    top_k,
)
from dimlint.memory.parameters.decoder_traits import Decoder
from dimlint.memory.parameters.layer_kinds import cache_layer, layer_groups, mixer_rule, moe_rule
from dimlint.memory.parameters.mixer_params import MIXERS
from dimlint.memory.training.activations import decoder_traits
from dimlint.records import Record

Shape = tuple[str | int, ...]


class Stage(Record):
    """One step of the walk: what it is, the tensor it produces, and its parameters."""

    name: str
    shape: Shape
    params: int
    note: str = ""


class Walk(Record):
    """The stages of one layer and the model-level totals they add up to."""

    layer: int
    stages: list[Stage]
    layer_params: int
    layers: int
    all_layers_params: int
    model_stages: list[Stage]
    total: int
    notes: list[str]


#: Model types whose layers are not attention + feed-forward blocks the walk could describe:
#: recurrent and state-space mixers, XLNet's two streams, the encoder-decoders the walk does not
#: split, BLT's byte patcher, and vision and audio towers.
NOT_DECODER_LAYERS = frozenset(
    {
        "mamba",
        "falcon_mamba",
        "mamba2",
        "rwkv",
        "xlstm",
        "recurrent_gemma",
        "zamba",
        "zamba2",
        "nemotron_h",
        "xlnet",
        "prophetnet",
        "cpmant",
        "jetmoe",
        "longcat_flash",
        "hrm_text",
        "dory",
        "blt_local_encoder",
        "blt_local_decoder",
        "blt_global_transformer",
        "blt_patcher",
        "siglip_vision_model",
        "siglip2_vision_model",
        "clip_vision_model",
        "git_vision_model",
        "got_ocr2_vision",
        "moss_transcribe_diarize_audio",
        "whisper_encoder",
    }
)


def supports(spec: ModelSpec) -> bool:
    """Whether the walk applies: Llama-like decoders (the decoder recipe's families)."""
    cfg = Cfg(spec)
    return cfg.hidden > 0 and cfg.layers > 0 and cfg.model_type not in NOT_DECODER_LAYERS


def _attention(cfg: Cfg, traits: Decoder, b: int, s: int, index: int) -> list[Stage]:
    hidden, heads, head_dim = cfg.hidden, cfg.heads, cfg.head_dim
    kv_heads = cfg.kv_heads
    window = cache_layer(cfg, index, mixer_rule(cfg).at(index)).window
    keys = min(s, window) if window else s
    stages: list[Stage] = []
    if cfg.spec.is_mla:
        q_rank, kv_rank = cfg.int("q_lora_rank"), cfg.int("kv_lora_rank")
        nope, rope = cfg.int("qk_nope_head_dim"), cfg.int("qk_rope_head_dim")
        v_dim = cfg.int("v_head_dim") or head_dim
        if q_rank:
            stages.append(Stage("q_a_proj + norm", (b, s, q_rank), hidden * q_rank + q_rank))
            stages.append(
                Stage("q_b_proj", (b, s, heads * (nope + rope)), q_rank * heads * (nope + rope))
            )
        else:
            stages.append(
                Stage("q_proj", (b, s, heads * (nope + rope)), hidden * heads * (nope + rope))
            )
        stages.append(
            Stage(
                "kv_a_proj (latent + rope key)",
                (b, s, kv_rank + rope),
                hidden * (kv_rank + rope) + kv_rank,
                "this latent is what the KV cache stores: one vector per token, no heads",
            )
        )
        stages.append(
            Stage(
                "kv_b_proj (up-project)",
                (b, s, heads * (nope + v_dim)),
                kv_rank * heads * (nope + v_dim),
            )
        )
        stages.append(Stage("split heads: Q, K", (b, heads, s, nope + rope), 0))
        stages.append(Stage("split heads: V", (b, heads, s, v_dim), 0))
        stages.append(Stage("scores Q·Kᵀ, softmax", (b, heads, s, keys), 0))
        stages.append(Stage("weighted sum of V", (b, heads, s, v_dim), 0))
        stages.append(Stage("merge heads", (b, s, heads * v_dim), 0))
        stages.append(Stage("o_proj", (b, s, hidden), heads * v_dim * hidden))
        return stages
    shares = kv_shared(cfg, index)
    qkv_bias = cfg.flag(traits.qkv_bias)
    v_dim = cfg.int("v_head_dim") or head_dim
    stages.append(
        Stage("q_proj", (b, s, heads * head_dim), blocks.linear(hidden, heads * head_dim, qkv_bias))
    )
    if not shares:
        stages.append(
            Stage(
                "k_proj",
                (b, s, kv_heads * head_dim),
                blocks.linear(hidden, kv_heads * head_dim, qkv_bias),
            )
        )
        stages.append(
            Stage(
                "v_proj",
                (b, s, kv_heads * v_dim),
                blocks.linear(hidden, kv_heads * v_dim, qkv_bias),
            )
        )
    rest = attention_params(cfg, traits, hidden, shares) - sum(stage.params for stage in stages)
    rest -= blocks.linear(heads * v_dim, hidden, cfg.flag(traits.o_bias))
    group = heads // kv_heads if kv_heads else 1
    kind = (
        "MHA"
        if group == 1
        else ("MQA" if kv_heads == 1 else f"GQA, {group} query heads per KV head")
    )
    stages.append(Stage("split heads: Q", (b, heads, s, head_dim), 0))
    stages.append(
        Stage(
            "split heads: K, V",
            (b, 0 if shares else kv_heads, s, head_dim),
            0,
            "reuses an earlier layer's K/V" if shares else kind,
        )
    )
    if rest:
        stages.append(Stage("q/k norms, sinks, gates", (b, heads, s, head_dim), rest))
    note = f"window {window}" if window else ""
    stages.append(Stage("scores Q·Kᵀ, softmax", (b, heads, s, keys), 0, note))
    stages.append(Stage("weighted sum of V", (b, heads, s, v_dim), 0))
    stages.append(Stage("merge heads", (b, s, heads * v_dim), 0))
    stages.append(
        Stage(
            "o_proj", (b, s, hidden), blocks.linear(heads * v_dim, hidden, cfg.flag(traits.o_bias))
        )
    )
    return stages


def _feed_forward(
    cfg: Cfg, traits: Decoder, b: int, s: int, index: int, is_moe: bool
) -> list[Stage]:
    hidden = cfg.hidden
    gated = is_gated(cfg, traits)
    if not is_moe:
        rule = dense_ffn_for(cfg)
        ffn = rule if rule is not None else dense_ffn(cfg, traits)
        ffn = cfg.ffn_at(index) if rule is None and cfg.ffn_at(index) else ffn
        bias = cfg.flag(traits.mlp_bias)
        stages = []
        if gated:
            stages.append(Stage("gate_proj", (b, s, ffn), blocks.linear(hidden, ffn, bias)))
        stages.append(Stage("up_proj", (b, s, ffn), blocks.linear(hidden, ffn, bias)))
        stages.append(Stage("activation" + (" × gate" if gated else ""), (b, s, ffn), 0))
        stages.append(Stage("down_proj", (b, s, hidden), blocks.linear(ffn, hidden, bias)))
        return stages
    experts, k, expert_ffn = cfg.experts, top_k(cfg), cfg.expert_ffn
    router = blocks.linear(hidden, experts, cfg.flag(traits.router_bias))
    router += experts if cfg.flag(traits.score_bias) else 0
    per_expert = blocks.mlp(hidden, expert_ffn, gated, cfg.flag(traits.expert_bias))
    stages = [
        Stage("router logits", (b, s, experts), router, f"top-{k} of {experts} experts per token"),
        Stage(
            "routed experts (gate/up/down)",
            (b * s * k, expert_ffn),
            per_expert * experts,
            f"{experts} × {per_expert:,}; {k} active per token",
        ),
        Stage("weighted sum of top-k outputs", (b, s, hidden), 0),
    ]
    shared = shared_expert_ffn(cfg, expert_ffn, traits)
    if shared:
        params = blocks.mlp(hidden, shared, gated) + (hidden if cfg.flag(traits.shared_gate) else 0)
        stages.append(Stage("shared expert", (b, s, hidden), params, "every token"))
    return stages


def walk(spec: ModelSpec, *, batch: int = 1, seq: int = 2048, layer: int | None = None) -> Walk:
    """The stages of one decoder layer (the first MoE layer by default) and the totals."""
    cfg = Cfg(spec)
    traits = decoder_traits(cfg)  # remote-code and training-code families included
    b, s = batch, seq
    hidden = cfg.hidden
    kinds, moe = mixer_rule(cfg), moe_rule(cfg)
    groups = layer_groups(cfg)
    if layer is None:
        layer = next((index for index, _ in groups if moe.at(index)), 0)
    layer = max(0, min(layer, cfg.layers - 1))
    norm = blocks.norm(norm_kind(cfg, traits, traits.norm), hidden)
    per_layer_norms = traits.norms * norm

    def layer_stages(index: int) -> list[Stage]:
        own = cfg.at_layer(index)
        stages = [Stage("input norm", (b, s, hidden), norm)]
        if kinds.at(index) in ATTENTION_KINDS or not traits.linear:
            stages += _attention(own, traits, b, s, index)
        else:
            mixer = MIXERS[traits.linear](own)
            stages.append(
                Stage(
                    f"{traits.linear} mixer", (b, s, hidden), mixer, "constant state, no KV cache"
                )
            )
        stages.append(Stage("residual add", (b, s, hidden), 0))
        stages.append(Stage("post-attention norm", (b, s, hidden), per_layer_norms - norm))
        stages += _feed_forward(own, traits, b, s, index, moe.at(index))
        stages.append(Stage("residual add", (b, s, hidden), 0))
        return stages

    shown = layer_stages(layer)
    all_layers = sum(
        sum(stage.params for stage in layer_stages(index)) * count for index, count in groups
    )
    total = count_parameters(spec).total
    vocab = cfg.vocab
    model = [Stage("token embedding", (b, s, hidden), vocab * hidden)]
    if traits.positions is not None:
        model.append(
            Stage(
                "learned positions", (b, s, hidden), (cfg.max_positions + traits.positions) * hidden
            )
        )
    final = traits.norm if traits.final_norm == "same" else traits.final_norm
    final_params = blocks.norm(norm_kind(cfg, traits, final), hidden) if final else 0
    model.append(Stage("final norm", (b, s, hidden), final_params))
    head = 0 if cfg.tie else vocab * hidden
    head += vocab if cfg.flag(traits.head_bias) else 0
    model.append(
        Stage("LM head" + (" (tied to the embedding)" if cfg.tie else ""), (b, s, vocab), head)
    )
    accounted = all_layers + sum(stage.params for stage in model)
    notes: list[str] = []
    if accounted != total:
        model.append(Stage("family-specific parameters", (), total - accounted))
        notes.append(f"{cfg.model_type} adds parameters outside the stages shown")
    moe_count = sum(count for index, count in groups if moe.at(index))
    if 0 < moe_count < cfg.layers:
        notes.append(f"{moe_count} of {cfg.layers} layers are MoE; the others have a dense MLP")
    return Walk(
        layer,
        shown,
        sum(stage.params for stage in shown),
        cfg.layers,
        all_layers,
        model,
        total,
        notes,
    )
