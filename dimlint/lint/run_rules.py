"""Running the enabled rules over one ModelSpec: shared by the JSON, Python and YAML front ends.

**The noise budget.** Performance rules — kernel head dims (DL104), GEMM alignment (DL201),
vocabulary padding (DL202), powers of two (DL203), FFN ratio and rounding (DL301, DL302) — are
about models that will be trained or served at scale. A model narrower than :data:`TOY_WIDTH`
is a unit-test fixture or a toy (the configs of a training repository's tests have widths of
2–48): its GEMMs are too small to fill a GPU, launch overhead dominates, and no padding or
alignment changes its speed measurably; so is a config a test helper builds for its unit tests
(transformers' ``ModelTester`` defaults, read in test modules), whatever its width. So on such a
config these rules are silent unless the
user asks: a deployment target (``--target``, ``targets`` in the settings), or the rule's full
code in ``--select``/``--extend-select``. Correctness rules are never silenced.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from dimlint.checks import all_rules
from dimlint.checks.registry import Finding, PlannedFix
from dimlint.config.spec import FIXTURE, ModelSpec
from dimlint.diagnostics import Applicability
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


#: Rules about speed, not correctness: silent on toy-sized configs (see the module docstring).
PERFORMANCE_CODES = frozenset({"DL104", "DL201", "DL202", "DL203", "DL301", "DL302"})
#: The width below which a config is a toy or a test fixture (the smallest released language
#: models people train further or serve start around 256: pythia-70m 512, SmolLM-135M 576).
TOY_WIDTH = 256


def is_toy(spec: ModelSpec) -> bool:
    """Whether the config is narrower than :data:`TOY_WIDTH`: its width, or without one the
    attention width heads × head dim (a KV cache of 3 heads of 5); or a fixture a test helper
    builds (:data:`dimlint.config.spec.FIXTURE`), which no one trains or serves."""
    if spec.memo.get(FIXTURE):
        return True
    if spec.hidden is not None:
        return 0 < spec.hidden.value < TOY_WIDTH
    if spec.heads is not None and spec.head_dim is not None:
        return 0 < spec.heads.value * spec.head_dim.value < TOY_WIDTH
    return False


#: How a front end marks a target the file itself states (a Megatron YAML's parallel sizes):
#: a layout to judge, not a request for performance advice.
FILE_TARGET_SUFFIX = "(stated in this file)"


def _user_targets(selection: Selection) -> bool:
    deployment = selection.deployment
    if deployment is None:
        return False
    return any(not target.text.endswith(FILE_TARGET_SUFFIX) for target in deployment.targets)


def _asked(selection: Selection) -> frozenset[str]:
    """Performance codes the user asked for by name (not by prefix or by default)."""
    named = {*(selection.select or ()), *selection.extend_select}
    return PERFORMANCE_CODES & named


def spec_findings(
    spec: ModelSpec, enabled: Iterable[str], selection: Selection
) -> Iterator[Finding]:
    """Run the enabled rules on one spec (every front end alike), in code order; a rule's
    deployed variant replaces its plain check when a deployment is given."""
    for finding in _findings(spec, enabled, selection):
        if finding.code == "DL101" and finding.fix is not None:
            swap = swapped_fix(spec)
            if swap is not None:
                finding = finding._replace(fix=swap)  # noqa: PLW2901 — the one replacement
        yield finding


def swapped_fix(spec: ModelSpec) -> PlannedFix | None:
    """Undo a layers/heads swap, when that is what the numbers say (pythia-12b-deduped states
    40 layers and 36 heads for pythia-12b's 36 and 40: 5120 / 36 is no width, 5120 / 40 = 128).

    The pair looks swapped when the width divides by the layer count into a usual head width (a
    multiple of 8 up to 256) and not by the head count. Swapping back restores the checkpoint
    the numbers came from; "the nearest head count that divides" would load none.
    """
    hidden, heads, layers = spec.hidden, spec.heads, spec.layers
    if hidden is None or heads is None or layers is None:
        return None
    if not (hidden.in_file and heads.in_file and layers.in_file):
        return None
    if heads.pointer is None or layers.pointer is None or heads.value == layers.value:
        return None
    if spec.head_dim is not None or layers.value <= 0 or hidden.value % heads.value == 0:
        return None
    width, rest = divmod(hidden.value, layers.value)
    if rest or width % 8 or width > 256:
        return None
    return PlannedFix(
        Applicability.UNSAFE,
        f"swap {layers.key} {layers.value} and {heads.key} {heads.value}: they look swapped"
        f" ({hidden.value} / {layers.value} = {width} per head)",
        ((heads.pointer, str(layers.value)), (layers.pointer, str(heads.value))),
    )


def _findings(spec: ModelSpec, enabled: Iterable[str], selection: Selection) -> Iterator[Finding]:
    deployment = selection.deployment
    if is_toy(spec) and not _user_targets(selection):
        enabled = frozenset(enabled) - (PERFORMANCE_CODES - _asked(selection))
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
