"""dimlint: find the transformer shapes that crash, run slowly or fail to shard, before launch.

``dimlint.check``, ``dimlint.mem``, ``dimlint.plan`` and ``dimlint.assert_valid`` are the Python
API (:mod:`dimlint.api`), named as the commands they answer for; they are imported on first use
(module ``__getattr__``) so that ``dimlint check`` does not pay for them at start-up.
``dimlint.memory`` is the package of the memory model (:mod:`dimlint.memory`), never a function:
the ``mem`` report, once ``dimlint.memory(...)`` (a module whose class was swapped to make it
callable), is ``dimlint.mem(...)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from dimlint.api import (
        ConfigErrors,
        Diagnostic,
        DimlintError,
        RejectedInput,
        Severity,
        Source,
        UsageError,
        assert_valid,
        check,
        mem,
        plan,
    )

__all__ = [
    "ConfigErrors",
    "Diagnostic",
    "DimlintError",
    "RejectedInput",
    "Severity",
    "Source",
    "UsageError",
    "__version__",
    "assert_valid",
    "check",
    "mem",
    "plan",
]
#: The names re-exported from :mod:`dimlint.api`.
_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    if name in _API:
        from dimlint import api

        return getattr(api, name)
    if name == "memory":  # the package, as after any import of it (never the mem function)
        import importlib

        return importlib.import_module("dimlint.memory")
    raise AttributeError(f"module 'dimlint' has no attribute {name!r}")
