"""Training activations: the tensors autograd keeps for backward, as transformers saves them.

Korthikanti et al.'s ``s·b·h·(34 + 5·a·s/h)`` describes Megatron's GPT layer (fused kernels,
dropout masks, eager attention scores); transformers' decoders save different things, and which
attention implementation runs decides whether the ``a·s²`` score matrices are kept at all. This
module counts, per token and per decoder layer, the unique storages a forward pass with labels
leaves for backward — the same quantity ``tests/test_memory_activations_oracle.py`` measures
with ``torch.autograd.graph.saved_tensors_hooks`` on scaled-down models — derived op by op from
the modeling code (``u`` = bytes of the training dtype, ``h`` hidden, ``q_w``/``kv_w`` query and
KV projection widths, ``f`` MLP width, ``a`` heads, ``s`` sequence):

* **RMSNorm** (Llama's, in fp32): the fp32 copy of its input ``4h`` (kept by ``pow`` and the
  multiply), ``rsqrt`` (4 bytes), the normalized ``u·h`` (kept by the weight multiply) and its
  output ``u·h`` (kept by the next projection). **LayerNorm**: its input ``u·h`` (once when a
  parallel block feeds the same input to both norms), mean and rstd (8 bytes), its output ``u·h``.
  Norms that feed a residual add (Gemma-2's post-norms) have no projection keeping their output.
* **attention**, ``sdpa`` (transformers' default) and ``flash``: the kernel keeps q, k, v (GQA
  passed through unrepeated), its output (allocated as ``b·s·h·d``, so ``o_proj``'s input is the
  same storage) and a float32 log-sum-exp per head; ``eager``: ``repeat_kv`` copies of k and v,
  the float32 softmax ``4·a·s`` and its cast ``u·a·s``, and the contiguous copy ``o_proj`` reads.
  With a fused QKV projection the views into it keep the whole fused output alive; rotary
  embeddings make new q and k (and cos/sin, ``2·u·head_dim`` a token, shared by all layers).
* **MLP**: gated (SwiGLU/GeGLU) keeps gate, activation, up and their product ``4f``; a plain MLP
  keeps the up projection and the activation's output ``2f`` (``gelu_new``, written out in
  Python, keeps ``5f``; ReLU ``1f``).
* **family details**, each measured: Gemma's RMSNorm keeps its normalized input in float32
  (and a float32 ``1 + w`` per norm, once); Gemma-2's softcaps keep the ``tanh`` of the capped
  scores (eager) and logits; a sliding window shorter than the sequence gives SDPA a
  ``[b, 1, s, s]`` mask per windowed layer; GPT-NeoX's and Phi-3's fused QKV output stays alive
  under SDPA (``v`` is a view of it); float32 eager makes no copy when it casts the softmax;
  Falcon softmaxes in the model dtype, and its multi-query SDPA call falls back to the math
  path (float32 q, expanded k and v, attention weights).
* **outside the layers**: the final norm, float32 log-softmax of the logits ``4·V`` plus the
  logits the forward returns ``u·V``, token ids and labels (16 bytes).

Gradient checkpointing (``recompute="full"``, transformers' ``gradient_checkpointing_enable``)
keeps only each layer's input ``u·h``; the backward pass then rebuilds one layer at a time.
Backward itself starts with two float32 ``b·s·V`` loss gradients (:func:`loss_gradient_bytes`);
the peak of the step is the larger of those and the last layer's backward (rebuilt under full
recomputation, with its backward's own gradients and temporaries:
:mod:`dimlint.memory.training.backward_peak`),
:func:`dimlint.memory.estimates.training_activations`. A frozen base (LoRA) keeps less:
:func:`frozen_base_savings`. ``selective`` recomputes the attention core (as Megatron's selective
recomputation): no scores. Dropout masks (1 byte per element where a dropout probability is
non-zero) are not counted: released LLMs train without dropout. MoE layers: see :func:`_moe_bytes`.
"""

from __future__ import annotations

import math

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.decoder_families import traits_for
from dimlint.memory.parameters.decoder_params import is_gated, shared_expert_ffn, top_k
from dimlint.memory.parameters.decoder_traits import Decoder
from dimlint.memory.parameters.layer_kinds import moe_count
from dimlint.records import Record

