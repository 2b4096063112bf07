"""The peak inside the last decoder layer's backward: what a training step holds there.

Backward runs the layers last to first; the first one it reaches is where the most is still
alive (every earlier layer's saved tensors, or under full recomputation every layer's input), so
the step's peak is the largest of the loss gradients
(:func:`~dimlint.memory.training.activations.loss_gradient_bytes`), this and, with tied embeddings,
the embedding's backward (:func:`embedding_backward_peak`). Measured with the CPU allocator's trace
(``tests/test_memory_backward_peak.py``), read tensor by tensor at the peak:

* **gone by then**: the loss's float32 log-probabilities (``4V`` a token), the final norm's
  saved tensors and Gemma-2's capped-logit ``tanh``; the logits the forward returned stay (the
  caller holds them until the step ends), as do the token ids and labels.
* **added**: the gradient of the hidden state coming down (``u·h``); with tied embeddings, the
  LM head's weight gradient (``u·V·h``), which autograd holds in the shared weight's input buffer
  until the embedding's own gradient arrives at the very end of backward (untied, it goes
  straight to ``.grad``, counted as a model state).
* **the layer's first backward stage** on top of its saved tensors (:func:`stage_bytes`).
* **under full recomputation** (transformers' non-reentrant ``torch.utils.checkpoint``), the
  layer is rebuilt when its first saved tensor is needed: its saved tensors
  (:func:`~dimlint.memory.training.activations.layer_bytes`), its share of the SDPA window masks,
  and what every layer's checkpoint holds as inputs beside the hidden state: rotary cos and sin, and
  eager attention's additive ``[b, 1, s, s]`` masks (one per kind of layer: full, sliding).
* **under selective recomputation with an eager core**, the last layer's rebuilt core in its
  attention backward (:func:`_eager_core_stage`), the peak at longer sequences.
"""

from __future__ import annotations

import math

from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.decoder_params import is_gated, shared_expert_ffn, top_k
from dimlint.memory.parameters.decoder_traits import Decoder
from dimlint.memory.parameters.layer_kinds import cache_plan, moe_count
from dimlint.memory.training.activations import (
    FLOAT32_NORM_OUTPUT,
    SELECTIVE_CORE,
    _norm_bytes,
    _norm_kind,
    _outside_layers,
    _rotary_fraction,
    _softcap,
    decoder_traits,
    layer_bytes,
)


def _mlp_stage(cfg: Cfg, traits: Decoder, unit: int, moe: bool, rebuilt: bool) -> float:
    """Per token, what the MLP's backward holds beyond its saved tensors at its largest.

    Gated: ``down_proj`` backward makes the product's gradient (``f``), the product itself is
    freed, then the product's backward makes the activation's and the up projection's (``2f``)
    while gate, activation and up are still saved: ``+2f``. Plain: the activation's gradient
    beside the saved up projection and activation, ``+f``; ``gelu_new`` (written out in Python)
    frees its output and makes the gradients of its two factors: ``+2f``.

    MoE (transformers 5's grouped experts), the routed rows' backward: the gradient of the
    weighted rows, of the expert output and the product the routing weight's gradient sums
    (``3·k·h``), float32 when the routing weights are (renormalized top-k, Mixtral). Rebuilt in
    16 bits with float32 weights, the peak is where the recomputation stops (the restore
    permutation, the last saved tensor): the float32 gradient of the rows, the float32
    weighted rows and the float32 copy of the expert output the mixed-dtype multiply makes,
    with the decoder layer's residual (``u·h``) alive in its frame (in float32 there is no
    copy, and the multiply's backward is the larger). A shared expert's gated output is
    backpropagated first: its gradient replaces the saved output, and the block input's
    gradient (``u·h``) waits meanwhile.
    """
    width = cfg.ffn or 4 * cfg.hidden
    if moe:
        k = max(1, top_k(cfg))
        hidden = cfg.hidden
        fp32_weights = cfg.flag("norm_topk_prob", cfg.model_type == "mixtral")
        stage = (4 if fp32_weights else unit) * 3.0 * k * hidden
        if rebuilt and fp32_weights and unit < 4:
            stage += unit * hidden
        if shared_expert_ffn(cfg, cfg.expert_ffn, traits):
            stage += unit * hidden
        return stage
    if is_gated(cfg, traits):
        return 2.0 * unit * width
    act = cfg.spec.activation.value if cfg.spec.activation is not None else ""
    return unit * width * (2 if act == "gelu_new" else 1)


