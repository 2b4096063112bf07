"""Benchmark ``dimlint suggest``: seconds per request, in-process and as a cold command.

Each request runs in a fresh process (``python -m dimlint suggest …``: imports included, as a
user types it) and, after a warm-up, in-process through :func:`dimlint.cli.main`. The figures
are the minimum over ``--runs`` runs of CPU time (user + system, which two shared cores disturb
far less than wall time) and, for the cold process, also wall time. The goal (issue 14) is under
2 s per request on this machine.

Usage: python bench/suggest.py [--runs 3]
Writes bench/results-suggest.md and prints the same table.
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results-suggest.md"

#: Requests as typed after ``dimlint suggest`` (split on spaces).
REQUESTS: list[list[str]] = [
    text.split()
    for text in (
        "--params 0.5B",
        "--params 8B --budget 1xH100-80GB --context 32768",
        "--params 70B --budget 8xH100-80GB --context 32768 --target vllm:tp=8",
        "--params 405B --target vllm:tp=8 --target megatron:tp=8,pp=8",
        "--params 30B --active 3B --like qwen2 --moe experts=128,top_k=8,shared=1",
        "--params 200B --active 20B --mla --moe experts=128,top_k=8,shared=1",
        "--params 9B --like gemma2 --explain",
        "--params 70B --budget 1xRTX4090-24GB --context 8192",  # impossible: exit 1
    )
]


def _cold(argv: list[str]) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, exit code) of one fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "dimlint", "suggest", *argv],
        env=env,
        capture_output=True,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.returncode


def _warm(argv: list[str]) -> float:
    from dimlint.cli import main

    start = time.process_time()
    main(["suggest", *argv], io.StringIO(), io.StringIO())
    return time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    _warm(REQUESTS[0])  # imports and caches, once
    rows = []
    for argv in REQUESTS:
        cold = [_cold(argv) for _ in range(args.runs)]
        warm = min(_warm(argv) for _ in range(args.runs))
        rows.append(
            (
                " ".join(argv),
                min(c[0] for c in cold),
                min(c[1] for c in cold),
                warm,
                cold[0][2],
            )
        )
    lines = [
        f"`dimlint suggest`: min of {args.runs} runs (Python {sys.version.split()[0]},"
        f" {os.cpu_count()} CPUs shared). Goal: under 2 s per request.",
        "",
        "| request | exit | cold CPU s | cold wall s | in-process CPU s |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| `{request}` | {code} | {cpu:.2f} | {wall:.2f} | {warm:.2f} |"
        for request, cpu, wall, warm, code in rows
    ]
    text = "\n".join(lines) + "\n"
    # the ten-target table of bench/suggest_released.py lives below: kept as it is
    previous = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    marker = "\n## Ten public targets"
    kept = marker + previous.split(marker, 1)[1] if marker in previous else ""
    RESULTS.write_text(text + kept, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
