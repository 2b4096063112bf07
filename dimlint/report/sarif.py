"""SARIF 2.1.0, the format GitHub code scanning (and other viewers) ingest.

One run; ``tool.driver`` describes every rule that reported something, with its short
description from the registry and its full description and help from the rule catalogue
(``rules/``); each result carries its physical location (columns in Unicode code points, as
``columnKind`` declares) and, where dimlint offers one, the fix as SARIF ``fixes``. Paths are
relative URIs against ``%SRCROOT%`` (the working directory), which code scanning resolves
against the repository root.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from dimlint import __version__
from dimlint.checks import all_rules
from dimlint.diagnostics import Diagnostic, Severity, Span
from dimlint.report import with_fix

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/dimlint/dimlint"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def artifact_uri(path: str) -> str:
    """A relative URI for a checked file (absolute paths outside the cwd stay absolute; a Hub
    file keeps its ``hf://org/name@sha/file`` URI)."""
    if path.startswith("hf://"):
        return "hf://" + quote(path[len("hf://") :], safe="/@")
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return "file://" + quote(absolute.replace(os.sep, "/"))
    return quote(relative.replace(os.sep, "/"))


def _region(span: Span | None) -> dict[str, int]:
    if span is None:
        return {"startLine": 1, "startColumn": 1}
    return {
        "startLine": span.start_pos.line,
        "startColumn": span.start_pos.column,
        "endLine": span.end_pos.line,
        "endColumn": span.end_pos.column,
    }


def _rule_descriptor(code: str) -> dict[str, Any]:
    from dimlint.checks.catalogue import read_rule, section

    rule = all_rules()[code]
    doc = read_rule(code)
    what = section(doc, "What it does")
    help_markdown = "\n\n".join(
        f"## {title}\n\n{section(doc, title)}" for title in ("Why is this bad?", "Fix")
    )
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": what or rule.summary},
        "help": {"text": help_markdown, "markdown": help_markdown},
        "helpUri": rule.url,
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["dimlint", rule.name]},
    }


def _artifact(uri: str) -> dict[str, str]:
    """SARIF: an absolute URI (``file://``, ``hf://``) has no ``uriBaseId``."""
    if "://" in uri:
        return {"uri": uri}
    return {"uri": uri, "uriBaseId": "%SRCROOT%"}


def _result(diagnostic: Diagnostic, rule_index: int) -> dict[str, Any]:
    uri = artifact_uri(diagnostic.path)
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": _artifact(uri),
            "region": _region(diagnostic.span),
        }
    }
    if diagnostic.pointer is not None:
        location["logicalLocations"] = [
            {"fullyQualifiedName": diagnostic.pointer or "/", "kind": "member"}
        ]
    result: dict[str, Any] = {
        "ruleId": diagnostic.code,
        "ruleIndex": rule_index,
        "level": LEVELS[diagnostic.severity],
        "message": {"text": with_fix(diagnostic)},
        "locations": [location],
    }
    if diagnostic.fix is not None and diagnostic.fix.edits:
        result["fixes"] = [
            {
                "description": {
                    "text": f"{diagnostic.fix.message} ({diagnostic.fix.applicability.value})"
                },
                "artifactChanges": [
                    {
                        "artifactLocation": _artifact(uri),
                        "replacements": [
                            {
                                "deletedRegion": _region(edit.span),
                                "insertedContent": {"text": edit.content},
                            }
                            for edit in diagnostic.fix.edits
                        ],
                    }
                ],
            }
        ]
    return result


def to_sarif(diagnostics: Sequence[Diagnostic]) -> dict[str, Any]:
    """The SARIF log of a run, as a JSON-ready dict."""
    codes = sorted({d.code for d in diagnostics})
    index = {code: position for position, code in enumerate(codes)}
    root_uri = "file://" + quote(os.getcwd().replace(os.sep, "/").rstrip("/") + "/")
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "dimlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [_rule_descriptor(code) for code in codes],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code]) for d in diagnostics],
            }
        ],
    }


def render(diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> str:
    del sources
    return json.dumps(to_sarif(diagnostics), indent=2, ensure_ascii=False) + "\n"
