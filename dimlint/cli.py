"""Command-line interface: ``dimlint check``, ``dimlint rule``, ``dimlint rules``.

``main(argv)`` returns the exit code and never calls ``sys.exit``: 0 when nothing reaches the
fail level, 1 when something does, 2 for usage errors, unreadable settings, missing paths and
internal errors (one line, with the traceback only under ``--verbose``).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO, TypeAlias

from dimlint import __version__
from dimlint.errors import RejectedInput, UsageError
from dimlint.report.escape import for_json, for_terminal, terminal_stream

#: What ``add_subparsers`` returns.
_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"

FORMATS = ("full", "concise", "json", "github", "sarif", "junit", "auto")
#: ``--dtype``/``--kv-dtype`` choices (dimlint.deploy.targets.DTYPES, not imported at start-up).
DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")


def _codes(text: str) -> tuple[str, ...]:
    return tuple(part.strip().upper() for part in text.split(",") if part.strip())


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter with the width given, so that it does not import shutil at start-up."""
    return argparse.HelpFormatter(prog, width=_width())


@functools.cache
def _width() -> int:
    """The terminal's width, asked once: argparse builds a formatter for every option it adds
    (to check its metavar), and asking each time cost a system call and an exception apiece."""
    try:
        return os.get_terminal_size().columns - 2
    except OSError:
        return 98


def _positive(text: str) -> int:
    """A count from the command line: ASCII digits, 1 up to ``MAX_COUNT`` (10^15)."""
    from dimlint.config.values import MAX_COUNT

    digits = text.strip()
    if not (digits.isascii() and digits.isdigit()) or int(digits[:30]) < 1:
        shown = text if len(text) <= 40 else f"{text[:20]}… ({len(text)} characters)"
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {shown!r}")
    if len(digits) > 16 or int(digits) > MAX_COUNT:
        raise argparse.ArgumentTypeError(
            f"a {len(digits.lstrip('0'))}-digit number: at most 10^15 (1,000,000,000,000,000)"
        )
    return int(digits)


def _degree(text: str) -> int:
    """A parallel degree from the command line (``--tp``, ``--pp``, ``--max-gpus``): a positive
    integer up to :data:`dimlint.deploy.targets.MAX_DEGREE` (1024), the limit every command
    that takes degrees keeps (``--target vllm:tp=2048`` is refused the same way)."""
    from dimlint.deploy.targets import MAX_DEGREE

    value = _positive(text)
    if value > MAX_DEGREE:
        raise argparse.ArgumentTypeError(
            f"{value:,} is above {MAX_DEGREE}, the largest parallel degree dimlint takes"
        )
    return value


def _add_deployment_options(check: argparse.ArgumentParser) -> None:
    """``--target``/``--budget``/``--context``…: turn on DL401–DL407, DL501, DL502."""
    check.add_argument(
        "--target",
        action="append",
        default=None,
        metavar="SPEC",
        help="deployment target, repeatable: vllm:tp=8, megatron:tp=4,pp=2,ep=8, hf:tp=4,"
        " sglang:tp=8, fa2, fa3, fp8",
    )
    check.add_argument("--budget", default=None, metavar="NxGPU", help="e.g. 8xH100-80GB")
    check.add_argument("--context", type=_positive, default=None, help="tokens per sequence")
    check.add_argument("--batch", type=_positive, default=None, help="sequences at once")
    check.add_argument("--dtype", choices=DTYPES, default=None, help="weight format")
    check.add_argument("--kv-dtype", choices=DTYPES, default=None, help="KV cache format")
    _add_training_options(check)


def _add_common_options(command: argparse.ArgumentParser) -> None:
    """What every command that reads a config accepts, as ``check`` does."""
    command.add_argument(
        "--config", default=None, help="settings file (dimlint.toml or pyproject.toml)"
    )
    command.add_argument("--no-config", action="store_true", help="ignore every settings file")
    command.add_argument(
        "--force",
        action="store_true",
        help="compute even from a config with errors (the output is labelled INVALID MODEL)",
    )
    command.add_argument(
        "--verbose", action="store_true", help="show the traceback of an internal error"
    )


