"""Which rules run, at what severity: ``--select/--ignore/--extend-select`` and overrides.

Semantics follow ruff: ``select`` replaces the default set, ``extend-select`` adds to it,
``ignore`` removes and wins over both; every entry is a code prefix (``DL1``, ``DL20``) or
``ALL``. Opt-in rules (DL006, DL203) run only when named by their full code or by ``ALL``: a
prefix such as ``DL2`` means "the usual DL2 rules", not "also the folklore note".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from dimlint.checks import all_rules
from dimlint.checks.registry import Rule
from dimlint.diagnostics import Severity
from dimlint.lint.patterns import path_matches
from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment


class SelectionError(ValueError):
    """A code or prefix that matches no rule."""


def _matches(code: str, entry: str, rule: Rule) -> bool:
    if entry == "ALL":
        return True
    if not rule.enabled_by_default:
        return code == entry
    return code.startswith(entry)


def validate_codes(entries: Iterable[str]) -> None:
    """Raise :class:`SelectionError` for entries that select nothing (typos)."""
    codes = list(all_rules())
    for entry in entries:
        if not entry.strip():
            raise SelectionError(
                "an empty code would match every rule; remove it (codes look like DL101)"
            )
        if entry != "ALL" and not any(code.startswith(entry) for code in codes):
            raise SelectionError(
                f"{entry!r} matches no rule code (codes look like DL101; prefixes like DL1 work)"
            )


_ENABLED: dict[tuple[tuple[str, ...] | None, tuple[str, ...], tuple[str, ...]], frozenset[str]] = {}


class Selection(Record):
    """The resolved rule set for one file."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = {}
    per_file_ignores: Mapping[str, tuple[str, ...]] = {}
    #: The folder per-file-ignores patterns are relative to (the settings file's).
    root: str = "."
    #: Targets and budget the deployment rules read; None: they stay silent.
    deployment: Deployment | None = None
    #: Names of the files beside a ``config.json`` that rules read (checkpoint shards and index,
    #: tokenizer files; see :func:`dimlint.lint.discovery.companions`). Empty: those rules stay
    #: silent, and nothing beside the config is opened.
    companions: tuple[str, ...] = ()

    def enabled_codes(self, path: str | None = None) -> frozenset[str]:
        """The codes that run on ``path`` (cached when there are no per-file ignores)."""
        key = (self.select, self.extend_select, self.ignore)
        if not self.per_file_ignores and key in _ENABLED:
            return _ENABLED[key]
        enabled = self._compute_enabled(path)
        if not self.per_file_ignores:
            _ENABLED[key] = enabled
        return enabled

    def _compute_enabled(self, path: str | None) -> frozenset[str]:
        rules = all_rules()
        if self.select is None:
            chosen = {code for code, rule in rules.items() if rule.enabled_by_default}
        else:
            chosen = {c for c, r in rules.items() if any(_matches(c, e, r) for e in self.select)}
        chosen |= {
            c for c, r in rules.items() if any(_matches(c, e, r) for e in self.extend_select)
        }
        ignored = list(self.ignore)
        if path is not None:
            ignored += self._file_ignores(path)
        return frozenset(
            c for c in chosen if not any(c.startswith(e) or e == "ALL" for e in ignored)
        )

    def _file_ignores(self, path: str) -> list[str]:
        found: list[str] = []
        for pattern, codes in self.per_file_ignores.items():
            if path_matches(path, pattern, self.root):
                found += codes
        return found

    def severity_of(self, code: str, graded: Severity | None) -> Severity:
        """An override from settings replaces the rule's own (or graded) severity."""
        if code in self.severity:
            return self.severity[code]
        if graded is not None:
            return graded
        return all_rules()[code].severity
