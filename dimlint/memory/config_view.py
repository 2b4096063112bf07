"""Read a model config the way transformers would, without importing transformers.

A ``config.json`` states only what differs from its class's defaults, and the counting code
needs both: the value written in the file, else the default of the model type (from the
generated table in :mod:`dimlint.config.architectures`), else the fallback the modeling code applies
when the default itself is ``None`` (``head_dim = hidden // heads``, ``num_key_value_heads =
num_attention_heads``). :class:`Cfg` is that lookup, plus the canonical dimensions normalization
already resolved on the :class:`~dimlint.config.spec.ModelSpec`.
"""

from __future__ import annotations

import builtins
from typing import Any

from dimlint.config import architectures
from dimlint.config.spec import ModelSpec

#: Larger integers are input errors (DL003) that nothing computes with: see
#: :data:`dimlint.config.normalize.MAX_DIMENSION`.
_LARGEST = 2**63 - 1


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and -_LARGEST <= value <= _LARGEST


class Cfg:
    """One (sub-)config: stated values first, then the model type's defaults."""

    __slots__ = ("_layers", "_tie", "defaults", "model_type", "raw", "spec")

    def __init__(self, spec: ModelSpec, tie: bool | None = None) -> None:
        self.spec = spec
        self._tie = tie
        from dimlint.memory.legacy_fields import folded
        from dimlint.memory.parameters.remote import ALIASES, family_for

        stated = spec.model_type or ""
        alias = ALIASES.get(stated)
        self.model_type = alias[0] if alias is not None else stated
        # legacy keys as the config class folds them (DeepSeek-V4's compress_ratios)
        self.raw: dict[str, Any] = folded(spec.raw, self.model_type)
        arch = architectures.lookup(self.model_type) if self.model_type else None
        self.defaults: dict[str, Any] = dict(arch.defaults) if arch is not None else {}
        if alias is not None:
            self.defaults.update(alias[1])  # RefinedWeb: the new decoder architecture
        elif arch is None:
            family = family_for(stated, self.raw)
            if family is not None:
                self.defaults.update(family.defaults)
        self._layers: dict[builtins.int, Cfg] = {}

    def at_layer(self, index: builtins.int) -> Cfg:
        """This config as layer ``index`` sees it, after transformers 5's ``per_layer_config``
        overrides (Gemma-4's wider global layers, Dots3's narrower sliding layers), stated or
        derived by the config class (:data:`GLOBAL_LAYER_KWARGS`)."""
        overrides = self.raw.get("per_layer_config")
        derives = overrides is None and self.model_type in GLOBAL_LAYER_KWARGS
        if not derives and (not isinstance(overrides, dict) or not overrides):
            return self
        if index not in self._layers:
            layer: dict[str, Any] = {}
            if derives:
                layer = _global_layer(self, index)
            else:
                assert isinstance(overrides, dict)
                for key, values in overrides.items():
                    if isinstance(values, dict) and _index_key(key) == index:
                        layer = values
            if not layer:
                self._layers[index] = self
            else:
                from dimlint.config.normalize import normalize

                dropped = {"per_layer_config", *_GLOBAL_KEYS}
                merged = {k: v for k, v in self.raw.items() if k not in dropped}
                merged.update(layer)
                spec = normalize(self.spec.path, self.spec.pointer, merged, self.model_type)
                self._layers[index] = Cfg(spec)
        return self._layers[index]

    def ffn_at(self, index: builtins.int) -> builtins.int:
        """The MLP width of layer ``index`` (Gemma-3n lists one per layer)."""
        stated = self.get("intermediate_size")
        if isinstance(stated, list) and index < len(stated) and _is_int(stated[index]):
            return builtins.int(stated[index])
        return self.ffn

    def has(self, key: str) -> bool:
        return key in self.raw or key in self.defaults

    def get(self, key: str, default: Any = None) -> Any:
        """The stated value (``None`` included), else the type's default, else ``default``."""
        if key in self.raw:
            return self.raw[key]
        return self.defaults.get(key, default)

    def int(self, key: str, default: builtins.int = 0) -> builtins.int:
        """An integer setting; ``default`` when absent, null or not an integer."""
        value = self.get(key)
        return value if _is_int(value) else default

    def first_int(self, *keys: str, default: builtins.int = 0) -> builtins.int:
        """The first of several spellings that holds an integer."""
        for key in keys:
            value = self.get(key)
            if _is_int(value):
                return builtins.int(value)
        return default

    def flag(self, setting: bool | str, default: bool = False) -> bool:
        """A family trait that is either a constant or the name of a boolean config key."""
        if isinstance(setting, bool):
            return setting
        value = self.get(setting)
        return value if isinstance(value, bool) else default

    def number(self, key: str, default: float = 0.0) -> float:
        value = self.get(key)
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if number and -_LARGEST <= value <= _LARGEST:  # also False for NaN
            return float(value)
        return default

    def list(self, key: str) -> builtins.list[Any] | None:
        value = self.get(key)
        return value if isinstance(value, list) else None

    # canonical dimensions, as normalization resolved them (aliases and defaults applied)

    def _dim(self, name: str, default: builtins.int = 0) -> builtins.int:
        located = getattr(self.spec, name)
        if located is not None:
            return builtins.int(located.value)
        if name in self.spec.invalid:
            return default
        # normalization reads a type's default under the standard name only; Qwen-MoE keeps
        # its expert count's default under ``num_experts``
        from dimlint.config.normalize import INT_FIELDS

        standard, spellings = INT_FIELDS[name]
        for key in (standard, *spellings):
            if key not in self.raw and _is_int(self.defaults.get(key)):
                return builtins.int(self.defaults[key])
        return default

    @property
    def hidden(self) -> builtins.int:
        return self._dim("hidden")

    @property
    def heads(self) -> builtins.int:
        return self._dim("heads")

    @property
    def kv_heads(self) -> builtins.int:
        """KV heads; an absent or null value means as many as query heads.

        Falcon's classic layout ignores ``num_kv_heads`` (which ``to_dict`` writes out as the
        head count): ``multi_query`` means one KV head unless ``new_decoder_architecture``.
        """
        if self.model_type == "falcon" and not self.flag("new_decoder_architecture"):
            return 1 if self.flag("multi_query", True) else self.heads
        return self._dim("kv_heads") or self.heads

    @property
    def head_dim(self) -> builtins.int:
        """The per-head width: explicit, else hidden // heads (the modeling code's fallback)."""
        stated = self._dim("head_dim")
        if stated:
            return stated
        return self.hidden // self.heads if self.heads else 0

    @property
    def ffn(self) -> builtins.int:
        return self._dim("ffn")

    @property
    def layers(self) -> builtins.int:
        """Layers; Nemotron-H states none and counts its ``layers_block_type`` entries."""
        stated = self._dim("layers")
        if stated:
            return stated
        for key in ("layers_block_type", "layer_types"):
            listed = self.list(key)
            if listed:
                return len(listed)
        return 0

    @property
    def vocab(self) -> builtins.int:
        return self._dim("vocab")

    @property
    def max_positions(self) -> builtins.int:
        return self._dim("max_positions")

    @property
    def experts(self) -> builtins.int:
        return self._dim("experts")

    @property
    def top_k(self) -> builtins.int:
        return self._dim("experts_per_token")

    @property
    def expert_ffn(self) -> builtins.int:
        return self._dim("expert_ffn") or self.ffn

    @property
    def wrapper_tie(self) -> bool | None:
        """The composite wrapper's tying flag this view was given (None: the config's own)."""
        return self._tie

    @property
    def tie(self) -> bool:
        """Whether the LM head shares the input embedding (a composite model's own flag
        overrides its language model's: the wrapper class does the tying)."""
        if self._tie is not None:
            return self._tie
        if self.spec.tie_word_embeddings is None:
            return self.defaults.get("tie_word_embeddings") is True
        return self.spec.tie_word_embeddings