def _post_norm_stage(cfg: Cfg, traits: Decoder) -> float:
    """Per token, what the backward of a float32 norm after the MLP (Gemma-2's
    ``post_feedforward_layernorm``, the layer's last op) holds beyond its saved tensors:
    ``(x·rsqrt)·(1 + w)`` backward makes the gradient of the normalized value, of ``x`` through
    ``rsqrt`` and through ``mean(x²)`` (the mean's expanded gradient, ``pow``'s two temporaries
    and its result), five float32 tensors of width ``h``, while its normalized value is
    already freed: ``+4·4h``."""
    if traits.norms < 4 or cfg.model_type not in FLOAT32_NORM_OUTPUT:
        return 0.0
    return 4 * 4.0 * cfg.hidden


def stage_bytes(cfg: Cfg, *, unit: int, moe: bool, rebuilt: bool) -> float:
    """Per token, the most the last layer's backward holds beyond its saved tensors and the
    incoming gradient: its first stages in backward order, a float32 post-norm (which frees
    its saved input, normalized value and ``rsqrt`` before the MLP's backward), then the MLP."""
    traits = decoder_traits(cfg)
    post = _post_norm_stage(cfg, traits)
    freed = 8.0 * cfg.hidden + 4 if post else 0.0
    return max(post, _mlp_stage(cfg, traits, unit, moe, rebuilt) - freed)


def _eager_core_stage(cfg: Cfg, traits: Decoder, unit: int, moe: bool, seq: int) -> float:
    """Per token, under selective recomputation with an eager core, what the last layer's
    attention backward holds once its MLP and the norms after the attention have freed their
    saved tensors: the incoming gradient, the rebuilt core's float32 probabilities, their
    gradient and the softmax's input gradient (``3·4·a·s``; the capped scores' ``tanh`` with a
    softcap); the gradient of the repeated v takes the place of the core's output, freed with
    o_proj's backward, and the rebuilt repeated k waits for the scores' backward (a copy when
    1 < k/v heads < heads; one k/v head expands as a view)."""
    parts = layer_bytes(cfg, attention=SELECTIVE_CORE, unit=unit, moe=moe)
    first = _norm_bytes(_norm_kind(cfg, traits), cfg.hidden, unit, feeds_projection=True)
    freed = parts.mlp + max(0.0, parts.norms - first)
    heads = cfg.heads
    scores = 3 * 4.0 * heads * seq
    if _softcap(cfg, "attn_logit_softcapping"):
        scores += unit * heads * seq
    repeated = unit * heads * cfg.head_dim if 1 < cfg.kv_heads < heads else 0
    return unit * cfg.hidden + scores + repeated - freed


def _freed_head(cfg: Cfg, traits: Decoder, unit: int) -> float:
    """Per token, what the loss and the final norm kept that backward has freed by the last
    layer: all of :func:`_outside_layers` but the returned logits, the ids and the labels."""
    return _outside_layers(cfg, traits, unit) - unit * cfg.vocab - 16


def tied_gradient_bytes(cfg: Cfg, unit: int) -> int:
    """The tied LM head's weight gradient autograd holds until the embedding's arrives."""
    return unit * cfg.vocab * cfg.hidden if cfg.tie else 0


