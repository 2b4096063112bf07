"""Running the enabled rules over one ModelSpec: shared by the JSON and Python front ends."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from dimlint.checks import all_rules
from dimlint.checks.registry import Finding
from dimlint.config.spec import ModelSpec
from dimlint.lint.selection import Selection

_PlainChecks = tuple[Callable[[ModelSpec], Iterable[Finding]], ...]
#: The plain checks of each enabled set, in code order: a corpus run asks for the same few
#: sets once per config, so the sort and the registry lookups happen once.
_PLAIN: dict[frozenset[str], _PlainChecks] = {}


def _plain_checks(enabled: frozenset[str]) -> _PlainChecks:
    checks = _PLAIN.get(enabled)
    if checks is None:
        rules = all_rules()
        checks = tuple(
            check for code in sorted(enabled) if (check := rules[code].check) is not None
        )
        if len(_PLAIN) < 64:
            _PLAIN[enabled] = checks
    return checks


def spec_findings(
    spec: ModelSpec, enabled: Iterable[str], selection: Selection
) -> Iterator[Finding]:
    """Run the enabled rules on one spec (JSON and Python front ends alike), in code order;
    a rule's deployed variant replaces its plain check when a deployment is given."""
    deployment = selection.deployment
    if deployment is None:
        for check in _plain_checks(frozenset(enabled)):
            yield from check(spec)
        return
    rules = all_rules()
    for code in sorted(enabled):
        entry = rules[code]
        if entry.deployed is not None:
            yield from entry.deployed(spec, deployment)
        elif entry.check is not None:
            yield from entry.check(spec)
