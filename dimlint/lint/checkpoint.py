"""Run the checks of the files beside a ``config.json``: its checkpoint and its tokenizer.

The linter calls :func:`check_beside` only for a config whose folder holds such files (the
names come from discovery, which lists the folder anyway), so a plain JSON run imports none of
this. The checkpoint code — and through it the parameter counting of :mod:`dimlint.memory` — is
imported only when weights are there and a checkpoint rule is enabled; a tokenizer alone costs
the tokenizer module.

Findings about the config are returned with the pointer of the config value that explains
them, for the linter to locate in the config; findings about other files (an unreadable shard,
a wrong ``total_size`` in the index) come back as finished diagnostics on those files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from dimlint.checks.registry import Finding
from dimlint.config.spec import ModelSpec
from dimlint.diagnostics import Diagnostic, Position, Span
from dimlint.lint.selection import Selection
from dimlint.sources.filenames import TOKENIZER_FILES, is_weight_file
from dimlint.sources.jsonfile import InputProblem

if TYPE_CHECKING:
    from dimlint.checks.checkpoint_sizes import IndexFinding
    from dimlint.sources.checkpoint import Checkpoint, Index
    from dimlint.sources.folder import Beside

#: Rules that read the weights.
CHECKPOINT_CODES = frozenset({"DL503", "DL610", "DL611", "DL612"})


def check_beside(
    path: str,
    specs: list[ModelSpec],
    selection: Selection,
    enabled: frozenset[str],
    beside: Beside | None = None,
) -> tuple[list[Finding], list[Diagnostic]]:
    """Findings on the config, and diagnostics on the files beside it (read through
    ``beside``; default: the config's folder)."""
    folder = os.path.dirname(path) or "."
    names = selection.companions
    findings: list[Finding] = []
    others: list[Diagnostic] = []
    if not specs:
        return findings, others
    weights = [name for name in names if is_weight_file(name)]
    if weights and enabled & CHECKPOINT_CODES:
        from dimlint.sources.checkpoint import load

        checkpoint = load(folder, weights, beside)
        if checkpoint is not None:
            _problems(checkpoint.problems, selection, enabled, others)
            findings.extend(_checkpoint(checkpoint, specs, selection, enabled, others))
    if "DL605" in enabled:
        from dimlint.lint.tokenizer import highest_id, tokenizer_findings

        if any(name in TOKENIZER_FILES for name in names):
            top, problems = highest_id(folder, names, beside)
            _problems(problems, selection, enabled, others)
            findings.extend(tokenizer_findings(specs, top))
    return findings, others


def _problems(
    problems: Iterable[tuple[str, InputProblem]],
    selection: Selection,
    enabled: frozenset[str],
    out: list[Diagnostic],
) -> None:
    if "DL001" not in enabled:
        return
    severity = selection.severity_of("DL001", None)
    span = Span(0, 0, Position(1, 1), Position(1, 2))  # binary files: the file as a whole
    for path, problem in problems:
        out.append(Diagnostic("DL001", severity, problem.message, path, span))


def _parameters(specs: list[ModelSpec]) -> tuple[int, bool] | None:
    """The config's parameter count and whether it is exact, or None when it cannot be
    computed (quantized weights are not stored at one value per parameter)."""
    from dimlint.memory import model_parameters
    from dimlint.memory.checkpoint.stored_extras import quantization

    top = specs[0]
    if quantization(top) is not None:
        return None
    try:
        counted = model_parameters(specs)
    except (ArithmeticError, LookupError, TypeError, ValueError):
        return None  # a config the templates cannot read; other rules report what is wrong
    return (counted.total, counted.exact) if counted.total else None


def _checkpoint(
    checkpoint: Checkpoint,
    specs: list[ModelSpec],
    selection: Selection,
    enabled: frozenset[str],
    others: list[Diagnostic],
) -> list[Finding]:
    """DL610/DL611 tensor by tensor from the model type's template where its names can be
    read with certainty, else DL611 by the parameter total; DL612 and DL503 either way."""
    from dimlint.checks.checkpoint_sizes import dtype_findings, index_findings, total_findings

    top = specs[0]
    counted = _parameters(specs)
    parameters, exact = counted if counted is not None else (None, True)
    compared = _from_template(checkpoint, top, enabled)
    by_total = (
        compared is None
        and parameters is not None
        and exact
        and "DL611" in enabled
        and checkpoint.complete
    )
    index = checkpoint.index_json
    indexed = "DL503" in enabled and index is not None
    skip = _template_not_parameters(top, checkpoint) if by_total or indexed else None
    found: list[Finding] = []
    if compared is not None:
        found.extend(compared)
    elif by_total and parameters is not None and skip is not None:
        found.extend(total_findings(specs, checkpoint, parameters, skip))
    if "DL612" in enabled:
        found.extend(dtype_findings(specs, checkpoint))
    if indexed and index is not None:
        for finding in index_findings(checkpoint, specs, skip, parameters, exact):
            others.append(_in_index(index, finding, selection))
    return found


def _template_not_parameters(top: ModelSpec, checkpoint: Checkpoint) -> frozenset[str] | None:
    """Stored names the model type's class does not count as parameters (saved buffers, tied
    copies beside their original); None when the parameter count is not the template's exact
    one (:func:`dimlint.memory.checkpoint.template_plan.total_is_exact`). Counts from the
    family recipes are not compared with the checkpoint's total: away from the causal LMs they
    were measured on they can be off, and a wrong total is a false DL611."""
    from dimlint.memory.checkpoint import load_names
    from dimlint.memory.checkpoint.template_plan import architecture_of, total_is_exact
    from dimlint.memory.parameters import templates

    if not total_is_exact(top):
        return None
    model_type = top.model_type
    learned = templates.row(model_type) if model_type else None
    if model_type is None or learned is None:
        return frozenset()
    class_name = templates.class_for(learned, architecture_of(top))
    if class_name is None:
        return frozenset()
    return load_names.not_parameters(model_type, class_name, checkpoint.tensors)


def _from_template(
    checkpoint: Checkpoint, top: ModelSpec, enabled: frozenset[str]
) -> list[Finding] | None:
    """DL610/DL611 from the model type's shape template; None when there is no template or
    the names cannot be mapped with certainty."""
    if not enabled & {"DL610", "DL611"}:
        return None
    from dimlint.checks.checkpoint_templates import template_findings
    from dimlint.memory.checkpoint.template_plan import template_plan

    plan = template_plan(top)
    return template_findings(plan, checkpoint, top, enabled) if plan is not None else None


def _in_index(index: Index, finding: IndexFinding, selection: Selection) -> Diagnostic:
    """A DL503 finding located at its value in the index file (``/metadata/total_size``)."""
    from dimlint.sources import jsonfile

    document, _ = jsonfile.load(index.path, index.text.encode("utf-8"))
    span = document.value_span(finding.pointer) if document is not None else None
    severity = selection.severity_of(finding.code, None)
    return Diagnostic(finding.code, severity, finding.message, index.path, span, finding.pointer)
