"""Training targets: how a model is trained, and what one training step needs per GPU.

``mem --training``, ``plan --training`` and DL501 under a training target (``check --training``,
or a ``megatron:``/``deepspeed:`` target) answer "does this fine-tune fit" with the same numbers:
each builds a :class:`TrainingSetup` here from the same keys (the settings file's ``training``
table, replaced key by key by the command line's flags), sizes the step with
:func:`step` (:func:`dimlint.memory.training.training_plan.training_plan`) and searches the longest
sequence that fits with :func:`longest_seq`. A training step may fill the whole device
(:func:`usable_bytes`): vLLM's ``gpu_memory_utilization`` is a serving engine's reserve, and the
CUDA context, NCCL buffers and allocator slack are the training overhead term.

Parsing stays free of heavy imports (``check`` with a target imports this module); the memory
package is imported only by the functions that compute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dimlint.config.spec import ModelSpec
from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.memory import GPU
    from dimlint.memory.training.training_plan import TrainingPlan

#: Targets whose engine trains: a budget is judged on a training step under them.
TRAINING_ENGINES = ("megatron", "deepspeed")
#: Each key of the settings' ``training`` table (and the API's ``training`` dict) with its
#: command-line flag and the values it takes (a tuple of choices, ``int`` or ``bool``, ``str``).
KEYS: dict[str, Any] = {
    "optimizer": ("adam", "adam8bit", "sgd"),
    "zero": (0, 1, 2, 3),
    "dp": int,
    "recompute": ("none", "selective", "full"),
    "attention": ("flash", "sdpa", "eager"),
    "lora-rank": int,
    "lora-targets": str,
    "qlora": bool,
    "offload": ("none", "optimizer", "params"),
}


class TrainingError(ValueError):
    """A training setting that cannot be understood or combined (a usage error)."""


class TrainingSetup(Record):
    """How the model is trained; None/defaults are ``mem --training``'s defaults."""

    optimizer: str = "adam"
    zero: int = 0
    #: Data-parallel ranks; None: the budget's GPUs left after tp × pp.
    dp: int | None = None
    recompute: str = "none"
    #: None: transformers' own (sdpa, or eager for the families that refuse it).
    attention: str | None = None
    #: None: full fine-tune; a rank: LoRA (QLoRA with ``qlora``).
    lora_rank: int | None = None
    lora_targets: str | None = None
    qlora: bool = False
    offload: str = "none"

    @property
    def method(self) -> str:
        if self.lora_rank is None:
            return "full"
        return "qlora" if self.qlora else "lora"

    def describe(self) -> str:
        """``qlora r=16, adam, ZeRO-0, recompute full`` for messages."""
        method = self.method if self.lora_rank is None else f"{self.method} r={self.lora_rank}"
        parts = [method, self.optimizer, f"ZeRO-{self.zero}", f"recompute {self.recompute}"]
        if self.offload != "none":
            parts.append(f"offload {self.offload}")
        return ", ".join(parts)


