"""The public Python API: check a config, size it, plan its deployment — from a script.

A *source* is a path (a ``config.json``, or a folder: walked as ``dimlint check`` walks it), a
Hub id (``hf://org/name[@revision]``; a bare ``org/name`` where no such local path exists), a
``dict``, or a transformers ``PretrainedConfig`` (read through ``to_dict()``; transformers is
never imported by dimlint). Nothing here prints or exits: results are returned, problems raised
as :class:`~dimlint.errors.DimlintError` subclasses — :class:`~dimlint.errors.UsageError` for a
source or an option that cannot be used (a Hub failure is its subclass ``HubError``), and
:class:`ConfigErrors` from :func:`assert_valid`.

The CLI renders what these functions return: ``dimlint check`` lints through the same linter
(:func:`lint_hub` is its Hub path), ``dimlint mem --output-format json`` prints
:func:`mem`'s dict, ``dimlint plan`` renders :func:`plan`'s :class:`~dimlint.plan.Plan`.
Unlike the CLI, the API reads no settings file (``pyproject.toml``/``dimlint.toml``): what it
checks is what its arguments say.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dimlint.api import options
from dimlint.diagnostics import Diagnostic, Severity
from dimlint.errors import DimlintError, RejectedInput, UsageError
from dimlint.sources.source import Source, load_source

if TYPE_CHECKING:
    from dimlint.config.spec import ModelSpec
    from dimlint.deploy.plan import Plan
    from dimlint.deploy.targets import Deployment
    from dimlint.lint.results import FileResult
    from dimlint.lint.selection import Selection
    from dimlint.sources.hub import HubSnapshot

__all__ = [
    "ConfigErrors",
    "Diagnostic",
    "DimlintError",
    "RejectedInput",
    "Severity",
    "Source",
    "UsageError",
    "assert_valid",
    "check",
    "lint_hub",
    "mem",
    "plan",
]


class ConfigErrors(DimlintError):
    """Raised by :func:`assert_valid`: every finding at or above the fail level, one per line."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = list(diagnostics)
        lines = [f"{len(self.diagnostics)} problem(s) in the model config:"]
        for d in self.diagnostics:
            where = (
                f"{d.path}:{d.span.start_pos.line}:{d.span.start_pos.column}" if d.span else d.path
            )
            lines.append(f"  {where}: {d.code} [{d.severity.label}] {d.message}")
        super().__init__("\n".join(lines))


def _codes(name: str, entries: object) -> tuple[str, ...] | None:
    found = options.strings(name, entries, "rule codes or prefixes such as 'DL301' or 'DL3'")
    return None if found is None else tuple(entry.upper() for entry in found)


def _deployment(
    targets: Iterable[str] | str | None,
    budget: str | None,
    context: int | None,
    batch: int | None,
    dtype: str | None,
    kv_dtype: str | None,
    training: bool | Mapping[str, Any] = False,
) -> Deployment | None:
    listed = options.strings("targets", targets, "target specs such as 'vllm:tp=8'", split=False)
    if not isinstance(training, (bool, Mapping)):
        raise UsageError(
            f"training={training!r}: expected True or a dict of training keys such as"
            ' {"lora-rank": 16, "qlora": True}'
        )
    budget = options.budget("budget", budget)
    from dimlint.deploy.targets import DTYPES

    context, batch = options.count("context", context), options.count("batch", batch)
    # the deployment takes any case (``"BF16"``), as check's settings do
    dtype = options.text("dtype", dtype.lower() if isinstance(dtype, str) else dtype, DTYPES)
    kv_dtype = options.text(
        "kv_dtype", kv_dtype.lower() if isinstance(kv_dtype, str) else kv_dtype, DTYPES
    )
    given = (listed, budget, context, batch, dtype, kv_dtype)
    if all(v is None for v in given) and training is False:
        return None
    from dimlint.deploy import targets as deployments

    if listed:
        try:
            deployments.deployment({}, targets=list(listed))
        except ValueError as error:
            raise UsageError(f"targets: {error}") from None
    try:
        found = deployments.deployment(
            {},
            targets=None if listed is None else list(listed),
            budget=budget,
            context=context,
            batch=batch,
            dtype=dtype,
            kv_dtype=kv_dtype,
            training=training is not False,
            training_options=training if isinstance(training, Mapping) else None,
        )
        if found is not None and found.budget is not None:
            from dimlint.memory import parse_budget

            parse_budget(found.budget)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return found


