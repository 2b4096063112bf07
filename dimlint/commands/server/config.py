"""The settings an open file is linted with: ``[tool.dimlint]``/``dimlint.toml``, plus the editor's.

File settings are found as ``check`` finds them (the nearest settings file upward from each
file). The editor may send the same keys (``{"dimlint": {"targets": ["vllm:tp=8"]}}``) in
``initializationOptions`` or ``workspace/didChangeConfiguration``; each key it sends replaces the
file's. A settings file that cannot be read is reported once (as ``check`` would exit 2 on it) and
the file is linted with the editor's settings alone, so that a typo in ``pyproject.toml`` while
it is being edited does not blank every diagnostic.

Thread-safe: lints run on worker threads and read this while the event loop may replace it.
"""

from __future__ import annotations

import os
import threading
from typing import Any, NamedTuple

from dimlint.lint.discovery import companions
from dimlint.lint.selection import Selection
from dimlint.lint.settings import Settings, SettingsError, forget, nearest, parse

#: ``Settings`` fields each settings key sets (the rest go to ``extra``).
_FIELDS = {
    "select": "select",
    "ignore": "ignore",
    "extend-select": "extend_select",
    "per-file-ignores": "per_file_ignores",
    "severity": "severity",
    "fail-level": "fail_level",
    "exclude": "exclude",
}
#: Names of the files whose change re-reads the settings.
SETTINGS_FILES = ("pyproject.toml", "dimlint.toml")


class Resolved(NamedTuple):
    """How to lint one file: its selection, or None when its settings exclude it."""

    selection: Selection | None
    #: Problems to show the user (an unreadable settings file, a bad target).
    problems: tuple[str, ...] = ()
    settings: Settings = Settings()


class ServerSettings:
    """Editor settings plus the settings files, cached until something changes."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._client: dict[str, Any] = {}
        self._client_settings = Settings()
        self._cache: dict[str, Resolved] = {}

    def set_client(self, table: Any) -> str | None:
        """Take the editor's ``dimlint`` settings; return the problem when they are invalid."""
        if table is None:
            table = {}
        if not isinstance(table, dict):
            return "the editor's dimlint settings must be an object of [tool.dimlint] keys"
        table = {k: v for k, v in table.items() if v is not None}
        try:
            parsed = parse(table, "editor settings")
        except SettingsError as error:
            return str(error)
        with self._lock:
            self._client, self._client_settings = table, parsed
            self._cache.clear()
        return None

    def invalidate(self) -> None:
        """Forget every settings file read (one changed, or the editor's settings did)."""
        with self._lock:
            forget()
            self._cache.clear()

    def resolve(self, path: str) -> Resolved:
        """The selection for the file at ``path`` (cached per folder)."""
        folder = os.path.dirname(os.path.abspath(path))
        with self._lock:
            cached = self._cache.get(folder)
            client, client_settings = self._client, self._client_settings
        if cached is None:
            cached = self._resolve_folder(folder, client, client_settings)
            with self._lock:
                self._cache[folder] = cached
        if cached.selection is None or cached.settings.excludes(path):
            return cached._replace(selection=None)
        if os.path.basename(path) == "config.json":
            try:
                beside = companions(os.listdir(folder))
            except OSError:
                beside = ()
            return cached._replace(selection=cached.selection._replace(companions=beside))
        return cached

    def _resolve_folder(
        self, folder: str, client: dict[str, Any], client_settings: Settings
    ) -> Resolved:
        problems: list[str] = []
        try:
            found = nearest(folder)
        except SettingsError as error:
            problems.append(f"{error} (linting without it)")
            found = Settings()
        settings = _merge(found, client, client_settings)
        selection = settings.selection(None, (), ())
        try:
            selection = selection._replace(deployment=_deployment(settings))
        except ValueError as error:
            problems.append(f"{error} (linting without targets)")
        return Resolved(selection, tuple(problems), settings)


def _merge(found: Settings, client: dict[str, Any], client_settings: Settings) -> Settings:
    """The file's settings with every key the editor sent replaced by the editor's value."""
    if not client:
        return found
    changes: dict[str, Any] = {}
    for key, field in _FIELDS.items():
        if key in client:
            changes[field] = getattr(client_settings, field)
    extra = {**found.extra, **client_settings.extra}
    return found._replace(**changes, extra=extra)


def _deployment(settings: Settings) -> Any:
    """Targets and budget of the settings (None without any), as ``check`` builds them."""
    keys = ("targets", "budget", "context", "batch", "dtype", "kv-dtype")
    if not any(key in settings.extra for key in keys):
        return None
    from dimlint.deploy import targets

    found = targets.deployment(settings.extra, source=settings.source)
    if found is not None and found.budget is not None:
        from dimlint.memory import parse_budget

        parse_budget(found.budget)
    return found
