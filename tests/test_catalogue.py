"""The rule catalogue (``rules/*.md``) is documentation and a test suite at once.

* every registered rule has exactly one file, whose front matter agrees with the registry;
* every file has the contract's sections, in order;
* every ``json example`` block raises exactly the findings its markers show (code, line, columns),
  with only that rule selected; every ``json use-instead`` block raises none of them; ``python``
  blocks (DL701) likewise, linted as a ``.py`` file with the rules their noqa comments name;
* every ``json fixed`` block is what applying the fixes (unsafe ones included) produces, and the
  fixed text no longer raises the rule;
* the README's rules table is fresh; ``dimlint rule`` / ``dimlint rules`` print the catalogue.
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest
from conftest import lint_text

from dimlint.checks import all_rules, catalogue
from dimlint.checks.catalogue import CatalogueError, Example, Marker, RuleDoc
from dimlint.cli import main
from dimlint.diagnostics import Diagnostic
from dimlint.fix.apply import fix_file
from dimlint.lint.discovery import companions
from dimlint.lint.pipeline import lint_bytes
from dimlint.lint.selection import Selection
from dimlint.tools import readme_rules

RULES = all_rules()
FILES = catalogue.rule_files()
DOCS: dict[str, RuleDoc] = {code: catalogue.parse_rule(path) for code, path in FILES.items()}
EXAMPLES: list[Example] = [example for doc in DOCS.values() for example in catalogue.examples(doc)]
FIXED_PAIRS: list[tuple[Example, Example]] = [
    pair for doc in DOCS.values() for pair in catalogue.fixed_pairs(doc)
]


def _of_kind(kind: str) -> list[object]:
    return [pytest.param(e, id=e.id) for e in EXAMPLES if e.kind == kind]


def _needs_transformers(code: str) -> None:
    if code == "DL006":
        pytest.importorskip("transformers", reason="DL006 builds configs with transformers")


# --- (a) catalogue ↔ registry --------------------------------------------------------------------


def test_every_registered_rule_has_a_file() -> None:
    missing = sorted(set(RULES) - set(FILES))
    assert not missing, f"rules without a catalogue file in {catalogue.catalogue_dir()}: {missing}"


def test_every_file_is_a_registered_rule() -> None:
    orphans = sorted(str(FILES[code]) for code in set(FILES) - set(RULES))
    assert not orphans, f"catalogue files for unregistered codes: {orphans}"


@pytest.mark.parametrize("code", sorted(FILES))
def test_front_matter_matches_registry(code: str) -> None:
    doc = DOCS[code]
    rule = RULES.get(code)
    assert rule is not None
    assert FILES[code].name == f"{rule.code}-{rule.name}.md"
    assert (doc.code, doc.name) == (rule.code, rule.name)
    assert doc.severity == rule.severity.label
    assert doc.fix == rule.fix
    assert doc.default == rule.enabled_by_default
    assert doc.since == "0.1.0"


# --- (b) sections --------------------------------------------------------------------------------


@pytest.mark.parametrize("code", sorted(FILES))
def test_sections_present_and_in_order(code: str) -> None:
    doc = DOCS[code]
    assert doc.body.startswith(f"# {doc.name} ({doc.code})\n")
    required = [title for title in doc.sections if title in catalogue.SECTIONS]
    assert required == list(catalogue.SECTIONS), f"sections of {doc.path}: {doc.sections}"
    for title in catalogue.SECTIONS:
        assert catalogue.section(doc, title).strip(), f"{doc.path}: '## {title}' is empty"


@pytest.mark.parametrize("code", sorted(FILES))
def test_examples_are_in_their_sections(code: str) -> None:
    doc = DOCS[code]
    kinds = {e.kind for e in catalogue.examples(doc)}
    assert {"example", "use-instead"} <= kinds
    language = "python" if "```python example" in doc.text else "json"
    assert f"```{language} example" in catalogue.section(doc, "Example")
    assert f"```{language} use-instead" in catalogue.section(doc, "Use instead")
    if "fixed" in kinds:
        assert RULES[code].fix != "never", f"{code} has no fix but shows a fixed example"


@pytest.mark.parametrize("code", sorted(FILES))
def test_fix_section_states_applicability(code: str) -> None:
    doc = DOCS[code]
    fix = catalogue.section(doc, "Fix")
    if RULES[code].fix == "never":
        assert fix.startswith("None"), f"{doc.path}: a rule without fix starts '## Fix' with None"
    else:
        assert re.search(r"\*\*(safe|unsafe)\*\*", fix), f"{doc.path}: say safe or unsafe"


@pytest.mark.parametrize(
    "code", sorted(c for c, rule in RULES.items() if not rule.enabled_by_default and c in FILES)
)
def test_opt_in_rules_say_how_to_enable(code: str) -> None:
    text = catalogue.section(DOCS[code], "What it does")
    assert "Off by default" in text
    assert f"--extend-select {code}" in text


# --- (c) examples raise exactly the marked findings ----------------------------------------------


def _lint_example(example: Example, folder: Path) -> list[Diagnostic]:
    """Lint an example as text, or — when it has files beside its config (checkpoint headers,
    tokenizer) — as the folder a user would have."""
    if not example.files:
        return lint_text(
            example.text,
            path=example.path,
            select=example.select(),
            deployment=example.deployment(),
        )
    config = catalogue.write_example(example, folder)
    selection = Selection(
        select=example.select(),
        deployment=example.deployment(),
        companions=companions(os.listdir(folder)),
    )
    return lint_bytes(str(config), config.read_bytes(), selection).diagnostics


def _expected_markers(example: Example) -> list[tuple[str, Marker]]:
    marked = [(example.path, marker) for marker in example.markers]
    for beside in example.files:
        marked.extend((beside.name, marker) for marker in beside.markers)
    return sorted(marked)


@pytest.mark.parametrize("example", _of_kind("example"))
def test_example_raises_marked_findings(example: Example, tmp_path: Path) -> None:
    _needs_transformers(example.code)
    expected = _expected_markers(example)
    assert expected, f"{example.id} has no marker line"
    assert {m.code for _, m in expected} == {example.code}
    diagnostics = _lint_example(example, tmp_path)
    found = []
    for diagnostic in diagnostics:
        assert diagnostic.span is not None
        start, end = diagnostic.span.start_pos, diagnostic.span.end_pos
        assert start.line == end.line, f"{example.id}: {diagnostic.code} spans several lines"
        marker = Marker(diagnostic.code, start.line, start.column, end.column)
        found.append((os.path.basename(diagnostic.path), marker))
    assert sorted(found) == expected, "\n".join(d.message for d in diagnostics)


# --- (d) use-instead blocks raise nothing of their rule ------------------------------------------


@pytest.mark.parametrize("example", _of_kind("use-instead"))
def test_use_instead_is_clean(example: Example, tmp_path: Path) -> None:
    _needs_transformers(example.code)
    diagnostics = _lint_example(example, tmp_path)
    assert [d.message for d in diagnostics if d.code == example.code] == []


# --- (e) fixed blocks are what the fixes produce -------------------------------------------------


@pytest.mark.parametrize(("original", "fixed"), [pytest.param(*p, id=p[1].id) for p in FIXED_PAIRS])
def test_fixed_block_is_the_fix_output(original: Example, fixed: Example) -> None:
    selection = Selection(select=original.select(), deployment=original.deployment())
    data = original.text.encode("utf-8")
    first = lint_bytes(original.path, data, selection)
    outcome = fix_file(
        data, first, lambda new: lint_bytes(original.path, new, selection), unsafe=True
    )
    assert outcome.fixed is not None, f"{original.id}: no fix applied"
    assert outcome.fixed.decode("utf-8") == fixed.text
    again = lint_text(
        fixed.text, path=original.path, select=original.select(), deployment=original.deployment()
    )
    assert [d.message for d in again if d.code == original.code] == []


# --- (f) README ----------------------------------------------------------------------------------


def test_readme_rules_table_is_fresh() -> None:
    text = readme_rules.DEFAULT_README.read_text(encoding="utf-8")
    assert readme_rules.update(text, readme_rules.render_table()) == text, (
        "README.md's rules table is stale: run python -m dimlint.tools.readme_rules"
    )


def test_readme_rules_check_and_rewrite(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(
        f"# x\n\n{readme_rules.START}\nold\n{readme_rules.END}\n\nafter\n", encoding="utf-8"
    )
    assert readme_rules.main(["--readme", str(readme), "--check"]) == 1
    assert readme_rules.main(["--readme", str(readme)]) == 0
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# x\n\n")
    assert text.endswith(f"{readme_rules.END}\n\nafter\n")
    assert "[DL101](rules/DL101-head-divisibility.md)" in text
    assert readme_rules.main(["--readme", str(readme), "--check"]) == 0


def test_readme_rules_without_markers(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# no markers\n", encoding="utf-8")
    assert readme_rules.main(["--readme", str(readme)]) == 2


# --- (g) CLI -------------------------------------------------------------------------------------


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_cli_rule_prints_the_doc() -> None:
    code, out, err = _run("rule", "DL101")
    assert (code, err) == (0, "")
    assert out.startswith("# head-divisibility (DL101)\n")
    assert "Severity: error" in out
    for title in catalogue.SECTIONS:
        assert f"## {title}\n" in out
    assert "---\ncode:" not in out


@pytest.mark.parametrize("query", ["dl101", "head-divisibility", " DL101 "])
def test_cli_rule_accepts_lowercase_and_names(query: str) -> None:
    code, out, _ = _run("rule", query)
    assert code == 0
    assert out.startswith("# head-divisibility (DL101)")


def test_cli_rules_lists_every_code() -> None:
    code, out, err = _run("rules")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].split() == ["code", "name", "severity", "fix", "default", "summary"]
    assert [line.split()[0] for line in lines[1:]] == list(RULES)
    row = next(line for line in lines if line.startswith("DL203"))
    assert row.split()[1:5] == ["power-of-two", "info", "never", "off"]


@pytest.mark.parametrize(("query", "nearest"), [("DL109", "DL107"), ("head-divisibilty", "DL101")])
def test_cli_unknown_rule(query: str, nearest: str) -> None:
    code, out, err = _run("rule", query)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert f"unknown rule {query!r}" in err
    assert nearest in err


# --- the parser ----------------------------------------------------------------------------------


def test_parse_block_markers() -> None:
    lines = [
        "{",
        '  "hidden_size": 4100,',
        "//               ^^^^ DL101",
        '  "num_attention_heads": 32',
        "}",
    ]
    text, markers = catalogue.parse_block(lines)
    assert text == '{\n  "hidden_size": 4100,\n  "num_attention_heads": 32\n}\n'
    assert markers == (Marker("DL101", 2, 18, 22),)


def test_parse_block_several_markers_on_one_line() -> None:
    text, markers = catalogue.parse_block(
        ['  "a": 1, "b": 2', "//     ^ DL003", "//             ^ DL003"]
    )
    assert text == '  "a": 1, "b": 2\n'
    assert markers == (Marker("DL003", 1, 8, 9), Marker("DL003", 1, 16, 17))


@pytest.mark.parametrize(
    "lines",
    [
        ["//  ^ DL101"],  # nothing above
        ["{", "//  ^^ DL101 extra"],  # malformed marker
        ["{", "//  ^^^^^^ DL101"],  # carets past the end of the line above
    ],
)
def test_parse_block_rejects_bad_markers(lines: list[str]) -> None:
    with pytest.raises(CatalogueError):
        catalogue.parse_block(lines)


def test_example_deployment_attributes() -> None:
    options = catalogue.parse_options(
        ['target="megatron:tp=4,pp=2"', 'target="fp8"', 'budget="1xH100-80GB"', 'context="8192"']
    )
    assert options == (
        ("target", "megatron:tp=4,pp=2"),
        ("target", "fp8"),
        ("budget", "1xH100-80GB"),
        ("context", "8192"),
    )
    example = Example("DL401", "example", 1, "{}\n", (), 1, options)
    found = example.deployment()
    assert found is not None
    assert [t.text for t in found.targets] == ["megatron:tp=4,pp=2", "fp8"]
    assert (found.budget, found.context, found.batch) == ("1xH100-80GB", 8192, None)
    assert Example("DL101", "example", 1, "{}\n", (), 1).deployment() is None
    for bad in (["target=vllm"], ['tp="8"'], ['context="1"', 'context="2"']):
        with pytest.raises(CatalogueError):
            catalogue.parse_options(bad)


def test_front_matter_parser() -> None:
    values, body = catalogue.parse_front_matter(
        '---\ncode: DL101  # comment\nname: "head-divisibility"\n\n---\n# title\n'
    )
    assert values == {"code": "DL101", "name": "head-divisibility"}
    assert body == "# title\n"
    with pytest.raises(CatalogueError):
        catalogue.parse_front_matter("no front matter\n")
    with pytest.raises(CatalogueError):
        catalogue.parse_front_matter("---\ncode: DL101\n")
    with pytest.raises(CatalogueError):
        catalogue.parse_front_matter("---\njust text\n---\n")


def test_read_rule_and_unknown_code() -> None:
    doc = catalogue.read_rule("DL202")
    assert doc.name == "vocab-padding"
    assert doc.sections[: len(catalogue.SECTIONS)] == catalogue.SECTIONS
    with pytest.raises(KeyError):
        catalogue.read_rule("DL999")
