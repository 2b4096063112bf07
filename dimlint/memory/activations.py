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
* **outside the layers**: the final norm, float32 log-softmax of the logits ``4·V`` plus the
  logits the forward returns ``u·V``, token ids and labels (16 bytes).

Gradient checkpointing (``recompute="full"``, transformers' ``gradient_checkpointing_enable``)
keeps only each layer's input ``u·h``; the backward pass then rebuilds one layer at a time, so the
peak adds one layer's activations (:func:`training_activation_bytes`). ``selective`` recomputes
the attention core (as Megatron's selective recomputation): no scores. Dropout masks (1 byte per
element where a dropout probability is non-zero) are not counted: released LLMs train without
dropout. MoE layers count their top-k experts' MLPs and the router's logits.
"""

from __future__ import annotations

import math

from dimlint.memory.config_view import Cfg
from dimlint.memory.decoder_families import traits_for
from dimlint.memory.decoder_params import is_gated, top_k
from dimlint.memory.decoder_traits import Decoder
from dimlint.memory.layer_kinds import moe_count
from dimlint.records import Record

#: ``mem --attention`` choices; transformers (and Megatron with TransformerEngine) default to a
#: fused kernel that keeps no score matrix.
ATTENTION_IMPLEMENTATIONS = ("sdpa", "flash", "eager")
DEFAULT_ATTENTION = "sdpa"
RECOMPUTE_MODES = ("none", "selective", "full")

#: Families whose query is a view into one fused QKV output (GPT-2's ``c_attn``), which it keeps
#: alive whole; their key and value are copied out of it.
QUERY_IN_FUSED_QKV = frozenset({"gpt2"})
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
        from dimlint.memory.remote import family_for

        family = family_for(cfg.model_type, cfg.raw)
        if family is not None:
            return family.traits
    return traits_for(cfg)


def _norm_bytes(kind: str, hidden: int, unit: int, feeds_projection: bool) -> float:
    # RMSNorm: float32 copy, rsqrt, normalized; LayerNorm (affine or not): input, mean, rstd
    kept = 4 * hidden + 4 + unit * hidden if kind == "rms" else unit * hidden + 8
    return kept + (unit * hidden if feeds_projection else 0)


def _mlp_bytes(cfg: Cfg, traits: Decoder, unit: int, moe: bool) -> float:
    gated = is_gated(cfg, traits)
    if moe:
        width = cfg.expert_ffn * max(1, top_k(cfg))
        router = 4 * cfg.experts  # float32 router logits / probabilities
        return unit * 4 * width + router if gated else unit * 2 * width + router
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
        # RMSNorm over each head: float32 copy, rsqrt per head, the normalized values
        kept += (4 + unit) * (q_w + kv_w) + 4 * (heads + cfg.kv_heads)
    if attention == "eager":
        # q; repeat_kv copies of k and v (k and v themselves without GQA); o_proj's copy
        kv_kept = q_w if cfg.kv_heads != heads else kv_w
        kept += unit * (query + 2 * kv_kept + q_w)
        return kept, (4 + unit) * heads  # float32 softmax and its cast, per key
    kept += unit * (query + 2 * kv_w + q_w) + 4 * heads  # q, k, v, output; log-sum-exp
    if 0 < _rotary_fraction(cfg) < 1:
        # partial rotary concatenates q: the kernel's output is not in o_proj's layout
        kept += unit * q_w
    return kept, 0.0


def layer_bytes(cfg: Cfg, *, attention: str, unit: int, moe: bool = False) -> LayerBytes:
    """Bytes per token one decoder layer keeps for backward (module doc)."""
    traits = decoder_traits(cfg)
    hidden = cfg.hidden
    kind = "rms" if traits.norm == "rms" else "ln"
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
    return LayerBytes(norms, kept, scores, _mlp_bytes(cfg, traits, unit, moe))


def _outside_layers(cfg: Cfg, traits: Decoder, unit: int) -> float:
    """Per token: final norm, log-softmax and returned logits, token ids and labels."""
    kind = "rms" if traits.norm == "rms" else "ln"
    final = _norm_bytes(kind, cfg.hidden, unit, feeds_projection=True) if traits.final_norm else 0
    return final + (4 + unit) * cfg.vocab + 16


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
    mode = "flash" if recompute == "selective" else attention
    dense = layer_bytes(cfg, attention=mode, unit=unit).total(seq)
    experts = moe_count(cfg)  # counted in closed form: 10**18 layers cost what 32 do
    per_token = dense * max(0, cfg.layers - experts)
    if experts:
        per_token += experts * layer_bytes(cfg, attention=mode, unit=unit, moe=True).total(seq)
    return math.ceil(tokens * (per_token + outside) + positions)


def recompute_peak_bytes(
    cfg: Cfg, *, batch: int, seq: int, attention: str = DEFAULT_ATTENTION, unit: int = 2
) -> int:
    """Under full recomputation, what rebuilding the largest layer adds during backward."""
    largest = layer_bytes(cfg, attention=attention, unit=unit).total(seq)
    if moe_count(cfg):
        moe = layer_bytes(cfg, attention=attention, unit=unit, moe=True).total(seq)
        largest = max(largest, moe)
    return math.ceil(batch * seq * largest)