#: ``mem --attention`` choices; transformers (and Megatron with TransformerEngine) default to a
#: fused kernel that keeps no score matrix.
ATTENTION_IMPLEMENTATIONS = ("sdpa", "flash", "eager")
DEFAULT_ATTENTION = "sdpa"
RECOMPUTE_MODES = ("none", "selective", "full")
#: The attention mode :func:`layer_bytes` counts under selective recomputation: the attention
#: core (scores, softmax, the kernel) inside a checkpoint, which keeps the core's inputs (q, k,
#: v) and the output o_proj reads — measured with ``torch.utils.checkpoint`` around transformers'
#: own SDPA and eager functions (``tests/test_memory_backward_peak.py``).
SELECTIVE_CORE = "core"

#: Model types whose transformers 5.24 modeling code refuses ``attn_implementation="sdpa"``
#: (``_supports_sdpa = False``: Gemma-2's logit softcapping, GPT-OSS's sinks…); transformers
#: runs them eager unless asked for flash attention.
NO_SDPA = frozenset(
    {
        "deepseek_v4", "gemma2", "gemma4", "gemma4_text", "gpt_oss", "granite_swa",
        "granitemoe_swa", "hy_v4", "inkling2", "mimo_v2_flash", "t5gemma", "vaultgemma",
    }
)  # fmt: skip
#: Families whose RMSNorm keeps its normalized input in float32 (``(1 + w)`` multiplies the
#: float32 tensor, then the output is cast back): Gemma's ``GemmaRMSNorm``.
FLOAT32_NORM_OUTPUT = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text"})
#: Families whose query, key and value are views into one fused QKV output (GPT-2's ``c_attn``),
#: which the attention kernel keeps alive whole.
QUERY_IN_FUSED_QKV = frozenset({"gpt2"})
#: Families whose fused QKV projection output stays alive under SDPA: the kernel keeps v, a
#: view into it (GPT-NeoX's ``query_key_value``, Phi-3's ``qkv_proj``).
FUSED_QKV_ALIVE = frozenset({"gpt_neox", "phi3"})
#: Families whose SDPA output o_proj reads as a contiguous copy (measured: Phi-3).
OUTPUT_COPIED = frozenset({"phi3"})
#: Families without rotary embeddings (learned positions or ALiBi): q and k are not copied.
NO_ROTARY = frozenset({"gpt2", "gpt_bigcode", "bloom", "mpt", "opt", "gpt_neo", "xglm", "biogpt"})
#: Families whose attention and MLP read the same normalized input (a parallel block).
PARALLEL_BLOCKS = frozenset({"gpt_neox", "gptj", "codegen", "phi", "phi-msft"})
#: Rotated shares that config classes set inside ``rope_parameters`` when the config leaves them
#: out (``GPTNeoXConfig``: ``setdefault("partial_rotary_factor", rotary_pct or 0.25)``), which the
#: generated table does not list yet.
ROTARY_DEFAULTS = {"gpt_neox": 0.25}
#: Elements a plain (non-gated) MLP activation keeps, in MLP widths (default 2: input, output).
PLAIN_ACTIVATION_WIDTHS = {"gelu_new": 5, "relu": 1, "quick_gelu": 3}


class LayerBytes(Record):
    """Per token, bytes one decoder layer keeps for backward: by part, for the peak and tests."""

    norms: float
    attention: float
    scores_per_key: float  # bytes per token per attended token (eager only), times seq
    mlp: float

    def total(self, seq: int) -> float:
        return self.norms + self.attention + self.scores_per_key * seq + self.mlp


def decoder_traits(cfg: Cfg) -> Decoder:
    """The family traits parameter counting uses (remote-code families included)."""
    if not cfg.spec.known_type:
        from dimlint.memory.parameters.remote import family_for

        family = family_for(cfg.model_type, cfg.raw)
        if family is not None:
            return family.traits
    return traits_for(cfg)


