"""The tensors of a decoder family, by module name: what LoRA and quantization act on.

This walks a model the way :func:`dimlint.memory.parameters.decoder_params.count_decoder` counts it
— the same :class:`~dimlint.memory.config_view.Cfg` lookups, the same family traits, the same
per-layer mixer and MoE plans — and writes down each tensor instead of adding up its size.

Why it exists beside the shape templates, which count every model type and against which
``dimlint check`` compares checkpoints (:mod:`dimlint.memory.checkpoint.template_plan`): peft and
bitsandbytes act on modules by name — LoRA attaches to ``nn.Linear`` modules, 4-bit loading
replaces them, ``modules_to_not_convert`` keeps some unquantized — and for the few decoder
families whose module names it knows (:mod:`dimlint.memory.checkpoint.tensor_names`) this plan
says which tensor belongs to which module (:mod:`dimlint.memory.training.linear_layers`,
:mod:`dimlint.memory.quantized_layout`). Its sizes are never its own word: a test checks that
wherever the template proves a count, the plan's parameters sum to it
(``tests/test_checkpoint_plan.py``), so ``mem --lora`` and ``dimlint mem`` cannot disagree
about a model.
"""

from __future__ import annotations

import re

from dimlint.config.spec import ModelSpec
from dimlint.memory.checkpoint.stored_extras import (
    COMMON_BUFFERS,
    FP8_SCALES,
    SHAPE_PRESERVING_QUANTIZATION,
    quantization,
)
from dimlint.memory.checkpoint.tensor_axes import Axis, Var, const, dim, plus, scaled
from dimlint.memory.checkpoint.tensor_names import (
    FALCON_PARALLEL_NORMS,
    FAMILY_NAMES,
    GPT2_NORMS,
    NORMS,
    Names,
)
from dimlint.memory.config_view import Cfg
from dimlint.memory.parameters.decoder_families import dense_ffn_for, traits_for
from dimlint.memory.parameters.decoder_params import (
    ATTENTION_KINDS,
    dense_ffn,
    is_gated,
    shared_expert_ffn,
)
from dimlint.memory.parameters.decoder_traits import Decoder, Flag
from dimlint.memory.parameters.family_additions import EXTRA
from dimlint.memory.parameters.layer_kinds import mixer_kinds, moe_layers
from dimlint.records import Record

#: More tensors than any checkpoint has (DeepSeek-V3: 45k, Kimi-K2: 70k): beyond it, no plan.
#: Building a plan costs tens of microseconds per tensor, so this also bounds its time (a
#: config stating 32,000 layers beside a one-tensor checkpoint took over 8 s at 2,000,000).
MAX_TENSORS = 200_000
#: Keys whose values say how many extra multi-token-prediction layers the checkpoint holds
#: beyond ``num_hidden_layers`` (DeepSeek-V3's layer 61: transformers skips it when loading).
MTP_KEYS = ("num_nextn_predict_layers",)


class Tensor(Record):
    """One tensor the config implies (``present``), or would imply with ``flag`` flipped."""

    name: str
    shape: tuple[Axis, ...]
    #: False for persistent buffers (saved, but not counted as parameters).
    parameter: bool = True
    #: The config key that switches this tensor on (``attention_bias``), when one does.
    flag: str | None = None
    present: bool = True


class Plan(Record):
    """Everything the comparison needs to know about one config's checkpoint."""

    model_type: str
    tensors: list[Tensor]
    variables: dict[str, Var]
    names: Names
    layers: int
    #: Layers after the last one that a checkpoint may hold and loading skips (MTP).
    extra_layers: int
    tied: bool
    #: Checkpoint names that are neither expected nor wrong (old buffers, quantization scales).
    ignore: re.Pattern[str]
    #: Whether the weights are quantized (dtypes then differ from the declared one by design).
    quantized: bool

    @property
    def env(self) -> dict[str, int]:
        return {name: var.value for name, var in self.variables.items()}

    @property
    def buffer_names(self) -> frozenset[str]:
        """Tensors that are persistent buffers, not parameters (in the plan's naming)."""
        return frozenset(t.name for t in self.tensors if t.present and not t.parameter)

    @property
    def head_names(self) -> frozenset[str]:
        return frozenset({f"{self.names.head}.weight", f"{self.names.head}.bias"})

    def parameters(self) -> int:
        """What :func:`dimlint.memory.count_parameters` counts for the same config."""
        env = self.env
        total = 0
        for tensor in self.tensors:
            if tensor.present and tensor.parameter:
                size = 1
                for axis in tensor.shape:
                    size *= axis.value(env)
                total += size
        return total


