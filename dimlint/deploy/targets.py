"""Deployment targets and budgets: what ``--target``, ``--budget``, ``--context``… describe.

A :class:`Deployment` is what the target-dependent rules (DL104/DL201 grading, DL401–DL407,
DL501, DL502) read alongside the :class:`dimlint.config.spec.ModelSpec`. It is built from the
settings
(``targets = [...]``, ``budget``, ``context``…) and the command line, which replaces what the
settings say. Without any of them there is no deployment and those rules stay silent, so the
plain lint path never pays for them.

This module is imported on every ``check`` run that has a target, so it stays free of heavy
imports: the budget string is only validated here for its form (``8xH100-80GB``); the GPU it
names is looked up in :mod:`dimlint.memory` by the rules that need its memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from dimlint.deploy.training import TRAINING_ENGINES, TrainingSetup, training_setup
from dimlint.records import Record

#: Engines with parallel layouts, and the keys each accepts (``megatron:tp=4,pp=2,ep=8,cp=2``).
ENGINE_KEYS: dict[str, tuple[str, ...]] = {
    "vllm": ("tp", "pp", "ep"),
    "sglang": ("tp", "pp", "ep"),
    "hf": ("tp", "pp", "ep"),
    "megatron": ("tp", "pp", "ep", "cp"),
    "deepspeed": ("ep", "sp"),
}
#: Kernel and number-format targets: they take no sizes (``fa2``, ``fa3``, ``fp8``).
KERNEL_TARGETS = ("fa2", "fa3", "fp8")
ALIASES = {"transformers": "hf", "flash-attn2": "fa2", "flash-attn3": "fa3"}
#: Weight and KV cache number formats ``--dtype``/``--kv-dtype`` accept (DESIGN.md).
DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")

#: The largest parallel degree (tp, pp, ep, cp, sp) any command takes: no engine shards one model
#: over more than a thousand ranks of one kind, and every degree up to it is listed or tried by
#: ``plan``, DL401's "valid sizes" and ``suggest``, so a larger one is a usage error everywhere.
MAX_DEGREE = 1024

_MEMORY_ONLY = re.compile(r"^\d+(?:\.\d+)?\s*(?:GB|GIB|TB|TIB)$", re.IGNORECASE)
_BUDGET = re.compile(r"^\s*(\d+)\s*[xX×*]\s*(\S.*?)\s*$")


class TargetError(ValueError):
    """A target, budget or deployment setting that cannot be understood (exit code 2)."""


class Target(Record):
    """One deployment target: an engine with its parallel sizes, or a kernel/format."""

    engine: str
    tp: int = 1
    pp: int = 1
    ep: int = 1
    cp: int = 1
    sp: int = 1
    #: As the user wrote it, for messages (``vllm:tp=8``).
    text: str = ""

    @property
    def is_parallel(self) -> bool:
        """An engine target (vLLM, Megatron…), as opposed to ``fa2``/``fa3``/``fp8``."""
        return self.engine in ENGINE_KEYS

    @property
    def gpus(self) -> int:
        """GPUs one model replica occupies: tensor × pipeline (× context) parallel ranks."""
        return self.tp * self.pp * self.cp


class Deployment(Record):
    """Everything the target-dependent rules may read; absent values are ``None``."""

    targets: tuple[Target, ...] = ()
    #: ``NxGPU`` as written; :func:`parse_budget_text` checks its form.
    budget: str | None = None
    context: int | None = None
    batch: int | None = None
    dtype: str | None = None
    kv_dtype: str | None = None
    #: How the model is trained, when a budget is judged on a training step: ``--training``
    #: or the settings' ``training`` table, or a training target (``megatron:``,
    #: ``deepspeed:``) with the defaults (:mod:`dimlint.deploy.training`).
    training: TrainingSetup | None = None

    @property
    def parallel(self) -> tuple[Target, ...]:
        """The engine targets (those with TP/PP/EP sizes)."""
        return tuple(t for t in self.targets if t.is_parallel)

    def has(self, *engines: str) -> Target | None:
        """The first target of one of ``engines``, or None."""
        return next((t for t in self.targets if t.engine in engines), None)

    @property
    def is_empty(self) -> bool:
        return self == Deployment()


def parse_target(text: str) -> Target:
    """Parse ``vllm:tp=8``, ``megatron:tp=4,pp=2,ep=8``, ``fa2``…; :class:`TargetError` if bad."""
    raw = text.strip()
    name, _, rest = raw.partition(":")
    engine = ALIASES.get(name.strip().lower(), name.strip().lower())
    known = [*ENGINE_KEYS, *KERNEL_TARGETS]
    if engine not in known:
        import difflib

        close = difflib.get_close_matches(engine, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise TargetError(
            f"unknown target {text!r}{hint} (targets: {', '.join(known)}; e.g. vllm:tp=8,"
            " megatron:tp=4,pp=2,ep=8, fa2, fp8)"
        )
    keys = ENGINE_KEYS.get(engine, ())
    sizes: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, equals, value = part.partition("=")
        key = key.strip().lower()
        if not keys:
            raise TargetError(f"target {engine} takes no sizes, got {text!r}")
        if key not in keys or not equals:
            raise TargetError(
                f"target {text!r}: {part!r} is not one of {', '.join(k + '=N' for k in keys)}"
            )
        digits = value.strip()
        if not (digits.isascii() and digits.isdigit()) or len(digits) > 16 or int(digits) < 1:
            raise TargetError(f"target {text!r}: {key} must be a positive integer, got {value!r}")
        if int(digits) > MAX_DEGREE:
            raise TargetError(
                f"target {text!r}: {key} {int(digits):,} is above {MAX_DEGREE}, the largest"
                " parallel degree dimlint takes"
            )
        if key in sizes:
            raise TargetError(f"target {text!r}: {key} is given twice")
        sizes[key] = int(value)
    return Target(engine, text=raw, **sizes)


def parse_budget_text(text: str) -> tuple[int, str]:
    """Split ``8xH100-80GB`` into (8, ``H100-80GB``), a bare ``H100-80GB`` or ``24GiB`` into
    (1, …); the GPU name is checked elsewhere (:func:`dimlint.memory.gpus.gpu_named`)."""
    match = _BUDGET.match(text)
    bare = text.strip()
    if match is None and bare and (not bare[0].isdigit() or _MEMORY_ONLY.match(bare)):
        return 1, bare  # one GPU, by name (H100-80GB) or by memory (24GiB); 8H100 is a typo
    if match is None or len(match.group(1)) > 16 or int(match.group(1)) < 1:
        raise TargetError(
            f"budget {text!r} is not N×GPU (e.g. 8xH100-80GB, 1xRTX4090-24GB, 2xMI300X-192GB)"
        )
    return int(match.group(1)), match.group(2)


def _positive(value: Any, name: str, where: str) -> int:
    from dimlint.config.values import MAX_COUNT

    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise TargetError(f"{where}{name} must be a positive integer, got {value!r}")
    if value > MAX_COUNT:
        raise TargetError(
            f"{where}{name} must be at most 10^15, got a {len(str(value))}-digit number"
        )
    return value


def _dtype(value: Any, name: str, where: str) -> str:
    if not isinstance(value, str) or value.lower() not in DTYPES:
        raise TargetError(f"{where}{name} must be one of {', '.join(DTYPES)}, got {value!r}")
    return value.lower()


def deployment(
    settings: Mapping[str, Any],
    *,
    targets: Iterable[str] | None = None,
    budget: str | None = None,
    context: int | None = None,
    batch: int | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    training: bool = False,
    training_options: Mapping[str, Any] | None = None,
    source: str | None = None,
) -> Deployment | None:
    """The deployment from settings keys, each replaced by its command-line value when given.

    ``training`` is ``--training``; ``training_options`` the training flags, by settings key
    (``{"lora-rank": 16}``, None for those not given), which replace the settings' ``training``
    table key by key and need ``--training``, the settings' ``training`` or a training target.
    Returns None when nothing describes a deployment (the rules that need one stay silent).
    """
    where = f"{source}: " if source else ""
    raw_targets: Any = list(targets) if targets is not None else settings.get("targets", [])
    if not isinstance(raw_targets, list) or not all(isinstance(t, str) for t in raw_targets):
        raise TargetError(f'{where}targets must be a list of strings, e.g. ["vllm:tp=8"]')
    try:
        parsed = tuple(parse_target(t) for t in raw_targets)
    except TargetError as error:
        raise TargetError(f"{where}{error}") from None
    chosen_budget = budget if budget is not None else settings.get("budget")
    if chosen_budget is not None:
        if not isinstance(chosen_budget, str):
            raise TargetError(f'{where}budget must be a string such as "8xH100-80GB"')
        parse_budget_text(chosen_budget)
    values = {
        "context": context if context is not None else settings.get("context"),
        "batch": batch if batch is not None else settings.get("batch"),
    }
    ints = {k: _positive(v, k, where) if v is not None else None for k, v in values.items()}
    kinds = {
        "dtype": dtype if dtype is not None else settings.get("dtype"),
        "kv-dtype": kv_dtype if kv_dtype is not None else settings.get("kv-dtype"),
    }
    formats = {k: _dtype(v, k, where) if v is not None else None for k, v in kinds.items()}
    stated = settings.get("training")
    trains = any(t.engine in TRAINING_ENGINES for t in parsed)
    if (training or trains) and stated in (None, False):
        stated = True
    asked = {k: v for k, v in (training_options or {}).items() if v is not None}
    if asked and stated in (None, False):
        flags = ", ".join(f"--{key}" for key in asked)
        raise TargetError(
            f"{where}{flags} describe training: add --training (or a megatron:/deepspeed: target,"
            " or training = {...} in the settings)"
        )
    setup = training_setup(stated, asked, where=where)
    result = Deployment(
        parsed,
        chosen_budget,
        ints["context"],
        ints["batch"],
        formats["dtype"],
        formats["kv-dtype"],
        setup,
    )
    return None if result.is_empty else result
