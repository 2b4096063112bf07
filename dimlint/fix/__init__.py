"""Applying fixes: edits over the original bytes, conflict resolution, atomic writes; and
:mod:`dimlint.fix.suggest`, the search for whole architectures that pass every rule.

It sits above :mod:`dimlint.lint` because a fix is judged by re-linting the file it changes, and
a suggested architecture by linting the config it would write."""

from __future__ import annotations
