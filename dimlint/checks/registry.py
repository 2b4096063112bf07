"""The rule registry: every code, its name, default severity and fix kind, and its check.

Rule modules register themselves with :func:`rule`; the catalogue in ``rules/`` documents each
registered code, and a test keeps the two one to one. A check is a small stateless function
from a :class:`ModelSpec` to :class:`Finding` values: positions and edits are resolved later
against the source, so a rule never deals with offsets.

Rules that depend on where the model will run (DL401–DL407, DL501, DL502, and the grading of
DL104/DL201 under a target) also get a :class:`dimlint.deploy.targets.Deployment`: they register a
*deployed* check, which the linter calls instead of the plain one only when a deployment is
given. Without targets or budgets nothing changes for any rule, and no deployment code runs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Literal

from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Applicability, Severity
from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment

FixKind = Literal["always", "sometimes", "never"]


class PlannedFix(Record):
    """A fix expressed against the document: new text for values named by JSON pointer."""

    applicability: Applicability
    message: str
    replacements: tuple[tuple[str, str], ...] = ()
    #: Keys to rename: (pointer of the member, new key name).
    key_renames: tuple[tuple[str, str], ...] = ()
    #: Raw character ranges to replace, for edits that are not a single value (DL002).
    raw_edits: tuple[tuple[int, int, str], ...] = ()


class Finding(Record):
    """What a check reports; ``anchor`` is the pointer of the value to point at."""

    code: str
    message: str
    anchor: str | None
    severity: Severity | None = None
    fix: PlannedFix | None = None


SpecCheck = Callable[[ModelSpec], Iterable[Finding]]
#: A check that also reads the deployment (targets, budget, context…).
DeployedCheck = Callable[[ModelSpec, "Deployment"], Iterable[Finding]]


class Rule(Record):
    """Metadata and check function of one rule."""

    code: str
    name: str
    severity: Severity
    fix: FixKind
    summary: str
    check: SpecCheck | None
    enabled_by_default: bool = True
    #: Runs instead of ``check`` when a deployment is given (None: ``check`` runs as usual).
    deployed: DeployedCheck | None = None

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


def deployment_rule(
    code: str,
    name: str,
    severity: Severity,
    summary: str,
    *,
    fix: FixKind = "never",
) -> Callable[[DeployedCheck], DeployedCheck]:
    """Decorator for a rule that only has something to say about a deployment (DL4xx, DL5xx)."""

    def decorate(check: DeployedCheck) -> DeployedCheck:
        register(code, name, severity, summary, fix=fix)
        REGISTRY[code] = REGISTRY[code]._replace(deployed=check)
        return check

    return decorate


def grades(code: str) -> Callable[[DeployedCheck], DeployedCheck]:
    """Decorator: the check of an existing rule to run instead when a deployment is given.

    DL104 and DL201 are graded by the target (an error under ``fa2``/``fa3``/``vllm`` or
    ``fp8``); their plain checks stay what runs without one.
    """

    def decorate(check: DeployedCheck) -> DeployedCheck:
        REGISTRY[code] = REGISTRY[code]._replace(deployed=check)
        return check

    return decorate
