"""Float fields that size tensors, found by builds (issue 19: a false exact on EfficientNet).

Field learning moves integers; a float field stayed at its default in every build, and a
config stating another value was counted as if it had not. EfficientNet's ``width_coefficient``
and ``depth_coefficient`` scale every stage (a released B0, 1.0 and 1.0, was counted as the
default B7, 2.0 and 3.1: 16 times its size, labelled exact). Here each float field whose name
says it scales something (a coefficient, ratio, multiplier, factor or scale; not a dropout,
epsilon, initializer or rope setting) is stated at another value, and the fields whose builds
hold other tensors are recorded (``shaping_floats``): the run-time refuses a config stating one
at another value than the class default
(:func:`dimlint.memory.parameters.templates._stated_shaping_float`).
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from dimlint.tools import inert_lists
from dimlint.tools.inert_lists import Tensors

#: Names of floats that may scale a width, a depth or a count.
_SCALES = re.compile(r"(coefficient|ratio|multiplier|factor|mult|scale|scaling)s?$")
#: Names of floats that tune training or positions, never a tensor's shape.
_RUNTIME = re.compile(r"dropout|drop_|eps|epsilon|init|rope|theta|temperature|loss|momentum")


def candidates(config_class: Any) -> list[tuple[str, float]]:
    """``(field, default)``: the float fields of ``config_class`` whose names say they scale."""
    if not dataclasses.is_dataclass(config_class):
        return []
    return [
        (field.name, field.default)
        for field in dataclasses.fields(config_class)
        if isinstance(field.default, float)
        and _SCALES.search(field.name) is not None
        and _RUNTIME.search(field.name) is None
    ]


def shaping(config_class: Any, tensors: Tensors) -> list[str]:
    """The candidate fields whose build at another value (twice the default, or 1.0 for 0.0)
    holds other tensors than the default's, or that the class rejects there (unknown: kept)."""
    trials = (
        (name, [default * 2 if default else 1.0]) for name, default in candidates(config_class)
    )
    alike = inert_lists.builds_alike(tensors, trials)
    return [name for name, same in alike.items() if same is not True]
