"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding.

GitHub shows at most 10 annotations of each level per step (50 per job) and silently drops the
rest, so this renderer emits the most severe findings first, stops at the per-level limit, and
:func:`step_summary` lists everything (with what was left unannotated) for the job summary.
Escaping follows the Actions toolkit (``@actions/core`` ``escapeData``/``escapeProperty``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from dimlint.checks import all_rules
from dimlint.diagnostics import Diagnostic, Severity
from dimlint.report import with_fix

#: Annotations GitHub displays per level and step.
PER_LEVEL_LIMIT = 10
COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(diagnostic: Diagnostic) -> str:
    """The workflow command of one finding."""
    rule = all_rules()[diagnostic.code]
    properties = {"file": diagnostic.path}
    if diagnostic.span is not None:
        start, end = diagnostic.span.start_pos, diagnostic.span.end_pos
        properties |= {
            "line": str(start.line),
            "col": str(start.column),
            "endLine": str(end.line),
            "endColumn": str(end.column),
        }
    properties["title"] = f"{diagnostic.code} {rule.name}"
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{COMMANDS[diagnostic.severity]} {rendered}::{escape_data(with_fix(diagnostic))}"


def annotated(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The findings that get an annotation: most severe first, at most 10 per level."""
    chosen: list[Diagnostic] = []
    used: Counter[Severity] = Counter()
    for diagnostic in sorted(diagnostics, key=lambda d: (-d.severity, d.sort_key)):
        if used[diagnostic.severity] < PER_LEVEL_LIMIT:
            used[diagnostic.severity] += 1
            chosen.append(diagnostic)
    return chosen


def render(diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> str:
    del sources
    return "".join(command(d) + "\n" for d in annotated(diagnostics))


def plural(count: int, noun: str) -> str:
    """``1 error``, ``5 errors``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def step_summary(diagnostics: Sequence[Diagnostic]) -> str:
    """Markdown for ``$GITHUB_STEP_SUMMARY``: counts, and every finding in a table."""
    if not diagnostics:
        return "### dimlint\n\nAll checks passed.\n"
    rules = all_rules()
    shown = set(map(id, annotated(diagnostics)))
    by_level = Counter(d.severity for d in diagnostics)
    counts = ", ".join(
        plural(by_level[level], level.label) for level in sorted(by_level, reverse=True)
    )
    lines = ["### dimlint", "", f"{plural(len(diagnostics), 'finding')}: {counts}."]
    hidden = len(diagnostics) - len(shown)
    if hidden:
        lines.append(
            f"GitHub shows {PER_LEVEL_LIMIT} annotations per level and step: {hidden} findings"
            " are listed here only (marked ○)."
        )
    lines += ["", "| | location | rule | message |", "| --- | --- | --- | --- |"]
    for diagnostic in sorted(diagnostics, key=lambda d: (-d.severity, d.sort_key)):
        line = diagnostic.span.start_pos.line if diagnostic.span else 1
        column = diagnostic.span.start_pos.column if diagnostic.span else 1
        mark = "●" if id(diagnostic) in shown else "○"
        message = with_fix(diagnostic).replace("|", "\\|").replace("\n", " ")
        lines.append(
            f"| {mark} {diagnostic.severity.label} | `{diagnostic.path}:{line}:{column}` |"
            f" {diagnostic.code} {rules[diagnostic.code].name} | {message} |"
        )
    per_code = Counter(d.code for d in diagnostics)
    lines += ["", "| rule | count |", "| --- | --- |"]
    lines += [f"| {code} {rules[code].name} | {n} |" for code, n in sorted(per_code.items())]
    return "\n".join(lines) + "\n"