def plan_for(spec: ModelSpec) -> Plan | None:
    """The expected tensors of ``spec``; None when its family is not modelled here."""
    cfg = Cfg(spec)
    names = FAMILY_NAMES.get(cfg.model_type)
    method = quantization(spec)
    if names is None or (method is not None and method not in SHAPE_PRESERVING_QUANTIZATION):
        return None
    traits = traits_for(cfg)
    if not _supported(cfg, traits):
        return None
    builder = _Builder(cfg, traits, names)
    builder.build()
    ignore = [*COMMON_BUFFERS, *names.buffers, *((FP8_SCALES.pattern,) if method else ())]
    extra_layers = max((cfg.int(key) for key in MTP_KEYS), default=0)
    return Plan(
        cfg.model_type,
        builder.tensors,
        builder.variables,
        names,
        cfg.layers,
        extra_layers,
        cfg.tie,
        re.compile("|".join(ignore)),
        method is not None,
    )


def _supported(cfg: Cfg, traits: Decoder) -> bool:
    """Plain attention + MLP/MoE layers with nothing a family adds on top (see module doc)."""
    if min(cfg.hidden, cfg.heads, cfg.layers, cfg.vocab) <= 0:
        return False
    if cfg.layers * (3 * max(cfg.experts, 0) + 32) > MAX_TENSORS:
        return False  # a typo (a million experts): no checkpoint to compare with
    exotic = (
        traits.linear,
        traits.sinks,
        traits.attn_gate,
        traits.embed_norm,
        traits.shared_key,
        traits.ffn_key,
        traits.expert_bias,
        traits.score_bias,
        traits.qk_norm not in ("", "head", "head_ln"),
        traits.norms not in NORMS,
        cfg.model_type in EXTRA,
        dense_ffn_for(cfg) is not None,
        "per_layer_config" in cfg.raw,
        cfg.int("num_kv_shared_layers") > 0,
        isinstance(cfg.get("intermediate_size"), list),
    )
    if any(exotic):
        return False
    return all(kind in ATTENTION_KINDS for kind in mixer_kinds(cfg))


def _flag(cfg: Cfg, setting: Flag) -> tuple[bool, str | None]:
    """Whether a trait is on, and the config key that switches it (None when fixed)."""
    return cfg.flag(setting), setting if isinstance(setting, str) else None


