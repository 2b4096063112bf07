"""The rule registry: every code, its name, default severity and fix kind, and its check.

Rule modules register themselves with :func:`rule`; the catalogue in ``rules/`` documents each
registered code, and a test keeps the two one to one. A check is a small stateless function
from a :class:`ModelSpec` to :class:`Finding` values: positions and edits are resolved later
against the source, so a rule never deals with offsets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal, NamedTuple

from dimlint.diagnostics import Applicability, Severity
from dimlint.spec import ModelSpec

FixKind = Literal["always", "sometimes", "never"]


class PlannedFix(NamedTuple):
    """A fix expressed against the document: new text for values named by JSON pointer."""

    applicability: Applicability
    message: str
    replacements: tuple[tuple[str, str], ...] = ()
    #: Keys to rename: (pointer of the member, new key name).
    key_renames: tuple[tuple[str, str], ...] = ()
    #: Raw character ranges to replace, for edits that are not a single value (DL002).
    raw_edits: tuple[tuple[int, int, str], ...] = ()


class Finding(NamedTuple):
    """What a check reports; ``anchor`` is the pointer of the value to point at."""

    code: str
    message: str
    anchor: str | None
    severity: Severity | None = None
    fix: PlannedFix | None = None


SpecCheck = Callable[[ModelSpec], Iterable[Finding]]


class Rule(NamedTuple):
    """Metadata and check function of one rule."""

    code: str
    name: str
    severity: Severity
    fix: FixKind
    summary: str
    check: SpecCheck | None
    enabled_by_default: bool = True

    @property
    def url(self) -> str:
        return f"https://github.com/dimlint/dimlint/blob/main/rules/{self.code}-{self.name}.md"


REGISTRY: dict[str, Rule] = {}


def register(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    fix: FixKind = "never",
    enabled_by_default: bool = True,
    check: SpecCheck | None = None,
) -> Rule:
    """Add a rule to the registry (rule codes are unique and never reused)."""
    if code in REGISTRY:
        raise ValueError(f"rule {code} registered twice")
    entry = Rule(code, name, severity, fix, summary, check, enabled_by_default)
    REGISTRY[code] = entry
    return entry


def rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    fix: FixKind = "never",
    enabled_by_default: bool = True,
) -> Callable[[SpecCheck], SpecCheck]:
    """Decorator form of :func:`register` for spec-level checks."""

    def decorate(check: SpecCheck) -> SpecCheck:
        register(
            code,
            name,
            severity,
            summary,
            fix=fix,
            enabled_by_default=enabled_by_default,
            check=check,
        )
        return check

    return decorate


_SORTED: dict[str, Rule] = {}


def all_rules() -> dict[str, Rule]:
    """Every registered rule by code, importing the rule modules on first use."""
    if not _SORTED:
        import dimlint.checks  # noqa: F401  (registers the rules)

        _SORTED.update(sorted(REGISTRY.items()))
    return _SORTED
