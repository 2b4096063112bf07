"""``dimlint suggest``: search for complete architectures that pass every rule.

The inverse of ``check``. A request (a parameter count, optionally active parameters, a budget,
targets, and any dimensions the designer has already fixed) is turned into candidate shapes by
closed-form parameter counts (:mod:`dimlint.fix.suggest.families`), pruned to the parameter target
and to the depth/width ratios released models use (:mod:`dimlint.fix.suggest.reference`), and the
most promising are verified with dimlint's own linter and memory model — the code ``check``,
``mem`` and ``plan`` run, never a re-implementation (:mod:`dimlint.fix.suggest.search`). When
nothing passes, :mod:`dimlint.fix.suggest.relax` says which constraint cannot be met and which
relaxations would make the request feasible, each verified by a search of its own.

The request is resolved once (:mod:`~dimlint.fix.suggest.plan`: TP degrees, width multiples,
padded vocab, ranges and the family's released positions and routing from
:mod:`~dimlint.fix.suggest.positions`); shapes are ranked by what one GPU holds of them
(:mod:`~dimlint.fix.suggest.ranking`) and must fit the budget for serving and, with
``--training``, for a training step (:mod:`~dimlint.fix.suggest.budget_fit`). ``--explain``
(:mod:`~dimlint.fix.suggest.explain`) names the mechanisms with the request's numbers
(:mod:`~dimlint.fix.suggest.mechanisms`); ``--params largest`` probes sizes
(:mod:`~dimlint.fix.suggest.largest`); ``--train-budget`` turns GPU time into FLOPs
(:mod:`~dimlint.fix.suggest.compute`).
"""

from __future__ import annotations
