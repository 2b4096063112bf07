"""Locate a finding of a pointer-addressed document (JSON, YAML) and resolve its fix to edits.

Shared by the JSON pipeline and the YAML front end: both address values by JSON pointer, and a fix
replaces exactly the characters of the values it changes.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from dimlint.checks.registry import Finding, PlannedFix
from dimlint.diagnostics import Diagnostic, Edit, Fix
from dimlint.lint.selection import Selection

if TYPE_CHECKING:
    from dimlint.sources.jsonfile import JsonDocument
    from dimlint.sources.yamlfile import YamlDocument


def locate(
    document: JsonDocument | YamlDocument, spec_pointer: str, finding: Finding, selection: Selection
) -> Diagnostic:
    pointer = finding.anchor if finding.anchor is not None else spec_pointer
    span = document.value_span(pointer) or document.value_span(spec_pointer)
    if span is not None and pointer == spec_pointer and span.end - span.start > 1:
        # Whole-object findings point at the opening brace, not at the entire object.
        span = document.span(span.start, span.start + 1)
    fix = resolve_fix(document, finding.fix) if finding.fix else None
    severity = selection.severity_of(finding.code, finding.severity)
    return Diagnostic(finding.code, severity, finding.message, document.path, span, pointer, fix)


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