def _norm_bytes(kind: str, hidden: int, unit: int, feeds_projection: bool) -> float:
    # RMSNorm: float32 copy, rsqrt, normalized (Gemma's stays float32 for its ``1 + w``
    # multiply); LayerNorm (affine or not): input, mean, rstd
    if kind == "rms32":
        kept: float = 4 * hidden + 4 + 4 * hidden
    elif kind == "rms":
        kept = 4 * hidden + 4 + unit * hidden
    else:
        kept = unit * hidden + 8
    return kept + (unit * hidden if feeds_projection else 0)


def _moe_bytes(cfg: Cfg, traits: Decoder, unit: int, gated: bool) -> float:
    """Per token, what one MoE layer keeps (transformers 5's grouped experts).

    Each token goes to ``k`` experts: the gathered input row (``h``) the experts' projection
    reads, their MLP (gated ``4f``, plain ``2f``), and the expert output (``h``) the routing
    weight multiplies; the float32 router logits (``4E``); the top-k indices and the three
    int64 index vectors of the routed rows (``8k + 24k``); the routing weight of each row —
    float32 when the top-k weights are renormalized (Mixtral, ``norm_topk_prob``: their float32
    values ``4k`` and sum ``4`` are kept too), else cast to the model dtype. Shared experts
    (Qwen2-MoE, DeepSeek) are a dense MLP over every token, and Qwen2-MoE's sigmoid gate keeps
    the shared output and the gate value.
    """
    k = max(1, top_k(cfg))
    hidden = cfg.hidden
    width = cfg.expert_ffn
    routed = unit * k * ((4 if gated else 2) * width + 2 * hidden)
    normalized = cfg.flag("norm_topk_prob", cfg.model_type == "mixtral")
    bookkeeping = 4 * cfg.experts + 32 * k + (8 * k + 4 if normalized else unit * k)
    shared_width = shared_expert_ffn(cfg, width, traits)
    shared = unit * (4 if gated else 2) * shared_width if shared_width else 0
    if shared_width and cfg.flag(traits.shared_gate):
        shared += unit * (hidden + 1)  # the shared output and its sigmoid gate
    return routed + bookkeeping + shared


def _mlp_bytes(cfg: Cfg, traits: Decoder, unit: int, moe: bool) -> float:
    gated = is_gated(cfg, traits)
    if moe:
        return _moe_bytes(cfg, traits, unit, gated)
    width = cfg.ffn or 4 * cfg.hidden
    if gated:
        return unit * 4 * width
    act = cfg.spec.activation.value if cfg.spec.activation is not None else ""
    return unit * PLAIN_ACTIVATION_WIDTHS.get(act, 2) * width


def _rotary_fraction(cfg: Cfg) -> float:
    """The rotated share of each head (0: no rotary embedding)."""
    if cfg.model_type in NO_ROTARY or cfg.flag("alibi"):
        return 0.0
    fraction = cfg.spec.partial_rotary_factor
    if fraction is not None:
        return fraction.value
    return ROTARY_DEFAULTS.get(cfg.model_type, 1.0)


