"""dimlint: find the transformer shapes that crash, run slowly or fail to shard, before launch.

``dimlint.check``, ``dimlint.memory``, ``dimlint.plan`` and ``dimlint.assert_valid`` are the
Python API (:mod:`dimlint.api`); they are imported on first use (module ``__getattr__``) so that
``dimlint check`` does not pay for them at start-up.
"""

from __future__ import annotations

import sys
import types
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
        memory,
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


class _ApiModule(types.ModuleType):
    """A module that, called, runs the API function of its name (see :func:`answer_calls`)."""

    def __call__(self, *args: Any, **options: Any) -> Any:
        from dimlint import api

        return getattr(api, self.__dict__["__dimlint_api__"])(*args, **options)


def answer_calls(module: str, function: str) -> None:
    """Make the imported ``module`` callable as :mod:`dimlint.api`'s ``function``.

    Importing a submodule binds it over the package's attribute of the same name, whatever
    ``__getattr__`` says: once the memory model (``dimlint.memory``) is imported,
    ``dimlint.memory`` *is* that package. So it answers ``dimlint.memory(source, ...)`` itself,
    by forwarding to the API; its contents are untouched.
    """
    found = sys.modules[module]
    found.__dict__["__dimlint_api__"] = function
    found.__class__ = _ApiModule