def embedding_backward_peak(cfg: Cfg, *, batch: int, seq: int, unit: int) -> int:
    """The step's bytes when backward reaches a tied embedding, its last node: every layer's
    tensors are freed, but the embedding's own weight gradient (``u·V·h``) is made while the
    head's, held since the start of backward, still waits beside it (the two are then summed
    into ``.grad``), with the returned logits, the ids and labels and the gradient of the
    embedding's output (``u·h`` a token). Untied, the embedding's gradient goes straight to
    ``.grad`` (a model state) and this is never the peak."""
    if not cfg.tie:
        return 0
    tokens = batch * seq
    return 2 * tied_gradient_bytes(cfg, unit) + tokens * (unit * (cfg.vocab + cfg.hidden) + 16)


def _input_in_checkpoint(cfg: Cfg, traits: Decoder, unit: int) -> float:
    """Per token, what the rebuilt layer's first norm keeps that is the checkpoint's own input
    (counted with every layer's): LayerNorm keeps its input; RMSNorm its float32 copy, which in
    float32 is no copy."""
    kind = _norm_kind(cfg, traits)
    if kind == "ln":
        return unit * cfg.hidden
    return 4.0 * cfg.hidden if unit >= 4 else 0.0


def _checkpoint_inputs(cfg: Cfg, *, batch: int, seq: int, attention: str, unit: int) -> int:
    """Under full recomputation, what the checkpoints hold besides the hidden states: rotary
    cos and sin (``[1, s, rotary]`` each) and eager attention's additive masks."""
    rotary = int(cfg.head_dim * _rotary_fraction(cfg))
    positions = 2 * unit * rotary * seq
    if attention != "eager":
        return positions
    kinds = {layer.window is not None and layer.window < seq for _i, layer, _n in cache_plan(cfg)}
    return positions + max(1, len(kinds)) * batch * seq * seq * unit


def _rebuilt_mask(cfg: Cfg, *, batch: int, seq: int, attention: str, unit: int) -> int:
    """Under SDPA, the largest one layer's window mask adds (``[b, 1, s, s]`` and the repeated
    k/v of a windowed layer; see :func:`~dimlint.memory.training.activations._window_masks`)."""
    if attention != "sdpa":
        return 0
    windowed = any(
        layer.kind == "kv" and layer.window is not None and layer.window < seq
        for _i, layer, _n in cache_plan(cfg)
    )
    if not windowed:
        return 0
    repeated = 0
    if 1 < cfg.kv_heads < cfg.heads:
        repeated = batch * seq * unit * 2 * (cfg.heads - cfg.kv_heads) * cfg.head_dim
    return batch * seq * seq * unit + repeated


def last_layer_peak(
    cfg: Cfg,
    *,
    kept: float,
    batch: int,
    seq: int,
    attention: str,
    unit: int,
    recompute: str,
    adapters: float = 0.0,
) -> int:
    """The step's bytes at the peak of the last layer's backward (module doc), given ``kept``,
    what the forward left (:func:`~dimlint.memory.training.activations.saved_activation_bytes`,
    adjusted for a frozen base); ``adapters``: what a rebuilt layer's LoRA adapters change per
    token."""
    traits = decoder_traits(cfg)
    tokens = batch * seq
    rebuilt = recompute == "full"
    moe = moe_count(cfg) > 0
    total = kept - tokens * _freed_head(cfg, traits, unit) + tied_gradient_bytes(cfg, unit)
    layers = [False, True] if moe and moe_count(cfg) < cfg.layers else [moe]
    best = 0.0
    for is_moe in layers:
        stage = unit * cfg.hidden + stage_bytes(cfg, unit=unit, moe=is_moe, rebuilt=rebuilt)
        if rebuilt:
            stage += layer_bytes(cfg, attention=attention, unit=unit, moe=is_moe).total(seq)
            stage += adapters - _input_in_checkpoint(cfg, traits, unit)
        elif recompute == "selective" and attention == "eager":
            stage = max(stage, _eager_core_stage(cfg, traits, unit, is_moe, seq))
        best = max(best, stage)
    total += tokens * best
    if rebuilt:
        total += _checkpoint_inputs(cfg, batch=batch, seq=seq, attention=attention, unit=unit)
        total += _rebuilt_mask(cfg, batch=batch, seq=seq, attention=attention, unit=unit)
    return math.ceil(total)