def _attention_bytes(cfg: Cfg, traits: Decoder, attention: str, unit: int) -> tuple[float, float]:
    """(bytes per token, score bytes per token per key) of one attention block."""
    heads, head_dim = cfg.heads, cfg.head_dim
    q_w = heads * head_dim
    kv_w = cfg.kv_heads * head_dim
    query = q_w + 2 * kv_w if cfg.model_type in QUERY_IN_FUSED_QKV else q_w
    kept = 0.0
    if traits.qk_norm == "head" and cfg.flag(traits.qk_norm_flag):
        # RMSNorm over each head: float32 copy, rsqrt per head, the normalized values (float32
        # in Gemma's norm)
        normalized = 4 if cfg.model_type in FLOAT32_NORM_OUTPUT else unit
        kept += (4 + normalized) * (q_w + kv_w) + 4 * (heads + cfg.kv_heads)
    if attention == "eager":
        # q; repeat_kv copies of k and v (k and v themselves without GQA); o_proj's copy
        kv_kept = q_w if cfg.kv_heads != heads else kv_w
        kept += unit * (query + 2 * kv_kept + q_w)
        if cfg.model_type == "falcon":
            return kept, unit * heads  # Falcon softmaxes in the model dtype
        cast = unit if unit < 4 else 0  # casting float32 scores to float32 makes no copy
        return kept, (4 + cast) * heads  # float32 softmax and its cast, per key
    if attention == "sdpa" and _math_fallback(cfg):
        # one k/v head broadcast to all: no fused kernel takes it, the math path upcasts q and
        # the expanded k and v to float32 and keeps float32 attention weights
        return kept + 4 * 3 * q_w + unit * q_w, 4.0 * heads
    # q, k, v, output; log-sum-exp. GPT-2's k and v are views into the fused c_attn output
    # the query already keeps whole (split, view, transpose: no copy reaches the kernel)
    separate = 0 if cfg.model_type in QUERY_IN_FUSED_QKV else 2 * kv_w
    # a checkpointed core (selective recomputation) keeps its inputs and the output o_proj
    # reads, not the kernel's log-sum-exp or its own output beside a copy
    core = attention == SELECTIVE_CORE
    kept += unit * (query + separate + q_w) + (0 if core else 4 * heads)
    if cfg.model_type in FUSED_QKV_ALIVE:
        kept += unit * (q_w + kv_w)  # v is a view of the fused output, which stays whole
    if not core and (0 < _rotary_fraction(cfg) < 1 or cfg.model_type in OUTPUT_COPIED):
        # partial rotary concatenates q (and Phi-3's q comes out of its fused projection): the
        # kernel's output is not in o_proj's layout, which reads a contiguous copy
        kept += unit * q_w
    return kept, 0.0


def _math_fallback(cfg: Cfg) -> bool:
    """Falcon's multi-query attention (not ``new_decoder_architecture``) calls SDPA with one
    k/v head and no ``enable_gqa``: only the math implementation accepts it."""
    return (
        cfg.model_type == "falcon"
        and not cfg.flag("new_decoder_architecture")
        and cfg.kv_heads != cfg.heads
    )


def attention_for(cfg: Cfg, requested: str | None) -> tuple[str, str | None]:
    """The attention implementation a training run gets, and a note when it is not the default:
    transformers' default (``sdpa``) unless the family refuses it, then ``eager``; asking for
    ``sdpa`` where transformers refuses it is a ValueError, not a number for a run that cannot
    start."""
    refused = cfg.model_type in NO_SDPA
    if requested is None:
        if refused:
            return "eager", (
                f"transformers refuses sdpa attention for {cfg.model_type}: its default, eager"
                " (a·s² scores kept), is counted; --attention flash needs a GPU build"
            )
        return DEFAULT_ATTENTION, None
    if requested == "sdpa" and refused:
        raise ValueError(
            f"--attention sdpa: transformers refuses sdpa for {cfg.model_type}"
            " (_supports_sdpa = False); use --attention eager (its default) or flash"
        )
    return requested, None


def _norm_kind(cfg: Cfg, traits: Decoder) -> str:
    if traits.norm != "rms":
        return "ln"
    return "rms32" if cfg.model_type in FLOAT32_NORM_OUTPUT else "rms"


def layer_bytes(cfg: Cfg, *, attention: str, unit: int, moe: bool = False) -> LayerBytes:
    """Bytes per token one decoder layer keeps for backward (module doc)."""
    traits = decoder_traits(cfg)
    hidden = cfg.hidden
    kind = _norm_kind(cfg, traits)
    parallel = cfg.model_type in PARALLEL_BLOCKS or (
        cfg.model_type == "falcon" and cfg.flag("parallel_attn", True)
    )
    norms = 2 * _norm_bytes(kind, hidden, unit, feeds_projection=True)
    if parallel and kind == "ln":
        norms -= unit * hidden  # both norms (or the one shared norm) read the same input
        if traits.norms == 1:
            norms = _norm_bytes(kind, hidden, unit, feeds_projection=True)
    norms += max(0, traits.norms - 2) * _norm_bytes(kind, hidden, unit, feeds_projection=False)
    kept, scores = _attention_bytes(cfg, traits, attention, unit)
    if scores and _softcap(cfg, "attn_logit_softcapping"):
        scores += unit * cfg.heads  # the tanh of the capped scores (Gemma-2)
    return LayerBytes(norms, kept, scores, _mlp_bytes(cfg, traits, unit, moe))


