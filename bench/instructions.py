"""Instructions executed by ``dimlint check`` and by the json.load floor, under callgrind.

CPU time on two shared cores moves by several percent between runs; the number of instructions
a run executes does not (``valgrind --tool=callgrind``, about 50× slower). Used to judge each
speed change before ``bench.py`` times it. Byte-compiles the package first, as ``bench.py`` does.

Usage: python bench/instructions.py [PATH ...]   (default: the example config and the corpus)
"""

from __future__ import annotations

import compileall
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from bench import DEFAULT_CORPUS, FLOOR, ONE_CONFIG, QUIET, ROOT

CHECK = "import sys; from dimlint.cli import main_entry; sys.argv[0] = 'dimlint'; main_entry()"


def instructions(arguments: list[str]) -> int:
    """Instructions callgrind counts for ``python ARGUMENTS``."""
    completed = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            *arguments,
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    found = re.search(r"Collected : (\d+)", completed.stderr)
    if found is None:
        raise SystemExit(f"callgrind reported no count:\n{completed.stderr[-2000:]}")
    return int(found.group(1))


def main() -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        return 2
    compileall.compile_dir(str(ROOT / "dimlint"), quiet=1)
    targets = sys.argv[1:] or [str(ONE_CONFIG), str(DEFAULT_CORPUS)]
    for target in targets:
        files = (
            [str(p) for p in sorted(Path(target).rglob("*.json"))]
            if os.path.isdir(target)
            else [target]
        )
        ours = instructions(["-c", CHECK, "check", *QUIET, target])
        floor = instructions(["-c", FLOOR, *files])
        print(
            f"{target}: dimlint {ours / 1e6:.1f} M, floor {floor / 1e6:.1f} M, {ours / floor:.2f}×"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
