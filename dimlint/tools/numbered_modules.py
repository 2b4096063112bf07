"""Repeated modules addressed by numbered names, folded like layer indices (issue 19).

The generator folds layer indices (``layers.3.``) so that a tensor repeated per layer is one
group whose count an expression fits. Some models keep repeated modules in a ``ModuleDict``
under numbered names instead: Switch Transformers' experts are ``experts.expert_0`` …
``expert_7``. Changing ``num_experts`` then adds groups named ``expert_8`` … no expression
explains, so the field was ``fixed`` and every released Switch model with 16, 64 or 128 experts
fell back to a hand recipe (-25% on Switch-Base-128).

A numbered name ``stem_N`` is folded to ``stem_*`` when its siblings under the same parent are
numbered exactly 0 … n-1 (n of at least two) and hold identical parameters (same names below
them, same shapes): a repeated container, whatever its stem. Modules that merely carry numbers
in their names (``conv_1`` and ``conv_2`` of different widths) keep them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from dimlint.memory.checkpoint.load_names import NUMBERED_MODULE as _NUMBERED


def folded(parameters: Iterable[tuple[str, tuple[int, ...]]]) -> dict[str, str]:
    """``name → name with repeated numbered modules folded`` for every parameter name (each
    mapped to itself where nothing folds)."""
    items = list(parameters)
    members: dict[tuple[str, str], dict[int, set[tuple[str, tuple[int, ...]]]]] = defaultdict(
        lambda: defaultdict(set)
    )
    for name, shape in items:
        for match in _NUMBERED.finditer(name):
            parent = name[: match.start()]
            rest = name[match.end() :]
            members[(parent, match.group(1))][int(match.group(2))].add((rest, shape))
    repeated: set[tuple[str, str]] = set()
    for key, by_number in members.items():
        contents = list(by_number.values())
        if (
            len(by_number) >= 2
            and sorted(by_number) == list(range(len(by_number)))
            and all(content == contents[0] for content in contents)
        ):
            repeated.add(key)
    result: dict[str, str] = {}
    for name, _ in items:

        def fold(match: re.Match[str], name: str = name) -> str:
            if (name[: match.start()], match.group(1)) in repeated:
                return f"{match.group(1)}_*"
            return match.group(0)

        result[name] = _NUMBERED.sub(fold, name) if repeated else name
    return result
