"""The command-line contract of DESIGN.md, through ``dimlint.cli.main`` (and once for real).

Exit codes, rule selection, the concise and JSON formats, statistics, ``--fix``/``--diff`` and
discovery. Settings files have their own module (test_settings.py); every run here passes
``--no-config`` so that a settings file above the temporary directory cannot change the result.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from dimlint import __version__
from dimlint.checks import all_rules
from dimlint.cli import main

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "broken-llama" / "config.json"


def config(**overrides: Any) -> str:
    """A llama config, one key per line; the defaults are clean under the default rules."""
    values: dict[str, Any] = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 32,
        "vocab_size": 32000,
        "intermediate_size": 14336,
        "max_position_embeddings": 8192,
    }
    values.update(overrides)
    return json.dumps(values, indent=2, ensure_ascii=False) + "\n"


CLEAN = config()
ERROR = config(hidden_size=4100)  # DL101 (error) + DL201 (warning)
WARNING_ONLY = config(pad_token_id=32000)  # DL603 (warning)
INFO_ONLY = config(intermediate_size=11000)  # DL201 + DL302 (info)


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str

    @property
    def findings(self) -> list[dict[str, Any]]:
        loaded: list[dict[str, Any]] = json.loads(self.stdout)
        return loaded

    @property
    def codes(self) -> list[str]:
        return [f["code"] for f in self.findings]


def cli(*args: str | Path, config_files: bool = False) -> Run:
    out, err = io.StringIO(), io.StringIO()
    argv = ["check", *([] if config_files else ["--no-config"]), *map(str, args)]
    code = main(argv, out, err)
    assert "Traceback" not in err.getvalue()
    return Run(code, out.getvalue(), err.getvalue())


def json_run(*args: str | Path) -> Run:
    return cli("--output-format", "json", *args)


def put(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        text = text.encode("utf-8")
    path.write_bytes(text)
    return path


@pytest.fixture(autouse=True)
def _not_on_github(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default format is github under GitHub Actions; these tests want the plain default."""
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)


# --- version and exit codes -------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert main(["--version"], out, err) == 0
    printed = out.getvalue() + capsys.readouterr().out
    assert printed.strip() == f"dimlint {__version__}"


@pytest.mark.parametrize(
    ("text", "fail_level", "expected"),
    [
        (CLEAN, None, 0),
        (CLEAN, "info", 0),
        (ERROR, None, 1),
        (ERROR, "error", 1),
        (WARNING_ONLY, None, 0),  # advice is shown, not fatal
        (WARNING_ONLY, "error", 0),
        (WARNING_ONLY, "warning", 1),
        (WARNING_ONLY, "info", 1),
        (INFO_ONLY, None, 0),
        (INFO_ONLY, "warning", 0),
        (INFO_ONLY, "info", 1),
    ],
)
def test_exit_codes_and_fail_level(
    tmp_path: Path, text: str, fail_level: str | None, expected: int
) -> None:
    path = put(tmp_path / "config.json", text)
    args = ["--output-format", "concise", path]
    if fail_level:
        args += ["--fail-level", fail_level]
    run = cli(*args)
    assert run.code == expected
    if text is not CLEAN:
        assert run.stdout.startswith(f"{path}:")  # advice is shown even when it does not fail


def test_the_fixtures_raise_what_the_exit_code_tests_assume(tmp_path: Path) -> None:
    def severities(text: str) -> set[tuple[str, str]]:
        run = json_run(put(tmp_path / "config.json", text))
        return {(f["code"], f["severity"]) for f in run.findings}

    assert severities(CLEAN) == set()
    assert severities(ERROR) == {("DL101", "error"), ("DL201", "warning")}
    assert severities(WARNING_ONLY) == {("DL603", "warning")}
    assert {s for _, s in severities(INFO_ONLY)} == {"info"}


