"""``dimlint check`` on released configs finds what is true (issue 19, "Done when").

Every config of ``tests/data/released_configs`` is a model someone trained and published, so no
finding on it may be an error (transformers builds them, or refuses them for a reason the
finding would have to name), and a warning that fires on many of them is noise: each warning
code may fire on at most 2% of the configs. Infos (padding advice, a head width's kernel) are
not bounded.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from dimlint import check
from dimlint.diagnostics import Diagnostic, Severity

ROOT = Path(__file__).resolve().parent / "data" / "released_configs"
#: The share of released configs one warning code may fire on.
WARNING_SHARE = 0.02


@pytest.fixture(scope="module")
def findings() -> tuple[int, list[Diagnostic]]:
    # the folder as `dimlint check tests/data/released_configs --no-config` reads it
    return len(list(ROOT.glob("*/*.json"))), check(str(ROOT))


def test_no_error_on_a_released_config(findings: tuple[int, list[Diagnostic]]) -> None:
    total, found = findings
    assert total >= 300, "the released population is missing"
    errors = [
        f"{d.path}:{d.span.start_pos.line if d.span else 0} {d.code} {d.message}"
        for d in found
        if d.severity is Severity.ERROR
    ]
    assert not errors, "\n".join(errors)


def test_each_warning_code_on_few_released_configs(
    findings: tuple[int, list[Diagnostic]],
) -> None:
    total, found = findings
    files: dict[str, set[str]] = defaultdict(set)
    for diagnostic in found:
        if diagnostic.severity is Severity.WARNING:
            files[diagnostic.code].add(diagnostic.path)
    shares = {code: len(names) / total for code, names in files.items()}
    print("\n" + ", ".join(f"{code} {len(files[code])}/{total}" for code in sorted(files)))
    noisy = {code: f"{share:.1%}" for code, share in shares.items() if share > WARNING_SHARE}
    assert not noisy
