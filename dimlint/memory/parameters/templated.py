"""Parameter counts from the learned shape templates (see
:mod:`dimlint.memory.parameters.templates`).

Splits the tensors a template yields into the figures ``mem`` reports: the total, the active
count (routed experts scaled by the share a token selects), the embedding-like weights (input
embeddings, an untied output head, learned positions) and a per-tower breakdown named after the
sub-config whose fields shape each tensor.
"""

from __future__ import annotations

import re
from typing import Any

from dimlint.config.spec import ModelSpec
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters import (
    deberta_conv,
    efficientnet_blocks,
    gemma4_layers,
    swapped_towers,
    templates,
    text_towers,
)
from dimlint.memory.parameters.composed import composed_tensors, default_towers, is_composite
from dimlint.memory.parameters.templates import (
    Refusal,
    Tensor,
    estimated,
    learned_tensors,
    refused_outside,
)

_EMBEDDING = re.compile(
    r"(^|\.)(embed_tokens|wte|wpe|word_embeddings|position_embeddings|shared|embed_positions"
    r"|lm_head|embeddings\.word_embeddings|tok_embeddings|output)\.weight$"
)
_ROUTED = re.compile(r"(^|\.)experts\.")


_STACK = re.compile(r"(^|\.)(encoder|decoder)\.")


def _component(tensor: Tensor, top: str, stacks: bool) -> str:
    """The sub-config whose fields shape ``tensor``; for an encoder-decoder model, its stack
    (shared embeddings and the head apart, as ``embeddings``)."""
    towers = {field.split(".", 1)[0] for field in tensor.fields if "." in field}
    if len(towers) == 1 and all("." in field for field in tensor.fields):
        return towers.pop()
    if towers:
        return "projector"
    if stacks:
        match = _STACK.search(tensor.name)
        if match is not None and not _EMBEDDING.search(tensor.name):
            return match.group(2)
        return "embeddings"
    return top


def _routing(specs: list[ModelSpec]) -> tuple[int, int] | None:
    """(routed experts, experts per token) of the language model, defaults included."""
    for spec in specs:
        cfg = Cfg(spec)
        if cfg.experts > 0 and cfg.top_k > 0:
            return cfg.experts, min(cfg.top_k, cfg.experts)
    return None


def _tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    """The document's tensors: an encoder-decoder composite's from its two towers' own
    templates (:mod:`~dimlint.memory.parameters.composed`), falling back on the composite's
    template only where both towers are the types it was learned with; a BLIP-2-style
    composite with another text tower's from that tower's template and the composite's
    (:mod:`~dimlint.memory.parameters.text_towers`); EfficientNet's computed, its scaling not
    being a product of fields (:mod:`~dimlint.memory.parameters.efficientnet_blocks`); any other
    model type's from its template, DeBERTa-v2's optional convolution added to it
    (:mod:`~dimlint.memory.parameters.deberta_conv`); Gemma 4's language model computed layer
    by layer (:mod:`~dimlint.memory.parameters.gemma4_layers`)."""
    if gemma4_layers.applies(raw, architecture):
        return gemma4_layers.gemma4_tensors(raw, architecture)
    if deberta_conv.applies(raw):
        return deberta_conv.conv_tensors(raw, architecture)
    if efficientnet_blocks.applies(raw, architecture):
        return efficientnet_blocks.block_tensors(raw, architecture)
    if text_towers.applies(raw, architecture):
        return text_towers.tower_tensors(raw)
    if swapped_towers.applies(raw, architecture):
        return swapped_towers.swapped_tensors(raw, architecture)
    if not is_composite(raw, architecture):
        return learned_tensors(raw, architecture)
    composed = composed_tensors(raw)
    if isinstance(composed, Refusal) and default_towers(raw):
        learned = learned_tensors(raw, architecture)
        return composed if isinstance(learned, Refusal) else learned
    return composed


