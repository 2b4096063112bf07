"""Applying fixes: edits over the original bytes, conflict resolution, atomic writes.

It sits above :mod:`dimlint.lint` because a fix is judged by re-linting the file it changes."""

from __future__ import annotations
