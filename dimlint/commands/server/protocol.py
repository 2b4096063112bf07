"""dimlint's findings and fixes as LSP values (lsprotocol types).

A diagnostic carries the code, severity, message and rule link of ``check``'s JSON output, at
the same span converted to LSP positions (:mod:`.positions`). Each fix becomes a quick fix: safe
ones preferred, unsafe ones titled as the shape changes they are, display-only ones (shapes
that would break the weights beside the config) never offered as an edit.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lsprotocol import types

from dimlint.checks import all_rules
from dimlint.commands.server.positions import Encoding, LineIndex, LspPosition
from dimlint.diagnostics import Applicability, Diagnostic, Edit, Severity, Span

SOURCE = "dimlint"
FIX_ALL_KIND = "source.fixAll.dimlint"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def _position(position: LspPosition) -> types.Position:
    return types.Position(line=position.line, character=position.character)


def span_range(index: LineIndex, span: Span | None) -> types.Range:
    """The LSP range of a dimlint span (the first character of the file when there is none)."""
    if span is None:
        start = end = LspPosition(0, 0)
    else:
        start = index.to_lsp(*span.start_pos)
        end = index.to_lsp(*span.end_pos)
    return types.Range(start=_position(start), end=_position(end))


def diagnostic(index: LineIndex, found: Diagnostic) -> types.Diagnostic:
    """One finding as an LSP diagnostic."""
    rule = all_rules()[found.code]
    return types.Diagnostic(
        range=span_range(index, found.span),
        message=found.message,
        severity=_SEVERITY[found.severity],
        code=found.code,
        code_description=types.CodeDescription(href=rule.url),
        source=SOURCE,
        data={"name": rule.name, "fix": found.fix.message if found.fix else None},
    )


def text_edits(index: LineIndex, edits: Iterable[Edit]) -> list[types.TextEdit]:
    """LSP edits of a fix (an empty edit, the marker of the byte-order-mark fix, dropped)."""
    return [
        types.TextEdit(range=span_range(index, edit.span), new_text=edit.content)
        for edit in edits
        if edit.span.end > edit.span.start or edit.content
    ]


def overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def workspace_edit(
    uri: str, version: int | None, edits: list[types.TextEdit], versioned: bool
) -> types.WorkspaceEdit:
    """Edits of one document, tied to the version they were computed on when the client can."""
    if not versioned:
        return types.WorkspaceEdit(changes={uri: edits})
    document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
    change = types.TextDocumentEdit(text_document=document, edits=list(edits))
    return types.WorkspaceEdit(document_changes=[change])


def _edit_key(edit: types.TextEdit) -> tuple[int, int, int, int, str]:
    start, end = edit.range.start, edit.range.end
    return (start.line, start.character, end.line, end.character, edit.new_text)


def quick_fixes(
    uri: str,
    version: int | None,
    index: LineIndex,
    findings: Iterable[Diagnostic],
    wanted: types.Range,
    versioned: bool,
) -> list[types.CodeAction]:
    """A quick fix for every finding with an applicable fix whose range meets ``wanted``.

    Findings whose fixes make the same edits (DL101 and DL201 both rounding ``hidden_size`` to
    4096) share one action listing both codes: two identical entries in the menu would only
    make the user wonder what differs.
    """
    merged: dict[tuple[tuple[int, int, int, int, str], ...], list[tuple[Diagnostic, Any]]] = {}
    for found in findings:
        fix = found.fix
        if fix is None or fix.applicability is Applicability.DISPLAY:
            continue
        converted = diagnostic(index, found)
        if not overlaps(converted.range, wanted):
            continue
        edits = text_edits(index, fix.edits)
        if not edits:
            continue
        key = tuple(_edit_key(edit) for edit in edits)
        merged.setdefault(key, []).append((found, converted))
    actions = []
    for group in merged.values():
        first = group[0][0]
        assert first.fix is not None
        codes = ", ".join(dict.fromkeys(found.code for found, _ in group))
        safe = all(
            found.fix is not None and found.fix.applicability is Applicability.SAFE
            for found, _ in group
        )
        title = f"{first.fix.message} ({codes})"
        if not safe:
            title = f"Change shapes: {first.fix.message} ({codes}, unsafe fix)"
        actions.append(
            types.CodeAction(
                title=title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[converted for _, converted in group],
                is_preferred=safe,
                edit=workspace_edit(uri, version, text_edits(index, first.fix.edits), versioned),
            )
        )
    return actions


def offsets_range(index: LineIndex, start: int, end: int) -> types.Range:
    """The LSP range of character offsets ``start``–``end`` of the indexed text."""
    return types.Range(
        start=_position(index.offset_to_lsp(start)), end=_position(index.offset_to_lsp(end))
    )


def settings_edit(
    path: str, old: str | None, new: str, can_create: bool, encoding: Encoding
) -> types.WorkspaceEdit | None:
    """A workspace edit giving the settings file at ``path`` the text ``new`` (creating it
    when ``old`` is None, if the client can; None when it cannot)."""
    from pathlib import Path

    uri = Path(path).absolute().as_uri()
    document = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None)
    if old is None:
        if not can_create:
            return None
        insert = types.TextEdit(
            range=types.Range(start=_position(LspPosition(0, 0)), end=_position(LspPosition(0, 0))),
            new_text=new,
        )
        return types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
                types.TextDocumentEdit(text_document=document, edits=[insert]),
            ]
        )
    index = LineIndex(old, encoding)
    whole = types.TextEdit(range=offsets_range(index, 0, len(old)), new_text=new)
    return types.WorkspaceEdit(
        document_changes=[types.TextDocumentEdit(text_document=document, edits=[whole])]
    )


def whole_text_edit(index: LineIndex, new_text: str) -> types.TextEdit:
    """One edit turning the indexed text into ``new_text``, trimmed to the part that differs
    (so that the cursor and folds outside the fixed region stay where they are)."""
    old = index.text
    start = 0
    limit = min(len(old), len(new_text))
    while start < limit and old[start] == new_text[start]:
        start += 1
    end_old, end_new = len(old), len(new_text)
    while end_old > start and end_new > start and old[end_old - 1] == new_text[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return types.TextEdit(
        range=types.Range(
            start=_position(index.offset_to_lsp(start)),
            end=_position(index.offset_to_lsp(end_old)),
        ),
        new_text=new_text[start:end_new],
    )