def _unsplit_heads(specs: list[ModelSpec]) -> str | None:
    """Why no template is exact for a document with a width its heads do not divide and no
    head dim stated (DL101): every build a template was learned from divided it whole, so a
    projection fitted as ``hidden_size`` wide cannot tell that width from ``heads ·
    (hidden_size // heads)``, which is what the classes that accept it build (ELECTRA's
    attention, 255 wide for a width of 256 over 5 heads). A type whose default itself has a
    remainder (GLM-4-MoE: 4096 over 96 heads, its head dim floor-divided) was learned with one,
    and stays inside. None where every width divides."""
    for spec in specs:
        hidden, heads = spec.hidden, spec.heads
        if spec.recurrent or spec.is_mla or spec.head_dim is not None:
            continue
        if hidden is None or heads is None or heads.value <= 0 or hidden.value % heads.value == 0:
            continue
        learned = templates.row(spec.model_type) if spec.model_type else None
        defaults = learned.get("defaults", {}) if learned is not None else {}
        width, count = defaults.get(hidden.key), defaults.get(heads.key)
        if isinstance(width, int) and isinstance(count, int) and count > 0 and width % count:
            continue
        where = spec.pointer.lstrip("/").replace("/", ".")
        prefix = f"{where}." if where else ""
        return (
            f"{prefix}{hidden.key} {hidden.value} is not a multiple of {prefix}{heads.key}"
            f" {heads.value} (DL101), which no build the template learned from had"
        )
    return None


#: ``(total, active, embedding, components, notes)`` of a document.
Counted = tuple[int, int, int, tuple[tuple[str, int], ...], tuple[str, ...]]


def estimated_parameters(
    specs: list[ModelSpec], architecture: str, raw: dict[str, Any] | None = None
) -> Counted | Refusal:
    """:func:`templated_parameters` of a config outside what its template learned, where the
    template can still be evaluated (see :func:`~templates.estimated`): an estimate, whose
    first note says every way the config lies outside."""
    with estimated() as reasons:
        counted = templated_parameters(specs, architecture, raw)
    if isinstance(counted, Refusal):
        return counted
    total, active, embedding, components, notes = counted
    outside = "; ".join(dict.fromkeys(reasons))  # a part evaluated twice says so once
    why = f"estimated from the template outside what it learned: {outside}"
    return total, active, embedding, components, (why, *notes)


def templated_parameters(
    specs: list[ModelSpec], architecture: str, raw: dict[str, Any] | None = None
) -> Counted | Refusal:
    """``(total, active, embedding, components, notes)`` of the document (``raw``: its first
    config as a wrapper presents it, where not as stated), or why its model type has no usable
    template (the decoder recipe then estimates)."""
    top = specs[0]
    tensors = _tensors(top.raw if raw is None else raw, architecture)
    if isinstance(tensors, Refusal):
        return tensors
    unsplit = _unsplit_heads(specs)
    refused = refused_outside(unsplit) if unsplit is not None else None
    if refused is not None:
        return refused
    total = sum(tensor.numel for tensor in tensors)
    embedding = sum(tensor.numel for tensor in tensors if _EMBEDDING.search(tensor.name))
    routing = _routing(specs)
    inactive = 0
    if routing is not None:
        experts, chosen = routing
        routed = sum(
            tensor.numel
            for tensor in tensors
            if _ROUTED.search(tensor.name) and "shared" not in tensor.name
        )
        inactive = routed - routed * chosen // experts
    name = "model"
    found = {match.group(2) for tensor in tensors if (match := _STACK.search(tensor.name))}
    stacks = found == {"encoder", "decoder"}
    parts: dict[str, int] = {}
    for tensor in tensors:
        component = _component(tensor, name, stacks)
        parts[component] = parts.get(component, 0) + tensor.numel
    if len(parts) > 1:
        rank = {"embeddings": 0, name: 0, "encoder": 1, "decoder": 2}
        ordered = sorted(parts.items(), key=lambda item: rank.get(item[0], 3))
    else:
        ordered = list(parts.items())  # "model", or the one tower that shapes every tensor
    return total, total - inactive, embedding, tuple(ordered), ()
