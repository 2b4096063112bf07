"""``scripts/mutate.py`` on a two-line module whose mutants are counted by hand.

``above(x, limit)`` returns ``x > limit``. Its mutants: the return dropped (None), ``>`` negated
to ``<=``, and ``>`` moved to ``>=``. A test of ``above(2, 1)`` and ``above(0, 1)`` kills the first
two; only ``above(1, 1)`` tells ``>`` from ``>=``, so the boundary mutant survives.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "mutate.py"
#: Already as ``ast.unparse`` writes it, so the baseline run sees the file unchanged.
TINY = "def above(x, limit):\n    return x > limit\n"
WEAK_TEST = (
    "from tiny import above\n\n\ndef test_above():\n"
    "    assert above(2, 1) is True\n    assert above(0, 1) is False\n"
)
STRONG_TEST = WEAK_TEST + "    assert above(1, 1) is False\n"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutate_script", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutate_script"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


mutate = _script()


@pytest.fixture(autouse=True)
def _bare_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tiny tests need no plugin: pytest starts in a fraction of the time without them."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def test_the_mutants_of_a_comparison_returned() -> None:
    found = [(m.line, m.kind, m.label) for m in mutate.mutants(TINY)]
    assert found == [
        (2, "drop", "return dropped"),
        (2, "compare", "Gt → LtE"),
        (2, "boundary", "Gt → GtE"),
    ]
    sources = [mutate.mutated_source(TINY, m) for m in mutate.mutants(TINY)]
    assert sources == [
        "def above(x, limit):\n    pass\n",
        "def above(x, limit):\n    return x <= limit\n",
        "def above(x, limit):\n    return x >= limit\n",
    ]


def test_other_kinds_and_what_is_left_alone() -> None:
    source = (
        '"""Doc."""\n'
        "def f(a: int = 3, b: bool = True) -> bool:\n"
        '    """Doc."""\n'
        "    if not b and a % 2:\n"
        "        return True\n"
        "    print(f'{a + 1}')\n"
        "    return a * 2 < 10\n"
    )
    labels = {(m.line, m.kind, m.label) for m in mutate.mutants(source)}
    assert labels == {
        (4, "boolean", "condition negated"),
        (4, "boolean", "And → Or"),
        (4, "boolean", "not x → x"),
        (4, "arithmetic", "Mod → FloorDiv"),
        (5, "constant", "return True → False"),
        (5, "drop", "return dropped"),
        (6, "drop", "expr dropped"),  # the f-string inside is left alone
        (7, "drop", "return dropped"),
        (7, "compare", "Lt → GtE"),
        (7, "boundary", "Lt → LtE"),
        (7, "boundary", "right 10 → 11"),
        (7, "boundary", "right 10 → 9"),
        (7, "arithmetic", "Mult → Div"),
    }
    assert mutate.mutants(source, [(5, 5)]) == [m for m in mutate.mutants(source) if m.line == 5]


def _tiny(tmp_path: Path, test: str) -> Path:
    module = tmp_path / "tiny.py"
    module.write_text(TINY)
    (tmp_path / "test_tiny.py").write_text(test)
    return module


def test_counts_and_the_survivor(tmp_path: Path) -> None:
    module = _tiny(tmp_path, WEAK_TEST)
    report = mutate.mutate(module, ["test_tiny.py"], cwd=tmp_path, timeout=60)
    assert (report.killed, report.total) == (2, 3)
    assert [(m.line, m.label) for m in report.survivors] == [(2, "Gt → GtE")]
    assert module.read_text() == TINY
    assert not mutate._backup_path(module).exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".py") == [
        "test_tiny.py",
        "tiny.py",
    ]


def test_the_boundary_test_kills_every_mutant(tmp_path: Path) -> None:
    module = _tiny(tmp_path, STRONG_TEST)
    report = mutate.mutate(module, ["test_tiny.py"], cwd=tmp_path, timeout=60)
    assert (report.killed, report.total, report.survivors) == (3, 3, [])


def test_a_failing_baseline_is_refused(tmp_path: Path) -> None:
    module = _tiny(tmp_path, WEAK_TEST.replace("is True", "is False"))
    with pytest.raises(SystemExit, match="fail on the unmutated"):
        mutate.mutate(module, ["test_tiny.py"], cwd=tmp_path, timeout=60)
    assert module.read_text() == TINY


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_restores_the_module(tmp_path: Path, signum: int) -> None:
    """The test sleeps while a mutant is on disk; the run is stopped there."""
    slow = (
        "import time\nfrom pathlib import Path\nimport tiny\n\n\ndef test_slow():\n"
        f"    if Path(tiny.__file__).read_text() != {TINY!r}:\n        time.sleep(60)\n"
    )
    module = _tiny(tmp_path, slow)
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(module), "test_tiny.py", "--timeout", "120"],
        cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while module.read_text() == TINY and time.monotonic() < deadline:
        time.sleep(0.05)
    assert module.read_text() != TINY, "no mutant was written"
    time.sleep(0.5)  # the test is running on the mutant
    os.kill(process.pid, signum)
    _, err = process.communicate(timeout=30)
    assert process.returncode == 130, err
    assert module.read_text() == TINY
    assert b"restored" in err
    assert not mutate._backup_path(module).exists()


def test_a_killed_run_is_recovered_by_the_next(tmp_path: Path) -> None:
    module = _tiny(tmp_path, WEAK_TEST)
    backup = mutate._backup_path(module)
    backup.parent.mkdir(parents=True, exist_ok=True)
    backup.write_text(TINY)  # what a run killed with SIGKILL leaves: a copy and a mutant
    module.write_text("def above(x, limit):\n    return x >= limit\n")
    assert mutate.recover(module) is True
    assert module.read_text() == TINY
    assert not backup.exists()
    assert mutate.recover(module) is False
