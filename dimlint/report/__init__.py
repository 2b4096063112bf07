"""Output formats: each module renders a list of diagnostics as text for one audience.

Renderers are imported on use: the JUnit and SARIF writers pull in modules (XML, URL quoting)
that a plain run should not pay for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence

from dimlint.diagnostics import Diagnostic

Renderer = Callable[[Sequence[Diagnostic], dict[str, str]], str]

#: format name → module in this package defining ``render(diagnostics, sources) -> str``
MODULES = {
    "full": "full",
    "concise": "concise",
    "json": "json_format",
    "github": "github",
    "sarif": "sarif",
    "junit": "junit",
}
FORMATS = (*MODULES, "auto")


def with_fix(diagnostic: Diagnostic) -> str:
    """The message and the fix dimlint chose, for formats without a fix line of their own
    (``concise``, ``github``, ``sarif``, ``junit``): the alternatives alone do not say which one
    ``--fix`` writes."""
    fix = diagnostic.fix
    if fix is None:
        return diagnostic.message
    kind = {"safe": "fix", "unsafe": "unsafe fix", "display": "suggested fix"}[
        fix.applicability.value
    ]
    return f"{diagnostic.message} [{kind}: {fix.message}]"


def renderer(name: str) -> Renderer:
    """The render function of an output format."""
    module = importlib.import_module(f"dimlint.report.{MODULES[name]}")
    render: Renderer = module.render
    return render
