"""The normalized view of one model configuration that every rule reads.

Configs spell the same dimension many ways (``hidden_size``, ``n_embd``, ``d_model``…) and leave
many out (an absent ``num_key_value_heads`` means multi-head attention). A :class:`ModelSpec`
holds one canonical value per dimension, and each value remembers where it came from — the key
and JSON pointer it was read from, or that it is a default — so that a finding can point at the
exact text and a fix can replace exactly that text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

Origin = Literal["config", "default", "derived"]


@dataclass(frozen=True)
class Located(Generic[T]):
    """A value plus its provenance.

    ``pointer`` is the JSON pointer of the value in the file when ``origin`` is ``config``;
    defaults and derived values have no position of their own.
    """

    value: T
    key: str
    pointer: str | None
    origin: Origin = "config"

    @property
    def in_file(self) -> bool:
        return self.origin == "config"


@dataclass
class ModelSpec:
    """Canonical dimensions of one (sub-)configuration, located in its file.

    A field is ``None`` when the config neither states it nor has a usable default, or when the
    stated value is invalid (DL003 reports that; other rules then stay silent about it).
    """

    path: str
    pointer: str
    raw: dict[str, Any]
    model_type: str | None
    known_type: bool

    hidden: Located[int] | None = None
    heads: Located[int] | None = None
    kv_heads: Located[int] | None = None
    head_dim: Located[int] | None = None
    ffn: Located[int] | None = None
    layers: Located[int] | None = None
    vocab: Located[int] | None = None
    max_positions: Located[int] | None = None

    partial_rotary_factor: Located[float] | None = None
    rotary_dim: Located[int] | None = None

    experts: Located[int] | None = None
    experts_per_token: Located[int] | None = None
    expert_groups: Located[int] | None = None
    topk_groups: Located[int] | None = None
    shared_experts: Located[int] | None = None
    expert_ffn: Located[int] | None = None

    q_lora_rank: Located[int] | None = None
    kv_lora_rank: Located[int] | None = None
    qk_rope_head_dim: Located[int] | None = None
    qk_nope_head_dim: Located[int] | None = None
    v_head_dim: Located[int] | None = None

    sliding_window: Located[int] | None = None
    use_sliding_window: Located[bool] | None = None
    layer_types: Located[list[Any]] | None = None
    rope_scaling: Located[dict[str, Any]] | None = None

    activation: Located[str] | None = None
    gated_mlp: bool | None = None
    tie_word_embeddings: bool | None = None
    token_ids: list[Located[int]] = field(default_factory=list)
    #: Canonical fields whose stated value was present but invalid (wrong type, ≤ 0).
    invalid: set[str] = field(default_factory=set)

    @property
    def label(self) -> str:
        """How messages name this config: its model type, and its place when nested."""
        name = self.model_type or "config"
        return name if not self.pointer else f"{name} at {self.pointer}"

    @property
    def is_mla(self) -> bool:
        """Multi-head latent attention (DeepSeek-V2/V3): keys and values come from a latent."""
        return self.kv_lora_rank is not None

    @property
    def effective_head_dim(self) -> int | None:
        """The per-head width the attention code uses: explicit, or hidden // heads."""
        if self.head_dim is not None:
            return self.head_dim.value
        if self.hidden is not None and self.heads is not None and self.heads.value > 0:
            if self.hidden.value % self.heads.value == 0:
                return self.hidden.value // self.heads.value
        return None

    @property
    def effective_kv_heads(self) -> int | None:
        """KV heads, where an absent value means multi-head attention (as many as heads)."""
        if self.kv_heads is not None:
            return self.kv_heads.value
        return self.heads.value if self.heads is not None else None