def selection(
    *,
    select: Iterable[str] | str | None = None,
    extend_select: Iterable[str] | str | None = None,
    ignore: Iterable[str] | str | None = None,
    targets: Iterable[str] | str | None = None,
    budget: str | None = None,
    context: int | None = None,
    batch: int | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    training: bool | Mapping[str, Any] = False,
) -> Selection:
    """The rules to run and the deployment they check against (what ``check``'s flags say)."""
    from dimlint.lint.selection import Selection, SelectionError, validate_codes

    chosen = _codes("select", select)
    extra, skipped = _codes("extend_select", extend_select) or (), _codes("ignore", ignore) or ()
    for name, codes in (("select", chosen or ()), ("extend_select", extra), ("ignore", skipped)):
        try:
            validate_codes(codes)
        except SelectionError as error:
            raise UsageError(f"{name}: {error}") from None
    return Selection(
        chosen,
        extra,
        skipped,
        deployment=_deployment(targets, budget, context, batch, dtype, kv_dtype, training),
    )


@options.checked
def lint_hub(snapshot: HubSnapshot, chosen: Selection, *, weights: bool = True) -> FileResult:
    """Lint the ``config.json`` of a Hub model with the files beside it (the CLI's Hub path)."""
    from dimlint.lint.discovery import companions
    from dimlint.lint.pipeline import lint_bytes
    from dimlint.sources.filenames import is_weight_file

    names = companions(snapshot.names)
    if not weights:
        names = tuple(name for name in names if not is_weight_file(name))
    return lint_bytes(
        snapshot.display("config.json"),
        snapshot.config_bytes(),
        chosen._replace(companions=names),
        snapshot,
    )


@options.checked
def check(
    source: Source,
    *,
    select: Iterable[str] | str | None = None,
    extend_select: Iterable[str] | str | None = None,
    ignore: Iterable[str] | str | None = None,
    targets: Iterable[str] | str | None = None,
    budget: str | None = None,
    context: int | None = None,
    batch: int | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    training: bool | Mapping[str, Any] = False,
    weights: bool = True,
) -> list[Diagnostic]:
    """Every finding on ``source``, sorted by file and position (``dimlint check``'s findings).

    ``targets`` are ``check --target`` specs (``"vllm:tp=8"``), ``budget`` is ``"8xH100-80GB"``;
    ``select``/``ignore`` take codes or prefixes. ``weights=False`` is ``--no-weights``.
    ``training`` is ``--training`` (``True``) or its flags as the settings' ``training`` keys
    (``{"lora-rank": 16, "qlora": True, "recompute": "full"}``): DL501 then judges a training
    step, as ``mem --training`` and ``plan --training`` size it.
    """
    weights = options.flag("weights", weights)
    chosen = selection(
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        targets=targets,
        budget=budget,
        context=context,
        batch=batch,
        dtype=dtype,
        kv_dtype=kv_dtype,
        training=training,
    )
    loaded = load_source(source, weights=weights)
    if loaded is None:
        text = os.fspath(source)  # type: ignore[arg-type]  # load_source: a local path
        if not os.path.lexists(text):
            raise UsageError(f"{text}: cannot read: no such file or directory")
        return _check_paths([text], chosen, weights)
    if loaded.snapshot is not None:
        return sorted(lint_hub(loaded.snapshot, chosen, weights=weights).diagnostics, key=_order)
    from dimlint.lint.model_input import read_findings

    # a dict or a config object: the one reading of a model's text, as mem and plan read it
    return read_findings(loaded.path, loaded.data, chosen).diagnostics


def _order(diagnostic: Diagnostic) -> tuple[str, int, int, str]:
    return diagnostic.sort_key


def _check_paths(paths: list[str], chosen: Selection, weights: bool) -> list[Diagnostic]:
    """A local file or folder, discovered and linted as ``dimlint check --no-config`` does."""
    from dimlint.lint.discovery import discover
    from dimlint.lint.parallel import lint_paths
    from dimlint.sources.filenames import is_weight_file

    jobs = []
    for target in discover(paths):
        names = target.companions
        if not weights:
            names = tuple(name for name in names if not is_weight_file(name))
        jobs.append((target.path, chosen._replace(companions=names)))
    from dimlint.lint.results import unique

    found: list[Diagnostic] = []
    for result, _ in lint_paths(jobs):
        found.extend(result.diagnostics)
    return sorted(unique(found), key=_order)


