"""Locate a finding of a pointer-addressed document (JSON, YAML) and resolve its fix to edits.

Shared by the JSON pipeline and the YAML front end: both address values by JSON pointer, and a fix
replaces exactly the characters of the values it changes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from dimlint.checks.registry import Finding, PlannedFix
from dimlint.diagnostics import Diagnostic, Edit, Fix, Position, Span
from dimlint.lint.selection import Selection

if TYPE_CHECKING:
    from dimlint.sources.jsonfile import JsonDocument
    from dimlint.sources.yamlfile import YamlDocument


def locate(
    document: JsonDocument | YamlDocument, spec_pointer: str, finding: Finding, selection: Selection
) -> Diagnostic:
    pointer = finding.anchor if finding.anchor is not None else spec_pointer
    if getattr(document, "foreign", None):
        elsewhere = _elsewhere(document, pointer, spec_pointer, finding, selection)
        if elsewhere is not None:
            return elsewhere
    span = document.value_span(pointer) or document.value_span(spec_pointer)
    if span is not None and pointer == spec_pointer and span.end - span.start > 1:
        # Whole-object findings point at the opening brace, not at the entire object.
        span = document.span(span.start, span.start + 1)
    fix = resolve_fix(document, finding.fix) if finding.fix else None
    severity = selection.severity_of(finding.code, finding.severity)
    return Diagnostic(finding.code, severity, finding.message, document.path, span, pointer, fix)


def _elsewhere(
    document: JsonDocument | YamlDocument,
    pointer: str,
    spec_pointer: str,
    finding: Finding,
    selection: Selection,
) -> Diagnostic | None:
    """A finding on a value a Hydra defaults list composed in from another file: located in
    that file, where the value is written, without a fix (its edits would be that file's, and
    ``--fix`` edits the file it lints); None when the value is this file's."""
    from dimlint.sources.yamlfile import YamlDocument

    if not isinstance(document, YamlDocument) or document.value_span(pointer) is not None:
        return None
    found = document.foreign_span(pointer)
    if found is None:
        if pointer != spec_pointer and document.value_span(spec_pointer) is not None:
            return None
        found = document.foreign_span(spec_pointer)
        if found is None:
            return None
        pointer = spec_pointer
    path, span = found
    if pointer == spec_pointer and span.end - span.start > 1:
        start = span.start_pos
        span = Span(span.start, span.start + 1, start, Position(start.line, start.column + 1))
    severity = selection.severity_of(finding.code, finding.severity)
    note = f"composed into {document.path} by its Hydra defaults list"
    return Diagnostic(finding.code, severity, finding.message, path, span, pointer, None, (note,))


def resolve_fix(document: JsonDocument | YamlDocument, planned: PlannedFix) -> Fix | None:
    edits: list[Edit] = []
    for pointer, content in planned.replacements:
        span = document.value_span(pointer)
        if span is None:
            return None
        edits.append(Edit(span, content))
    for pointer, new_key in planned.key_renames:
        span = document.key_span(pointer)
        if span is None:
            return None
        edits.append(Edit(span, json.dumps(new_key)))
    for start, end, content in planned.raw_edits:
        edits.append(Edit(document.span(start, end), content))
    return Fix(
        planned.applicability, planned.message, tuple(sorted(edits, key=lambda e: e.span.start))
    )
