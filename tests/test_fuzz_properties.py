"""Property tests over hostile inputs (issue 10): hypothesis draws JSON configs and their bytes,
Python sources, safetensors headers and indexes, settings files and ``mem``/``plan``/``shapes``
command lines from :mod:`tests.fuzz_inputs`, runs ``main([...])`` on each in a fresh folder, and
checks :func:`tests.fuzz_support.verify`: no exception escapes, exit 0/1 (2 only for usage), no
hang, positions slice back to their values, edits replace whole values and keep the syntax, and
nothing outside the folder is opened for writing.

Bounded for CI: a fixed number of examples per target under the ``ci`` hypothesis profile (a
fixed seed), about a minute in all; ``--hypothesis-profile nightly`` runs 25 times as many with
random seeds. The long-running search is ``scripts/fuzz_campaign.py``; what it finds lands in
``tests/fuzz_regressions/`` and is replayed by ``tests/test_bounded_work.py``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import examples
from tests.fuzz_inputs import GENERATORS, HypothesisSource
from tests.fuzz_support import run, verify

#: Examples per target: the heavier targets (libcst, checkpoints) get fewer.
EXAMPLES = {
    "json": 40,
    "commands": 40,
    "python": 15,
    "safetensors": 25,
    "index": 20,
    "settings": 25,
}


def _check(target: str, data: st.DataObject) -> None:
    made = GENERATORS[target](HypothesisSource(data))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name, content in made.files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(content)
        argv = [arg.replace("{root}", folder) for arg in made.argv]
        outcome = run(argv, limit=20.0, cwd=root)
        original = made.files.get(made.main, b"")
        problems = verify(argv, root, outcome, made.main, original, usage=made.usage)
        assert problems == [], (argv, made.files.get(made.main, b"")[:2000])


@pytest.mark.parametrize("target", sorted(GENERATORS))
def test_hostile_inputs_keep_the_contract(target: str) -> None:
    @settings(
        max_examples=examples(EXAMPLES[target]),
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def property_holds(data: st.DataObject) -> None:
        _check(target, data)

    property_holds()