def _softcap(cfg: Cfg, key: str) -> bool:
    """Whether the config caps logits with ``cap·tanh(x/cap)`` (``null`` or 0: no cap)."""
    value = cfg.get(key)
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _outside_layers(cfg: Cfg, traits: Decoder, unit: int) -> float:
    """Per token: final norm, log-softmax and returned logits (and the tanh of capped logits),
    token ids and labels."""
    kind = _norm_kind(cfg, traits)
    final = _norm_bytes(kind, cfg.hidden, unit, feeds_projection=True) if traits.final_norm else 0
    capped = unit * cfg.vocab if _softcap(cfg, "final_logit_softcapping") else 0
    return final + (4 + unit) * cfg.vocab + capped + 16


def _per_position(cfg: Cfg, unit: int, recompute: str) -> float:
    """Per sequence position (shared by the batch): rotary cos and sin, kept by every layer's
    q and k multiplies (not under full recomputation), or learned-position indices."""
    fraction = _rotary_fraction(cfg)
    if fraction:
        rotary = int(cfg.head_dim * fraction)
        return 0.0 if recompute == "full" else 2 * unit * rotary
    return 8.0


def saved_activation_bytes(
    cfg: Cfg,
    *,
    batch: int,
    seq: int,
    attention: str = DEFAULT_ATTENTION,
    recompute: str = "none",
    unit: int = 2,
) -> int:
    """Bytes autograd keeps at the end of the forward pass (module doc), whole model."""
    if attention not in ATTENTION_IMPLEMENTATIONS:
        raise ValueError(f"unknown attention {attention!r}: use flash, sdpa or eager")
    if recompute not in RECOMPUTE_MODES:
        raise ValueError(f"unknown recompute {recompute!r}: use none, selective or full")
    traits = decoder_traits(cfg)
    tokens = batch * seq
    outside = _outside_layers(cfg, traits, unit)
    positions = seq * _per_position(cfg, unit, recompute)
    if recompute == "full":
        return math.ceil(tokens * (cfg.layers * unit * cfg.hidden + outside) + positions)
    mode = SELECTIVE_CORE if recompute == "selective" else attention
    dense = layer_bytes(cfg, attention=mode, unit=unit).total(seq)
    experts = moe_count(cfg)  # counted in closed form: 10**18 layers cost what 32 do
    per_token = dense * max(0, cfg.layers - experts)
    if experts:
        per_token += experts * layer_bytes(cfg, attention=mode, unit=unit, moe=True).total(seq)
    masks = _window_masks(cfg, batch, seq, unit) if mode == "sdpa" else 0
    return math.ceil(
        tokens * (per_token + outside) + positions + masks + _weight_copies(cfg, traits)
    )


def _window_masks(cfg: Cfg, batch: int, seq: int, unit: int) -> int:
    """Under SDPA, what a sliding window shorter than the sequence adds (measured on Mistral and
    Gemma-3): each windowed layer keeps an additive ``[b, 1, s, s]`` mask in the model dtype
    and, with more than one k/v head, the ``repeat_kv`` copies of k and v (one k/v head expands
    as a view); the full-attention layers beside them keep a mask too."""
    from dimlint.memory.parameters.layer_kinds import cache_plan

    windowed = full = 0
    for _index, layer, count in cache_plan(cfg):
        if layer.kind != "kv":
            continue
        if layer.window is not None and layer.window < seq:
            windowed += count
        else:
            full += count
    if not windowed:
        return 0
    mask = batch * seq * seq * unit
    kv_heads, heads = cfg.kv_heads, cfg.heads
    repeated = 0
    if 1 < kv_heads < heads:
        repeated = batch * seq * unit * 2 * (heads - kv_heads) * cfg.head_dim
    return windowed * (mask + repeated) + full * mask


