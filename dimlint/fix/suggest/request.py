"""What ``dimlint suggest`` is asked: sizes, fixed dimensions, targets and budget.

Parsing lives here so that the command and the API read a request the same way. Two syntaxes
are new to ``suggest``: ``--target vllm:tp=2,4,8`` lists several degrees for one key (a bare
number after ``key=N`` continues that key's list; every combination becomes one target that
must be valid), and ``--gqa-ratio 4..8`` is an inclusive range of heads per KV head.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

from dimlint.errors import UsageError
from dimlint.records import Record

FAMILIES = ("llama", "qwen2", "mistral", "gemma2", "deepseek_v3")
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?(?:e\d+)?)\s*([kKmMbBtT]?)\s*$")
_SCALE = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}
#: Heads per KV head a request may ask for: the search never tries more than 512 heads, and
#: the widest released grouping is MQA over 128 heads.
MAX_GQA = 512
#: Routed experts a request may ask for (the most released: 512, Qwen3-Next and Qwen3.5).
MAX_EXPERTS = 4096


def is_number(text: str) -> bool:
    """ASCII digits only: ``str.isdigit`` also accepts ``²`` and ``٣``, which ``int`` refuses
    or reads as another number than the one typed."""
    text = text.strip()
    return text.isascii() and text.isdigit()


class MoE(Record):
    """``--moe experts=64,top_k=8,shared=1``."""

    experts: int
    top_k: int
    shared: int = 0


class Request(Record):
    """One ``suggest`` request; None means "the search chooses"."""

    params: int
    active: int | None = None
    family: str = "llama"
    budget: str | None = None
    context: int | None = None
    batch: int | None = None
    dtype: str | None = None
    kv_dtype: str | None = None
    #: Expanded target specs (``vllm:tp=2``, ``vllm:tp=4``…), as ``check --target`` takes them.
    targets: tuple[str, ...] = ()
    vocab: int | None = None
    layers: int | None = None
    head_dim: int | None = None
    kv_heads: int | None = None
    gqa: tuple[int, int] | None = None
    moe: MoE | None = None
    mla: bool = False
    top: int = 5
    #: Allowed relative distance of total (and active) parameters from the request.
    tolerance: float = 0.03
    #: ``--hidden`` / ``--heads``: widths the designer has fixed.
    hidden: int | None = None
    heads: int | None = None
    #: ``--tokens`` / ``--flops``: the training run the model is sized for (Chinchilla).
    tokens: int | None = None
    flops: float | None = None
    #: ``--train-budget``: the GPU time ``flops`` was computed from
    #: (:class:`dimlint.fix.suggest.compute.TrainBudget`).
    train_budget: Any = None
    #: ``--params largest``: ``params`` is the largest size found to fit the budget.
    largest: bool = False
    #: ``--training``: a training step must fit each layout of the budget as ``mem --training``
    #: computes it (optimizer, ZeRO stage over the data-parallel ranks, recomputation).
    training: bool = False
    optimizer: str = "adam"
    zero: int = 0
    recompute: str = "none"
    #: ``--attention``: the implementation a training step counts (None: ``mem``'s default).
    attention: str | None = None

    def as_json(self) -> dict[str, Any]:
        data = self._asdict()
        data["moe"] = self.moe._asdict() if self.moe else None
        data["gqa"] = list(self.gqa) if self.gqa else None
        data["targets"] = list(self.targets)
        data["train_budget"] = self.train_budget.as_json() if self.train_budget else None
        if self.tokens is not None or self.flops is not None:
            tokens = self.tokens or round(TOKENS_PER_PARAM * self.params)
            data["training_run"] = {
                "tokens": tokens,
                "flops": FLOPS_PER_PARAM_TOKEN * (self.active or self.params) * tokens,
                "tokens_per_param": tokens / self.params,
            }
        return data


#: Training tokens per parameter at the compute-optimal point (Hoffmann et al. 2022, "Chinchilla":
#: 1.4T tokens for 70B).
TOKENS_PER_PARAM = 20
#: Training FLOPs per parameter and token: forward 2, backward 4.
FLOPS_PER_PARAM_TOKEN = 6


def compute_optimal(tokens: int | None, flops: float | None) -> int:
    """Parameters from a training budget: N = D / 20 for ``--tokens D``, N = √(C / (6 · 20)) for
    ``--flops C`` (C = 6 · N · D with D = 20 · N), N = C / (6 · D) for both."""
    if tokens and flops:
        return round(flops / (FLOPS_PER_PARAM_TOKEN * tokens))
    if tokens:
        return round(tokens / TOKENS_PER_PARAM)
    assert flops is not None
    return round(math.sqrt(flops / (FLOPS_PER_PARAM_TOKEN * TOKENS_PER_PARAM)))


def parse_flops(text: str, what: str = "--flops") -> float:
    """``1e24``, ``3.8e25`` → training FLOPs (``what`` names the argument they came from)."""
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{what} {text!r} is not a number such as 1e24") from None
    if not 1e15 <= value <= 1e30:
        raise UsageError(f"{what} gives {value:.3g} FLOPs: expected between 1e15 and 1e30")
    return value


def parse_size(text: str, what: str = "--params", low: float = 1e6, high: float = 1e13) -> int:
    """``8B``, ``0.5B``, ``135M``, ``1.5e9`` (``15T`` tokens) → a count."""
    match = _SIZE.match(text)
    if match is None:
        raise UsageError(f"{what} {text!r} is not a size such as 8B, 0.5B, 135M or 7e9")
    value = float(match.group(1)) * _SCALE[match.group(2).lower()]
    if value < low or value > high:
        raise UsageError(f"{what} {text!r}: expected between {low:.0e} and {high:.0e}")
    return round(value)


def parse_moe(text: str) -> MoE:
    """``experts=64,top_k=8[,shared=1]``."""
    values: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, equals, value = part.partition("=")
        key = key.strip().lower().replace("-", "_")
        if key == "topk":
            key = "top_k"
        if key not in ("experts", "top_k", "shared") or not equals or not is_number(value):
            raise UsageError(
                f"--moe {text!r}: {part!r} is not experts=N, top_k=N or shared=N"
                " (e.g. --moe experts=64,top_k=8,shared=1)"
            )
        values[key] = int(value)
    if "experts" not in values or "top_k" not in values:
        raise UsageError(f"--moe {text!r}: give at least experts=N and top_k=N")
    moe = MoE(values["experts"], values["top_k"], values.get("shared", 0))
    if not 2 <= moe.experts <= MAX_EXPERTS or not 1 <= moe.top_k < moe.experts or moe.shared > 8:
        raise UsageError(
            f"--moe {text!r}: need 2 ≤ experts ≤ {MAX_EXPERTS}, 1 ≤ top_k < experts and shared ≤ 8"
        )
    return moe


def parse_range(text: str, what: str, most: int = MAX_GQA) -> tuple[int, int]:
    """``4..8`` or ``8`` → an inclusive range within 1 … ``most``.

    The bound keeps every loop over the range short: ``1..10**21`` is refused, not searched.
    """
    low, dots, high = text.partition("..")
    parts = (low, high) if dots else (low, low)
    if not all(is_number(p) for p in parts) or not 1 <= int(parts[0]) <= int(parts[1]):
        raise UsageError(f"{what} {text!r} is not N or LOW..HIGH (e.g. 4..8)")
    if int(parts[1]) > most:
        raise UsageError(f"{what} {text!r}: at most {most}")
    return int(parts[0]), int(parts[1])


def expand_target(text: str) -> list[str]:
    """``vllm:tp=2,4,8`` → ``vllm:tp=2``, ``vllm:tp=4``, ``vllm:tp=8``.

    A bare number continues the list of the key before it, so ``megatron:tp=4,8,pp=2`` means
    tp 4 or 8, each with pp 2; every combination is one target. Anything else is left to
    :func:`dimlint.targets.parse_target` to accept or refuse.
    """
    name, colon, rest = text.strip().partition(":")
    if not colon:
        return [text.strip()]
    keys: list[tuple[str, list[str]]] = []
    for part in filter(None, (p.strip() for p in rest.split(","))):
        if "=" in part:
            key, _, value = part.partition("=")
            keys.append((key.strip(), [value.strip()]))
        elif is_number(part) and keys:
            keys[-1][1].append(part)
        else:
            raise UsageError(f"target {text!r}: {part!r} is neither key=N nor another N")
    if not keys:
        return [text.strip()]
    combos = itertools.product(*(values for _, values in keys))
    return [
        f"{name}:" + ",".join(f"{k}={v}" for (k, _), v in zip(keys, combo, strict=True))
        for combo in combos
    ]


def family_for(like: str | None, mla: bool) -> str:
    """The family whose keys are written: ``--like``, or deepseek_v3 for ``--mla``."""
    if like is None:
        return "deepseek_v3" if mla else "llama"
    if like not in FAMILIES:
        raise UsageError(f"--like {like!r}: choose one of {', '.join(FAMILIES)}")
    if mla and like != "deepseek_v3":
        raise UsageError(
            f"--mla with --like {like}: only deepseek_v3 writes multi-head latent attention"
        )
    return like
