"""A small mutation tester: does any test notice when one line of a module is wrong?

Coverage says a line ran; a mutant says whether a test would notice it being wrong. This script
makes simple mutants of one module, one at a time, and runs the tests you name against each::

    nice python scripts/mutate.py dimlint/sources/confine.py tests/test_containment.py
    nice python scripts/mutate.py dimlint/memory/kvcache.py --lines 60-90 --max 10 \\
        -- tests/test_memory_values.py -k "kv or head"

(``--`` before the tests when pytest options such as ``-k`` follow.)

Mutants (from the module's syntax tree, never inside annotations, docstrings, f-strings or
``if TYPE_CHECKING:``):

* ``compare``: a comparison negated (``<`` → ``>=``, ``==`` → ``!=``, ``in`` → ``not in`` …);
* ``boundary``: a comparison moved by one (``<`` ↔ ``<=``, ``>`` ↔ ``>=``) and an integer
  compared against moved by ±1;
* ``boolean``: ``and`` ↔ ``or``, ``not x`` → ``x``, an ``if``/``while`` condition negated;
* ``arithmetic``: ``+`` ↔ ``-``, ``*`` → ``/``, ``/`` → ``*``, ``//`` → ``/``, ``%`` → ``//``;
* ``constant``: a returned constant changed (``True`` ↔ ``False``, a number + 1, a string
  emptied, ``None`` → ``0``);
* ``drop``: a statement (call, assignment, return, raise, break, continue) replaced by ``pass``.

Each mutant is the module's tree with one change, written back as source (``ast.unparse``:
comments and layout differ, meaning does not) over the module's file; the tests then run in a
subprocess (``pytest -x -q``, ``nice``, without bytecode files) with a time limit. A test run that
fails or times out kills the mutant. The module's original bytes are written back after every
mutant and on every exit: an exception, Ctrl-C, SIGTERM or SIGHUP. A copy of the original is kept
under the temporary folder while a mutant is on disk, and a later run restores it first if a run
was killed outright (SIGKILL, power loss). Before the first mutant the tests run once on the
original (through the same unparse), and must pass.

The report gives ``killed K/N`` and each surviving mutant with its line; the exit status is 0
when every mutant is killed, 1 when some survive, 2 on a usage error or a failing baseline.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

COMPARE_NEGATION: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.Gt: ast.LtE,
    ast.LtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
COMPARE_BOUNDARY: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
}
ARITHMETIC: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
}
#: Statements a ``drop`` mutant replaces with ``pass``.
DROPPABLE = (
    ast.Expr,
    ast.Assign,
    ast.AugAssign,
    ast.AnnAssign,
    ast.Return,
    ast.Raise,
    ast.Break,
    ast.Continue,
)
STATEMENT_LISTS = ("body", "orelse", "finalbody")


@dataclass(frozen=True)
class Mutant:
    """One change: the node's index in ``ast.walk`` order, what to do to it, and its label."""

    index: int
    kind: str
    variant: int
    line: int
    label: str


