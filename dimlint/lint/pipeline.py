"""Lint one file: read it, find its model configs, run the rules, locate every finding.

This is the pipeline of DESIGN.md for a single file (discovery, filtering of whole runs and
reporting live elsewhere). One bad file never stops a run: every failure to read or parse
becomes a DL001 finding for that file.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dimlint.checks import all_rules
from dimlint.config.normalize import looks_like_model_config, specs_for_document
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Applicability, Diagnostic, Edit, Fix, Position, Span
from dimlint.lint.pointer_locate import locate
from dimlint.lint.results import FileResult, cannot_write
from dimlint.lint.run_rules import spec_findings
from dimlint.lint.selection import Selection
from dimlint.sources import jsonfile
from dimlint.sources.jsonfile import InputProblem, JsonDocument

if TYPE_CHECKING:
    from dimlint.sources.folder import Beside

#: Larger files are not read: no model config comes near this.
MAX_FILE_BYTES = 256 * 1024 * 1024


def _point(position: Position) -> Span:
    return Span(0, 0, position, Position(position.line, position.column + 1))


def _input_diagnostic(path: str, problem: InputProblem, fix: Fix | None = None) -> Diagnostic:
    return Diagnostic(
        "DL001",
        all_rules()["DL001"].severity,
        problem.message,
        path,
        _point(problem.position),
        fix=fix,
    )


class NotRegular(InputProblem):
    """A FIFO, socket or device: skipped (``--verbose`` says so), never read, not a finding."""


def read_file(path: str) -> bytes | InputProblem:
    """The file's bytes, or the reason it cannot be read (as a DL001 problem).

    Only regular files are opened (:mod:`dimlint.sources.safeio`): a FIFO or device would block
    or be read forever.
    """
    from dimlint.sources.safeio import _FLAGS, kind_of

    try:
        descriptor = os.open(path, _FLAGS)
    except OSError as error:
        if error.errno == errno.EISDIR:
            return InputProblem("this is a directory, not a file")
        reason = error.strerror or str(error)
        return InputProblem(f"cannot read the file: {reason}")
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            what = kind_of(status.st_mode)
            if stat.S_ISDIR(status.st_mode):
                return InputProblem("this is a directory, not a file")
            return NotRegular(f"{what}, not a regular file: not read")
        size = status.st_size
        if size > MAX_FILE_BYTES:
            return InputProblem(f"the file is {size / 2**20:.0f} MiB; model configs are a few KB")
        return _read_all(descriptor, size)
    except OSError as error:
        reason = error.strerror or str(error)
        return InputProblem(f"cannot read the file: {reason}")
    finally:
        os.close(descriptor)


def _read_all(descriptor: int, size: int) -> bytes:
    """Every byte of an open regular file: one ``os.read`` for a file that does not change
    while it is read, more when it grows (no file object is built for a few KB)."""
    first = os.read(descriptor, size + 1)
    if len(first) <= size:
        return first  # the whole file (a regular file reads short only at its end)
    chunks, total = [first], len(first)
    while total <= MAX_FILE_BYTES:
        chunk = os.read(descriptor, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def lint_file(path: str, selection: Selection) -> FileResult:
    """Read and lint ``path``; unreadable files become DL001 findings."""
    return lint_path(path, selection)[0]


def lint_path(path: str, selection: Selection) -> tuple[FileResult, bytes | None]:
    """Lint ``path`` and also return the bytes it was read as (None when unread), for fixing.

    This is the guard of DESIGN.md's "one bad file never stops a run": whatever goes wrong
    inside the checks of one file becomes a DL001 finding on that file (:func:`crashed`), and
    the run goes on with the next one.
    """
    data = read_file(path)
    if isinstance(data, NotRegular):
        skipped = FileResult(path)
        skipped.skipped = data.message
        return skipped, None
    if isinstance(data, InputProblem):
        return FileResult(path, [_input_diagnostic(path, data)]), None
    try:
        return lint_bytes(path, data, selection), data
    except Exception as error:  # the per-file guard: reported, never raised
        return crashed(path, error), None


def crashed(path: str, error: BaseException) -> FileResult:
    """The result of a file whose check raised: one DL001 finding, the traceback kept for
    ``--verbose``. ``RecursionError`` and ``MemoryError`` are caught too: both are about this
    file's content, not about the run."""
    import traceback

    message = _crash_message(error)
    result = FileResult(path, [_input_diagnostic(path, InputProblem(message))])
    result.skipped = None
    result.traceback = "".join(traceback.format_exception(error))
    return result


def _crash_message(error: BaseException) -> str:
    text = str(error)
    if len(text) > 200:
        text = text[:200] + "…"
    text = " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())
    detail = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return (
        f"dimlint could not check this file: {detail} (a bug in dimlint; rerun with --verbose"
        " for the traceback and report it)"
    )


