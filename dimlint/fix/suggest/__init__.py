"""``dimlint suggest``: search for complete architectures that pass every rule.

The inverse of ``check``. A request (a parameter count, optionally active parameters, a budget,
targets, and any dimensions the designer has already fixed) is turned into candidate shapes by
closed-form parameter counts (:mod:`dimlint.fix.suggest.families`), pruned to the parameter target
and to the depth/width ratios released models use (:mod:`dimlint.fix.suggest.reference`), and the
most promising are verified with dimlint's own linter and memory model — the code ``check``,
``mem`` and ``plan`` run, never a re-implementation (:mod:`dimlint.fix.suggest.search`). When
nothing passes, :mod:`dimlint.fix.suggest.relax` says which constraint cannot be met and which
relaxations would make the request feasible, each verified by a search of its own.
"""

from __future__ import annotations
