"""Expert counts whose zero drops the tensors they size, found by builds.

Field learning moves a field to other positive values; it never states 0. A template then holds
``num_local_experts`` as a factor of the expert tensors' first axis, and a config stating 0 (the
dense Granite-4.0 models: ``granitemoehybrid`` with ``num_local_experts: 0``) made that axis 0,
which the run-time read as a shape no build had ("not whole"): an estimate. transformers builds
such a layer without its mixture of experts (``GraniteMoeHybridMoE(config) if
config.num_local_experts > 0 else None``), so the tensors are absent, not empty.

Here each integer field whose name counts experts and whose default is positive is stated at 0
in a build of the primary class. It is recorded (``zero_counts``) where that build holds exactly
the default build's tensors less those that the field sizes (every term of one of their axes
has it as a factor): a zero then drops those tensors and changes nothing else, and the run-time
leaves them out (:func:`dimlint.memory.parameters.templates._zeroed`). A build that fails, adds
a tensor or reshapes another keeps the field out: a config stating 0 stays an estimate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from dimlint.memory.parameters.templates import sized_by_any

#: ``(collapsed name, ordinal) → (shape, count)``, as the generator's ``_groups`` returns.
Groups = dict[tuple[str, int], tuple[tuple[int, ...], int]]
#: Names of integer fields that count experts.
_EXPERTS = re.compile(r"(^|_)(local_|routed_|shared_|moe_)?experts?$|^n_(routed|shared)_experts$")


def candidates(row: Mapping[str, Any]) -> list[str]:
    """The row's learned fields that count experts, at a positive default."""
    defaults: Mapping[str, Any] = row.get("defaults", {})
    return sorted(
        name
        for name, value in defaults.items()
        if "." not in name
        and isinstance(value, int)
        and not isinstance(value, bool)
        and value > 0
        and _EXPERTS.search(name) is not None
    )


def sized_by(row: Mapping[str, Any], field: str) -> set[str]:
    """The primary class's tensor names one of whose axes ``field`` multiplies in every term."""
    primary = row.get("classes", {}).get(row.get("primary"), {})
    return {
        str(name)
        for name, _count, dims, *_ in primary.get("tensors") or []
        if sized_by_any(dims, [field])
    }


def zero_counts(
    row: Mapping[str, Any], groups: Callable[[Mapping[str, object]], Groups]
) -> list[str]:
    """The candidate fields whose zero drops exactly the tensors they size (see the module
    doc). ``groups(changes)`` builds the primary class with ``changes`` stated."""
    found: list[str] = []
    fields = candidates(row)
    if not fields:
        return found
    default = groups({})
    for field in fields:
        dropped = sized_by(row, field)
        if not dropped:
            continue
        try:
            zeroed = groups({field: 0})
        except Exception:  # the class refuses no experts: a zero is not learned
            continue
        kept = {key: value for key, value in default.items() if key[0] not in dropped}
        if zeroed == kept and len(kept) < len(default):
            found.append(field)
    return found