def test_exit_code_2_for_a_missing_path_beats_findings(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", ERROR)
    run = json_run(path, tmp_path / "missing.json")
    assert run.code == 2
    assert "DL101" in run.codes
    assert "missing.json" in run.stderr


def test_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    run = cli("--output-format", "xml", put(tmp_path / "config.json", CLEAN))
    assert run.code == 2
    assert run.stdout == ""
    assert "invalid choice: 'xml'" in run.stderr
    assert "'json'" in run.stderr  # the valid formats are listed


# --- rule selection ---------------------------------------------------------------------------


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """examples/broken-llama: DL101, DL102, DL201 ×2, DL202, DL302 by default."""
    return put(tmp_path / "config.json", EXAMPLE.read_bytes())


def test_default_selection(broken: Path) -> None:
    assert sorted(json_run(broken).codes) == ["DL101", "DL102", "DL201", "DL201", "DL202", "DL302"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--select", "DL1"], {"DL101", "DL102"}),
        (["--select", "DL20"], {"DL201", "DL202"}),  # the prefix does not opt into DL203
        (["--select", "dl101,DL302"], {"DL101", "DL302"}),
        (["--select", "DL1", "--extend-select", "DL30"], {"DL101", "DL102", "DL302"}),
        (["--ignore", "DL2"], {"DL101", "DL102", "DL302"}),
        (["--ignore", "DL20,DL102"], {"DL101", "DL302"}),
        (["--select", "DL1", "--ignore", "DL101"], {"DL102"}),
        (["--extend-select", "DL203"], {"DL101", "DL102", "DL201", "DL202", "DL203", "DL302"}),
        (["--select", "DL203"], {"DL203"}),
        (["--select", "DL2", "--extend-select", "DL203"], {"DL201", "DL202", "DL203"}),
        (["--select", "DL2"], {"DL201", "DL202"}),
        (["--extend-select", "DL2"], {"DL101", "DL102", "DL201", "DL202", "DL302"}),
    ],
)
def test_select_ignore_extend_select_by_prefix(
    broken: Path, args: list[str], expected: set[str]
) -> None:
    assert set(json_run(broken, *args).codes) == expected


def test_opt_in_rule_only_with_its_full_code(broken: Path) -> None:
    assert not all_rules()["DL203"].enabled_by_default
    for selection in (["--select", "DL"], ["--select", "DL20"], ["--extend-select", "DL2"]):
        assert "DL203" not in json_run(broken, *selection).codes
    assert "DL203" in json_run(broken, "--select", "DL203").codes
    # ALL opts in too (DL006 is left out: it imports transformers, which takes seconds)
    assert "DL203" in json_run(broken, "--select", "ALL", "--ignore", "DL006").codes


@pytest.mark.parametrize(
    "args",
    [
        ["--select", "DL9"],
        ["--select", "DL101,XYZ"],
        ["--ignore", "DL999"],
        ["--extend-select", "E501"],
    ],
)
def test_unknown_codes_are_a_one_line_usage_error(broken: Path, args: list[str]) -> None:
    run = cli(*args, "--output-format", "json", broken)
    assert run.code == 2
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1
    bad = args[1].split(",")[-1].upper()
    assert bad in lines[0]


# --- output formats ---------------------------------------------------------------------------

CONCISE_LINE = re.compile(r"^(?P<path>.+):(?P<line>\d+):(?P<col>\d+): (?P<code>DL\d{3}) .+$")


def test_concise_format(broken: Path) -> None:
    run = cli("--output-format", "concise", broken)
    lines = run.stdout.splitlines()
    findings = [CONCISE_LINE.match(line) for line in lines if line.startswith(str(broken))]
    assert all(findings)
    assert len(findings) == 6
    first = findings[0]
    assert first is not None
    assert (first["path"], first["line"], first["col"], first["code"]) == (
        str(broken),
        "4",
        "18",
        "DL101",
    )
    assert json_run(broken).findings[0]["column"] == 18


FINDING_KEYS = [
    "code", "name", "severity", "message", "file", "line", "column", "end_line", "end_column",
    "pointer", "fix", "url",
]  # fmt: skip
EDIT_KEYS = ["line", "column", "end_line", "end_column", "content"]