#: Config classes whose ``__post_init__`` turns the keyword arguments ``global_head_dim`` and
#: ``num_global_key_value_heads`` (no fields: a config.json states them, the class pops them)
#: into ``per_layer_config`` overrides of every full-attention layer, when the config states no
#: ``per_layer_config`` itself: model type → (default global head dim, default global KV heads,
#: whether ``attention_k_eq_v`` gates the KV-head override). Gemma-4-31B's global layers keep
#: 4 KV heads of 512 where its sliding layers keep 16 of 256.
GLOBAL_LAYER_KWARGS: dict[str, tuple[builtins.int, builtins.int | None, bool]] = {
    "gemma4_text": (512, None, True),
    "gemma4_unified_text": (512, None, True),
    "diffusion_gemma_text": (512, None, True),
    "embedding_gemma2_text": (512, 1, False),
}
_GLOBAL_KEYS = ("global_head_dim", "num_global_key_value_heads")


def _global_layer(cfg: Cfg, index: builtins.int) -> dict[str, Any]:
    """The overrides the config class derives for layer ``index`` (see
    :data:`GLOBAL_LAYER_KWARGS`): none for a sliding layer."""
    if not _is_global(cfg, index):
        return {}
    head_dim, kv_heads, gated = GLOBAL_LAYER_KWARGS[cfg.model_type]
    stated_dim = cfg.raw.get("global_head_dim", head_dim)
    layer: dict[str, Any] = {"head_dim": stated_dim}
    stated_kv = cfg.raw.get("num_global_key_value_heads", kv_heads)
    if stated_kv is not None and (not gated or cfg.get("attention_k_eq_v") is True):
        layer["num_key_value_heads"] = stated_kv
    return layer


def _is_global(cfg: Cfg, index: builtins.int) -> bool:
    """Whether layer ``index`` of a :data:`GLOBAL_LAYER_KWARGS` family attends globally, as
    its config class builds ``layer_types``: the stated list, else every
    ``sliding_window_pattern``-th layer (6), and the last layer always (the same rule as
    :func:`dimlint.memory.parameters.layer_kinds.mixer_rule`, which imports this module)."""
    stated = cfg.list("layer_types")
    if index == cfg.layers - 1 and (not stated or len(stated) == cfg.layers):
        return True
    if stated:
        return str(stated[index % len(stated)]) == "full_attention"
    pattern = cfg.int("sliding_window_pattern", 6) or 6
    return (index + 1) % pattern == 0


def _index_key(key: object) -> int | None:
    """A ``per_layer_config`` key as a layer index: ASCII digits only (``"¹²"`` is digits to
    ``str.isdigit`` but not to ``int``), and no more than an index can be."""
    text = str(key)
    return int(text) if text.isascii() and text.isdigit() and len(text) < 20 else None
