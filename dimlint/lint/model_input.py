"""The one front end of everything that computes from a config: ``mem``, ``plan``, ``shapes``,
``suggest --like``, the API, and the language server (its diagnostics and its hover).

They read a config exactly as ``check`` does — the same reader, normalization and rules — so a
file with an error-level finding is never turned into numbers: its errors are raised as
:class:`~dimlint.errors.RejectedInput` (exit 1, in the chosen format; ``--force`` computes
anyway and labels the output as describing an invalid model),
and a missing path or a file that is not a model config is a usage error (exit 2). The nearest
settings file applies here as in ``check``: its severities grade the input rules, and its
deployment keys (``context``, ``batch``, ``dtype``, ``kv-dtype``, ``budget``) are the defaults
of every command.
"""

from __future__ import annotations

import os
from typing import Any

from dimlint.config.spec import ModelSpec
from dimlint.deploy.targets import Deployment
from dimlint.diagnostics import Diagnostic, Severity
from dimlint.errors import RejectedInput, UsageError
from dimlint.lint.pipeline import lint_bytes, lint_path
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection
from dimlint.lint.settings import Settings, SettingsError, load_file, nearest
from dimlint.records import Record
from dimlint.sources.source import Source

#: The rules that judge whether a file can be read as a config at all.
INPUT_CODES = ("DL001", "DL002", "DL003", "DL004", "DL005")


class ModelInput(Record):
    """A config that passed the input rules: its file, specs and the settings that apply."""

    path: str
    specs: list[ModelSpec]
    settings: Settings
    #: Input findings below error level (a misspelt key, a missing dimension): shown as notes.
    warnings: list[Diagnostic]
    #: With ``force``: the error-level findings the config has (the numbers computed from it
    #: describe an invalid model, and every command says so). Empty otherwise.
    errors: tuple[Diagnostic, ...] = ()


def invalid_model_note(errors: tuple[Diagnostic, ...]) -> str:
    """The label of every output computed with ``--force`` from a config with errors."""
    codes = ", ".join(sorted({d.code for d in errors}))
    count = len(errors)
    return (
        f"INVALID MODEL: the config has {count} error{'s' if count != 1 else ''} ({codes}; see"
        " `dimlint check`); --force computed these numbers anyway"
    )


def settings_for(path: str, config: str | None = None, no_config: bool = False) -> Settings:
    """The settings a command applies to ``path``: ``--config``, none, or the nearest file."""
    try:
        if no_config:
            return Settings()
        if config is not None:
            return load_file(config)
        return nearest(os.path.dirname(os.path.abspath(path)))
    except SettingsError as error:
        raise UsageError(str(error)) from None


def read_model(
    source: Source, config: str | None = None, no_config: bool = False, force: bool = False
) -> ModelInput:
    """Read the config ``source`` as ``check`` reads it — JSON, a training YAML (every dialect
    ``check`` knows), a Python file (config classes, calls, dicts), a folder holding
    ``config.json``, a Hub id
    (``hf://org/name``; :mod:`dimlint.sources.hub`), or — from the API — a ``dict`` or a
    transformers config object (:mod:`dimlint.sources.source`).

    One refusal policy for every command that computes from a config: a config with an
    error-level finding of ``check`` (the rules the settings select; no deployment rules) is
    not turned into numbers — :class:`RejectedInput` carries the findings (exit 1, shown in the
    command's format). ``force`` computes anyway: the input findings that leave nothing to read
    still refuse, the others come back in :attr:`ModelInput.errors` for the output to label.
    :class:`UsageError` when the source is missing or holds no model config. A source that is
    no local file takes the settings of the current folder.
    """
    from dimlint.sources.source import load_source

    loaded = load_source(source)
    if loaded is None:
        path = os.fspath(source)  # type: ignore[arg-type]  # load_source: a local path
        if os.path.isdir(path):
            path = os.path.join(path, "config.json")
        if not os.path.lexists(path):
            raise UsageError(f"{path}: cannot read: no such file")
        settings = settings_for(path, config, no_config)
        result, data = lint_path(path, _selection(settings))
    else:
        path, data = loaded.path, loaded.data
        settings = settings_for(os.path.join(os.getcwd(), "_"), config, no_config)
        result = read_findings(path, data, _selection(settings))
    return _model_of(result, data, settings, force)


def read_findings(path: str, data: bytes, selection: Selection) -> FileResult:
    """The one lint of bytes in hand (an editor's buffer of ``path``): ``check``'s front end
    for the file's kind, by its name. :func:`read_text` judges and computes from what this
    returns, and the language server publishes its findings, so the diagnostics an editor
    shows and the numbers of a hover come from the same reading."""
    return lint_bytes(path, data, selection)


def read_text(
    path: str,
    data: bytes,
    settings: Settings,
    *,
    force: bool = False,
    like: ModelSpec | None = None,
) -> ModelInput:
    """:func:`read_model` of bytes already in hand — an editor's unsaved buffer of ``path``
    (``.json``, ``.yaml``/``.yml`` or ``.py``, by its name), under ``settings``: the language
    server's hover computes from what this returns, so it shows the numbers ``mem`` prints for
    the same text. ``like``: the model whose specs to return when the text holds several (a
    hover's, located by its own reading of the text's positions): the model read with a spec
    of the same pointer and values; the first model otherwise. Raises as :func:`read_model`
    does."""
    result = read_findings(path, data, _selection(settings))
    return _model_of(result, data, settings, force, like)


def _model_of(
    result: FileResult,
    data: bytes | None,
    settings: Settings,
    force: bool,
    like: ModelSpec | None = None,
) -> ModelInput:
    """The first model of a linted file, or why none may be computed from (the policy of
    :func:`read_model`)."""
    path = result.path
    errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
    unreadable = [d for d in errors if d.code in INPUT_CODES]
    if errors and (unreadable or not force):
        text = data.decode("utf-8", "replace") if data is not None else ""
        raise RejectedInput(unreadable or errors, {path: text})
    if not result.models or result.skipped:
        reason = result.skipped or "not a model config"
        raise UsageError(f"{path}: no hidden size found: is this a model config? ({reason})")
    warnings = [
        d for d in result.diagnostics if d.severity is not Severity.ERROR and d.code in INPUT_CODES
    ]
    # the first model the file holds (a Python file or a training YAML may hold several: the
    # class defaults and the calls that override them; its findings cover them all)
    specs = next((model for model in result.models if _holds(model, like)), result.models[0])
    return ModelInput(path, specs, settings, warnings, tuple(errors))


def _holds(model: list[ModelSpec], like: ModelSpec | None) -> bool:
    """Whether ``model`` has a spec at ``like``'s pointer with ``like``'s values."""
    return like is not None and any(
        spec.pointer == like.pointer and spec.raw == like.raw for spec in model
    )


def _selection(settings: Settings) -> Selection:
    """The rules ``check`` runs on the file under these settings (companion files and the
    deployment rules aside): the judge of whether numbers may be computed from it."""
    return settings.selection(None, (), ())


def deployment_of(model: ModelInput, **given: Any) -> Deployment:
    """The settings file's deployment keys, each replaced by its command-line value when given
    (``context``, ``batch``, ``dtype``, ``kv_dtype``, ``budget``, ``targets``); validated as
    ``check`` validates them, so a bad value is the same usage error everywhere."""
    from dimlint.deploy.targets import TargetError, deployment

    try:
        found = deployment(model.settings.extra, source=model.settings.source, **given)
    except (TargetError, ValueError) as error:
        raise UsageError(str(error)) from None
    return found if found is not None else Deployment()
