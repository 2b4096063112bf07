"""DeBERTa-v2's optional convolution, added to the template's count.

DeBERTa-v2's encoder reads three keys its config class does not declare
(``modeling_deberta_v2.py``, transformers 5)::

    self.conv = ConvLayer(config) if getattr(config, "conv_kernel_size", 0) > 0 else None

    class ConvLayer(nn.Module):
        kernel_size = getattr(config, "conv_kernel_size", 3)
        groups = getattr(config, "conv_groups", 1)
        self.conv_act = getattr(config, "conv_act", "tanh")
        self.conv = nn.Conv1d(config.hidden_size, config.hidden_size, kernel_size,
                              padding=(kernel_size - 1) // 2, groups=groups)
        self.LayerNorm = LayerNorm(config.hidden_size, config.layer_norm_eps)

The released DeBERTa-v2 XLarge and XXLarge and the Japanese and Chinese models built on them
state ``conv_kernel_size: 3`` and ``conv_act: "gelu"``. The shape generator learns such a read
at its fallback (0: no convolution) and could not learn the regime it switches on without
losing the nested ``pos_att_type`` variants (tried at stop 37), so those configs were
estimates, about 1% low. The convolution is one module in the encoder, sized by the hidden
size alone: here the template counts the config without the three keys (every other field in
its domain as usual) and the convolution's tensors are added beside the encoder's layers.
``conv_act`` picks an activation only.
"""

from __future__ import annotations

from typing import Any

from dimlint.memory.parameters.templates import Refusal, Tensor, learned_tensors, row

MODEL_TYPE = "deberta-v2"
_KEYS = ("conv_kernel_size", "conv_groups", "conv_act")
_LAYERS = "encoder.layer."


def applies(raw: dict[str, Any]) -> bool:
    """Whether ``raw`` is a DeBERTa-v2 config that switches the convolution on."""
    size = raw.get("conv_kernel_size")
    return (
        raw.get("model_type") == MODEL_TYPE
        and isinstance(size, int)
        and not isinstance(size, bool)
        and size > 0
    )


def conv_tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    """The template's tensors of ``raw`` without the convolution, and the convolution's."""
    kernel = raw["conv_kernel_size"]
    groups = raw.get("conv_groups", 1)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1:
        return Refusal(f"conv_groups = {groups!r} is not a positive integer", True)
    hidden = raw.get("hidden_size", (row(MODEL_TYPE) or {}).get("defaults", {}).get("hidden_size"))
    if not isinstance(hidden, int) or isinstance(hidden, bool) or hidden < 1:
        return Refusal(f"hidden_size = {hidden!r} is not a positive integer", True)
    if hidden % groups:
        why = f"hidden_size {hidden} is not divisible by conv_groups {groups}: Conv1d refuses it"
        return Refusal(why, True)
    without = {key: value for key, value in raw.items() if key not in _KEYS}
    tensors = learned_tensors(without, architecture)
    if isinstance(tensors, Refusal):
        return tensors
    prefixes = {t.name[: t.name.index(_LAYERS)] for t in tensors if _LAYERS in t.name}
    if len(prefixes) != 1:
        return Refusal(f"{architecture or MODEL_TYPE} has no single encoder to hold the conv", True)
    encoder = f"{prefixes.pop()}encoder.conv."
    fields = frozenset({"hidden_size", *_KEYS[:2]})
    width = frozenset({"hidden_size"})
    return [
        *tensors,
        Tensor(f"{encoder}conv.weight", 1, (hidden, hidden // groups, kernel), fields),
        Tensor(f"{encoder}conv.bias", 1, (hidden,), width),
        Tensor(f"{encoder}LayerNorm.weight", 1, (hidden,), width),
        Tensor(f"{encoder}LayerNorm.bias", 1, (hidden,), width),
    ]