def _add_training_options(command: argparse.ArgumentParser) -> None:
    """``--training`` and how the model is trained (``mem``, ``plan``, ``check``): the keys of
    the settings' ``training`` table; a flag left out keeps the settings' value, else the
    default (dimlint.deploy.training)."""
    command.add_argument(
        "--training",
        action="store_true",
        help="judge a training step (check: DL501; plan: each layout; mem: also) instead of"
        " serving; a megatron:/deepspeed: target implies it",
    )
    command.add_argument(
        "--optimizer", choices=("adam", "adam8bit", "sgd"), default=None, help="default adam"
    )
    command.add_argument(
        "--zero", type=int, choices=(0, 1, 2, 3), default=None, help="ZeRO stage (default 0)"
    )
    command.add_argument(
        "--dp",
        type=_positive,
        default=None,
        help="data-parallel size (ZeRO shards; default 1, or with --training --budget the GPUs"
        " left after tp × pp)",
    )
    command.add_argument(
        "--recompute",
        choices=("none", "selective", "full"),
        default=None,
        help="training activation recomputation (default none)",
    )
    command.add_argument(
        "--lora-rank",
        type=_positive,
        default=None,
        metavar="R",
        help="training: LoRA adapters of rank R on a frozen base (peft's count)",
    )
    command.add_argument(
        "--lora-targets",
        default=None,
        metavar="NAMES",
        help="training: comma-separated module names LoRA adapts (default: all-linear)",
    )
    command.add_argument(
        "--qlora",
        action="store_true",
        help="training: the frozen base in 4-bit NF4 with double quantization (bitsandbytes)",
    )
    command.add_argument(
        "--offload",
        choices=("none", "optimizer", "params"),
        default=None,
        help="training: DeepSpeed offload to CPU (optimizer: ZeRO-Offload, ZeRO 1-3;"
        " params: ZeRO-Infinity, ZeRO 3, also the optimizer)",
    )
    command.add_argument(
        "--attention",
        choices=("flash", "sdpa", "eager"),
        default=None,
        help="training: attention implementation (default: transformers' own, sdpa, or eager"
        " for the families that refuse sdpa such as Gemma-2); eager keeps the a·s² scores",
    )


def _add_mem_parser(commands: _Commands) -> None:
    """``dimlint mem``: parameters, weights, KV cache and memory per GPU."""
    mem = commands.add_parser(
        "mem",
        formatter_class=_formatter,
        help="parameters, weights, KV cache and memory per GPU of model configs",
    )
    mem.add_argument("paths", nargs="+", metavar="PATH", help="config.json files or folders")
    mem.add_argument(
        "--context", type=_positive, default=None, help="tokens (default: the model's longest)"
    )
    mem.add_argument("--batch", type=_positive, default=None, help="sequences (default: 1)")
    mem.add_argument("--dtype", choices=DTYPES, default=None, help="weights (default: config's)")
    mem.add_argument("--kv-dtype", choices=DTYPES, default=None, help="KV cache format")
    mem.add_argument("--tp", type=_degree, default=None, help="tensor-parallel size")
    mem.add_argument("--pp", type=_degree, default=None, help="pipeline-parallel size")
    mem.add_argument("--budget", default=None, metavar="NxGPU", help="e.g. 8xH100-80GB")
    _add_training_options(mem)
    mem.add_argument("--plot", default=None, metavar="FILE", help="chart (.png/.svg, matplotlib)")
    mem.add_argument("--output-format", choices=("table", "json"), default="table")
    _add_common_options(mem)


