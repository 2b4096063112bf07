"""Turn pending Python findings into diagnostics: where each points, and its fix as edits.

A pointer names a member. The finding points at the member's *use* — the expression written at
that place (a ``Name`` when the value comes from a constant or a local shared by several configs
or layers), the literal itself when it is the only place reading it, or its key when the value
is a whole dict (a sub-config) — and the fix rewrites the member's *edit* literal, which for a
constant is at the constant's definition. The JSON locator (:func:`dimlint.lint.pipeline._locate`)
does
not fit because of that split, and because a key rename writes an identifier
(``num_attention_heads=``), not a JSON string.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from dimlint.checks.registry import PlannedFix
from dimlint.diagnostics import Diagnostic, Edit, Fix
from dimlint.lint.python_findings import Pending
from dimlint.lint.selection import Selection

if TYPE_CHECKING:
    import libcst as cst

    from dimlint.sources.python.file import NodeSpans, PythonDocument
    from dimlint.sources.python.values import Member


def _member(item: Pending, pointer: str | None) -> Member | None:
    return item.members.get(pointer) if pointer else None


def _where(item: Pending, member: Member | None) -> cst.CSTNode | None:
    """A finding points at the value written there — or at the literal a name there stands
    for when nothing else in the file reads it (``embed_dim = 773`` …
    ``Model(embed_dim=embed_dim)``: at 773, where the user changes it, as a YAML reference's
    finding sits at its definition); at the key when the value is a whole dict."""
    if member is None:
        return None
    if member.value.members and member.key_node is not None:
        return member.key_node
    sole = item.sole_literal(member)
    return sole if sole is not None else member.use


def nodes_of(item: Pending) -> Iterable[cst.CSTNode]:
    """The nodes whose positions the finding and its fix need."""
    yield item.anchor
    place = _where(item, _member(item, item.finding.anchor))
    if place is not None:
        yield place
    fix = item.finding.fix
    if fix is None:
        return
    for pointer, _ in fix.replacements:
        member = _member(item, pointer)
        if member is not None and member.value.edit is not None:
            yield member.value.edit
    for pointer, _ in fix.key_renames:
        member = _member(item, pointer)
        if member is not None and member.key_node is not None:
            yield member.key_node
    for pointer in item.pins:
        edit = item.members[pointer].value.edit
        if edit is not None:
            yield edit


def diagnostic(
    document: PythonDocument, item: Pending, located: NodeSpans, selection: Selection
) -> Diagnostic:
    """The located finding; its JSON pointer is synthetic, so the diagnostic carries none."""
    finding = item.finding
    place = _where(item, _member(item, finding.anchor))
    offsets = located.of(place) if place is not None else None
    if offsets is None:
        start, end = located.of(item.anchor) or (0, 0)
        offsets = (start, start + 1) if item.brace else (start, end)
    span = document.span(*offsets)
    fix = resolve_fix(document, item, finding.fix, located) if finding.fix is not None else None
    severity = selection.severity_of(finding.code, finding.severity)
    return Diagnostic(finding.code, severity, finding.message, document.path, span, None, fix)


def resolve_fix(
    document: PythonDocument, item: Pending, planned: PlannedFix, located: NodeSpans
) -> Fix | None:
    """The planned fix as edits of the source; None when a value it changes has no literal."""
    if planned.raw_edits:
        return None  # raw character ranges are JSON-only (duplicate keys)
    edits: list[Edit] = []
    for pointer, content in planned.replacements:
        member = _member(item, pointer)
        offsets = located.of(member.value.edit) if member and member.value.edit else None
        if offsets is None:
            return None
        edits.append(Edit(document.span(*offsets), content))
    for pointer, new_key in planned.key_renames:
        member = _member(item, pointer)
        offsets = located.of(member.key_node) if member and member.key_node else None
        if member is None or offsets is None:
            return None
        if member.key_kind == "identifier":
            if not new_key.isidentifier():
                return None
            text = new_key
        else:
            quote = document.text[offsets[0]]
            text = f"{quote}{new_key}{quote}"
        edits.append(Edit(document.span(*offsets), text))
    # A value read from a module constant is listed unchanged: if another finding's fix rewrites
    # that constant, the fixer sees the two fixes conflict and applies this one only in a later
    # round, re-linted against the constant's new value.
    edited = {(e.span.start, e.span.end) for e in edits}
    for pointer in item.pins:
        edit = item.members[pointer].value.edit
        offsets = located.of(edit) if edit is not None else None
        if offsets is not None and offsets not in edited:
            edited.add(offsets)
            edits.append(Edit(document.span(*offsets), document.text[offsets[0] : offsets[1]]))
    edits.sort(key=lambda e: e.span.start)
    return Fix(planned.applicability, planned.message, tuple(edits))
