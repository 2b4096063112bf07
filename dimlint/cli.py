"""Command-line interface: ``dimlint check``, ``dimlint rule``, ``dimlint rules``.

``main(argv)`` returns the exit code and never calls ``sys.exit``: 0 when nothing reaches the
fail level, 1 when something does, 2 for usage errors, unreadable settings, missing paths and
internal errors (one line, with the traceback only under ``--verbose``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from dimlint import __version__
from dimlint.errors import UsageError

FORMATS = ("full", "concise", "json", "github", "sarif", "junit", "auto")


def _codes(text: str) -> tuple[str, ...]:
    return tuple(part.strip().upper() for part in text.split(",") if part.strip())


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter with the width given, so that it does not import shutil at start-up."""
    try:
        width = os.get_terminal_size().columns - 2
    except OSError:
        width = 98
    return argparse.HelpFormatter(prog, width=width)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        formatter_class=_formatter,
        prog="dimlint",
        description="Find transformer config shapes that crash, run slowly or fail to shard.",
    )
    parser.add_argument("--version", action="version", version=f"dimlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check",
        formatter_class=_formatter,
        help="check model configs (default: the current folder)",
    )
    check.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: .)")
    check.add_argument(
        "--output-format",
        choices=FORMATS,
        default=None,
        help="default: auto (github under GitHub Actions, else full)",
    )
    check.add_argument(
        "--select",
        type=_codes,
        default=None,
        help="codes or prefixes to run (replaces the defaults)",
    )
    check.add_argument("--extend-select", type=_codes, default=(), help="codes or prefixes to add")
    check.add_argument("--ignore", type=_codes, default=(), help="codes or prefixes to skip")
    check.add_argument(
        "--fail-level",
        choices=("error", "warning", "info"),
        default=None,
        help="lowest severity that fails the run (default: error)",
    )
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument(
        "--unsafe-fixes",
        action="store_true",
        help="with --fix/--diff: also apply fixes that change shapes",
    )
    check.add_argument(
        "--diff", action="store_true", help="print the fixes as a diff instead of writing them"
    )
    check.add_argument("--show-fixes", action="store_true", help="list the fixes applied")
    check.add_argument(
        "--config", default=None, help="settings file (dimlint.toml or pyproject.toml)"
    )
    check.add_argument("--no-config", action="store_true", help="ignore every settings file")
    check.add_argument("--baseline", default=None, help="report only findings not in this baseline")
    check.add_argument(
        "--write-baseline", default=None, metavar="FILE", help="record the current findings"
    )
    check.add_argument(
        "--sarif-file", default=None, metavar="FILE", help="also write a SARIF report to FILE"
    )
    check.add_argument(
        "--statistics", action="store_true", help="print counts per rule instead of findings"
    )
    check.add_argument(
        "--verbose", action="store_true", help="say which files were skipped and why"
    )

    rule = commands.add_parser("rule", formatter_class=_formatter, help="explain one rule")
    rule.add_argument("code")
    commands.add_parser("rules", formatter_class=_formatter, help="list every rule")
    return parser


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = build_parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        # argparse prints --version, --help and usage errors itself: send them to our streams
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            args = parser.parse_args(arguments)
    except SystemExit as exit_request:
        return 0 if exit_request.code in (0, None) else 2
    verbose = bool(getattr(args, "verbose", False))
    try:
        if args.command == "check":
            from dimlint.commands.check import run_check

            return run_check(args, out, err)
        if args.command == "rule":
            from dimlint.catalogue import print_rule

            return print_rule(args.code, out, err)
        if args.command == "rules":
            from dimlint.catalogue import print_rules

            return print_rules(out)
        parser.print_help(out)
        return 2
    except UsageError as error:
        err.write(f"dimlint: error: {error}\n")
        return 2
    except KeyboardInterrupt:
        err.write("dimlint: interrupted\n")
        return 2
    except Exception as error:  # the one place an unexpected failure becomes exit code 2
        if verbose:
            import traceback

            traceback.print_exc(file=err)
        err.write(
            f"dimlint: internal error: {type(error).__name__}: {error}"
            " (rerun with --verbose for the traceback)\n"
        )
        return 2


def main_entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
