"""``dimlint check``: discover, lint, optionally fix, filter by baseline, report, exit code."""

from __future__ import annotations

import argparse
import os
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TextIO

from dimlint.checks import all_rules
from dimlint.diagnostics import Diagnostic, Severity
from dimlint.errors import UsageError
from dimlint.lint.discovery import discover
from dimlint.lint.parallel import lint_paths
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.results import FileResult, cannot_write
from dimlint.lint.selection import Selection, SelectionError, validate_codes
from dimlint.lint.settings import Settings, SettingsError, clear_cache, load_file, nearest
from dimlint.records import Record
from dimlint.report.escape import for_json, for_terminal

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment


class Run(Record):
    """Everything one ``check`` produced, before reporting."""

    diagnostics: list[Diagnostic]
    sources: dict[str, str]
    fixed: list[Diagnostic]
    fixed_files: int
    missing: list[str]


#: The settings of every file under ``--no-config`` (one object, so its selection is built once).
_NO_SETTINGS = Settings()


def _settings_for(path: str, args: argparse.Namespace, explicit: Settings | None) -> Settings:
    if args.no_config:
        return _NO_SETTINGS
    if explicit is not None:
        return explicit
    try:
        return nearest(os.path.dirname(os.path.abspath(path)))
    except SettingsError as error:
        raise UsageError(str(error)) from None


def output_format(requested: str | None) -> str:
    """``auto`` (and no choice at all) means GitHub annotations under GitHub Actions."""
    if requested in (None, "auto"):
        return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "full"
    return requested


