"""Running the enabled rules over one ModelSpec: shared by the JSON and Python front ends."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from dimlint.checks import all_rules
from dimlint.checks.registry import Finding
from dimlint.config.spec import ModelSpec
from dimlint.lint.selection import Selection


def spec_findings(
    spec: ModelSpec, enabled: Iterable[str], selection: Selection
) -> Iterator[Finding]:
    """Run the enabled rules on one spec (JSON and Python front ends alike), in code order;
    a rule's deployed variant replaces its plain check when a deployment is given."""
    rules = all_rules()
    deployment = selection.deployment
    for code in sorted(enabled):
        entry = rules[code]
        if deployment is not None and entry.deployed is not None:
            yield from entry.deployed(spec, deployment)
        elif entry.check is not None:
            yield from entry.check(spec)
