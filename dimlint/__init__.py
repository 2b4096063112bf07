"""dimlint: find the transformer shapes that crash, run slowly or fail to shard, before launch.

``dimlint.check``, ``dimlint.memory``, ``dimlint.plan`` and ``dimlint.assert_valid`` are the
Python API (:mod:`dimlint.api`); they are imported on first use (module ``__getattr__``) so that
``dimlint check`` does not pay for them at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from dimlint.api import (
        ConfigErrors,
        Diagnostic,
        DimlintError,
        Severity,
        Source,
        UsageError,
        assert_valid,
        check,
        memory,
        plan,
    )

__all__ = [
    "ConfigErrors",
    "Diagnostic",
    "DimlintError",
    "Severity",
    "Source",
    "UsageError",
    "__version__",
    "assert_valid",
    "check",
    "memory",
    "plan",
]
#: The names re-exported from :mod:`dimlint.api`.
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        from dimlint import api

        return getattr(api, name)
    raise AttributeError(f"module 'dimlint' has no attribute {name!r}")