def lint_bytes(
    path: str, data: bytes, selection: Selection, beside: Beside | None = None
) -> FileResult:
    """Lint the bytes of a file named ``path``: Python code for ``*.py``, YAML for ``*.yaml``/
    ``*.yml``, a launch script for ``*.sh``, gin bindings for ``*.gin``, else JSON.

    ``beside`` reads the files the selection's companions name (default: ``path``'s folder;
    a Hub model's come from :mod:`dimlint.sources.hub`)."""
    if path.endswith(".py"):
        from dimlint.lint.python_front import lint_python

        return lint_python(path, data, selection)
    if path.endswith(".sh"):
        from dimlint.lint.shell_front import lint_shell

        return lint_shell(path, data, selection)
    if path.endswith(".gin"):
        from dimlint.lint.gin_front import lint_gin

        return lint_gin(path, data, selection)
    if path.endswith((".yaml", ".yml")):
        from dimlint.lint.yaml_front import lint_yaml  # PyYAML is loaded only in there

        return lint_yaml(path, data, selection)
    document, problems = jsonfile.load(path, data)
    if document is None and os.path.basename(path) != "config.json":
        from dimlint.sources import jsonc

        commented = jsonc.load(path, data)
        if commented is not None:
            # JSON with comments, read as its owner's reader reads it (Coqui TTS's configs)
            read = _lint_json(path, commented[1].encode(), selection, beside, commented[0])
            read.notes.insert(0, f"{path}: JSON with comments, read with the comments skipped")
            # the documents hold the blanked text: writing one back would delete the comments
            cannot_write(read, "JSON with comments: dimlint does not rewrite it")
            return read
    return _lint_json(path, data, selection, beside, document, problems)


def _lint_json(
    path: str,
    data: bytes,
    selection: Selection,
    beside: Beside | None,
    document: JsonDocument | None,
    problems: Sequence[InputProblem] = (),
) -> FileResult:
    """Lint a parsed JSON ``document`` (None: it did not parse, ``problems`` say why)."""
    enabled = selection.enabled_codes(path)
    result = FileResult(path)
    for problem in problems:
        if "DL001" in enabled:
            fix = _bom_fix(problem) if document is not None and document.bom else None
            result.diagnostics.append(_input_diagnostic(path, problem, fix))
    if document is None:
        return result
    result.document = document
    value = document.value
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean"}.get(type(value), "a scalar")
        if looks_like_model_config(value) or os.path.basename(path) == "config.json":
            if "DL001" in enabled:
                message = f"the top level is {kind}; a model config must be a JSON object"
                result.diagnostics.append(_input_diagnostic(path, InputProblem(message)))
        else:
            result.skipped = "not a model config (top level is not an object)"
        return result
    if _training_config(value) or _has_model_section(value):
        from dimlint.lint.yaml_front import lint_yaml  # YAML is a superset of JSON

        return lint_yaml(path, data, selection)
    if not looks_like_model_config(value):
        result.skipped = "not a model config (no model_type, architectures or dimension keys)"
        result.diagnostics.clear() if not problems else None
        return result
    if document.has_duplicates and "DL002" in enabled:
        result.diagnostics.extend(_duplicates(document))
    specs = specs_for_document(path, value)
    result.read = (len(specs), 0)
    result.models = [specs]
    for spec in specs:
        for finding in spec_findings(spec, enabled, selection):
            result.diagnostics.append(locate(document, spec.pointer, finding, selection))
    if selection.companions:
        _check_beside(result, document, specs, selection, enabled, beside)
    result.diagnostics.sort(key=lambda d: d.sort_key)
    return result


#: Keys of a training framework's config (gpt-neox's JSON files, DeepSpeed): the model is a
#: section of it, read as the YAML front end reads training configs.
_TRAINING_KEYS = frozenset(
    {
        "optimizer",
        "zero_optimization",
        "train_micro_batch_size_per_gpu",
        "train_batch_size",
        # the schedule of a training run beside the model (mesh-transformer-jax's configs)
        "warmup_steps",
        "total_steps",
        "gradient_accumulation_steps",
    }
)


def _has_model_section(value: dict[str, Any]) -> bool:
    """A JSON file whose model is one member among others (picotron's template: ``model``
    beside ``distributed``, ``training``), not a config at its top level."""
    if looks_like_model_config(value):
        return False
    from dimlint.config.normalize import has_dimensions
    from dimlint.config.trainingkeys import width_is_width

    return any(
        isinstance(member, dict) and (has_dimensions(member) or width_is_width(member))
        for member in value.values()
    )


