"""JUnit XML: one test suite per checked file, one failing test case per finding.

CI systems (GitLab, Jenkins, Azure) render JUnit reports natively; a file without findings is a
single passing test case so the report also shows what was checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree import ElementTree

from dimlint.checks import all_rules
from dimlint.diagnostics import Diagnostic, Severity
from dimlint.report import with_fix


def render(diagnostics: Sequence[Diagnostic], sources: dict[str, str]) -> str:
    rules = all_rules()
    by_file: dict[str, list[Diagnostic]] = {path: [] for path in sorted(sources)}
    for diagnostic in diagnostics:
        by_file.setdefault(diagnostic.path, []).append(diagnostic)
    root = ElementTree.Element("testsuites", name="dimlint")
    total = failures = 0
    for path, found in sorted(by_file.items()):
        suite = ElementTree.SubElement(
            root, "testsuite", name=path, tests=str(max(1, len(found))), failures=str(len(found))
        )
        total += max(1, len(found))
        failures += len(found)
        if not found:
            ElementTree.SubElement(suite, "testcase", name="dimlint", classname=path)
        for diagnostic in found:
            line = diagnostic.span.start_pos.line if diagnostic.span else 1
            column = diagnostic.span.start_pos.column if diagnostic.span else 1
            case = ElementTree.SubElement(
                suite,
                "testcase",
                name=f"{diagnostic.code} {rules[diagnostic.code].name} at {line}:{column}",
                classname=path,
                file=path,
                line=str(line),
            )
            failure = ElementTree.SubElement(
                case,
                "failure",
                message=diagnostic.message,
                type=f"{diagnostic.code} ({diagnostic.severity.label})",
            )
            failure.text = f"{path}:{line}:{column}: {diagnostic.code} {with_fix(diagnostic)}"
            if diagnostic.severity is Severity.INFO:
                case.set("name", case.get("name", "") + " [info]")
    root.set("tests", str(total))
    root.set("failures", str(failures))
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, "unicode") + "\n"
