"""Benchmark the Python front end: files per second, and what keeping libcst out of JSON runs saves.

* **Model code**: ``dimlint check`` over every ``configuration_*.py`` of the installed
  transformers, in one process (``DIMLINT_JOBS=1``), against the floor of parsing the same files
  with libcst alone (no analysis) and, for scale, with CPython's ``ast``. The parallel run
  (default ``DIMLINT_JOBS``) is compared with the serial one by wall time: its CPU time is the
  serial one plus the workers' start-up. Wall times are only meaningful on an otherwise idle
  machine.
* **transformers' whole ``models/`` tree** (``--tree``): ``dimlint check`` over the folder, in one
  process, as shipped (``ast`` reads every file first, libcst only those with a finding or a
  ``noqa``) and with every file read by libcst, against ``ast.parse`` of the same ``.py`` files
  in the same run — the floor the issue measures against.
* **Other Python code**: ``dimlint check`` over Python files that are not model code (pip's
  sources), which the pre-filter rejects without building a syntax tree.
* **JSON-only runs**: ``dimlint check examples/qwen2-7b/config.json`` as it is, and with
  ``import libcst`` forced first — the cost every JSON-only run would pay if the Python front end
  were imported eagerly.

Each figure is the minimum over several runs of the child's CPU time (user + system; wall time
for the parallel run), runs of different cases interleaved. The package is byte-compiled first.

Usage: python bench/bench_python.py [--runs 5] [--tree [--no-libcst-tree]]
Writes bench/results-python.md and prints the same table.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ONE_CONFIG = ROOT / "examples" / "qwen2-7b" / "config.json"

#: ``dimlint check`` as the console script runs it (``main_entry``: its collector thresholds).
CHECK = (
    "import sys\nfrom dimlint.cli import main_entry\n"
    "sys.argv = ['dimlint', 'check', '--no-config', *sys.argv[1:]]\nmain_entry()\n"
)
CHECK_WITH_LIBCST = "import libcst\n" + CHECK
CHECK_LIBCST_ONLY = (
    "from dimlint.lint import python_front\n"
    "python_front._lint_by_ast = lambda *args: False\n" + CHECK
)
PARSE_FLOOR = (
    "import sys, libcst\nfor name in open(sys.argv[1]).read().splitlines():\n"
    "    with open(name, encoding='utf-8') as f:\n        libcst.parse_module(f.read())\n"
)
AST_FLOOR = (
    "import sys, ast\nfor name in open(sys.argv[1]).read().splitlines():\n"
    "    with open(name, encoding='utf-8') as f:\n        ast.parse(f.read())\n"
)
CHECK_FROM_LIST = (
    "import sys\nfrom dimlint.cli import main_entry\n"
    "files = open(sys.argv[1]).read().splitlines()\n"
    "sys.argv = ['dimlint', 'check', '--no-config', '--output-format', 'concise', *files]\n"
    "main_entry()\n"
)


def cpu_seconds(command: Sequence[str], env: dict[str, str] | None = None) -> float:
    """CPU time (user + sys) of one child process and the processes it waited for."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        env={**os.environ, **(env or {})},
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def wall_seconds(command: Sequence[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        env={**os.environ, **(env or {})},
    )
    return time.perf_counter() - started


def transformers_files() -> list[str]:
    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        return []
    return sorted(
        str(p) for p in (Path(spec.origin).parent / "models").glob("*/configuration_*.py")
    )


def models_tree() -> Path | None:
    spec = importlib.util.find_spec("transformers")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "models"


def other_python_files() -> list[str]:
    spec = importlib.util.find_spec("pip")
    if spec is None or spec.origin is None:
        return []
    return sorted(str(p) for p in Path(spec.origin).parent.rglob("*.py"))


def listing(files: list[str]) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write("\n".join(files))
    return handle.name


def measure(cases: dict[str, Callable[[], float]], runs: int) -> dict[str, float]:
    """Minimum of each case over ``runs`` rounds, cases interleaved within a round."""
    best = {name: float("inf") for name in cases}
    for _ in range(runs):
        for name, run in cases.items():
            best[name] = min(best[name], run())
    return best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--tree", action="store_true", help="also check transformers' whole models/ tree"
    )
    parser.add_argument(
        "--no-libcst-tree",
        action="store_true",
        help="with --tree, leave out the run that reads every file with libcst (minutes a run)",
    )
    args = parser.parse_args(argv)

    compileall.compile_dir(str(ROOT / "dimlint"), quiet=1)
    python = sys.executable
    models = transformers_files()
    others = other_python_files()
    model_list, other_list = listing(models), listing(others)
    serial = {"DIMLINT_JOBS": "1"}
    one = str(ONE_CONFIG)
    cases: dict[str, Callable[[], float]] = {
        "json": lambda: cpu_seconds([python, "-c", CHECK, one]),
        "json+libcst": lambda: cpu_seconds([python, "-c", CHECK_WITH_LIBCST, one]),
    }
    if models:
        cases["models: dimlint serial"] = lambda: cpu_seconds(
            [python, "-c", CHECK_FROM_LIST, model_list], serial
        )
        cases["models: dimlint serial (wall)"] = lambda: wall_seconds(
            [python, "-c", CHECK_FROM_LIST, model_list], serial
        )
        cases["models: dimlint parallel (wall)"] = lambda: wall_seconds(
            [python, "-c", CHECK_FROM_LIST, model_list]
        )
        cases["models: libcst parse floor"] = lambda: cpu_seconds(
            [python, "-c", PARSE_FLOOR, model_list]
        )
        cases["models: ast parse"] = lambda: cpu_seconds([python, "-c", AST_FLOOR, model_list])
    tree = models_tree() if args.tree else None
    tree_files = sorted(str(p) for p in tree.rglob("*.py")) if tree is not None else []
    tree_list = listing(tree_files)
    if tree is not None:
        cases["tree: dimlint"] = lambda: cpu_seconds([python, "-c", CHECK, str(tree)], serial)
        if not args.no_libcst_tree:
            cases["tree: dimlint, libcst only"] = lambda: cpu_seconds(
                [python, "-c", CHECK_LIBCST_ONLY, str(tree)], serial
            )
        cases["tree: ast parse"] = lambda: cpu_seconds([python, "-c", AST_FLOOR, tree_list])
    if others:
        cases["others: dimlint"] = lambda: cpu_seconds(
            [python, "-c", CHECK_FROM_LIST, other_list], serial
        )
    started = time.perf_counter()
    best = measure(cases, args.runs)
    elapsed = time.perf_counter() - started
    os.unlink(model_list)
    os.unlink(other_list)
    os.unlink(tree_list)

    jobs = _workers()
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    lines = [
        f"Python front end: min of {args.runs} interleaved runs ({elapsed:.0f} s in all;"
        f" Python {sys.version.split()[0]}; {jobs} usable CPUs; load average after: {load}).",
        "",
        "| input | files | seconds | files / s | note |",
        "| --- | --- | --- | --- | --- |",
    ]
    if models:
        n = len(models)
        floor = best["models: libcst parse floor"]
        for label, key, note in (
            ("transformers configuration_*.py, one process", "models: dimlint serial", "CPU"),
            ("the same, one process", "models: dimlint serial (wall)", "wall"),
            (
                "the same, worker processes",
                "models: dimlint parallel (wall)",
                f"wall, {jobs} CPUs",
            ),
            ("the same, libcst.parse_module only", "models: libcst parse floor", "CPU, floor"),
            ("the same, ast.parse only", "models: ast parse", "CPU, for scale"),
        ):
            lines.append(f"| {label} | {n} | {best[key]:.2f} | {n / best[key]:.0f} | {note} |")
        ratio = best["models: dimlint serial"] / floor
        lines[-5] = lines[-5][:-2] + f", {ratio:.2f}× the parse floor |"
    if tree is not None:
        n, floor = len(tree_files), best["tree: ast parse"]
        for label, key in (
            ("transformers models/ tree, as shipped", "tree: dimlint"),
            ("the same, every file read by libcst", "tree: dimlint, libcst only"),
            ("the same files, ast.parse only", "tree: ast parse"),
        ):
            if key not in best:
                continue
            seconds = best[key]
            note = f"CPU, {seconds / floor:.2f}× the ast.parse floor"
            lines.append(f"| {label} | {n} | {seconds:.2f} | {n / seconds:.0f} | {note} |")
    if others:
        n = len(others)
        seconds = best["others: dimlint"]
        parsed = sum(_passes(name) for name in others)
        lines.append(
            f"| pip's own sources (not model code) | {n} | {seconds:.2f} | {n / seconds:.0f}"
            f" | CPU; the pre-filter lets {parsed} through |"
        )
    plain, forced = best["json"], best["json+libcst"]
    lines += [
        "",
        "| JSON-only run (`dimlint check examples/qwen2-7b/config.json`) | CPU seconds |",
        "| --- | --- |",
        f"| as shipped (libcst not imported) | {plain:.3f} |",
        f"| with `import libcst` forced first | {forced:.3f} |",
        f"| saved by the lazy import | {forced - plain:.3f} ({(forced - plain) / forced:.0%}) |",
    ]
    table = "\n".join(lines) + "\n"
    (ROOT / "bench" / "results-python.md").write_text(table, encoding="utf-8")
    print(table)
    return 0


def _passes(path: str) -> bool:
    from dimlint.sources.python.prefilter import may_have_configs

    return may_have_configs(Path(path).read_bytes())


def _workers() -> int:
    from dimlint.lint.parallel import workers

    return workers()


if __name__ == "__main__":
    raise SystemExit(main())
