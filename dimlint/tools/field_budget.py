"""How much CPU time the shape generator may spend changing one model type's fields.

:func:`dimlint.tools.generate_shapes.learn` changes each field in a build of its own until a
budget of CPU time runs out; the fields it did not reach are ``fixed``, and a config stating
another value of one is refused as if changing it had built another model. A fixed budget
in seconds reaches every field of a type whose builds are fast, and few of one whose builds
are slow: VideoMAE computes its sinusoid position table in Python (about 1.5 s a build on
the meta device), so 12 seconds reached six of its fields and left ``hidden_size`` fixed.
The budget is therefore at least what the type's own builds need to reach every field,
within a ceiling that keeps one type from stalling the table.
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: Builds one field takes at most (an item of a list takes two, see ``list_items``), with a
#: margin for the fits between builds.
BUILDS_PER_FIELD = 2.5
#: The most CPU seconds any type's fields get (the type's own limit is 300 s in all).
CEILING_S = 150.0


def field_budget(budget_s: float, build: Callable[[], object], fields: int) -> float:
    """``budget_s``, or more where one build (``build``, timed here) times the builds the
    ``fields`` need exceeds it (capped at :data:`CEILING_S`)."""
    start = time.process_time()
    build()
    per_build = time.process_time() - start
    needed = per_build * BUILDS_PER_FIELD * fields
    return max(budget_s, min(needed, CEILING_S))