def _weight_copies(cfg: Cfg, traits: Decoder) -> int:
    """Once per model: the float32 ``1 + w`` each Gemma RMSNorm computes from its weight."""
    if _norm_kind(cfg, traits) != "rms32":
        return 0
    norms = cfg.layers * max(2, traits.norms) + (1 if traits.final_norm else 0)
    heads = 2 * cfg.layers if traits.qk_norm == "head" and cfg.flag(traits.qk_norm_flag) else 0
    return 4 * (cfg.hidden * norms + cfg.head_dim * heads)


def loss_gradient_bytes(cfg: Cfg, *, batch: int, seq: int) -> int:
    """What the first step of backward adds to everything the forward kept: the loss upcasts
    the logits (``ForCausalLMLoss``), so ``nll_loss`` backward makes a float32 gradient of the
    log-probabilities (``4V`` a token) and ``log_softmax`` backward its float32 input gradient
    (``4V``) while the first is alive. Measured with the profiler's allocator trace through
    forward and backward (``tests/test_memory_backward_peak.py``): the peak of a step without
    recomputation, and of one with full recomputation at a real model's vocabulary."""
    return 8 * cfg.vocab * batch * seq


class FrozenBase(Record):
    """Per token, what a frozen base does not keep that a full fine-tune does (LoRA, QLoRA)."""

    #: Average per decoder layer.
    per_layer: float
    #: The first layer's first norm (not rebuilt as the peak layer under full recomputation).
    first: float
    #: The final norm.
    final: float


def frozen_base_savings(cfg: Cfg, *, attention: str, unit: int) -> FrozenBase:
    """What autograd stops keeping when every base weight is frozen (LoRA's adapters carry
    their own inputs: :func:`dimlint.memory.training.finetune.lora_activation_bytes`).

    Derived from the backward formulas: a product keeps an operand only for the other
    operand's gradient, so ``x @ W`` with a frozen ``W`` keeps no ``x`` and ``w * normalized``
    (a frozen norm weight) keeps no ``normalized``. So no projection keeps its input (the norm
    outputs, the MLP's down input; eager's and the copied SDPA outputs o_proj reads), RMSNorm
    keeps its float32 copy and ``rsqrt`` but not its normalized value (LayerNorm's kernel keeps
    its input, mean and rstd either way), the first layer's first norm reads the frozen
    embedding's output, which needs no gradient, and keeps nothing, and the final norm's output
    feeds the frozen head. In float32 the adapters read the projections' inputs themselves (no
    cast), which stay kept. MoE layers' expert blocks are counted as in a full fine-tune (an
    upper bound there). Measured on peft LoRA models (``tests/test_memory_lora_activations.py``:
    Llama, Qwen2, Mistral, Gemma-2, Phi-3 and GPT-NeoX within 0.2%).
    """
    traits = decoder_traits(cfg)
    hidden = cfg.hidden
    kind = _norm_kind(cfg, traits)
    normalized = {"rms": unit * hidden, "rms32": 4 * hidden}.get(kind, 0)
    parallel = cfg.model_type in PARALLEL_BLOCKS or (
        cfg.model_type == "falcon" and cfg.flag("parallel_attn", True)
    )
    feeding = 1 if parallel and traits.norms == 1 else 2  # norm outputs projections read
    copied = attention == "eager" or (
        attention == "sdpa"
        and not _math_fallback(cfg)
        and (0 < _rotary_fraction(cfg) < 1 or cfg.model_type in OUTPUT_COPIED)
    )
    o_input = unit * cfg.heads * cfg.head_dim if copied else 0
    experts = moe_count(cfg)
    dense = max(0, cfg.layers - experts)
    down_input = unit * (cfg.ffn or 4 * hidden)  # gated: the product; plain: the activation
    inputs = o_input + down_input * dense / max(1, cfg.layers) + feeding * unit * hidden
    if unit >= 4:  # float32 adapters read the projections' own inputs (no cast): kept
        inputs = 0
    per_layer = max(2, traits.norms) * normalized + inputs
    first = {"rms": 4 * hidden + 4, "rms32": 4 * hidden + 4, "ln": unit * hidden + 8}.get(kind, 0)
    final = (normalized + unit * hidden) if traits.final_norm else 0
    return FrozenBase(per_layer, first, final)