def run_check(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run ``dimlint check`` with parsed arguments; return the exit code."""
    try:
        validate_codes([*(args.select or ()), *args.extend_select, *args.ignore])
        explicit = load_file(args.config) if args.config and not args.no_config else None
    except (SelectionError, SettingsError) as error:
        raise UsageError(str(error)) from None
    clear_cache()  # settings files may have changed since a previous run in-process
    _DEPLOYMENTS.clear()
    cwd_settings = _settings_for(os.path.join(os.getcwd(), "_"), args, explicit)
    _deployment_for(cwd_settings, args)  # a bad --target or --budget is a usage error up front

    for output in (args.write_baseline, args.sarif_file):
        _check_output_path(output)
    run = _collect(args, cwd_settings, explicit, out, err)
    diagnostics = run.diagnostics
    baseline = args.baseline or _setting_path(cwd_settings, "baseline")
    if args.write_baseline:
        from dimlint.lint import baseline as baselines

        try:
            baselines.write(args.write_baseline, diagnostics)
        except OSError as error:
            raise UsageError(
                f"cannot write the baseline {args.write_baseline}: {error.strerror or error}"
            ) from None
        err.write(f"dimlint: wrote {len(diagnostics)} findings to {args.write_baseline}\n")
        return 2 if run.missing else 0
    if baseline:
        from dimlint.lint import baseline as baselines

        diagnostics = baselines.new_findings(diagnostics, baseline)

    fail_level = Severity.ERROR
    if args.fail_level:
        fail_level = Severity.parse(args.fail_level)
    elif cwd_settings.fail_level is not None:
        fail_level = cwd_settings.fail_level
    _report(args, run._replace(diagnostics=diagnostics), out, err)
    if run.missing:
        return 2
    failing = any(d.severity >= fail_level for d in diagnostics)
    if args.diff:
        # like ruff: 1 when there is something to fix; also when a finding no fix removes fails
        return 1 if run.fixed_files or failing else 0
    return 1 if failing else 0


def _check_output_path(path: str | None) -> None:
    """A report or baseline path dimlint cannot write is a usage error, found before linting."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"cannot write {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"cannot write {path}: it is a folder; name a file")


def _setting_path(settings: Settings, key: str) -> str | None:
    value = settings.extra.get(key)
    if not isinstance(value, str):
        return None
    if settings.source is None or os.path.isabs(value):
        return value
    return os.path.join(os.path.dirname(settings.source), value)


def _collect(
    args: argparse.Namespace,
    cwd_settings: Settings,
    explicit: Settings | None,
    out: TextIO,
    err: TextIO,
) -> Run:
    """Lint (and fix) every discovered file."""
    paths = args.paths or ["."]
    hub_ids = [p for p in paths if p.startswith("hf://") or not os.path.lexists(p)]
    if hub_ids:
        from dimlint.sources.hub import parse_hub_id

        hub_ids = [p for p in hub_ids if parse_hub_id(p) is not None]
    missing = [p for p in paths if p not in hub_ids and not os.path.lexists(p)]
    for path in missing:
        err.write(f"dimlint: error: {path}: no such file or directory\n")
    run = Run([], {}, [], 0, missing)
    for hub_id in hub_ids:
        _check_hub(hub_id, args, cwd_settings, run, err)
    existing = [p for p in paths if p not in missing and p not in hub_ids]
    fixed_files = 0
    jobs: list[tuple[str, Selection]] = []

    walked: set[str] = set()

    def passed_over(path: str, reason: str) -> None:
        if args.verbose:
            err.write(f"dimlint: skipped {path}: {reason}\n")

    #: The selection of each settings object seen (most runs have one): built once, not per file.
    selections: dict[int, tuple[Settings, Selection]] = {}
    for found in discover(existing, cwd_settings.excludes, passed_over):
        target = found
        if found.explicit and getattr(args, "skip_non_configs", False):
            reason = _not_read_by_a_walk(found.path)
            if reason is not None:
                passed_over(found.path, reason)
                continue
            target = found._replace(explicit=False)  # judged as a walk judges its files
        settings = _settings_for(target.path, args, explicit)
        if not target.explicit and settings.excludes(target.path):
            continue  # excluded by the settings nearest to the file (a file named is checked)
        known = selections.get(id(settings))
        if known is None:
            selection = settings.selection(args.select, args.extend_select, args.ignore)
            selection = selection._replace(deployment=_deployment_for(settings, args))
            selections[id(settings)] = known = (settings, selection)
        selection = known[1]
        if target.companions:
            selection = selection._replace(companions=_companions(target.companions, args))
        jobs.append((target.path, selection))
        if not target.explicit:
            walked.add(target.path)
    roots = _roots(existing) if args.fix and not args.diff else ()
    for (path, selection), outcome in zip(jobs, lint_paths(jobs), strict=True):
        result, data = outcome
        if path in walked and (result.document is None or result.skipped or path.endswith(".py")):
            # a walked file that did not parse (a Python one keeps a document), or read but is
            # no model config
            from dimlint.lint.walkfilter import not_ours

            reason = not_ours(path, result, data)
            if reason is not None:
                result.diagnostics, result.skipped = [], reason
        if data is not None and data.startswith(UTF16_BOMS):
            cannot_write(result, "the file is UTF-16: rewriting it would change every byte")
        if data is not None and (args.fix or args.diff) and result.document is not None:
            try:
                result, applied = _fix(path, data, result, selection, args, roots, out, err)
            except BrokenPipeError:
                raise  # stdout is gone (--diff | head): the run ends, quietly (cli.py)
            except Exception as error:  # the per-file guard covers fixing too
                result, applied = _fix_crashed(path, result, error), []
            fixed_files += bool(applied)
            run.fixed.extend(applied)
        if args.verbose:
            err.write(_verbose_line(path, result))
            if result.traceback:
                err.write(f"dimlint: {path}: traceback of the failed check:\n{result.traceback}")
        if result.document is not None and not result.skipped:
            run.sources[path] = result.document.text
            for composed in getattr(result.document, "composed_from", ()):
                run.sources.setdefault(composed.path, composed.text)
        run.diagnostics.extend(result.diagnostics)
    from dimlint.lint.results import unique

    run.diagnostics[:] = unique(run.diagnostics)
    run.diagnostics.sort(key=lambda d: d.sort_key)
    return run._replace(fixed_files=fixed_files)


def _not_read_by_a_walk(path: str) -> str | None:
    """Why a folder walk would pass over the file at ``path`` (``--skip-non-configs``): not a
    kind of file dimlint reads, or JSON that is never a model config (``tokenizer.json``)."""
    from dimlint.lint.discovery import NOT_CONFIGS, _wanted_name

    name = os.path.basename(path)
    if name in NOT_CONFIGS:
        return f"{name} is never a model config"
    if not _wanted_name(name):
        return "not a file kind a folder walk reads"
    return None


def _check_hub(
    text: str, args: argparse.Namespace, settings: Settings, run: Run, err: TextIO
) -> None:
    """A Hub model (never fixed: there is no file here to write); a failure to fetch it is
    one line, like a missing path (exit 2), and the other paths are still checked."""
    from dimlint.api import lint_hub
    from dimlint.sources.hub import HubError, fetch, parse_hub_id

    hub_id = parse_hub_id(text)
    assert hub_id is not None
    try:
        snapshot = fetch(hub_id, weights=not args.no_weights)
        selection = settings.selection(args.select, args.extend_select, args.ignore)
        selection = selection._replace(deployment=_deployment_for(settings, args))
        result = lint_hub(snapshot, selection, weights=not args.no_weights)
    except HubError as error:
        err.write(f"dimlint: error: {error}\n")
        run.missing.append(text)
        return
    if result.skipped and args.verbose:
        err.write(f"dimlint: skipped {result.path}: {result.skipped}\n")
    if args.fix or args.diff:
        err.write(f"dimlint: {result.path}: not fixed: a Hub model has no file here to write\n")
    if result.document is not None and not result.skipped:
        run.sources[result.path] = result.document.text
    run.diagnostics.extend(result.diagnostics)


def _verbose_line(path: str, result: FileResult) -> str:
    """What ``--verbose`` says about one file: what was read, or why nothing was."""
    if result.skipped:
        return f"dimlint: skipped {path}: {result.skipped}\n"
    if result.read is None:
        found = len(result.diagnostics)
        return f"dimlint: {path}: not read ({found} finding{'s' if found != 1 else ''})\n"
    configs, layers = result.read
    parts = [f"{configs} config{'s' if configs != 1 else ''}"]
    if layers:
        parts.append(f"{layers} torch layer{'s' if layers != 1 else ''}")
    found = len(result.diagnostics)
    notes = "".join(f"dimlint: {path}: {note}\n" for note in result.notes)
    return (
        f"dimlint: checked {path}: read {' and '.join(parts)},"
        f" {found} finding{'s' if found != 1 else ''}\n{notes}"
    )


def _companions(names: tuple[str, ...], args: argparse.Namespace) -> tuple[str, ...]:
    """The files beside a config its checks read; ``--no-weights`` leaves the checkpoint out."""
    if not names or not args.no_weights:
        return names
    from dimlint.sources.filenames import is_weight_file

    return tuple(name for name in names if not is_weight_file(name))


_DEPLOYMENTS: dict[str | None, Deployment | None] = {}
#: ``check``'s training flags (dimlint.deploy.training.KEYS), read without importing it.
_TRAINING_FLAGS = (
    "training", "optimizer", "zero", "dp", "recompute", "attention", "lora_rank",
    "lora_targets", "qlora", "offload",
)  # fmt: skip


def _deployment_for(settings: Settings, args: argparse.Namespace) -> Deployment | None:
    """Targets and budget from the settings, replaced by the command line's; None without any."""
    if settings.source in _DEPLOYMENTS:
        return _DEPLOYMENTS[settings.source]
    given = (args.target, args.budget, args.context, args.batch, args.dtype, args.kv_dtype)
    keys = ("targets", "budget", "context", "batch", "dtype", "kv-dtype", "training")
    flags = [getattr(args, key, None) for key in _TRAINING_FLAGS]
    if (
        all(v is None for v in given)
        and all(flag is None or flag is False for flag in flags)
        and not any(k in settings.extra for k in keys)
    ):
        return None  # the plain lint path: nothing of the deployment code is imported
    from dimlint.deploy import targets
    from dimlint.deploy.training import training_flags

    try:
        found = targets.deployment(
            settings.extra,
            targets=args.target,
            budget=args.budget,
            context=args.context,
            batch=args.batch,
            dtype=args.dtype,
            kv_dtype=args.kv_dtype,
            training=bool(getattr(args, "training", False)),
            training_options=training_flags(args),
            source=settings.source,
        )
        if found is not None and found.budget is not None:
            from dimlint.memory import parse_budget

            parse_budget(found.budget)  # an unknown GPU is a usage error, listing the known ones
    except ValueError as error:
        raise UsageError(str(error)) from None
    _DEPLOYMENTS[settings.source] = found
    return found


def _roots(paths: Sequence[str]) -> tuple[str, ...]:
    """The real folders a fix may write into: each folder checked, and the folder of each file
    named (so a symlink committed to a repository cannot make ``--fix`` write outside it)."""
    folders = (p if os.path.isdir(p) else os.path.dirname(p) or "." for p in paths)
    return tuple(os.path.realpath(folder) for folder in folders)


def _fix_crashed(path: str, result: FileResult, error: Exception) -> FileResult:
    """A fix that raised: the file is left alone and the failure is reported on it."""
    from dimlint.lint.pipeline import crashed

    failed = crashed(path, error)
    result.diagnostics = [*result.diagnostics, *failed.diagnostics]
    result.traceback = failed.traceback
    return result


def _fix(
    path: str,
    data: bytes,
    result: FileResult,
    selection: Selection,
    args: argparse.Namespace,
    roots: Sequence[str],
    out: TextIO,
    err: TextIO,
) -> tuple[FileResult, list[Diagnostic]]:
    """Apply (``--fix``) or show (``--diff``) the fixes of one file; return what remains."""
    from dimlint.fix import apply as fixer

    if data.startswith(UTF16_BOMS):
        return result, []  # the fixes were already marked as not writable
    outcome = fixer.fix_file(
        data,
        result,
        lambda new: lint_bytes(path, new, selection),
        unsafe=args.unsafe_fixes,
        wanted=_fix_wanted(args),
    )
    if outcome.fixed is None:
        return result, []
    if args.diff:
        if output_format(args.output_format) in ("full", "concise"):
            out.write(printable(fixer.unified_diff(path, data, outcome.fixed)))
        return result, outcome.applied
    refusal = fixer.write_refusal(path, roots)
    if refusal is not None:
        err.write(f"dimlint: {path}: fix not written: {refusal}\n")
        cannot_write(result, refusal)
        return result, []
    try:
        fixer.write_atomically(os.path.realpath(path), data, outcome.fixed)
    except OSError as error:
        err.write(f"dimlint: {path}: fix not written: {error}\n")
        cannot_write(result, f"the file cannot be written ({error.strerror or error})")
        return result, []
    return outcome.result, outcome.applied


def _fix_wanted(args: argparse.Namespace) -> Callable[[Diagnostic], bool]:
    """Which findings ``--fix`` repairs: warnings and errors; an info finding only when its rule
    is named by its full code (``--select DL202``) or the fail level is ``info``. An info note
    is advice (a padded vocabulary, a rounder FFN), and ``--fix --unsafe-fixes`` over a folder
    must not rewrite every width a note mentions (NeMo BERT's vocab 30522 → 30528)."""
    named = {*(args.select or ()), *args.extend_select}
    floor = Severity.WARNING
    if args.fail_level and Severity.parse(args.fail_level) is Severity.INFO:
        floor = Severity.INFO

    def wanted(diagnostic: Diagnostic) -> bool:
        return diagnostic.severity >= floor or diagnostic.code in named

    return wanted


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def _report(args: argparse.Namespace, run: Run, out: TextIO, err: TextIO) -> None:
    from dimlint.report import renderer

    diagnostics = run.diagnostics
    chosen = output_format(args.output_format)
    if args.show_fixes and run.fixed:
        err.write(for_terminal(_fixed_listing(run.fixed, bool(args.diff))))
    if args.diff and chosen in ("full", "concise"):
        return  # the diff is the output; machine formats print the findings (fixes as edits)
    if args.statistics:
        out.write(for_terminal(_statistics(diagnostics)))
        return
    out.write(safe_output(chosen, renderer(chosen)(diagnostics, run.sources)))
    if chosen in ("full", "concise"):
        out.write(
            for_terminal(_summary(diagnostics, len(run.fixed), bool(args.fix), len(run.missing)))
        )
    if chosen == "github":
        _write_step_summary(diagnostics, err)
    if args.sarif_file:
        from dimlint.report import sarif
        from dimlint.sources.safeio import replace_atomically

        report = for_json(sarif.render(diagnostics, run.sources))
        try:
            replace_atomically(args.sarif_file, report.encode("utf-8"))
        except OSError as error:
            raise UsageError(
                f"cannot write the SARIF report {args.sarif_file}: {error.strerror or error}"
            ) from None


def safe_output(chosen: str, text: str) -> str:
    """The report of format ``chosen`` with what it quotes from the input made safe to print
    (:mod:`dimlint.report.escape`): JSON escapes in the JSON formats, Python escapes in the
    others."""
    return for_json(text) if chosen in ("json", "sarif", "junit") else for_terminal(text)


def printable(text: str) -> str:
    """``text`` with lone surrogates (a ``"\\ud800"`` escape in a key or ``model_type``) written
    as their escapes: valid inside JSON strings (the same escape reads back as the same key), and
    encodable by any UTF-8 stream, which a lone surrogate is not."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def _write_step_summary(diagnostics: Sequence[Diagnostic], err: TextIO) -> None:
    """Append the full list to ``$GITHUB_STEP_SUMMARY`` (annotations are capped per step)."""
    from dimlint.report.github import step_summary

    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    try:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(for_terminal(step_summary(diagnostics)))
    except OSError as error:
        err.write(f"dimlint: cannot write the step summary {target}: {error.strerror}\n")


def _fixed_listing(fixed: Sequence[Diagnostic], dry_run: bool) -> str:
    verb = "Would fix" if dry_run else "Fixed"
    lines = [f"{verb} {len(fixed)} finding{'s' if len(fixed) != 1 else ''}:"]
    by_file: dict[str, list[Diagnostic]] = {}
    for diagnostic in fixed:
        by_file.setdefault(diagnostic.path, []).append(diagnostic)
    for path, found in sorted(by_file.items()):
        lines.append(f"- {path}:")
        for diagnostic in found:
            message = diagnostic.fix.message if diagnostic.fix else ""
            lines.append(f"    {diagnostic.code} {message}")
    return "\n".join(lines) + "\n"


def _summary(diagnostics: Sequence[Diagnostic], fixed: int, fixing: bool, unread: int = 0) -> str:
    """The closing lines of the human formats. Nothing claims success when an input could not
    be read (a missing path, a Hub model that could not be fetched): its error is above."""
    lines = []
    if fixed and fixing:
        lines.append(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.")
    if unread:
        inputs = f"{unread} input{'s' if unread != 1 else ''}"
        lines.append(f"{inputs} not checked (see the error{'s' if unread != 1 else ''} above).")
    if not diagnostics:
        if not unread:
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
        lines.append(
            f"{unsafe} more fixable with --fix --unsafe-fixes (these change shapes or which key"
            " takes effect)."
        )
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
