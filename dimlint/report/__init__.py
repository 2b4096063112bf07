"""Output formats: each module renders a list of diagnostics as text for one audience."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dimlint.diagnostics import Diagnostic
from dimlint.report import concise, full, json_format

Renderer = Callable[[Sequence[Diagnostic], dict[str, str]], str]

#: format name → renderer(diagnostics, sources by path) → text for stdout
RENDERERS: dict[str, Renderer] = {
    "full": full.render,
    "concise": concise.render,
    "json": json_format.render,
}
