"""Lint one Python file: find its configs and torch layers, run the rules, locate every finding.

The pipeline mirrors :func:`dimlint.lint.pipeline.lint_bytes` for JSON:

1. a cheap pre-filter (:mod:`dimlint.sources.python.prefilter`) skips files that mention no config
   key, without importing libcst;
2. CPython's ``ast`` reads the file (:mod:`dimlint.sources.python.fastscan`), and positions and
   fixes are computed from its tree (:mod:`dimlint.sources.python.astspans`); libcst parses
   the file only when CPython or the complexity guard refuses it (DL001 at libcst's error
   position) or a finding sits on a node ``ast`` does not bound exactly (a parenthesised
   tuple), and then everything below runs on libcst's tree;
3. :mod:`dimlint.lint.python_findings` finds config candidates and torch layer calls and runs the
   same registered rules on them;
4. a fix that rewrites a module constant is kept only if the file would raise no new finding
   with the constant changed: the constant may be read by other configs and layers, and a fix
   must not trade one finding for another (DESIGN.md) — checked by re-evaluating the module with
   the new values, no re-parse;
5. :mod:`dimlint.lint.python_locate` resolves positions and edits, for the surviving findings
   only;
6. ``# noqa`` comments filter the findings and DL701 reports the unused ones
(:mod:`dimlint.lint.noqa`).

Diagnostics of Python files carry ``pointer=None``: their pointers are synthetic (DESIGN.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from dimlint.checks.registry import REGISTRY
from dimlint.diagnostics import Diagnostic, Position, Span
from dimlint.lint.results import FileResult
from dimlint.lint.selection import Selection
from dimlint.sources.jsonfile import InputProblem
from dimlint.sources.python.prefilter import may_have_configs

if TYPE_CHECKING:
    from dimlint.config.spec import ModelSpec
    from dimlint.lint.python_findings import Pending
    from dimlint.sources.python.file import NodeSpans, PythonDocument
    from dimlint.sources.python.scan import Scan


#: A rounding of the vocabulary written in model code: ``next_multiple_of_n(vocab_size, n=128)``,
#: ``find_multiple(config.vocab_size, 64)``, ``round_up(vocab_size, 128)``, ``pad_vocab(...)``.
CODE_ROUNDING = re.compile(
    r"\b\w*(?:multiple|round_up|ceil_to|pad_vocab|pad_to)\w*\(\s*(?:[A-Za-z_]\w*\.)*vocab_size\b"
)
#: :data:`CODE_ROUNDING` without its leading ``\b\w*``, which makes the regular expression
#: engine try every word of the file (a fifth of what ``ast.parse`` of the file costs).
_ROUNDING_TAIL = re.compile(
    r"(?:multiple|round_up|ceil_to|pad_vocab|pad_to)\w*\(\s*(?:[A-Za-z_]\w*\.)*vocab_size\b"
)
_WORD_CHARACTER = re.compile(r"\w")


def code_rounding(text: str) -> str | None:
    """The name of the function that rounds the vocabulary in ``text`` (the first
    :data:`CODE_ROUNDING` match's callee), if any.

    The first match of the tail starts in the first word that :data:`CODE_ROUNDING` matches,
    and that match starts where the word does."""
    found = _ROUNDING_TAIL.search(text)
    if found is None:
        return None
    start = found.start()
    while start and _WORD_CHARACTER.match(text, start - 1):
        start -= 1
    return text[start : found.end()].split("(", maxsplit=1)[0]


#: What a noqa directive's dimlint code may look like (:data:`dimlint.lint.noqa._CODE` starting
#: with ``DL``): a file without one cannot get a DL701.
DIMLINT_CODE = re.compile(r"DL[A-Z]*[0-9]")


def lint_python(path: str, data: bytes, selection: Selection, *, fast: bool = True) -> FileResult:
    """Lint the bytes of a Python file named ``path``.

    ``fast=False`` reads every file with libcst (the equivalence tests compare both readings).
    """
    result = FileResult(path)
    if not may_have_configs(data):
        result.skipped = "no config-like construct (pre-filter)"
        return result
    from dimlint.sources.python import file as pyfile

    enabled = selection.enabled_codes(path)
    text, bom, problem = pyfile.decode(data)
    if text is None:
        assert problem is not None
        return _invalid(result, problem, enabled)
    document = pyfile.PythonDocument(path, text, bom)
    if problem is None:
        result.document = document  # files in other encodings are checked, never rewritten
    if fast and problem is None and _lint_by_ast(result, document, enabled, selection):
        return result
    module = pyfile.parse(text)
    if isinstance(module, InputProblem):
        return _invalid(result, module, enabled)
    from dimlint.sources.python import scan as pyscan

    def place(nodes: list[Any], comments: bool) -> NodeSpans:
        return pyfile.locate(module, nodes, text)

    done = _finish(result, document, pyscan.scan(module), enabled, selection, place)
    assert done
    return result


def _lint_by_ast(
    result: FileResult, document: PythonDocument, enabled: frozenset[str], selection: Selection
) -> bool:
    """Lint the file read by CPython's ``ast``; False (``result`` untouched) when libcst must
    read it instead: CPython or the complexity guard refuses it, its line ends are ones
    ``ast`` counts differently (a lone ``\r``), or a node a finding needs cannot be placed
    exactly from ``ast`` (:mod:`dimlint.sources.python.astspans`)."""
    text = document.text
    if "\r" in text and "\r" in text.replace("\r\n", ""):
        return False
    from dimlint.sources.python import astspans, fastscan
    from dimlint.sources.python.complexity import too_complex

    if too_complex(text) is not None:
        return False
    tree = fastscan.parse(text)
    if tree is None:
        return False
    scan, converter = fastscan.read(tree, text)

    def place(nodes: list[Any], comments: bool) -> NodeSpans | None:
        located = astspans.locate(converter.origin, text, nodes)
        if located is not None and comments:
            found = astspans.comments(text)
            if found is None:
                return None
            located.comments = found
        return located

    return _finish(result, document, scan, enabled, selection, place)


def _finish(
    result: FileResult,
    document: PythonDocument,
    scan: Scan,
    enabled: frozenset[str],
    selection: Selection,
    place: Callable[[list[Any], bool], NodeSpans | None],
) -> bool:
    """Run the rules on a scanned module and place what they find (``place(nodes, comments)``:
    the nodes' offsets, and every comment when asked). False, with ``result`` untouched, when
    ``place`` cannot place them."""
    from dimlint.lint import placeholders, python_findings, python_locate
    from dimlint.sources.python.asserted import divisibility_asserted
    from dimlint.sources.python.kernels import calls_fused_attention
    from dimlint.sources.python.perhead import per_head_widths

    path, text = result.path, document.text
    rounding = code_rounding(text)
    tally: dict[str, int] = {}
    models: list[list[ModelSpec]] = []
    notes: list[str] = []
    pending = python_findings.collect(
        path,
        scan,
        enabled,
        selection,
        rounding=rounding,
        tally=tally,
        models=models,
        notes=notes,
        per_head=per_head_widths(text),
        asserted=divisibility_asserted(text),
        fused_attention=calls_fused_attention(text),
    )
    pending = _guard_constant_fixes(path, scan, pending, enabled, selection, rounding)
    read = (tally.get("configs", 0), tally.get("layers", 0))
    has_noqa = "noqa" in text.lower()
    skipped = _NOTHING_READ if not read[0] and not read[1] and not has_noqa else None
    diagnostics: list[Diagnostic] = []
    # without a finding, only a DL code in a noqa comment can be reported (DL701); other
    # tools' codes and a directive without codes never are
    if pending or (has_noqa and DIMLINT_CODE.search(text)):
        nodes = [node for item in pending for node in python_locate.nodes_of(item)]
        marked = placeholders.may_apply(text)  # a value whose comment says it is unused
        located = place(nodes, has_noqa or marked)
        if located is None:
            return False
        diagnostics = _dedupe(
            python_locate.diagnostic(document, item, located, selection) for item in pending
        )
        if has_noqa:
            from dimlint.lint import noqa

            found = noqa.directives(document, located.comments)
            diagnostics = noqa.apply(diagnostics, found, document, selection, enabled)
        if marked:
            lines = placeholders.marked_lines(document, located.comments)
            diagnostics = placeholders.drop_marked(diagnostics, lines, document, result.notes)
    result.notes.extend(notes)
    result.models = models  # what mem, plan and shapes compute from
    result.read = read
    result.skipped = skipped
    result.diagnostics = sorted(diagnostics, key=lambda d: d.sort_key)
    return True


_NOTHING_READ = (
    "no config-like construct (no config class, config call or dict, and no torch"
    " layer with known dimensions)"
)


def _invalid(result: FileResult, problem: InputProblem, enabled: frozenset[str]) -> FileResult:
    if "DL001" in enabled:
        position = problem.position
        span = Span(0, 0, position, Position(position.line, position.column + 1))
        severity = REGISTRY["DL001"].severity
        result.diagnostics.append(Diagnostic("DL001", severity, problem.message, result.path, span))
    return result


def _guard_constant_fixes(
    path: str,
    scan: Scan,
    pending: list[Pending],
    enabled: frozenset[str],
    selection: Selection,
    rounding: str | None,
) -> list[Pending]:
    """Drop the fixes that rewrite a module constant and would raise a new finding elsewhere."""
    from dimlint.lint.python_findings import collect

    before = {item.key for item in pending}
    verdicts: dict[frozenset[tuple[int, Any]], bool] = {}
    kept = []
    for item in pending:
        safe = True
        if item.edits_a_constant():
            changes = item.replaced_values()
            key = frozenset(changes.items())
            if key not in verdicts:
                after = collect(path, scan, enabled, selection, changes, rounding=rounding)
                verdicts[key] = all(other.key in before for other in after)
            safe = verdicts[key]
        kept.append(item if safe else item.without_fix())
    return kept


def _dedupe(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """One finding per code, place and message (several calls may share a constant)."""
    seen: set[tuple[str, Span | None, str]] = set()
    kept = []
    for diagnostic in diagnostics:
        key = (diagnostic.code, diagnostic.span, diagnostic.message)
        if key not in seen:
            seen.add(key)
            kept.append(diagnostic)
    return kept
