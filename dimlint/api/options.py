"""The API's keyword options, checked before anything is read: a wrong one is a
:class:`~dimlint.errors.UsageError` that names it.

The CLI's arguments are typed by argparse; a script's are whatever Python value it passed, so
``fail_level="bogus"``, ``select=[None]``, ``targets=5``, ``tp="2"`` or ``gpu=5`` would otherwise
escape as a ``ValueError``, ``TypeError`` or ``AttributeError`` from deep inside. Each check here
returns the value in the form the code below it expects.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping

from dimlint.config.values import MAX_COUNT, shown_count
from dimlint.diagnostics import Severity
from dimlint.errors import UsageError


def _shown(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return shown_count(value)
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def strings(name: str, value: object, what: str, *, split: bool = True) -> tuple[str, ...] | None:
    """A string (comma-separated when ``split``: ``select="DL1,DL3"``; one entry otherwise:
    ``targets="megatron:tp=4,pp=2"``) or an iterable of strings."""
    if value is None:
        return None
    if isinstance(value, str):
        entries: list[object] = list(value.split(",")) if split else [value]
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, bytearray, Mapping)):
        entries = list(value)
    else:
        raise UsageError(f"{name}={_shown(value)}: expected {what}: a string or a list of strings")
    for entry in entries:
        if not isinstance(entry, str):
            raise UsageError(f"{name}: {_shown(entry)} is not a string; expected {what}")
    return tuple(entry.strip() for entry in entries if isinstance(entry, str) and entry.strip())


def text(name: str, value: object, choices: Iterable[str] | None = None) -> str | None:
    """A string option (``None`` when not given), one of ``choices`` when they are listed."""
    if value is None:
        return None
    allowed = tuple(choices) if choices is not None else None
    if not isinstance(value, str) or (allowed is not None and value not in allowed):
        expected = f"one of {', '.join(allowed)}" if allowed else "a string"
        raise UsageError(f"{name}={_shown(value)}: expected {expected}")
    return value


def count(name: str, value: object, minimum: int = 1, maximum: int = MAX_COUNT) -> int | None:
    """An integer option (``None`` when not given); ``True`` is not a count."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum or value > maximum:
        top = "10^15" if maximum == MAX_COUNT else str(maximum)
        bounds = f"from {minimum} to {top}"
        raise UsageError(f"{name}={_shown(value)}: expected an integer {bounds}")
    return value


def flag(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise UsageError(f"{name}={_shown(value)}: expected True or False")
    return value


def path(name: str, value: object) -> str | None:
    """A file path option (a settings file)."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"{name}={_shown(value)}: expected a path")
    found = os.fspath(value)
    if not isinstance(found, str):
        raise UsageError(f"{name}={_shown(value)}: expected a path")
    return found


def severity(name: str, value: object) -> Severity:
    """``"error"``/``"warning"``/``"info"`` or a :class:`Severity`."""
    if isinstance(value, Severity):
        return value
    if isinstance(value, str):
        try:
            return Severity.parse(value)
        except ValueError as error:
            raise UsageError(f"{name}: {error}") from None
    raise UsageError(f"{name}={_shown(value)}: expected error, warning, info or a Severity")