def _value(key: str, value: Any, where: str) -> Any:
    kind = KEYS[key]
    flag = f"--{key}"
    if kind is bool:
        if not isinstance(value, bool):
            raise TrainingError(f"{where}training {flag} must be true or false, got {value!r}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**15:
            raise TrainingError(f"{where}training {flag} must be a positive integer, got {value!r}")
        return value
    if kind is str:
        if not isinstance(value, str) or not value.strip():
            raise TrainingError(
                f"{where}training {flag} must be comma-separated module names, got {value!r}"
            )
        return value
    if value not in kind or isinstance(value, bool):
        choices = ", ".join(str(choice) for choice in kind)
        raise TrainingError(f"{where}training {flag} must be one of {choices}, got {value!r}")
    return value


def training_setup(
    settings: Any, given: Mapping[str, Any] | None = None, *, where: str = ""
) -> TrainingSetup | None:
    """The setup from the settings' ``training`` value (``true``, or a table of :data:`KEYS`),
    each key replaced by ``given`` (the command line's flags, None for those not given).

    None when neither asks for training; a :class:`TrainingError` for an unknown key, a bad
    value or a combination no trainer runs (``qlora`` without a rank, offload below its stage).
    """
    table: dict[str, Any] = {}
    if isinstance(settings, Mapping):
        table.update(settings)
    elif settings is not None and not isinstance(settings, bool):
        raise TrainingError(
            f"{where}training must be true or a table such as {{ lora-rank = 16, qlora = true }},"
            f" got {settings!r}"
        )
    chosen = {key: value for key, value in (given or {}).items() if value is not None}
    if settings in (None, False) and not chosen:
        return None
    table.update(chosen)
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], list(KEYS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise TrainingError(
            f"{where}unknown training key {unknown[0]!r}{hint} (keys: {', '.join(KEYS)})"
        )
    values = {key.replace("-", "_"): _value(key, value, where) for key, value in table.items()}
    setup = TrainingSetup(**values)
    if setup.lora_rank is None and (setup.qlora or setup.lora_targets):
        flag = "--qlora" if setup.qlora else "--lora-targets"
        raise TrainingError(f"{where}{flag} needs --lora-rank R (the adapters' rank, e.g. 16)")
    if setup.offload == "optimizer" and setup.zero < 1:
        raise TrainingError(f"{where}--offload optimizer needs --zero 1, 2 or 3 (DeepSpeed"
                            " offloads the partitioned optimizer states)")  # fmt: skip
    if setup.offload == "params" and setup.zero != 3:
        raise TrainingError(f"{where}--offload params needs --zero 3 (DeepSpeed offloads"
                            " parameters only at stage 3: ZeRO-Infinity)")  # fmt: skip
    return setup


def usable_bytes(gpu: GPU) -> int:
    """What a training step may fill on one device: all it reports (module doc)."""
    return gpu.memory_bytes


def finetune_of(setup: TrainingSetup) -> Any:
    """The :class:`dimlint.memory.training.finetune.Finetune` the setup asks for."""
    from dimlint.memory.training.finetune import ALL_LINEAR, Finetune

    if setup.lora_rank is None:
        return Finetune()
    names = tuple(t.strip() for t in (setup.lora_targets or ALL_LINEAR).split(",") if t.strip())
    return Finetune(setup.method, setup.lora_rank, names or (ALL_LINEAR,))


def attention_of(specs: Sequence[ModelSpec], setup: TrainingSetup) -> tuple[str, str | None]:
    """The attention implementation counted, and a note when it is not the one asked for (a
    ValueError when transformers refuses the one asked for, as SDPA for Gemma-2)."""
    from dimlint.memory import language_spec
    from dimlint.memory.config_view import Cfg
    from dimlint.memory.training.activations import attention_for

    return attention_for(Cfg(language_spec(list(specs))), setup.attention)


def step(
    specs: Sequence[ModelSpec],
    setup: TrainingSetup,
    *,
    dtype: str,
    tp: int,
    pp: int,
    dp: int,
    batch: int,
    seq: int,
) -> TrainingPlan:
    """Per-GPU memory of one training step (a ValueError when the model cannot be trained so:
    LoRA targets it lacks, an attention implementation transformers refuses)."""
    from dimlint.memory.training.training_plan import training_plan

    return training_plan(
        list(specs),
        dtype=dtype,
        optimizer=setup.optimizer,
        zero=setup.zero,
        dp=dp,
        tp=tp,
        pp=pp,
        batch=batch,
        seq=seq,
        recompute=setup.recompute,
        attention=attention_of(specs, setup)[0],
        finetune=finetune_of(setup),
        offload=setup.offload,
    )


def longest_seq(
    specs: Sequence[ModelSpec],
    setup: TrainingSetup,
    *,
    usable: int,
    upper: int,
    dtype: str,
    tp: int,
    pp: int,
    dp: int,
    batch: int,
) -> int:
    """The longest sequence in [1, ``upper``] whose step fits ``usable`` bytes (0: none).

    Memory grows with the sequence (linearly, and quadratically with eager scores), so a
    bisection finds the boundary in ~log2(upper) steps."""

    def fits(seq: int) -> bool:
        found = step(specs, setup, dtype=dtype, tp=tp, pp=pp, dp=dp, batch=batch, seq=seq)
        return found.total <= usable

    if not fits(1):
        return 0
    if fits(upper):
        return upper
    low, high = 1, upper
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    return low


def training_flags(args: Any) -> dict[str, Any]:
    """The training keys an ``argparse.Namespace`` gives (``args.lora_rank`` for
    ``lora-rank``), None for a flag not given; ``--qlora`` absent is not ``qlora = false``."""
    found = {key: getattr(args, key.replace("-", "_"), None) for key in KEYS}
    if found["qlora"] is False:
        found["qlora"] = None
    return found