Change = Callable[[ast.AST], None]


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of the nodes no mutant touches: annotations, docstrings, f-strings, TYPE_CHECKING."""
    skipped: set[int] = set()

    def skip(node: ast.AST | None) -> None:
        if node is not None:
            skipped.update(id(inner) for inner in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.arg | ast.AnnAssign):
            skip(node.annotation)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            skip(node.returns)
        elif isinstance(node, ast.JoinedStr) or (
            isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING")
        ):
            skip(node)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                skip(first)
    return skipped


def _is_int(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int)
        and not isinstance(node.value, bool)
    )


ConstantValue = str | bytes | bool | int | float | complex | None


def _changed_constant(value: object) -> ConstantValue:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return "" if value else "x"
    if value is None:
        return 0
    return None


def _changes(node: ast.AST) -> Iterator[tuple[str, str, Change | None]]:
    """(kind, label, change) for every mutant of ``node``: a change edits the node in place;
    None replaces the node (``not x`` by ``x``)."""
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = type(node.ops[0])
        if op in COMPARE_NEGATION:
            yield (
                "compare",
                f"{op.__name__} → {COMPARE_NEGATION[op].__name__}",
                _set_op(0, COMPARE_NEGATION[op]),
            )
        if op in COMPARE_BOUNDARY:
            yield (
                "boundary",
                f"{op.__name__} → {COMPARE_BOUNDARY[op].__name__}",
                _set_op(0, COMPARE_BOUNDARY[op]),
            )
        for side, operand in (("left", node.left), ("right", node.comparators[0])):
            if isinstance(operand, ast.Constant) and _is_int(operand):
                value = int(operand.value)  # type: ignore[arg-type]  # _is_int: an int
                for delta in (1, -1):
                    label = f"{side} {value} → {value + delta}"
                    yield "boundary", label, _shift(side, delta)
    elif isinstance(node, ast.BoolOp):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        yield "boolean", f"{type(node.op).__name__} → {other.__name__}", _set_bool(other)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield "boolean", "not x → x", None  # the operand takes the node's place
    elif isinstance(node, ast.If | ast.While):
        yield "boolean", "condition negated", _negate_test
    elif isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        new = ARITHMETIC[type(node.op)]
        yield "arithmetic", f"{type(node.op).__name__} → {new.__name__}", _set_binop(new)
    elif isinstance(node, ast.Return) and isinstance(node.value, ast.Constant):
        changed = _changed_constant(node.value.value)
        yield "constant", f"return {node.value.value!r} → {changed!r}", _set_return(changed)


def _set_op(position: int, op: type[ast.cmpop]) -> Change:
    def change(node: ast.AST) -> None:
        assert isinstance(node, ast.Compare)
        node.ops[position] = op()

    return change


def _shift(side: str, delta: int) -> Change:
    def change(node: ast.AST) -> None:
        assert isinstance(node, ast.Compare)
        operand = node.left if side == "left" else node.comparators[0]
        assert isinstance(operand, ast.Constant)
        assert isinstance(operand.value, int)
        operand.value = operand.value + delta

    return change


def _set_bool(op: type[ast.boolop]) -> Change:
    def change(node: ast.AST) -> None:
        assert isinstance(node, ast.BoolOp)
        node.op = op()

    return change


def _negate_test(node: ast.AST) -> None:
    assert isinstance(node, ast.If | ast.While)
    node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)


def _set_binop(op: type[ast.operator]) -> Change:
    def change(node: ast.AST) -> None:
        assert isinstance(node, ast.BinOp)
        node.op = op()

    return change


def _set_return(value: ConstantValue) -> Change:
    def change(node: ast.AST) -> None:
        assert isinstance(node, ast.Return)
        node.value = ast.Constant(value=value)

    return change


def mutants(source: str, lines: list[tuple[int, int]] | None = None) -> list[Mutant]:
    """Every mutant of ``source`` (on ``lines`` only, when given), in a stable order."""
    tree = ast.parse(source)
    skipped = _skipped_nodes(tree)
    found: list[Mutant] = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skipped:
            continue
        line = getattr(node, "lineno", 0)
        if lines is not None and not any(low <= line <= high for low, high in lines):
            continue
        for variant, (kind, label, _) in enumerate(_all_changes(node)):
            found.append(Mutant(index, kind, variant, line, label))
    return found


def _all_changes(node: ast.AST) -> list[tuple[str, str, Change | None]]:
    """The mutants of one node: its own changes, then ``drop`` (replaced by ``pass``) when it is
    a statement that may go."""
    changes = list(_changes(node))
    if isinstance(node, DROPPABLE):
        changes.append(("drop", f"{type(node).__name__.lower()} dropped", None))
    return changes


def mutated_source(source: str, mutant: Mutant) -> str:
    """``source`` with ``mutant`` applied, as ``ast.unparse`` writes it."""
    tree = ast.parse(source)
    nodes = list(ast.walk(tree))
    target = nodes[mutant.index]
    kind, label, change = _all_changes(target)[mutant.variant]
    assert (kind, label) == (mutant.kind, mutant.label), "the module changed during the run"
    if change is not None:
        change(target)
    elif kind == "drop":
        _replace(tree, target, ast.Pass())
    else:
        assert isinstance(target, ast.UnaryOp)
        _replace(tree, target, target.operand)
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _replace(tree: ast.AST, old: ast.AST, new: ast.AST) -> None:
    """Put ``new`` where ``old`` is in its parent (a field or an item of a list field)."""
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(item is old for item in value):
                value[[item is old for item in value].index(True)] = new
                return
    raise ValueError("node not found in its tree")


# --- running ------------------------------------------------------------------------------------


def _backup_path(module: Path) -> Path:
    digest = hashlib.sha256(str(module.resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / "dimlint-mutate" / f"{digest}.orig"


def recover(module: Path) -> bool:
    """Restore ``module`` from the copy a killed run left (True when it did)."""
    backup = _backup_path(module)
    if not backup.exists():
        return False
    original = backup.read_bytes()
    restored = module.read_bytes() != original
    if restored:
        _write(module, original)
    backup.unlink()
    return restored


def _write(path: Path, data: bytes) -> None:
    """Replace ``path``'s bytes at once (a reader never sees half a module)."""
    temporary = path.with_name(f".{path.name}.mutate-{os.getpid()}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


class _Interrupted(Exception):
    pass


def _raise_interrupted(signum: int, frame: FrameType | None) -> None:
    del frame
    raise _Interrupted(signal.Signals(signum).name)


def run_tests(tests: list[str], timeout: float, cwd: Path) -> str:
    """``passed``, ``failed`` or ``timeout`` for one pytest run in its own process group."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-x", "-q"]
    command += ["-p", "no:cacheprovider", *tests]
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        code = process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        return "timeout"
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    if code == 5:
        raise SystemExit(f"mutate: no tests collected by {' '.join(tests)}")
    return "passed" if code == 0 else "failed"


@dataclass
class Report:
    total: int
    killed: int
    survivors: list[Mutant]

    def lines(self, module: str) -> list[str]:
        out = [f"{module}: killed {self.killed}/{self.total}"]
        out += [f"  survived {module}:{m.line}: {m.kind}: {m.label}" for m in self.survivors]
        return out


def mutate(
    module: Path,
    tests: list[str],
    *,
    lines: list[tuple[int, int]] | None = None,
    timeout: float = 120.0,
    limit: int | None = None,
    cwd: Path | None = None,
    progress: Callable[[str], None] = lambda _: None,
) -> Report:
    """Run every mutant of ``module`` against ``tests``; the module is restored on every exit."""
    if recover(module):
        progress(f"restored {module} from a run that was killed")
    original = module.read_bytes()
    source = original.decode("utf-8")
    found = mutants(source, lines)
    if limit is not None and len(found) > limit:
        step = len(found) / limit
        found = [found[int(i * step)] for i in range(limit)]
    backup = _backup_path(module)
    backup.parent.mkdir(parents=True, exist_ok=True)
    previous = {
        signum: signal.signal(signum, _raise_interrupted)
        for signum in (signal.SIGTERM, signal.SIGHUP)
    }
    workdir = cwd or Path.cwd()
    survivors: list[Mutant] = []
    try:
        backup.write_bytes(original)
        _write(module, (ast.unparse(ast.parse(source)) + "\n").encode())
        if run_tests(tests, timeout, workdir) != "passed":
            raise SystemExit(f"mutate: {' '.join(tests)} fail on the unmutated {module}")
        for number, mutant in enumerate(found, 1):
            _write(module, mutated_source(source, mutant).encode())
            started = time.monotonic()
            outcome = run_tests(tests, timeout, workdir)
            _write(module, original)
            if outcome == "passed":
                survivors.append(mutant)
            seconds = time.monotonic() - started
            progress(
                f"[{number}/{len(found)}] line {mutant.line} {mutant.kind} ({mutant.label}):"
                f" {'SURVIVED' if outcome == 'passed' else outcome} in {seconds:.0f}s"
            )
    finally:
        _write(module, original)
        backup.unlink(missing_ok=True)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return Report(len(found), len(found) - len(survivors), survivors)


def _line_ranges(text: str) -> tuple[int, int]:
    low, _, high = text.partition("-")
    try:
        return int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: write a line or a range, 10-40") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", type=Path, help="the .py file to mutate")
    parser.add_argument("tests", nargs="+", help="pytest arguments: test files, -k, node ids")
    parser.add_argument("--lines", type=_line_ranges, action="append", help="e.g. 60-90")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per mutant")
    parser.add_argument("--max", type=int, default=None, help="at most this many, spread out")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    args = parser.parse_args(argv)
    if not args.module.is_file():
        parser.error(f"{args.module}: no such file")
    if args.list:
        for mutant in mutants(args.module.read_text(encoding="utf-8"), args.lines):
            print(f"{args.module}:{mutant.line}: {mutant.kind}: {mutant.label}")
        return 0
    try:
        report = mutate(
            args.module,
            args.tests,
            lines=args.lines,
            timeout=args.timeout,
            limit=args.max,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except _Interrupted as signal_name:
        print(f"mutate: stopped by {signal_name}; {args.module} restored", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print(f"mutate: interrupted; {args.module} restored", file=sys.stderr)
        return 130
    except SystemExit as error:
        print(error, file=sys.stderr)
        return 2
    print("\n".join(report.lines(str(args.module))))
    return 0 if not report.survivors else 1


if __name__ == "__main__":
    sys.exit(main())
