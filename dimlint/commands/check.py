"""``dimlint check``: discover, lint, optionally fix, report, and choose the exit code."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Sequence
from typing import TextIO

from dimlint.diagnostics import Diagnostic, Severity
from dimlint.discovery import discover
from dimlint.errors import UsageError
from dimlint.linter import FileResult, lint_bytes, lint_file, read_file
from dimlint.registry import all_rules
from dimlint.report import RENDERERS
from dimlint.selection import Selection, SelectionError, validate_codes
from dimlint.settings import Settings, SettingsError, load_file, nearest
from dimlint.sources.jsonfile import InputProblem


def _settings_for(path: str, args: argparse.Namespace, explicit: Settings | None) -> Settings:
    if args.no_config:
        return Settings()
    if explicit is not None:
        return explicit
    return nearest(os.path.dirname(os.path.abspath(path)))


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dimlint check`` with parsed arguments; return the exit code."""
    try:
        validate_codes([*(args.select or ()), *args.extend_select, *args.ignore])
    except SelectionError as error:
        raise UsageError(str(error)) from None
    try:
        explicit = load_file(args.config) if args.config and not args.no_config else None
        cwd_settings = _settings_for(os.path.join(os.getcwd(), "_"), args, explicit)
    except SettingsError as error:
        raise UsageError(str(error)) from None

    paths = args.paths or ["."]
    missing = [p for p in paths if not os.path.lexists(p)]
    for path in missing:
        err.write(f"dimlint: error: {path}: no such file or directory\n")
    existing = [p for p in paths if p not in missing]

    diagnostics: list[Diagnostic] = []
    sources: dict[str, str] = {}
    fixed_files = fixed_count = 0
    for target in discover(existing, cwd_settings.exclude):
        try:
            settings = _settings_for(target.path, args, explicit)
        except SettingsError as error:
            raise UsageError(str(error)) from None
        selection = settings.selection(args.select, args.extend_select, args.ignore)
        data = read_file(target.path)
        if isinstance(data, InputProblem):
            result = lint_file(target.path, selection)
        else:
            result = lint_bytes(target.path, data, selection)
            if (args.fix or args.diff) and result.document is not None:
                result, applied = _fix(target.path, data, result, selection, args, out, err)
                fixed_files += bool(applied)
                fixed_count += applied
        if result.skipped and args.verbose:
            err.write(f"dimlint: skipped {target.path}: {result.skipped}\n")
        if result.document is not None:
            sources[target.path] = result.document.text
        diagnostics.extend(result.diagnostics)

    diagnostics.sort(key=lambda d: d.sort_key)
    fail_level = (
        Severity.parse(args.fail_level)
        if args.fail_level
        else (cwd_settings.fail_level or Severity.ERROR)
    )
    output_format = args.output_format or "full"
    if args.diff:
        pass  # the diff is the output
    elif args.statistics:
        out.write(_statistics(diagnostics))
    else:
        out.write(RENDERERS[output_format](diagnostics, sources))
        if output_format in ("full", "concise"):
            out.write(_summary(diagnostics, fixed_count, args))
    if args.show_fixes and fixed_count:
        err.write(f"dimlint: applied {fixed_count} fix(es) in {fixed_files} file(s)\n")
    if missing:
        return 2
    if args.diff:
        return 1 if fixed_files else 0
    failing = any(d.severity >= fail_level for d in diagnostics)
    return 1 if failing else 0


def _fix(
    path: str,
    data: bytes,
    result: FileResult,
    selection: Selection,
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
) -> tuple[FileResult, int]:
    """Apply (``--fix``) or show (``--diff``) the fixes of one file; return what remains."""
    from dimlint import fixer

    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return result, 0  # UTF-16: rewriting would change every byte
    outcome = fixer.fix_file(
        data, result, lambda new: lint_bytes(path, new, selection), unsafe=args.unsafe_fixes
    )
    if outcome.fixed is None:
        return result, 0
    if args.diff:
        out.write(fixer.unified_diff(path, data, outcome.fixed))
        return result, outcome.applied
    try:
        fixer.write_atomically(os.path.realpath(path), data, outcome.fixed)
    except OSError as error:
        err.write(f"dimlint: {path}: fix not written: {error}\n")
        return result, 0
    return outcome.result, outcome.applied


def _summary(diagnostics: Sequence[Diagnostic], fixed: int, args: argparse.Namespace) -> str:
    lines = []
    if fixed and args.fix:
        lines.append(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.")
    if not diagnostics:
        lines.append("All checks passed!")
        return "\n".join(lines) + "\n"
    by_severity = Counter(d.severity for d in diagnostics)
    parts = [
        f"{by_severity[s]} {s.label}{'s' if by_severity[s] != 1 and s is not Severity.INFO else ''}"
        for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        if by_severity[s]
    ]
    total = len(diagnostics)
    lines.append(f"Found {total} finding{'s' if total != 1 else ''} ({', '.join(parts)}).")
    safe = sum(1 for d in diagnostics if d.fix and d.fix.applicability.value == "safe")
    unsafe = sum(1 for d in diagnostics if d.fix and d.fix.applicability.value == "unsafe")
    if safe:
        lines.append(f"[*] {safe} fixable with --fix.")
    if unsafe:
        lines.append(f"{unsafe} more fixable with --fix --unsafe-fixes (these change shapes).")
    return "\n".join(lines) + "\n"


def _statistics(diagnostics: Sequence[Diagnostic]) -> str:
    rules = all_rules()
    counts = Counter(d.code for d in diagnostics)
    fixable = Counter(d.code for d in diagnostics if d.fix is not None)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        marker = "[*]" if fixable[code] else "   "
        lines.append(f"{count:6d}  {code}  {marker} {rules[code].name}")
    return "\n".join(lines) + ("\n" if lines else "")
