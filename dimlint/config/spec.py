"""The normalized view of one model configuration that every rule reads.

Configs spell the same dimension many ways (``hidden_size``, ``n_embd``, ``d_model``…) and leave
many out (an absent ``num_key_value_heads`` means multi-head attention). A :class:`ModelSpec`
holds one canonical value per dimension, and each value remembers where it came from — the key
and JSON pointer it was read from, or that it is a default — so that a finding can point at the
exact text and a fix can replace exactly that text.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

T = TypeVar("T")

Origin = Literal["config", "default", "derived"]


class Located(Generic[T]):
    """A value plus its provenance.

    ``pointer`` is the JSON pointer of the value in the file when ``origin`` is ``config``;
    defaults and derived values have no position of their own. Immutable by convention (slots,
    no setters used anywhere); a plain class because generic NamedTuples are not portable.
    """

    __slots__ = ("key", "origin", "pointer", "value")

    def __init__(self, value: T, key: str, pointer: str | None, origin: Origin = "config") -> None:
        self.value = value
        self.key = key
        self.pointer = pointer
        self.origin: Origin = origin

    def __repr__(self) -> str:
        return f"Located({self.value!r}, {self.key!r}, {self.pointer!r}, {self.origin!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Located):
            return NotImplemented
        return (self.value, self.key, self.pointer, self.origin) == (
            other.value,
            other.key,
            other.pointer,
            other.origin,
        )

    def __hash__(self) -> int:
        return hash((self.key, self.pointer, self.origin))

    @property
    def in_file(self) -> bool:
        return self.origin == "config"


#: Canonical dimension fields of a spec, all ``Located[int] | None``.
INT_FIELD_NAMES = (
    "hidden", "heads", "kv_heads", "head_dim", "ffn", "layers", "vocab", "max_positions",
    "rotary_dim", "experts", "experts_per_token", "expert_groups", "topk_groups",
    "shared_experts", "expert_ffn", "q_lora_rank", "kv_lora_rank", "qk_rope_head_dim",
    "qk_nope_head_dim", "v_head_dim", "sliding_window",
)  # fmt: skip


class ModelSpec:
    """Canonical dimensions of one (sub-)configuration, located in its file.

    A field is ``None`` when the config neither states it nor has a usable default, or when the
    stated value is invalid (DL003 reports that; other rules then stay silent about it).
    Normalization fills it in; rules only read it. The dimension fields default to the class's
    ``None`` (an instance stores only the values found: a corpus builds thousands of specs).
    """

    hidden: Located[int] | None = None
    heads: Located[int] | None = None
    kv_heads: Located[int] | None = None
    head_dim: Located[int] | None = None
    ffn: Located[int] | None = None
    layers: Located[int] | None = None
    vocab: Located[int] | None = None
    max_positions: Located[int] | None = None
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

    def __init__(
        self, path: str, pointer: str, raw: dict[str, Any], model_type: str | None, known_type: bool
    ) -> None:
        self.path = path
        self.pointer = pointer
        self.raw = raw
        self.model_type = model_type
        self.known_type = known_type
        self.partial_rotary_factor: Located[float] | None = None
        self.use_sliding_window: Located[bool] | None = None
        self.layer_types: Located[list[Any]] | None = None
        self.rope_scaling: Located[dict[str, Any]] | None = None
        self.activation: Located[str] | None = None
        self.gated_mlp: bool | None = None
        self.tie_word_embeddings: bool | None = None
        self.token_ids: list[Located[int]] = []
        #: Embedding rows padded by another key (``embedding_size``,
        #: ``make_vocab_size_divisible_by``, a rounding in model code): the GEMMs run on these
        #: rows, ``vocab`` is the tokenizer's.
        self.embedding_rows: Located[int] | None = None
        #: A recurrent (RNN/SSM) model: its heads split a recurrence, not attention.
        self.recurrent = False
        #: Canonical fields whose stated value was present but invalid (wrong type, ≤ 0).
        self.invalid: set[str] = set()
        #: Values derived once and shared by several rules (see dimlint.checks.coupled).
        self.memo: dict[str, Any] = {}

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
        hidden, heads = self.hidden, self.heads
        if (
            hidden is not None
            and heads is not None
            and heads.value
            and hidden.value % heads.value == 0
        ):
            return hidden.value // heads.value
        return None

    @property
    def effective_kv_heads(self) -> int | None:
        """KV heads, where an absent value means multi-head attention (as many as heads)."""
        if self.kv_heads is not None:
            return self.kv_heads.value
        return self.heads.value if self.heads is not None else None


#: ``spec.memo`` key of pointers a front end states but cannot rewrite (Python's ``4 * HIDDEN``).
READ_ONLY = "read_only_pointers"
#: ``spec.memo`` key of pointers whose value the code computes where it writes it
#: (``int(1792 * 8.5714)``): :data:`READ_ONLY` less the widths dimlint derives itself.
COMPUTED = "computed_pointers"
#: ``spec.memo`` key set on a config a test helper builds for its unit tests (transformers'
#: ``ModelTester`` defaults): a fixture, whatever its width, so no performance advice.
FIXTURE = "test_fixture"
#: ``spec.memo`` key of the training framework that reads the config, where the front end
#: knows it (:data:`MEGATRON_LM`, :data:`MEGATRON`): rules then say what that framework does,
#: not what transformers would (which never reads a launch script).
FRAMEWORK = "framework"
#: Megatron-LM's own arguments (``--hidden-size`` of a launch script or of its test YAML's
#: ``MODEL_ARGS``): ``validate_args`` judges them before megatron-core sees them.
MEGATRON_LM = "megatron-lm"
#: A section in Megatron's argument names without ``--`` (NeMo's ``model:``, FlagScale's):
#: read by Megatron-LM's arguments, NeMo's legacy models or megatron-core's
#: ``TransformerConfig``, by which path the run takes.
MEGATRON = "megatron"
#: A ``torch.nn.Module``'s own defaults: the class's own attention code decides.
OWN_MODULE = "module"
#: ``spec.memo`` key set on a module's defaults whose width and heads the file's own code
#: requires divisible (:mod:`dimlint.sources.python.asserted`): such a width is refused.
DIVISIBILITY_REQUIRED = "divisibility_required"
#: T5X's gin bindings (:mod:`dimlint.sources.ginfile`): its attention is ``num_heads ×
#: head_dim`` wide by construction, never the width split into heads.
T5X = "t5x"
