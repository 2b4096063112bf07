"""Let ``dimlint.memory(...)`` and ``dimlint.plan(...)`` be the API even after the modules of the
same names are imported.

``dimlint/__init__.py`` offers the API lazily (module ``__getattr__``), but importing a submodule
binds it over the package's attribute: once ``dimlint.memory`` (the package of the memory model)
or ``dimlint.plan`` (the deployment plan) is imported, ``dimlint.memory`` *is* that module,
whatever ``__getattr__`` would say. So those modules answer calls themselves, by forwarding to
:mod:`dimlint.api`; their contents are untouched.
"""

from __future__ import annotations

import sys
import types
from typing import Any


class _ApiModule(types.ModuleType):
    """A module that, called, runs the API function of its name."""

    def __call__(self, *args: Any, **options: Any) -> Any:
        from dimlint import api

        return getattr(api, self.__dict__["__dimlint_api__"])(*args, **options)


def answer_calls(module: str, function: str) -> None:
    """Make the (already imported) ``module`` callable as :mod:`dimlint.api`'s ``function``."""
    found = sys.modules[module]
    found.__dict__["__dimlint_api__"] = function
    found.__class__ = _ApiModule
