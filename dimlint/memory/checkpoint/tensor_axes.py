"""Tensor shapes as formulas over config values, so that a mismatch can be explained.

A checkpoint tensor that disagrees with its config is only useful to report if the message says
which config value is wrong. Each axis of an expected tensor is therefore kept as a formula — a
sum of terms, each a coefficient times a product of named config values (``num_key_value_heads
× head_dim``; ``(num_attention_heads + 2 × num_key_value_heads) × head_dim`` for a fused QKV) —
rather than a number. Every formula is linear in each single value, so the value that would
make a formula produce the stored size can be solved for directly (:func:`solve`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from dimlint.records import Record

#: ``coefficient × product of the named values``.
Term = tuple[int, tuple[str, ...]]


class Var(Record):
    """A config value a shape depends on: its value, and where it comes from."""

    name: str
    value: int
    #: The config key it is read from (``num_key_value_heads``, gpt2's ``n_head``…), or how it
    #: is derived when the config does not state it.
    key: str
    #: JSON pointer of the value in the config; None when it is a default or derived.
    pointer: str | None
    #: Whether the config can set it (a field of the model type): only those are suggested.
    settable: bool = True

    def say(self, value: int) -> str:
        """``num_key_value_heads 4``; Falcon's KV heads read as its ``multi_query`` flag."""
        if self.key == "multi_query":
            return f"multi_query {'true' if value == 1 else 'false'}"
        return f"{self.key} {value}"

    def factor(self) -> str:
        """The value as a factor of a formula."""
        if self.key == "multi_query":
            return f"{self.value} KV heads ({self.say(self.value)})"
        return self.say(self.value)


class Axis(Record):
    """One dimension of a tensor: the sum of its terms."""

    terms: tuple[Term, ...]

    def value(self, env: Mapping[str, int]) -> int:
        return sum(coef * math.prod(env[name] for name in names) for coef, names in self.terms)

    def names(self) -> tuple[str, ...]:
        """The values the axis depends on, in order of first use."""
        return tuple(dict.fromkeys(name for _, names in self.terms for name in names))


def dim(*names: str, coef: int = 1) -> Axis:
    """``coef × names[0] × names[1] …``."""
    return Axis(((coef, names),))


def const(value: int) -> Axis:
    return Axis(((value, ()),))


def plus(*axes: Axis) -> Axis:
    return Axis(tuple(term for axis in axes for term in axis.terms))


def scaled(axis: Axis, factor: int) -> Axis:
    return Axis(tuple((coef * factor, names) for coef, names in axis.terms))


def solve(axis: Axis, name: str, target: int, env: Mapping[str, int]) -> int | None:
    """The positive integer value of ``name`` for which ``axis`` equals ``target`` (the other
    values as in ``env``), or None when there is none."""
    if name not in axis.names():
        return None
    base = axis.value({**env, name: 0})
    slope = axis.value({**env, name: 1}) - base
    if slope <= 0 or (target - base) % slope:
        return None
    found = (target - base) // slope
    return found if found > 0 else None


def render(axis: Axis, variables: Mapping[str, Var]) -> str:
    """``num_key_value_heads 8 × head_dim 128`` (with the values), for messages."""
    parts = []
    for coef, names in axis.terms:
        factors = [variables[name].factor() for name in names]
        if coef != 1 or not factors:
            factors.insert(0, str(coef))
        parts.append(" × ".join(factors))
    return " + ".join(parts)


def shape_text(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(size) for size in shape) + "]"
