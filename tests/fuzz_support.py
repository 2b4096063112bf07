"""Running ``dimlint`` in-process on hostile input, with the checks every fuzz test shares.

``run`` calls :func:`dimlint.cli.main` with a wall-clock alarm (a hang becomes a failure, not a
stuck test run), captures both streams, and records every file opened for writing, so that a
test can assert that nothing outside the checked roots was written.
"""

from __future__ import annotations

import builtins
import io
import json
import os
import signal
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dimlint.cli import main


class Hang(BaseException):
    """Raised by the alarm inside a run that took longer than its limit."""


@dataclass
class Outcome:
    code: int
    stdout: str
    stderr: str
    seconds: float
    written: list[str] = field(default_factory=list)

    def problems(self, roots: Sequence[Path], *, usage: bool = False) -> list[str]:
        """What breaks the contract of issue 10 (empty when the run was fine)."""
        found = []
        allowed = (0, 1, 2) if usage else (0, 1)
        if self.code not in allowed:
            found.append(f"exit code {self.code}")
        if "internal error" in self.stderr or "Traceback" in self.stderr:
            found.append(f"internal error: {self.stderr.strip()[-2000:]}")
        resolved = [str(root.resolve()) for root in roots]
        for path in self.written:
            real = os.path.realpath(path)
            if not any(real == root or real.startswith(root + os.sep) for root in resolved):
                found.append(f"opened {path} for writing, outside {resolved}")
        return found


_WRITE_MODES = frozenset("wax+")


@contextmanager
def _watch_writes(written: list[str]) -> Iterator[None]:
    """Record the path of every ``open``/``os.open`` for writing during the run."""
    real_open, real_os_open = builtins.open, os.open

    def watched_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if isinstance(file, str | bytes | os.PathLike) and _WRITE_MODES & set(mode):
            written.append(os.fsdecode(file))
        return real_open(file, mode, *args, **kwargs)

    def watched_os_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND):
            written.append(os.fsdecode(path))
        return real_os_open(path, flags, *args, **kwargs)

    builtins.open, os.open = watched_open, watched_os_open  # type: ignore[assignment]
    try:
        yield
    finally:
        builtins.open, os.open = real_open, real_os_open  # type: ignore[assignment]


def run(argv: Sequence[str], limit: float = 10.0, cwd: Path | None = None) -> Outcome:
    """``main(argv)`` with an alarm after ``limit`` seconds (raises :class:`Hang`)."""

    def on_alarm(_signum: int, _frame: Any) -> None:
        raise Hang(f"dimlint {' '.join(argv)[:300]} ran longer than {limit} s")

    out, err = io.StringIO(), io.StringIO()
    written: list[str] = []
    previous = signal.signal(signal.SIGALRM, on_alarm)
    here = os.getcwd()
    start = time.perf_counter()
    try:
        if cwd is not None:
            os.chdir(cwd)
        signal.setitimer(signal.ITIMER_REAL, limit)
        with _watch_writes(written):
            code = main([*argv], stdout=out, stderr=err)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(here)
    return Outcome(code, out.getvalue(), err.getvalue(), time.perf_counter() - start, written)


# --- the properties every generated input must keep ---------------------------------------


def _slice(text: str, line: int, column: int, end_line: int, end_column: int) -> str | None:
    """The text between two 1-based (line, code-point column) positions, lines split on \\n."""
    lines = text.split("\n")
    if not (1 <= line <= end_line <= len(lines)):
        return None
    start = sum(len(item) + 1 for item in lines[: line - 1]) + column - 1
    end = sum(len(item) + 1 for item in lines[: end_line - 1]) + end_column - 1
    return text[start:end] if 0 <= start <= end <= len(text) else None


def _resolve(value: Any, pointer: str) -> tuple[bool, Any]:
    for raw in pointer.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return False, None
    return True, value


def _same(left: Any, right: Any) -> bool:
    return json.dumps(left, sort_keys=True, allow_nan=True) == json.dumps(
        right, sort_keys=True, allow_nan=True
    )


def _json_value(text: str) -> tuple[bool, Any]:
    try:
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _python_parses(data: bytes) -> bool:
    import ast

    try:
        ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
        return False
    return True


def _is_expression(text: str) -> bool:
    import ast

    try:
        ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def check_findings(findings: list[dict[str, Any]], original: bytes, name: str) -> list[str]:
    """Positions slice back to their values; edits replace whole values (JSON output)."""
    found: list[str] = []
    try:
        text = original.decode("utf-8")
    except UnicodeDecodeError:
        return found
    if "\r" in text or "\u2028" in text or "\u2029" in text or text.startswith("\ufeff"):
        return found  # line splitting of such files is issue 10 item 4 (not this property)
    is_json = name.endswith(".json")
    parsed, document = _json_value(text) if is_json else (False, None)
    for finding in findings:
        if not str(finding.get("file", "")).endswith(name) or finding.get("line") is None:
            continue
        code = finding.get("code")
        piece = _slice(text, finding["line"], finding["column"], finding["end_line"],
                       finding["end_column"])  # fmt: skip
        pointer = finding.get("pointer")
        if is_json and parsed and pointer and code not in ("DL001", "DL002") and piece:
            exists, expected = _resolve(document, pointer)
            ok, value = _json_value(piece)
            key = pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            # a finding on a whole object or list (a sub-config) points at its opening bracket
            opening = isinstance(expected, dict | list) and piece in ("{", "[")
            if exists and not opening and not (ok and (_same(value, expected) or value == key)):
                found.append(f"{code} at {pointer}: position slices to {piece[:80]!r}")
        python_finding = not is_json and piece and code not in ("DL001", "DL701")
        if python_finding and not (_is_expression(piece) or piece.isidentifier()):
            found.append(f"{code}: position slices to {piece[:80]!r}, not an expression")
        fix = finding.get("fix")
        for edit in (fix or {}).get("edits", []) if code not in ("DL002", "DL701") else []:
            old = _slice(text, edit["line"], edit["column"], edit["end_line"], edit["end_column"])
            if old is None:
                found.append(f"{code}: an edit outside the file ({edit})")
            elif is_json and parsed and not _json_value(old)[0]:
                found.append(f"{code}: an edit replaces {old[:80]!r}, not a whole JSON value")
            elif not is_json and not _is_expression(old):
                found.append(f"{code}: an edit replaces {old[:80]!r}, not an expression")
    return found


def verify(argv: Sequence[str], root: Path, outcome: Outcome, main: str, original: bytes,
           *, usage: bool = False) -> list[str]:  # fmt: skip
    """Every property of issue 10 for one run (empty: all held)."""
    found = outcome.problems([root], usage=usage)
    if "json" in argv and argv[0] == "check" and outcome.stdout.strip().startswith("["):
        try:
            findings = json.loads(outcome.stdout)
        except ValueError:
            findings = None
            if "--diff" not in argv:
                found.append("--output-format json printed something that is not JSON")
        if isinstance(findings, list) and "--fix" not in argv:
            found += check_findings(findings, original, main)
    path = root / main
    if "--fix" in argv and path.exists():
        fixed = path.read_bytes()
        if fixed != original:
            was_json = _json_value(original.decode("utf-8", "replace"))[0]
            still_json = _json_value(fixed.decode("utf-8", "replace"))[0]
            if main.endswith(".json") and was_json and not still_json:
                found.append("--fix turned valid JSON into invalid JSON")
            if main.endswith(".py") and _python_parses(original) and not _python_parses(fixed):
                found.append("--fix turned valid Python into invalid Python")
    return found