class _Builder:
    """Walks one config, collecting :class:`Tensor` values and the :class:`Var` they use."""

    def __init__(self, cfg: Cfg, traits: Decoder, names: Names) -> None:
        self.cfg = cfg
        self.traits = traits
        self.names = names
        self.tensors: list[Tensor] = []
        self.variables: dict[str, Var] = {}

    # --- variables ------------------------------------------------------------------------

    def var(self, name: str, value: int, field: str | None = None, key: str = "") -> str:
        """Register a config value (read from the spec's field ``field``, else from the raw
        key ``key``) and return its name for use in formulas."""
        spec = self.cfg.spec
        located = getattr(spec, field) if field else None
        if located is not None and located.value == value:
            pointer = located.pointer if located.in_file else None
            settable = located.origin != "derived" or located.key in self.cfg.defaults
            self.variables[name] = Var(name, value, located.key, pointer, settable)
        elif key and key in spec.raw and spec.raw[key] == value:
            self.variables[name] = Var(name, value, key, f"{spec.pointer}/{key}")
        else:
            settable = bool(key) and key in self.cfg.defaults
            self.variables[name] = Var(name, value, key or name, None, settable)
        return name

    def falcon_kv(self) -> str:
        """Falcon's classic layout: KV heads come from ``multi_query`` (1, or every head)."""
        cfg = self.cfg
        if cfg.flag("new_decoder_architecture"):
            return self.var("kv_heads", cfg.kv_heads, "kv_heads", "num_kv_heads")
        spec = cfg.spec
        pointer = f"{spec.pointer}/multi_query" if "multi_query" in spec.raw else None
        self.variables["kv_heads"] = Var("kv_heads", cfg.kv_heads, "multi_query", pointer)
        return "kv_heads"

    # --- tensors --------------------------------------------------------------------------

    def add(
        self, name: str, *shape: Axis, parameter: bool = True, flag: tuple[bool, str | None]
    ) -> None:
        present, key = flag
        if present or key is not None:
            self.tensors.append(Tensor(name, shape, parameter, key, present))

    def linear(
        self, name: str, out: Axis, fan_in: Axis, bias: tuple[bool, str | None] = (False, None)
    ) -> None:
        """A linear layer's weight ``[out, in]`` (``[in, out]`` for GPT-2's Conv1D) and bias."""
        shape = (fan_in, out) if self.names.conv1d else (out, fan_in)
        self.add(f"{name}.weight", *shape, flag=(True, None))
        self.add(f"{name}.bias", out, flag=bias)

    def norm(self, name: str, kind: str, width: Axis) -> None:
        if kind == "none":
            return
        self.add(f"{name}.weight", width, flag=(True, None))
        if kind == "ln":
            self.add(f"{name}.bias", width, flag=(True, None))

    # --- the walk -------------------------------------------------------------------------

    def build(self) -> None:
        cfg, traits, names = self.cfg, self.traits, self.names
        hidden = dim(self.var("hidden", cfg.hidden, "hidden", "hidden_size"))
        vocab = dim(self.var("vocab", cfg.vocab, "vocab", "vocab_size"))
        self.var("layers", cfg.layers, "layers", "num_hidden_layers")
        self.linear_embedding(names.embed, vocab, hidden)
        if traits.positions is not None and names.positions:
            positions = self.var("positions", cfg.max_positions, "max_positions")
            rows = plus(dim(positions), const(traits.positions)) if traits.positions else None
            self.linear_embedding(names.positions, rows or dim(positions), hidden)
        kinds = mixer_kinds(cfg)
        moe = moe_layers(cfg)
        norm_names = self.norm_names()
        for index in range(len(kinds)):
            prefix = f"{names.layers}.{index}"
            self.attention(f"{prefix}.{names.attn}", hidden)
            for norm in norm_names:
                self.norm(f"{prefix}.{norm}", traits.norm, hidden)
            if moe[index]:
                self.moe(f"{prefix}.{names.moe}", hidden)
            else:
                self.mlp(f"{prefix}.{names.mlp}", hidden)
        final = traits.norm if traits.final_norm == "same" else traits.final_norm
        if final:
            self.norm(names.final_norm, final, hidden)
        if not cfg.tie:
            self.add(f"{names.head}.weight", vocab, hidden, flag=(True, None))
        self.add(f"{names.head}.bias", vocab, flag=_flag(cfg, traits.head_bias))

    def linear_embedding(self, name: str, rows: Axis, hidden: Axis) -> None:
        self.add(f"{name}.weight", rows, hidden, flag=(True, None))

    def norm_names(self) -> tuple[str, ...]:
        if self.names.style == "mha" and self.names.conv1d:
            return GPT2_NORMS
        if self.names.style == "falcon" and self.traits.norms == 2:
            new = self.cfg.flag("new_decoder_architecture")
            return FALCON_PARALLEL_NORMS if new else NORMS[2]
        return NORMS[self.traits.norms]

    def attention(self, prefix: str, hidden: Axis) -> None:
        cfg, traits, names = self.cfg, self.traits, self.names
        qkv_bias = _flag(cfg, traits.qkv_bias)
        o_bias = _flag(cfg, traits.o_bias)
        if cfg.spec.is_mla:
            self.latent_attention(prefix, hidden, qkv_bias)
            return
        if names.style == "mha":  # GPT-2, GPT-NeoX: no GQA, one projection of 3 × hidden
            self.linear(f"{prefix}.{names.qkv}", dim("hidden", coef=3), hidden, qkv_bias)
            self.linear(f"{prefix}.{names.o}", hidden, hidden, o_bias)
            return
        heads = self.var("heads", cfg.heads, "heads", "num_attention_heads")
        if names.style == "falcon":
            kv = self.falcon_kv()
        else:
            kv = self.var("kv_heads", cfg.kv_heads, "kv_heads", "num_key_value_heads")
        head_dim = self.var("head_dim", cfg.head_dim, "head_dim", "head_dim")
        v_dim = head_dim
        if cfg.int("v_head_dim"):
            v_dim = self.var("v_head_dim", cfg.int("v_head_dim"), "v_head_dim", "v_head_dim")
        q, k, v = dim(heads, head_dim), dim(kv, head_dim), dim(kv, v_dim)
        if names.style == "falcon":
            self.linear(f"{prefix}.{names.qkv}", plus(q, k, v), hidden, qkv_bias)
            self.linear(f"{prefix}.{names.o}", hidden, hidden, o_bias)
            return
        if names.qkv:
            self.linear(f"{prefix}.{names.qkv}", plus(q, k, v), hidden, qkv_bias)
        else:
            self.linear(f"{prefix}.q_proj", q, hidden, qkv_bias)
            self.linear(f"{prefix}.k_proj", k, hidden, qkv_bias)
            self.linear(f"{prefix}.v_proj", v, hidden, qkv_bias)
        self.linear(f"{prefix}.{names.o}", hidden, dim(heads, v_dim), o_bias)
        on, key = _flag(cfg, traits.qk_norm_flag)
        if traits.qk_norm and (on or key is not None):
            kind = "ln" if traits.qk_norm == "head_ln" else "rms"
            for norm in names.qk_norms:
                self.add(f"{prefix}.{norm}.weight", dim(head_dim), flag=(on, key))
                if kind == "ln":
                    self.add(f"{prefix}.{norm}.bias", dim(head_dim), flag=(on, key))

    def latent_attention(self, prefix: str, hidden: Axis, bias: tuple[bool, str | None]) -> None:
        """DeepSeek-V2/V3 multi-head latent attention (see ``blocks.latent_attention``)."""
        cfg = self.cfg
        heads = self.var("heads", cfg.heads, "heads", "num_attention_heads")
        nope = self.var("nope", cfg.int("qk_nope_head_dim"), "qk_nope_head_dim")
        rope = self.var("rope", cfg.int("qk_rope_head_dim"), "qk_rope_head_dim")
        kv_rank = self.var("kv_rank", cfg.int("kv_lora_rank"), "kv_lora_rank")
        v_value = cfg.int("v_head_dim") or cfg.head_dim
        v_dim = self.var("v_head_dim", v_value, "v_head_dim", "v_head_dim")
        qk = Axis(((1, (heads, nope)), (1, (heads, rope))))
        if cfg.int("q_lora_rank"):
            q_rank = self.var("q_rank", cfg.int("q_lora_rank"), "q_lora_rank")
            self.linear(f"{prefix}.q_a_proj", dim(q_rank), hidden, bias)
            self.norm(f"{prefix}.q_a_layernorm", "rms", dim(q_rank))
            self.linear(f"{prefix}.q_b_proj", qk, dim(q_rank))
        else:
            self.linear(f"{prefix}.q_proj", qk, hidden)
        self.linear(f"{prefix}.kv_a_proj_with_mqa", plus(dim(kv_rank), dim(rope)), hidden, bias)
        self.norm(f"{prefix}.kv_a_layernorm", "rms", dim(kv_rank))
        kv_b = Axis(((1, (heads, nope)), (1, (heads, v_dim))))
        self.linear(f"{prefix}.kv_b_proj", kv_b, dim(kv_rank))
        self.linear(f"{prefix}.o_proj", hidden, dim(heads, v_dim), bias)

    def ffn_axis(self) -> Axis:
        cfg = self.cfg
        width = dense_ffn(cfg, self.traits)
        stated = cfg.spec.ffn is not None and cfg.spec.ffn.in_file
        if not stated and width == 4 * cfg.hidden and not cfg.ffn:
            return dim("hidden", coef=4)  # GPT-2 style: an absent n_inner means 4 × hidden
        return dim(self.var("ffn", width, "ffn", "intermediate_size"))

    def mlp(self, prefix: str, hidden: Axis) -> None:
        cfg, traits, names = self.cfg, self.traits, self.names
        ffn = self.ffn_axis()
        bias = _flag(cfg, traits.mlp_bias)
        if not is_gated(cfg, traits):
            self.linear(f"{prefix}.{names.plain[0]}", ffn, hidden, bias)
            self.linear(f"{prefix}.{names.plain[1]}", hidden, ffn, bias)
            return
        gate, up, down = names.gated
        if names.gate_up:
            self.linear(f"{prefix}.{names.gate_up}", scaled(ffn, 2), hidden, bias)
        else:
            self.linear(f"{prefix}.{gate}", ffn, hidden, bias)
            self.linear(f"{prefix}.{up}", ffn, hidden, bias)
        self.linear(f"{prefix}.{down}", hidden, ffn, bias)

    def moe(self, prefix: str, hidden: Axis) -> None:
        cfg, traits, names = self.cfg, self.traits, self.names
        experts = self.var("experts", cfg.experts, "experts", "num_local_experts")
        expert_ffn = self.var("expert_ffn", cfg.expert_ffn, "expert_ffn", "moe_intermediate_size")
        router = f"{prefix}.{names.router}"
        self.linear(router, dim(experts), hidden, _flag(cfg, traits.router_bias))
        if names.score_buffer:
            self.add(
                f"{router}.{names.score_buffer}", dim(experts), parameter=False, flag=(True, None)
            )
        gate, up, down = names.expert
        width = dim(expert_ffn)
        for expert in range(cfg.experts):
            base = f"{prefix}.experts.{expert}"
            self.linear(f"{base}.{gate}", width, hidden)
            self.linear(f"{base}.{up}", width, hidden)
            self.linear(f"{base}.{down}", hidden, width)
        shared = self.shared_axis(expert_ffn)
        if shared is not None:
            gate, up, down = names.gated
            base = f"{prefix}.{names.shared}"
            self.linear(f"{base}.{gate}", shared, hidden)
            self.linear(f"{base}.{up}", shared, hidden)
            self.linear(f"{base}.{down}", hidden, shared)
            if cfg.flag(traits.shared_gate):
                self.linear(f"{prefix}.{names.shared_gate}", const(1), hidden)

    def shared_axis(self, expert_ffn: str) -> Axis | None:
        """The shared expert's width: its own key, or ``n_shared_experts × moe_intermediate``."""
        cfg = self.cfg
        width = shared_expert_ffn(cfg, cfg.expert_ffn, self.traits)
        if not width:
            return None
        for key in (
            "shared_expert_intermediate_size",
            "shared_experts_intermediate_size",
            "moe_shared_expert_intermediate_size",
            "shared_intermediate_size",
        ):
            if cfg.int(key) == width:
                return dim(self.var("shared_ffn", width, key=key))
        count = width // cfg.expert_ffn if cfg.expert_ffn else 0
        if count * cfg.expert_ffn == width:
            shared = self.var("shared_experts", count, "shared_experts", "n_shared_experts")
            return dim(shared, expert_ffn)
        return dim(self.var("shared_ffn", width, key="shared_expert_intermediate_size"))
