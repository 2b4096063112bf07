"""Settings from ``[tool.dimlint]`` in ``pyproject.toml`` or from ``dimlint.toml``.

The nearest settings file upward from each checked file wins (as in ruff), so a monorepo can
hold different settings per model folder. Unknown keys are an error that names the nearest
valid key: a misspelt ``ignores`` that silently did nothing would be worse than no setting.
"""

from __future__ import annotations

import functools
import os
from typing import Any

from dimlint.diagnostics import Severity
from dimlint.lint.patterns import path_matches
from dimlint.lint.selection import Selection, SelectionError, validate_codes
from dimlint.records import Record

KEYS = (
    "select",
    "ignore",
    "extend-select",
    "per-file-ignores",
    "severity",
    "fail-level",
    "targets",
    "budget",
    "context",
    "batch",
    "dtype",
    "kv-dtype",
    "training",
    "exclude",
    "baseline",
)


class SettingsError(ValueError):
    """An unreadable or invalid settings file (exit code 2)."""


class Settings(Record):
    """Validated settings of one file (empty when there is none)."""

    source: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = {}  # noqa: RUF012 (never mutated)
    severity: dict[str, Severity] = {}  # noqa: RUF012
    fail_level: Severity | None = None
    exclude: tuple[str, ...] = ()
    extra: dict[str, Any] = {}  # noqa: RUF012 (targets, budget…: read by later rules)

    def selection(
        self,
        select: tuple[str, ...] | None,
        extend_select: tuple[str, ...],
        ignore: tuple[str, ...],
    ) -> Selection:
        """Combine with command-line options: ``--select`` replaces, the others add."""
        return Selection(
            select=select if select is not None else self.select,
            extend_select=self.extend_select + extend_select,
            ignore=self.ignore + ignore,
            severity=self.severity,
            per_file_ignores=self.per_file_ignores,
            root=self.root,
        )

    @property
    def root(self) -> str:
        """The folder path patterns are relative to: the settings file's, else the cwd."""
        return os.path.dirname(self.source) if self.source else os.getcwd()

    def excludes(self, path: str) -> bool:
        """Whether an ``exclude`` pattern names ``path``."""
        return any(path_matches(path, pattern, self.root) for pattern in self.exclude)


def _codes(value: Any, key: str, source: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingsError(f'{source}: {key} must be a list of rule codes, e.g. ["DL2"]')
    try:
        validate_codes(value)
    except SelectionError as error:
        raise SettingsError(f"{source}: {key}: {error}") from None
    return tuple(value)


def _rule_codes() -> frozenset[str]:
    from dimlint.checks import all_rules

    return frozenset(all_rules())


def _table(table: dict[str, Any], key: str, source: str) -> dict[str, Any]:
    value = table.get(key, {})
    if not isinstance(value, dict):
        example = '{ DL202 = "info" }'
        if key == "per-file-ignores":
            example = '{ "drafts/*.json" = ["DL2"] }'
        raise SettingsError(f"{source}: {key} must be a table, e.g. {key} = {example}")
    return value


def parse(table: dict[str, Any], source: str) -> Settings:
    """Validate one settings table."""
    for key in table:
        if key not in KEYS:
            import difflib

            hint = difflib.get_close_matches(key, KEYS, n=1)
            suggestion = (
                f"; did you mean {hint[0]!r}?" if hint else f"; valid keys: {', '.join(KEYS)}"
            )
            raise SettingsError(f"{source}: unknown setting {key!r}{suggestion}")
    per_file: dict[str, tuple[str, ...]] = {}
    for pattern, codes in _table(table, "per-file-ignores", source).items():
        per_file[pattern] = _codes(codes, f"per-file-ignores.{pattern}", source)
    severity: dict[str, Severity] = {}
    for code, level in _table(table, "severity", source).items():
        try:
            validate_codes([code])
        except SelectionError as error:
            raise SettingsError(f"{source}: severity: {error}") from None
        if code not in _rule_codes():
            raise SettingsError(
                f"{source}: severity: {code!r} is not a rule code; severity overrides name"
                ' one rule each (DL202 = "info"), not a prefix'
            )
        if not isinstance(level, str):
            raise SettingsError(
                f'{source}: severity.{code} must be a string ("error", "warning" or "info")'
            )
        try:
            severity[code] = Severity.parse(level)
        except ValueError as error:
            raise SettingsError(f"{source}: severity.{code}: {error}") from None
    fail_level = None
    if "fail-level" in table:
        try:
            fail_level = Severity.parse(str(table["fail-level"]))
        except ValueError as error:
            raise SettingsError(f"{source}: fail-level: {error}") from None
    exclude = table.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(p, str) and p for p in exclude):
        raise SettingsError(
            f'{source}: exclude must be a list of glob patterns, e.g. exclude = ["drafts/*"]'
        )
    baseline = table.get("baseline", "")
    if not isinstance(baseline, str) or ("baseline" in table and not baseline):
        raise SettingsError(
            f'{source}: baseline must be the path of a baseline file, e.g. baseline = "dimlint'
            f'-baseline.json", not {baseline!r}'
        )
    return Settings(
        source=source,
        select=_codes(table["select"], "select", source) if "select" in table else None,
        ignore=_codes(table.get("ignore", []), "ignore", source),
        extend_select=_codes(table.get("extend-select", []), "extend-select", source),
        per_file_ignores=per_file,
        severity=severity,
        fail_level=fail_level,
        exclude=tuple(str(p) for p in exclude),
        extra={
            k: table[k]
            for k in (
                "targets",
                "budget",
                "context",
                "batch",
                "dtype",
                "kv-dtype",
                "training",
                "baseline",
            )
            if k in table
        },
    )