def test_json_format_follows_the_design(broken: Path) -> None:
    run = json_run(broken)
    assert run.code == 1
    findings = run.findings
    assert isinstance(findings, list)
    rules = all_rules()
    for finding in findings:
        assert list(finding) == FINDING_KEYS
        assert finding["name"] == rules[finding["code"]].name
        assert finding["severity"] in ("error", "warning", "info")
        assert finding["file"] == str(broken)
        for key in ("line", "column", "end_line", "end_column"):
            assert isinstance(finding[key], int)
            assert finding[key] >= 1
        assert isinstance(finding["url"], str)
        assert finding["url"]
        fix = finding["fix"]
        if fix is not None:
            assert list(fix) == ["applicability", "message", "edits"]
            assert fix["applicability"] in ("safe", "unsafe", "display")
            assert fix["edits"]
            for edit in fix["edits"]:
                assert list(edit) == EDIT_KEYS
    head = findings[0]
    assert head == {
        **head,
        "code": "DL101",
        "name": "head-divisibility",
        "severity": "error",
        "file": str(broken),
        "line": 4,
        "column": 18,
        "end_line": 4,
        "end_column": 22,
        "pointer": "/hidden_size",
    }
    assert head["fix"]["applicability"] == "unsafe"
    assert head["fix"]["edits"] == [
        {"line": 4, "column": 18, "end_line": 4, "end_column": 22, "content": "4096"}
    ]


def test_json_format_is_an_empty_array_when_clean(tmp_path: Path) -> None:
    run = json_run(put(tmp_path / "config.json", CLEAN))
    assert run.code == 0
    assert run.stdout.strip() == "[]"
    assert json_run(tmp_path / "nothing-here").stdout.strip() == "[]"


def test_json_columns_count_code_points(tmp_path: Path) -> None:
    line = '{"name": "日本語 😀 émoji", "model_type": "llama", "hidden_size": 4100,'
    text = line + ' "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 32000}'
    path = put(tmp_path / "config.json", text)
    [finding] = json_run(path, "--select", "DL101").findings
    column = line.index("4100") + 1
    assert (finding["line"], finding["column"]) == (1, column)
    assert (finding["end_line"], finding["end_column"]) == (1, column + 4)
    [edit] = finding["fix"]["edits"]
    assert (edit["column"], edit["end_column"]) == (column, column + 4)


def test_nested_sub_config_pointers(tmp_path: Path) -> None:
    text = json.dumps(
        {
            "model_type": "llava",
            "text_config": json.loads(ERROR),
            "a/b~c": json.loads(ERROR),  # a key that needs RFC 6901 escaping
        },
        indent=2,
    )
    path = put(tmp_path / "config.json", text)
    findings = json_run(path, "--select", "DL101").findings
    pointers = {f["pointer"] for f in findings}
    assert pointers == {"/text_config/hidden_size", "/a~1b~0c/hidden_size"}
    lines = text.splitlines()
    for finding in findings:
        row = lines[finding["line"] - 1]
        assert row.strip().startswith('"hidden_size": 4100')
        assert row[finding["column"] - 1 : finding["end_column"] - 1] == "4100"


def test_statistics(broken: Path) -> None:
    run = cli("--statistics", broken)
    assert run.code == 1
    rows = [line.split() for line in run.stdout.splitlines()]
    table = {row[1]: row for row in rows}
    assert set(table) == {"DL101", "DL102", "DL201", "DL202", "DL302"}
    assert table["DL201"][0] == "2"
    assert table["DL101"] == ["1", "DL101", "[*]", "head-divisibility"]
    assert rows[0][1] == "DL201"  # most frequent first
    for row in rows:
        assert row[-1] == all_rules()[row[1]].name


# --- fixes ------------------------------------------------------------------------------------