@options.checked
def assert_valid(
    source: Source, *, fail_level: str | Severity = Severity.ERROR, **keywords: Any
) -> None:
    """Raise :class:`ConfigErrors` listing every finding at or above ``fail_level`` (default:
    errors) — for a training script that must stop before launch. ``keywords`` are
    :func:`check`'s options."""
    level = options.severity("fail_level", fail_level)
    import inspect

    known = [name for name in inspect.signature(check).parameters if name != "source"]
    known.append("fail_level")
    for name in keywords:
        if name not in known:
            raise options.unknown_option("assert_valid", name, known)
    failing = [d for d in check(source, **keywords) if d.severity >= level]
    if failing:
        raise ConfigErrors(failing)


@options.checked
@options.training_keywords_need_training
def mem(
    source: Source,
    *,
    context: int | None = None,
    batch: int | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    tp: int | None = None,
    pp: int | None = None,
    budget: str | None = None,
    training: bool = False,
    optimizer: str | None = None,
    zero: int | None = None,
    dp: int | None = None,
    recompute: str | None = None,
    attention: str | None = None,
    lora_rank: int | None = None,
    lora_targets: str | None = None,
    qlora: bool = False,
    offload: str | None = None,
    config: str | None = None,
    force: bool = False,
) -> dict[str, Any]:
    """The ``dimlint mem --output-format json`` object of ``source``: ``params``, ``weights``,
    ``kv_cache``, ``per_gpu`` (and ``training``, ``budget`` when asked), in bytes. The context
    defaults to the model's longest; ``config`` names a settings file (default: none). The
    training keywords left None take the settings' ``training`` table, else the defaults
    (adam, ZeRO 0, no recomputation, no offload).

    A config with error-level findings raises :class:`RejectedInput` (listing them); with
    ``force=True`` the dict is computed anyway and starts with ``invalid`` (a note and the
    errors), as ``dimlint mem --force`` prints it."""
    import argparse

    from dimlint.api.memory_report import apply_settings, label_invalid, load_model, report
    from dimlint.deploy.targets import DTYPES, MAX_DEGREE

    config = options.settings_file("config", config)
    given = argparse.Namespace(
        context=options.count("context", context),
        batch=options.count("batch", batch),
        dtype=options.text("dtype", dtype, DTYPES),
        kv_dtype=options.text("kv_dtype", kv_dtype, DTYPES),
        tp=options.count("tp", tp, maximum=MAX_DEGREE),
        pp=options.count("pp", pp, maximum=MAX_DEGREE),
        budget=options.budget("budget", budget),
        training=options.flag("training", training),
        **_training_keywords(
            optimizer, zero, dp, recompute, attention, lora_rank, lora_targets, qlora, offload
        ),
        config=config,
        no_config=config is None,
        force=options.flag("force", force),
    )
    model = load_model(source, given)
    apply_settings(model.path, model.specs, given)
    try:
        return label_invalid(report(model.path, model.specs, given), model)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _training_keywords(
    optimizer: object,
    zero: object,
    dp: object,
    recompute: object,
    attention: object,
    lora_rank: object,
    lora_targets: object,
    qlora: object,
    offload: object,
) -> dict[str, Any]:
    """The training keywords of ``mem`` and ``plan``, checked (None: not given) against the
    choices of the settings' ``training`` table (:data:`dimlint.deploy.training.KEYS`)."""
    from dimlint.deploy.training import KEYS

    return {
        "optimizer": options.text("optimizer", optimizer, KEYS["optimizer"]),
        "zero": options.count("zero", zero, minimum=min(KEYS["zero"]), maximum=max(KEYS["zero"])),
        "dp": options.count("dp", dp),
        "recompute": options.text("recompute", recompute, KEYS["recompute"]),
        "attention": options.text("attention", attention, KEYS["attention"]),
        "lora_rank": options.count("lora_rank", lora_rank),
        "lora_targets": options.text("lora_targets", lora_targets),
        "qlora": options.flag("qlora", qlora),
        "offload": options.text("offload", offload, KEYS["offload"]),
    }