def _add_shapes_parser(commands: _Commands) -> None:
    """``dimlint shapes``: one decoder layer, stage by stage."""
    shapes = commands.add_parser(
        "shapes",
        formatter_class=_formatter,
        help="tensor shapes and parameters of one decoder layer, stage by stage",
    )
    shapes.add_argument("path", metavar="PATH", help="a config.json or a folder holding one")
    shapes.add_argument("--batch", type=_positive, default=None, help="sequences (default: 1)")
    shapes.add_argument(
        "--seq", type=_positive, default=None, help="tokens (default: the model's longest context)"
    )
    shapes.add_argument(
        "--layer", type=int, default=None, help="layer to walk (default: first MoE layer, or 0)"
    )
    shapes.add_argument("--output-format", choices=("table", "json"), default="table")
    _add_common_options(shapes)


def _add_check_parser(commands: _Commands) -> None:
    """``dimlint check``: lint configs, code and checkpoints."""
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
        "--skip-non-configs",
        action="store_true",
        help="treat the files named as a folder walk does: skip tokenizer files, JSONC tooling"
        " files and YAML templates instead of reporting them (the pre-commit hooks pass it)",
    )
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
    check.add_argument(
        "--no-weights",
        action="store_true",
        help="do not read the safetensors headers beside a config.json (DL503, DL610-DL612)",
    )
    _add_deployment_options(check)


def _add_plan_parser(commands: _Commands) -> None:
    """``dimlint plan``: parallel layouts and their per-GPU memory."""
    plan = commands.add_parser(
        "plan",
        formatter_class=_formatter,
        help="valid TP/PP/EP sizes per engine and per-GPU memory of each layout",
    )
    plan.add_argument("path", metavar="PATH", help="a config.json or a folder holding one")
    plan.add_argument("--gpu", default=None, help="GPU to fit on, e.g. H100-80GB")
    plan.add_argument(
        "--max-gpus",
        type=_degree,
        default=None,
        help="largest degree to try (default: the budget's GPU count, else 8)",
    )
    plan.add_argument(
        "--context", type=_positive, default=None, help="default: the model's longest context"
    )
    plan.add_argument("--batch", type=_positive, default=None, help="sequences (default: 1)")
    plan.add_argument("--dtype", choices=DTYPES, default=None, help="weights (default: config's)")
    plan.add_argument("--kv-dtype", choices=DTYPES, default=None, help="KV cache format")
    _add_training_options(plan)
    plan.add_argument("--output-format", choices=("table", "json"), default="table")
    _add_common_options(plan)


def _add_suggest_parser(commands: _Commands) -> None:
    """``dimlint suggest``: shapes near a target size."""
    from dimlint.commands.suggest import add_parser as add_suggest_parser

    add_suggest_parser(commands, formatter_class=_formatter)


def _add_server_parser(commands: _Commands) -> None:
    """``dimlint server``: the language server."""
    server = commands.add_parser(
        "server", formatter_class=_formatter, help="language server over stdio (dimlint[lsp])"
    )
    server.add_argument("--stdio", action="store_true", help="speak LSP on stdin/stdout (default)")


def _add_rule_parser(commands: _Commands) -> None:
    """``dimlint rule CODE``: one rule's documentation."""
    rule = commands.add_parser("rule", formatter_class=_formatter, help="explain one rule")
    rule.add_argument("code")


def _add_rules_parser(commands: _Commands) -> None:
    """``dimlint rules``: the catalogue."""
    commands.add_parser("rules", formatter_class=_formatter, help="list every rule")