CRLF = (
    '{\r\n\t"vocab_size": 32000,\r\n\t"num_attention_heads": 16,\r\n\t"model_type": "llama",'
    '\r\n\t"hidden_size": 4100,\r\n\t"name": "日本語😀",\r\n\t"num_attention_heads": 32,'
    '\r\n\t"num_key_value_heads": 8,\r\n\t"num_hidden_layers": 32,'
    '\r\n\t"intermediate_size": 14336\r\n}'
)  # CRLF, tabs, an odd key order, a duplicate key, no trailing newline
CRLF_SAFE = CRLF.replace('\t"num_attention_heads": 16,\r\n', "")
CRLF_UNSAFE = CRLF_SAFE.replace('"hidden_size": 4100', '"hidden_size": 4096')


def test_fix_applies_only_safe_fixes_and_preserves_every_other_byte(tmp_path: Path) -> None:
    path = put(tmp_path / "model" / "config.json", CRLF)
    path.chmod(0o640)
    before = json_run(path)
    assert sorted(before.codes) == ["DL002", "DL101", "DL201"]
    assert {f["code"]: f["fix"]["applicability"] for f in before.findings} == {
        "DL002": "safe",
        "DL101": "unsafe",
        "DL201": "unsafe",
    }
    run = json_run("--fix", path)
    assert path.read_bytes() == CRLF_SAFE.encode()
    assert sorted(run.codes) == ["DL101", "DL201"]  # what remains is reported
    assert run.code == 1
    assert path.stat().st_mode & 0o777 == 0o640
    assert sorted(os.listdir(path.parent)) == ["config.json"]  # no temporary file left behind
    again = json_run("--fix", path)
    assert path.read_bytes() == CRLF_SAFE.encode()
    assert again.findings == run.findings


