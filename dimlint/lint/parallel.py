"""Lint many files, in worker processes when there is enough Python code to pay for them.

A JSON config lints in well under a millisecond, so JSON files always run in this process.
Python files cost tens of milliseconds each (building the libcst tree dominates), so when more
than :data:`PARALLEL_THRESHOLD` of them pass the cheap pre-filter they are linted by a process
pool. Workers run the same :func:`dimlint.lint.pipeline.lint_path` on the same inputs, and results
are
yielded in the order of the jobs, so the output is identical to a serial run.

``DIMLINT_JOBS`` sets the number of worker processes (``1``: never use a pool); by default it is
the number of CPUs this process may run on.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from dimlint.lint.pipeline import MAX_FILE_BYTES, lint_path
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection

#: Below this many Python files (after the pre-filter), starting workers costs more than it saves.
PARALLEL_THRESHOLD = 16
#: Files each worker gets at least, so that short runs do not start idle workers.
FILES_PER_WORKER = 8

Job = tuple[str, Selection]
Outcome = tuple[FileResult, bytes | None]


def workers() -> int:
    """How many processes may lint at once (``DIMLINT_JOBS``, else the usable CPUs)."""
    configured = os.environ.get("DIMLINT_JOBS", "").strip()
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _needs_parsing(path: str) -> bool:
    """A Python file the pre-filter lets through (unreadable ones are reported serially)."""
    if not path.endswith(".py"):
        return False
    from dimlint.sources.python.prefilter import may_have_configs
    from dimlint.sources.safeio import open_regular

    try:
        with open_regular(path) as handle:  # a FIFO named *.py must not block the run
            if os.fstat(handle.fileno()).st_size > MAX_FILE_BYTES:
                return False
            return may_have_configs(handle.read())
    except OSError:
        return False


def lint_paths(jobs: Sequence[Job]) -> Iterator[Outcome]:
    """``lint_path`` of every job, in order; heavy Python files in worker processes."""
    available = workers()
    heavy = (
        [index for index, (path, _) in enumerate(jobs) if _needs_parsing(path)]
        if available > 1 and len(jobs) > PARALLEL_THRESHOLD
        else []
    )
    if len(heavy) <= PARALLEL_THRESHOLD:
        for path, selection in jobs:
            yield lint_path(path, selection)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    count = min(available, max(2, len(heavy) // FILES_PER_WORKER))
    chunk = max(1, len(heavy) // (count * 4))  # a few chunks per worker: balance vs. overhead
    try:
        pool = ProcessPoolExecutor(max_workers=count)
        done = pool.map(_lint_job, [jobs[index] for index in heavy], chunksize=chunk)
    except (OSError, NotImplementedError):  # no semaphores or processes here: lint in-process
        for path, selection in jobs:
            yield lint_path(path, selection)
        return
    parsed = set(heavy)
    broken = False
    with pool:
        for index, (path, selection) in enumerate(jobs):
            if index in parsed and not broken:
                try:
                    yield next(done)
                    continue
                except BrokenProcessPool:  # a worker died (killed, out of memory): go on here
                    broken = True
            yield lint_path(path, selection)


def _lint_job(job: Job) -> Outcome:
    return lint_path(*job)