def plan_model(
    source: Source,
    *,
    gpu: str | None = None,
    max_gpus: int | None = None,
    context: int | None = None,
    batch: int | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    training: bool = False,
    optimizer: str | None = None,
    zero: int | None = None,
    dp: int | None = None,
    recompute: str | None = None,
    attention: str | None = None,
    lora_rank: int | None = None,
    lora_targets: str | None = None,
    qlora: bool = False,
    offload: str | None = None,
    config: str | None = None,
    no_config: bool | None = None,
    force: bool = False,
) -> Plan:
    """The deployment plan of ``source``: ``.data`` is ``dimlint plan --output-format json``
    (valid TP/PP/EP degrees per engine, the reasons for the others, memory per GPU, notes).

    ``config`` names a settings file; the API reads none unless given one (``no_config``
    defaults to ``config is None``; the CLI passes its own choice). A config with error-level
    findings raises :class:`RejectedInput`; ``force=True`` plans it anyway, and ``.data``
    starts with ``invalid`` (a note and the errors).

    ``training=True`` (or the settings' ``training`` table) sizes each layout for one training
    step instead, with the training keywords of :func:`mem`, as ``mem --training`` and DL501
    do: tp × pp with the other GPUs of ``max_gpus`` as data-parallel ranks, and with ``gpu``
    the longest sequence that fits."""
    import argparse

    from dimlint.deploy.engines import MAX_DEGREE
    from dimlint.deploy.plan import PlanRequest, build_plan
    from dimlint.deploy.targets import DTYPES
    from dimlint.lint.model_input import deployment_of, read_model

    gpu = options.gpu("gpu", gpu)
    max_gpus = options.count("max_gpus", max_gpus, maximum=MAX_DEGREE)
    context, batch = options.count("context", context), options.count("batch", batch)
    dtype = options.text("dtype", dtype, DTYPES)
    kv_dtype = options.text("kv_dtype", kv_dtype, DTYPES)
    config = options.settings_file("config", config)
    if no_config is not None:
        no_config = options.flag("no_config", no_config)
    force = options.flag("force", force)
    from dimlint.deploy.training import training_flags

    asked = training_flags(
        argparse.Namespace(
            **_training_keywords(
                optimizer, zero, dp, recompute, attention, lora_rank, lora_targets, qlora, offload
            )
        )
    )
    trains = options.flag("training", training)
    model = read_model(
        source, config, config is None if no_config is None else no_config, force=force
    )
    path, specs = model.path, model.specs
    if not any(spec.heads is not None for spec in specs):
        raise UsageError(f"{path}: no attention heads found: is this a model config?")
    found = deployment_of(
        model,
        context=context,
        batch=batch,
        dtype=dtype,
        kv_dtype=kv_dtype,
        targets=[],  # plan lists every layout; a settings target is check's
        training=trains,
        training_options=asked,
    )
    if gpu is None and found.budget is not None:
        from dimlint.memory import parse_budget

        count, chosen = parse_budget(found.budget)
        gpu, max_gpus = chosen.name, max_gpus or min(count, MAX_DEGREE)
    request = PlanRequest(
        gpu=gpu,
        max_gpus=max_gpus or 8,
        context=found.context,
        batch=found.batch or 1,
        dtype=found.dtype,
        kv_dtype=found.kv_dtype,
        training=found.training,
    )
    try:
        result = build_plan(path, specs, request)
    except ValueError as error:  # an unknown GPU name, LoRA targets the model lacks
        raise UsageError(str(error)) from None
    result.data["notes"] = _context_notes(result, specs)
    trained = result.data.get("training")
    if trained and trained["attention_note"]:
        result.data["notes"].append(trained["attention_note"])
    if model.errors:
        from dimlint.api.memory_report import label_invalid

        result = result._replace(data=label_invalid(result.data, model))
    return result


def _context_notes(result: Plan, specs: list[ModelSpec]) -> list[str]:
    """A context beyond what the model was built for is planned anyway, and said so (as in
    ``mem``; refusing it is DL502's job in ``check --context``)."""
    from dimlint.config.maxlen import derived_max_length
    from dimlint.deploy.fit import language_model

    derived = derived_max_length(language_model(tuple(specs)))
    context = result.data["context"]
    if derived is None or context <= derived.value:
        return []
    return [
        f"context {context} exceeds the model's {derived.value} ({derived.key}): planned"
        " anyway (DL502 in `dimlint check --context` refuses it)"
    ]


#: The API's ``plan``: :func:`plan_model` whose training keywords (``lora_rank``, ``qlora``...)
#: without ``training=True`` are a usage error naming them as :func:`mem` names them. The CLI
#: runs :func:`plan_model` itself: there the settings' ``training`` table may switch training
#: on, and its errors spell the options as flags.
plan = options.checked(options.training_keywords_need_training(plan_model, "plan"))
