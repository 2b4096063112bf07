"""The API's keyword options, checked before anything is read: a wrong one is a
:class:`~dimlint.errors.UsageError` that names it.

The CLI's arguments are typed by argparse; a script's are whatever Python value it passed, so
``fail_level="bogus"``, ``select=[None]``, ``targets=5``, ``tp="2"`` or ``gpu=5`` would otherwise
escape as a ``ValueError``, ``TypeError`` or ``AttributeError`` from deep inside. Each check here
returns the value in the form the code below it expects.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

from dimlint.config.values import MAX_COUNT, shown_count
from dimlint.diagnostics import Severity
from dimlint.errors import UsageError

P = ParamSpec("P")
R = TypeVar("R")


def unknown_option(function: str, name: str, known: Sequence[str]) -> UsageError:
    """``function(name=...)`` names no option: the error names it, the nearest option when
    one is an obvious misspelling (``fail_levle`` → ``fail_level``), and every option."""
    nearest = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f"; did you mean {nearest[0]!r}?" if nearest else ""
    return UsageError(f"{name}: unknown option of {function}(){hint} (options: {', '.join(known)})")


def checked(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` with its arguments bound before it runs: an unknown keyword, a missing
    source, a second positional argument or a value given twice is a :class:`UsageError`
    naming it, never Python's ``TypeError``. (Each option's *value* is checked by the
    function itself, with the helpers below.)"""
    signature = inspect.signature(function)
    name = function.__name__
    parameters = signature.parameters.values()
    open_ended = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
    positional = [
        p.name
        for p in parameters
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    known = [p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY]

    @functools.wraps(function)
    def bound(*args: P.args, **kwargs: P.kwargs) -> R:
        for key in kwargs:
            if key not in signature.parameters and not open_ended:
                raise unknown_option(name, key, known)
        try:
            signature.bind(*args, **kwargs)
        except TypeError:
            raise _misuse(name, positional, known, args, kwargs) from None
        return function(*args, **kwargs)

    return bound


def training_keywords_need_training(
    function: Callable[P, R], name: str | None = None
) -> Callable[P, R]:
    """``function`` refusing LoRA, QLoRA and offload keywords unless ``training`` is true: they
    describe a training step, and silently ignoring them would size the wrong thing. Named
    ``name`` when given (the API's name: ``checked`` reports unknown options under it)."""

    @functools.wraps(function)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        if not kwargs.get("training"):
            asked = [
                key
                for key in ("lora_rank", "lora_targets", "qlora", "offload")
                if kwargs.get(key) not in (None, False, "none")
            ]
            if asked:
                raise UsageError(f"{', '.join(asked)}: options of training: add training=True")
        return function(*args, **kwargs)

    if name is not None:
        guarded.__name__ = guarded.__qualname__ = name
    return guarded


def _misuse(
    name: str,
    positional: list[str],
    known: list[str],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> UsageError:
    """Why ``name(*args, **kwargs)`` does not bind, once every keyword is known."""
    given = positional[: len(args)]
    twice = [key for key in given if key in kwargs]
    if twice:
        return UsageError(f"{twice[0]}: given twice to {name}(), by position and by keyword")
    if len(args) > len(positional):
        shown = ", ".join(positional)
        return UsageError(
            f"{name}() takes {len(positional)} positional argument"
            f"{'s' if len(positional) != 1 else ''} ({shown}), {len(args)} were given: pass"
            f" the options by keyword ({', '.join(known)})"
        )
    missing = [key for key in positional if key not in given and key not in kwargs]
    if missing:
        return UsageError(f"{missing[0]}: missing from {name}()")
    return UsageError(f"{name}(): arguments that do not bind")


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


def gpu(name: str, value: object) -> str | None:
    """A GPU of the catalogue (``"H100-80GB"``) or a memory size (``"80GiB"``)."""
    found = text(name, value)
    if found is None:
        return None
    from dimlint.memory import gpu_named

    try:
        gpu_named(found)
    except ValueError as error:
        raise UsageError(f"{name}: {error}") from None
    return found


def budget(name: str, value: object) -> str | None:
    """A budget, ``"8xH100-80GB"`` or ``"2x24GiB"``."""
    found = text(name, value)
    if found is None:
        return None
    from dimlint.memory import parse_budget

    try:
        parse_budget(found)
    except ValueError as error:
        raise UsageError(f"{name}: {error}") from None
    return found


def settings_file(name: str, value: object) -> str | None:
    """A settings file (``dimlint.toml`` or ``pyproject.toml``) that can be read."""
    found = path(name, value)
    if found is None:
        return None
    from dimlint.lint.settings import SettingsError, load_file

    try:
        load_file(found)
    except SettingsError as error:
        raise UsageError(f"{name}: {error}") from None
    return found