_COMMANDS: dict[str, Callable[[_Commands], None]] = {
    "check": _add_check_parser,
    "plan": _add_plan_parser,
    "mem": _add_mem_parser,
    "shapes": _add_shapes_parser,
    "suggest": _add_suggest_parser,
    "server": _add_server_parser,
    "rule": _add_rule_parser,
    "rules": _add_rules_parser,
}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or with ``only`` naming a command, just that subcommand.

    Building every subcommand's options costs a few milliseconds of each run, which is a
    measurable share of checking one config: a run whose first argument is a command needs
    only that one (its ``--help``, usage line and errors are the same either way).
    """
    parser = argparse.ArgumentParser(
        formatter_class=_formatter,
        prog="dimlint",
        description="Find transformer config shapes that crash, run slowly or fail to shard.",
    )
    parser.add_argument("--version", action="version", version=f"dimlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, add in _COMMANDS.items():
        if only is None or only == name:
            add(commands)
    return parser


def main(
    argv: Sequence[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    out = stdout or sys.stdout
    err = terminal_stream(stderr or sys.stderr)  # messages quote paths and values: escaped
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments and arguments[0] in _COMMANDS else None)
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
        if args.command == "plan":
            from dimlint.commands.plan import run_plan

            return run_plan(args, out, err)
        if args.command == "mem":
            from dimlint.commands.mem import run_mem

            return run_mem(args, out, err)
        if args.command == "shapes":
            from dimlint.commands.shapes import run_shapes

            return run_shapes(args, out, err)
        if args.command == "suggest":
            from dimlint.commands.suggest import run_suggest

            return run_suggest(args, out, err)
        if args.command == "server":
            from dimlint.commands.server import run_server

            return run_server(err)
        if args.command == "rule":
            from dimlint.checks.catalogue import print_rule

            return print_rule(args.code, out, err)
        if args.command == "rules":
            from dimlint.checks.catalogue import print_rules

            return print_rules(out)
        parser.print_help(out)
        return 2
    except UsageError as error:
        err.write(f"dimlint: error: {error}\n")
        return 2
    except RejectedInput as rejected:
        from dimlint.report import renderer

        fmt = "json" if getattr(args, "output_format", None) == "json" else "full"
        text = renderer(fmt)(rejected.diagnostics, rejected.sources)
        out.write(for_json(text) if fmt == "json" else for_terminal(text))
        unreadable = any(
            d.code in ("DL001", "DL002", "DL003", "DL004", "DL005") for d in (rejected.diagnostics)
        )
        forcible = hasattr(args, "force") and not unreadable  # suggest --like has no --force
        hint = " (--force computes anyway, labelled as an invalid model)" if forcible else ""
        err.write(
            f"dimlint: {args.command}: the config has errors (shown above); nothing was"
            f" computed from it{hint}\n"
        )
        return 1
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0
    except KeyboardInterrupt:
        err.write("dimlint: interrupted\n")
        return 2
    except Exception as error:  # the one place an unexpected failure becomes exit code 2
        if verbose:
            import traceback

            traceback.print_exc(file=err)
        detail = _printable(f"{type(error).__name__}: {str(error)[:300]}")
        if args.command in ("mem", "plan", "shapes"):
            paths = getattr(args, "paths", None) or [getattr(args, "path", "")]
            err.write(
                f"dimlint {args.command}: cannot compute {', '.join(map(_printable, paths))}:"
                f" {detail} (a bug in dimlint: `dimlint check` may say what is wrong with the"
                " config; --verbose shows the traceback)\n"
            )
        else:
            err.write(
                f"dimlint: internal error: {detail} (rerun with --verbose for the traceback)\n"
            )
        return 2


def _printable(text: str) -> str:
    """One line, whatever the text holds (lone surrogates from a JSON escape included)."""
    return " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())


def _quiet_broken_pipe() -> None:
    """The reader of stdout went away (``dimlint check | head -1``): stop without a traceback,
    and point stdout at devnull so that the interpreter's final flush does not complain."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


#: Allocations between collections of the youngest generation, then collections between older
#: ones (CPython's defaults: 700, 10, 10). A check allocates many short-lived containers and
#: makes few cycles; at the defaults the collector ran hundreds of times over a 645-config
#: corpus, 2.6% of the run's instructions (``valgrind --tool=callgrind``). It still runs, so
#: memory stays bounded; mypy raises its thresholds the same way.
GC_THRESHOLDS = (50_000, 50, 100)


def main_entry() -> None:
    """Console-script entry point (a process of its own: the collector can be tuned for it)."""
    gc.set_threshold(*GC_THRESHOLDS)
    sys.exit(main())
