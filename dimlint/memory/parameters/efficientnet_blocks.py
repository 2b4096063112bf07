"""EfficientNet's tensors, computed as transformers' ``modeling_efficientnet.py`` sizes them.

EfficientNet scales one base network (B0) by a width and a depth coefficient. Each stage's
channels go through ``round_filters`` and each stage's block count through ``round_repeats``::

    def round_filters(config, num_channels):
        divisor = config.depth_divisor
        num_channels *= config.width_coefficient
        new_dim = max(divisor, int(num_channels + divisor / 2) // divisor * divisor)
        if new_dim < 0.9 * num_channels:  # never round down by more than 10%
            new_dim += divisor
        return int(new_dim)

    round_repeats = lambda repeats: int(math.ceil(config.depth_coefficient * repeats))

Neither is a polynomial in the config's fields, so the shape template (which fits products of
fields) learned them only at the default config's coefficients (B7: width 2.0, depth 3.1), and
every released B0–B6 lay outside it: counted +263% and +1487% as estimates. The network is
small and fully specified by the fields below, so it is computed here instead, for both classes
transformers has (``EfficientNetModel`` and ``EfficientNetForImageClassification``); the
module's tests compare it with meta-device builds of B0–B7 and of perturbed configs.

Only the fields named in :data:`_SHAPING` size a tensor: the modeling code reads no other
attribute of the config when it builds (strides, paddings, activation, pooling kind and rates
change the forward pass only).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from dimlint.config import architectures
from dimlint.memory.parameters.templates import Refusal, Tensor, labels_of

MODEL_TYPE = "efficientnet"
_CLASSES = ("EfficientNetModel", "EfficientNetForImageClassification")
#: The config fields that size a tensor, with the module source reading them.
_SHAPING = (
    "num_channels", "width_coefficient", "depth_coefficient", "depth_divisor", "kernel_sizes",
    "in_channels", "out_channels", "num_block_repeats", "expand_ratios",
    "squeeze_expansion_ratio", "hidden_dim",
)  # fmt: skip
_PER_STAGE = ("kernel_sizes", "in_channels", "out_channels", "num_block_repeats", "expand_ratios")
#: Blocks past this are refused rather than laid out (a hostile ``num_block_repeats``).
_MAX_BLOCKS = 10_000
#: Channels past this are refused (a hostile ``width_coefficient``); the largest released
#: EfficientNet (L2) has 5,504 in its widest layer.
_MAX_CHANNELS = 1 << 20
_PREFIX = "efficientnet."


def applies(raw: dict[str, Any], architecture: str) -> bool:
    """Whether ``raw`` is an EfficientNet built as one of the classes computed here."""
    return raw.get("model_type") == MODEL_TYPE and architecture in ("", *_CLASSES)


@dataclass(frozen=True)
class _Config:
    """The shaping fields, stated or at the config class's defaults, checked for type."""

    num_channels: int
    width_coefficient: float
    depth_coefficient: float
    depth_divisor: int
    kernel_sizes: tuple[int, ...]
    in_channels: tuple[int, ...]
    out_channels: tuple[int, ...]
    num_block_repeats: tuple[int, ...]
    expand_ratios: tuple[int, ...]
    squeeze_expansion_ratio: float
    hidden_dim: int

    def round_filters(self, channels: int) -> int:
        """transformers' ``round_filters`` (see the module doc), in the same float steps."""
        divisor = self.depth_divisor
        scaled = channels * self.width_coefficient
        new_dim = max(divisor, int(scaled + divisor / 2) // divisor * divisor)
        if new_dim < 0.9 * scaled:
            new_dim += divisor
        return int(new_dim)

    def round_repeats(self, repeats: int) -> int:
        return math.ceil(self.depth_coefficient * repeats)


def _read(raw: dict[str, Any]) -> _Config | Refusal:
    """The shaping fields of ``raw`` (defaults where unstated), or why they cannot be used."""
    record = architectures.lookup(MODEL_TYPE)
    defaults = dict(record.defaults) if record is not None else {}
    values: dict[str, Any] = {name: raw.get(name, defaults.get(name)) for name in _SHAPING}
    for name in ("num_channels", "depth_divisor", "hidden_dim"):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return Refusal(f"{name} = {value!r} is not a positive integer", True)
    for name in ("width_coefficient", "depth_coefficient", "squeeze_expansion_ratio"):
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            return Refusal(f"{name} = {value!r} is not a positive number", True)
        if not math.isfinite(value):
            return Refusal(f"{name} = {value!r} is not finite", True)
    lists: dict[str, tuple[int, ...]] = {}
    for name in _PER_STAGE:
        value = values[name]
        if not isinstance(value, list) or not all(
            isinstance(item, int) and not isinstance(item, bool) and item >= 0 for item in value
        ):
            return Refusal(f"{name} = {value!r} is not a list of non-negative integers", True)
        lists[name] = tuple(value)
    stages = len(lists["in_channels"])
    if any(len(items) < stages for items in lists.values()):
        short = min(lists, key=lambda name: len(lists[name]))
        return Refusal(f"{short} has fewer items than in_channels ({stages} stages)", True)
    return _Config(
        num_channels=values["num_channels"],
        width_coefficient=float(values["width_coefficient"]),
        depth_coefficient=float(values["depth_coefficient"]),
        depth_divisor=values["depth_divisor"],
        squeeze_expansion_ratio=float(values["squeeze_expansion_ratio"]),
        hidden_dim=values["hidden_dim"],
        **lists,
    )


def block_tensors(raw: dict[str, Any], architecture: str) -> list[Tensor] | Refusal:
    """The parameter tensors of the EfficientNet ``raw`` describes, or why they are unknown."""
    config = _read(raw)
    if isinstance(config, Refusal):
        return config
    stages = range(len(config.in_channels))
    if not stages:
        return Refusal("in_channels is empty: transformers' encoder has no stage to build", True)
    # bounded before rounding: a hostile coefficient or count would overflow a float
    repeats = max(config.num_block_repeats[i] for i in stages)
    if config.depth_coefficient * repeats * len(stages) > _MAX_BLOCKS:
        return Refusal("more blocks than dimlint lays out (depth_coefficient × repeats)", True)
    channels = max((*config.in_channels, *config.out_channels, 1280))
    if config.width_coefficient * channels > _MAX_CHANNELS or config.num_channels > _MAX_CHANNELS:
        return Refusal("wider layers than dimlint lays out (width_coefficient × channels)", True)
    if config.hidden_dim > _MAX_CHANNELS or config.depth_divisor > _MAX_CHANNELS:
        return Refusal("hidden_dim or depth_divisor wider than dimlint lays out", True)
    stem = config.round_filters(32)
    tensors = [
        _tensor("embeddings.convolution.weight", 1, (stem, config.num_channels, 3, 3), "stem"),
        *_batchnorm("embeddings.batchnorm", 1, stem, "stem"),
    ]
    first = 0
    for i in stages:
        in_dim = config.round_filters(config.in_channels[i])
        out_dim = config.round_filters(config.out_channels[i])
        repeats = config.round_repeats(config.num_block_repeats[i])
        if repeats == 0:
            continue
        # the first block of a stage takes the stage's input width, the others its output
        tensors += _block(config, i, f"encoder.blocks.{first}", 1, in_dim, out_dim)
        if repeats > 1:
            name = f"encoder.blocks.{first + 1}-{first + repeats - 1}"
            tensors += _block(config, i, name, repeats - 1, out_dim, out_dim)
        first += repeats
    # the last stage's output width, whether or not it repeats at all (as transformers reads it)
    last = config.round_filters(config.out_channels[len(config.in_channels) - 1])
    top = config.round_filters(1280)
    tensors.append(_tensor("encoder.top_conv.weight", 1, (top, last, 1, 1), "top"))
    tensors += _batchnorm("encoder.top_bn", 1, config.hidden_dim, "hidden_dim")
    tensors = [Tensor(f"{_PREFIX}{t.name}", t.repeats, t.shape, t.fields) for t in tensors]
    if architecture in ("", "EfficientNetForImageClassification"):  # unnamed: the primary
        labels = labels_of(raw)
        if labels > 0:
            fields = frozenset({"hidden_dim", "num_labels"})
            tensors.append(Tensor("classifier.weight", 1, (labels, config.hidden_dim), fields))
            tensors.append(Tensor("classifier.bias", 1, (labels,), frozenset({"num_labels"})))
    return tensors


def _block(
    config: _Config, stage: int, name: str, repeats: int, in_dim: int, out_dim: int
) -> list[Tensor]:
    """One block's tensors (``repeats`` alike): expansion, depthwise, squeeze-excite, projection."""
    ratio = config.expand_ratios[stage]
    kernel = config.kernel_sizes[stage]
    expanded = in_dim * ratio
    inner = expanded if ratio != 1 else in_dim
    squeezed = max(1, int(in_dim * config.squeeze_expansion_ratio))
    tensors: list[Tensor] = []
    if ratio != 1:
        tensors.append(
            _tensor(
                f"{name}.expansion.expand_conv.weight", repeats, (expanded, in_dim, 1, 1), "stage"
            )
        )
        tensors += _batchnorm(f"{name}.expansion.expand_bn", repeats, expanded, "stage")
    tensors.append(
        _tensor(
            f"{name}.depthwise_conv.depthwise_conv.weight",
            repeats,
            (inner, 1, kernel, kernel),
            "stage",
        )
    )
    tensors += _batchnorm(f"{name}.depthwise_conv.depthwise_norm", repeats, inner, "stage")
    excite = f"{name}.squeeze_excite"
    tensors += [
        _tensor(f"{excite}.reduce.weight", repeats, (squeezed, inner, 1, 1), "stage"),
        _tensor(f"{excite}.reduce.bias", repeats, (squeezed,), "stage"),
        _tensor(f"{excite}.expand.weight", repeats, (inner, squeezed, 1, 1), "stage"),
        _tensor(f"{excite}.expand.bias", repeats, (inner,), "stage"),
        _tensor(f"{name}.projection.project_conv.weight", repeats, (out_dim, inner, 1, 1), "stage"),
    ]
    tensors += _batchnorm(f"{name}.projection.project_bn", repeats, out_dim, "stage")
    return tensors


#: The fields that size each kind of tensor (``mem``'s breakdown and the checkpoint report
#: name a tensor's fields).
_FIELDS = {
    "stem": frozenset({"num_channels", "width_coefficient", "depth_divisor"}),
    "stage": frozenset(_SHAPING) - {"num_channels", "hidden_dim"},
    "top": frozenset({"width_coefficient", "depth_divisor", "out_channels"}),
    "hidden_dim": frozenset({"hidden_dim"}),
}


def _tensor(name: str, repeats: int, shape: tuple[int, ...], kind: str) -> Tensor:
    return Tensor(name, repeats, shape, _FIELDS[kind])


def _batchnorm(name: str, repeats: int, width: int, kind: str) -> list[Tensor]:
    """A BatchNorm's parameters (its running statistics are buffers, not parameters)."""
    return [_tensor(f"{name}.weight", repeats, (width,), kind),
            _tensor(f"{name}.bias", repeats, (width,), kind)]  # fmt: skip