def _training_config(value: dict[str, Any]) -> bool:
    """A training config (no ``model_type``, ``architectures``; framework keys or hyphens,
    open_lm's model keys: its ``hidden_dim`` is the width, not Mistral's FFN, or
    TencentPretrain's ``heads_num``/``layers_num``, the ViT family's ``width``/``heads``, a PEFT
    adapter's ``adapter_config.json``), or a framework's model JSON that names its factory in
    ``model_type`` (:func:`_framework_model_type`)."""
    if "architectures" in value:
        return False
    if "model_type" in value:
        return _framework_model_type(value)
    from dimlint.config.trainingkeys import (
        OPEN_LM_KEYS,
        OPEN_LM_MAMBA_KEYS,
        TENCENT_KEYS,
        prefixed_models,
        width_is_width,
    )

    keys = value.keys()
    if width_is_width(keys) or prefixed_models(keys):
        return True  # the ViT family's names, models under name prefixes: as the YAML reader
    if "peft_type" in keys:
        return True  # a PEFT adapter's config: the base model's sizes, no config.json rules
    if keys >= OPEN_LM_KEYS or (keys >= OPEN_LM_MAMBA_KEYS and "dim" not in keys):
        return True
    if keys >= TENCENT_KEYS or any(
        isinstance(member, dict) and member.keys() >= TENCENT_KEYS for member in value.values()
    ):
        return True  # TencentPretrain's model JSON (CLIP's towers: ``stream_0``, ``stream_1``)
    return bool(_TRAINING_KEYS & keys) or any("-" in key for key in value)


def _framework_model_type(value: dict[str, Any]) -> bool:
    """stable-audio-tools' model JSON (``"model_type": "diffusion_cond"``, the transformer at
    ``model.diffusion.config``): a ``model_type`` transformers does not know, no dimension at
    the top and sections beside it, none a transformers composite's sub-config (named
    ``*_config``, or stating its own ``model_type``). The type names the framework's factory, not a
    transformers class, so no class defaults are owed (DL005) and the model is a section."""
    from dimlint.config import architectures
    from dimlint.config.normalize import has_dimensions

    model_type = value["model_type"]
    if not isinstance(model_type, str) or architectures.lookup(model_type) is not None:
        return False
    members = {key: member for key, member in value.items() if isinstance(member, dict)}
    return (
        bool(members)
        and not has_dimensions(value)
        and not any(key.endswith("_config") for key in members)
        and not any("model_type" in member for member in members.values())
    )


def _check_beside(
    result: FileResult,
    document: JsonDocument,
    specs: list[ModelSpec],
    selection: Selection,
    enabled: frozenset[str],
    beside: Beside | None,
) -> None:
    """The rules that read the checkpoint and tokenizer beside a ``config.json``.

    With weights there, a fix that changes shapes would make the config disagree with them:
    such fixes are shown, never applied (DESIGN.md, *fix*: ``display``).
    """
    from dimlint.lint.checkpoint import check_beside
    from dimlint.sources.filenames import is_weight_file

    findings, others = check_beside(document.path, specs, selection, enabled, beside)
    pointer = specs[0].pointer if specs else ""
    result.diagnostics.extend(locate(document, pointer, f, selection) for f in findings)
    result.diagnostics.extend(others)
    if any(is_weight_file(name) for name in selection.companions):
        result.diagnostics[:] = [_display_only(d) for d in result.diagnostics]


def _display_only(diagnostic: Diagnostic) -> Diagnostic:
    fix = diagnostic.fix
    if fix is None or fix.applicability is not Applicability.UNSAFE:
        return diagnostic
    message = f"{fix.message} (not applied: the weights beside this config have today's shapes)"
    return diagnostic._replace(
        fix=fix._replace(applicability=Applicability.DISPLAY, message=message)
    )


def _bom_fix(problem: InputProblem) -> Fix | None:
    if "byte-order mark" not in problem.message:
        return None
    # The BOM is not part of the decoded text: an empty edit at offset 0 marks the fix, and the
    # writer drops the BOM when this fix is applied.
    span = Span(0, 0, Position(1, 1), Position(1, 1))
    return Fix(Applicability.SAFE, "remove the byte-order mark", (Edit(span, ""),))


def _duplicates(document: JsonDocument) -> list[Diagnostic]:
    index = document.index
    found = []
    for duplicate in index.duplicates:
        earlier, later = duplicate.earlier, duplicate.later
        assert earlier.key_start is not None
        assert earlier.key_end is not None
        key = document.text[earlier.key_start : earlier.key_end]
        later_pos = index.position(later.key_start or later.value_start)
        message = (
            f"key {key} appears again at line {later_pos.line}: JSON readers (Python's json,"
            " transformers) silently keep the last value, so this one is ignored. Remove it, or"
            " remove the later one if this is the value you meant."
        )
        removal = Edit(index.span(earlier.key_start, duplicate.next_start), "")
        fix = Fix(Applicability.SAFE, f"remove the earlier (ignored) {key}", (removal,))
        found.append(
            Diagnostic(
                "DL002",
                all_rules()["DL002"].severity,
                message,
                document.path,
                index.span(earlier.key_start, earlier.key_end),
                duplicate.pointer,
                fix,
            )
        )
    return found