def test_unsafe_fixes_also_change_shapes(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", CRLF)
    run = json_run("--fix", "--unsafe-fixes", path)
    assert path.read_bytes() == CRLF_UNSAFE.encode()
    assert run.findings == []
    assert run.code == 0
    json_run("--fix", "--unsafe-fixes", path)
    assert path.read_bytes() == CRLF_UNSAFE.encode()  # idempotent


def test_unsafe_fixes_without_fix_write_nothing(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", CRLF)
    json_run("--unsafe-fixes", path)
    assert path.read_bytes() == CRLF.encode()


def test_fix_summary_in_the_default_format(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", CRLF)
    run = cli("--output-format", "full", "--fix", path)
    assert "Fixed 1 finding." in run.stdout
    assert "DL002" not in run.stdout


def test_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", CRLF)
    run = cli("--diff", path)
    assert path.read_bytes() == CRLF.encode()
    lines = run.stdout.split("\n")
    assert lines[0] == f"--- a/{path}"
    assert lines[1] == f"+++ b/{path}"
    assert lines[2].startswith("@@ ")
    removed = [line for line in lines[3:] if line.startswith("-")]
    added = [line for line in lines[3:] if line.startswith("+")]
    assert removed == ['-\t"num_attention_heads": 16,\r']
    assert added == []
    unsafe = cli("--diff", "--unsafe-fixes", path)
    assert '+\t"hidden_size": 4096,\r' in unsafe.stdout.split("\n")
    assert path.read_bytes() == CRLF.encode()
    assert cli("--diff", put(tmp_path / "clean" / "config.json", CLEAN)).stdout == ""


# --- discovery --------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A repository with configs where they should and should not be found (all are ERROR)."""
    root = tmp_path / "repo"
    for relative in (
        "config.json",
        "models/a/config.json",
        "models/b/model.json",
        ".git/config.json",
        "node_modules/pkg/config.json",
        ".venv/config.json",
        "env/lib/config.json",  # a virtualenv by its pyvenv.cfg, whatever its name
        "ignored/config.json",
        "models/generated.json",
        "models/keep/tokenizer.json",  # never a config, even with config-like content
        "deep/er/gen/config.json",
    ):
        put(root / relative, ERROR)
    put(root / "env" / "pyvenv.cfg", "home = /usr/bin\n")
    put(root / ".gitignore", "ignored/\n*generated*\n")
    put(root / "deep" / ".gitignore", "gen/\n")
    return root


def found(run: Run, root: Path) -> set[str]:
    return {os.path.relpath(f["file"], root) for f in run.findings}


def test_directories_are_walked_and_skips_apply(tree: Path) -> None:
    run = json_run(tree, "--select", "DL101")
    assert found(run, tree) == {"config.json", "models/a/config.json", "models/b/model.json"}


def test_a_file_named_explicitly_is_always_checked(tree: Path) -> None:
    explicit = [
        ".git/config.json",
        "node_modules/pkg/config.json",
        ".venv/config.json",
        "env/lib/config.json",
        "ignored/config.json",
        "models/generated.json",
        "models/keep/tokenizer.json",
        "deep/er/gen/config.json",
    ]
    run = json_run(*(tree / name for name in explicit), "--select", "DL101")
    assert found(run, tree) == set(explicit)


def test_walking_a_subfolder_honours_gitignore_files_above_it(tree: Path) -> None:
    """git applies the .gitignore files of every parent folder (up to the repository root)."""
    run = json_run(tree / "models", "--select", "DL101")
    assert found(run, tree) == {"models/a/config.json", "models/b/model.json"}


def test_gitignore_double_star_matches_at_the_top_level(tmp_path: Path) -> None:
    """In git, '**/gen/' matches gen/ in the folder of the .gitignore itself, too."""
    root = tmp_path / "repo"
    put(root / ".gitignore", "**/gen/\n")
    put(root / "gen" / "config.json", ERROR)
    put(root / "sub" / "gen" / "config.json", ERROR)
    put(root / "ok" / "config.json", ERROR)
    run = json_run(root, "--select", "DL101")
    assert found(run, root) == {"ok/config.json"}


def test_gitignore_negation(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    put(root / ".gitignore", "*.json\n!keep.json\n")
    put(root / "drop.json", ERROR)
    put(root / "keep.json", ERROR)
    assert found(json_run(root, "--select", "DL101"), root) == {"keep.json"}


def test_symlinked_directories_are_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    put(root / "a" / "config.json", ERROR)
    os.symlink(root, root / "a" / "loop")  # a cycle a/loop → repo
    run = json_run(root, "--select", "DL101")
    assert found(run, root) == {"a/config.json"}


# --- the real console script ------------------------------------------------------------------


def test_console_script_in_a_subprocess() -> None:
    commands = [[sys.executable, "-m", "dimlint"]]
    script = Path(sys.executable).parent / "dimlint"
    if script.exists():
        commands.append([str(script)])
    elif shutil.which("dimlint"):
        commands.append([str(shutil.which("dimlint"))])
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    for command in commands:
        completed = subprocess.run(
            [
                *command,
                "check",
                "--no-config",
                "examples/broken-llama/config.json",
                "--output-format",
                "json",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=environment,
        )
        assert completed.returncode == 1, completed.stderr
        assert completed.stderr == ""
        findings = json.loads(completed.stdout)
        assert findings[0]["code"] == "DL101"
        assert findings[0]["file"] == "examples/broken-llama/config.json"
        assert (findings[0]["line"], findings[0]["column"]) == (4, 18)
        assert {f["code"] for f in findings} == {"DL101", "DL102", "DL201", "DL202", "DL302"}


@pytest.mark.parametrize(
    "arguments",
    [
        ["check", "--help"],
        ["mem", "--help"],
        ["plan", "--help"],
        ["shapes", "--help"],
        ["suggest", "--help"],
        ["rule", "--help"],
        ["check", "--output-format", "nope", "x"],
        ["mem", "--tp", "zero", "x"],
        ["rule"],
    ],
)
def test_one_subcommand_parser_answers_like_the_whole_one(arguments: list[str]) -> None:
    """``main`` builds only the subcommand named first (start-up time): its help, usage line
    and errors must be those of the full command line."""
    import contextlib

    from dimlint.cli import build_parser

    answers = []
    for parser in (build_parser(arguments[0]), build_parser()):
        out, err = io.StringIO(), io.StringIO()
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            pytest.raises(SystemExit) as exit_request,
        ):
            parser.parse_args(arguments)
        answers.append((exit_request.value.code, out.getvalue(), err.getvalue()))
    assert answers[0] == answers[1]
    assert answers[0][1] or answers[0][2]