def load_file(path: str) -> Settings:
    """Read settings from a ``dimlint.toml`` or a ``pyproject.toml``."""
    import tomllib

    from dimlint.sources.safeio import read_regular

    try:
        document = tomllib.loads(read_regular(path).decode("utf-8"))
    except OSError as error:
        raise SettingsError(f"{path}: cannot read settings: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise SettingsError(
            f"{path}: not UTF-8 ({error.reason} at byte {error.start}); TOML files are UTF-8"
        ) from None
    except (tomllib.TOMLDecodeError, RecursionError) as error:
        raise SettingsError(f"{path}: invalid TOML: {error}") from None
    if os.path.basename(path) == "pyproject.toml":
        tool = document.get("tool", {})
        table = tool.get("dimlint", {}) if isinstance(tool, dict) else {}
    else:
        table = document
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: [tool.dimlint] must be a table")
    return parse(table, path)


#: What a file without any settings file above it gets (one shared, immutable value).
_NONE = Settings()


@functools.cache
def nearest(directory: str) -> Settings:
    """Settings of the nearest ``dimlint.toml`` or ``pyproject.toml`` with ``[tool.dimlint]``.

    Walks up iteratively (a checked tree may be thousands of folders deep), each folder's own
    settings looked up once per run.
    """
    while True:
        own = _own(directory)
        if own is not None:
            return own
        parent = os.path.dirname(directory)
        if parent == directory:
            return _NONE
        directory = parent


def forget() -> None:
    """Drop the settings read so far (the language server, when a settings file changes)."""
    nearest.cache_clear()
    _own.cache_clear()


@functools.cache
def _own(directory: str) -> Settings | None:
    """The settings file of this very folder, if it has one."""
    dedicated = os.path.join(directory, "dimlint.toml")
    if os.path.isfile(dedicated):
        return load_file(dedicated)
    pyproject = os.path.join(directory, "pyproject.toml")
    if os.path.isfile(pyproject):
        from dimlint.sources.safeio import read_regular

        try:
            found = b"[tool.dimlint" in read_regular(pyproject)
        except OSError as error:
            message = f"{pyproject}: cannot read settings: {error.strerror or error}"
            raise SettingsError(message) from None
        if found:
            return load_file(pyproject)
    return None


def clear_cache() -> None:
    """Forget the settings read (files may change between two runs in one process)."""
    nearest.cache_clear()
    _own.cache_clear()
