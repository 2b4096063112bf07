"""Settings files: ``[tool.dimlint]`` in pyproject.toml and ``dimlint.toml`` (DESIGN.md, Settings).

The nearest settings file upward from each checked file wins; every documented key is honoured;
a typo or broken TOML is exit code 2 with a one-line message (never an internal error);
``--no-config`` and ``--config FILE`` override the search.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from dimlint.cli import main

REPO = Path(__file__).resolve().parent.parent
#: examples/broken-llama: DL101, DL102 (errors), DL201 ×2, DL202 (warnings/info), DL302 (info).
BROKEN = (REPO / "examples" / "broken-llama" / "config.json").read_text(encoding="utf-8")
DEFAULT_CODES = {"DL101", "DL102", "DL201", "DL202", "DL302"}
WARNING_ONLY = json.dumps(
    {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "num_hidden_layers": 32,
        "vocab_size": 32001,  # DL202: info by default
        "pad_token_id": 32001,  # DL603: a warning
        "intermediate_size": 14336,
        "max_position_embeddings": 8192,
    },
    indent=2,
)


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str

    @property
    def findings(self) -> list[dict[str, Any]]:
        loaded: list[dict[str, Any]] = json.loads(self.stdout)
        return loaded

    def codes(self, path: Path | str) -> set[str]:
        return {f["code"] for f in self.findings if f["file"] == str(path)}


def check(*args: str | Path) -> Run:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--output-format", "json", *map(str, args)], out, err)
    return Run(code, out.getvalue(), err.getvalue())


def put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def usage_error(run: Run, *fragments: str) -> None:
    """Exit 2, one line on stderr naming what is wrong, no internal error, no traceback."""
    assert run.code == 2, run
    assert run.stdout == ""
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "internal error" not in lines[0]
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.fixture(autouse=True)
def _outside_any_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from an empty folder, so that the cwd's own settings (fail-level…) are neutral."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)


# --- where settings come from -----------------------------------------------------------------


def test_pyproject_tool_dimlint(tmp_path: Path) -> None:
    put(
        tmp_path / "project" / "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.dimlint]\nignore = ["DL2"]\n',
    )
    path = put(tmp_path / "project" / "models" / "config.json", BROKEN)
    assert check(path).codes(path) == {"DL101", "DL102", "DL302"}


def test_dimlint_toml_has_no_table_prefix(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", 'select = ["DL1"]\n')
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path).codes(path) == {"DL101", "DL102"}


def test_pyproject_without_the_table_is_passed_over(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", 'select = ["DL1"]\n')
    put(tmp_path / "project" / "sub" / "pyproject.toml", '[project]\nname = "x"\n')
    path = put(tmp_path / "project" / "sub" / "config.json", BROKEN)
    assert check(path).codes(path) == {"DL101", "DL102"}


def test_dimlint_toml_wins_over_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", 'select = ["DL1"]\n')
    put(tmp_path / "project" / "pyproject.toml", '[tool.dimlint]\nselect = ["DL3"]\n')
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path).codes(path) == {"DL101", "DL102"}


def test_nearest_settings_file_wins_per_file(tmp_path: Path) -> None:
    root = tmp_path / "mono"
    put(root / "dimlint.toml", 'ignore = ["DL2"]\n')
    put(root / "legacy" / "pyproject.toml", '[tool.dimlint]\nignore = ["DL1"]\n')
    top = put(root / "models" / "a" / "config.json", BROKEN)
    legacy = put(root / "legacy" / "b" / "config.json", BROKEN)
    run = check(root)
    assert run.codes(top) == {"DL101", "DL102", "DL302"}
    assert run.codes(legacy) == {"DL201", "DL202", "DL302"}  # not merged with the outer file


def test_settings_are_reread_in_a_long_running_process(tmp_path: Path) -> None:
    """main() may be called many times in one process (tests, editors): no stale settings."""
    settings = put(tmp_path / "project" / "dimlint.toml", 'ignore = ["DL2"]\n')
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path).codes(path) == {"DL101", "DL102", "DL302"}
    settings.write_text('ignore = ["DL1"]\n', encoding="utf-8")
    assert check(path).codes(path) == {"DL201", "DL202", "DL302"}


# --- every key --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ('select = ["DL10"]', {"DL101", "DL102"}),
        ('ignore = ["DL20", "DL102"]', {"DL101", "DL302"}),
        ('extend-select = ["DL203"]', DEFAULT_CODES | {"DL203"}),
        ('select = ["DL1"]\nextend-select = ["DL302"]', {"DL101", "DL102", "DL302"}),
        ('extend-select = ["DL2"]', DEFAULT_CODES),  # a prefix does not opt into DL203
        ("select = []", set()),
    ],
)
def test_selection_keys(tmp_path: Path, table: str, expected: set[str]) -> None:
    put(tmp_path / "project" / "dimlint.toml", table + "\n")
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path).codes(path) == expected


def test_command_line_select_replaces_and_ignore_adds(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", 'select = ["DL1"]\nignore = ["DL102"]\n')
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path, "--select", "DL2").codes(path) == {"DL201", "DL202"}
    assert check(path, "--ignore", "DL101").codes(path) == set()
    assert check(path, "--extend-select", "DL302").codes(path) == {"DL101", "DL302"}


def test_per_file_ignores(tmp_path: Path) -> None:
    root = tmp_path / "project"
    put(
        root / "dimlint.toml",
        '[per-file-ignores]\n"legacy/*" = ["DL1"]\n"draft.json" = ["DL2", "DL3"]\n',
    )
    legacy = put(root / "legacy" / "config.json", BROKEN)
    draft = put(root / "models" / "draft.json", BROKEN)
    other = put(root / "models" / "config.json", BROKEN)
    run = check(root)
    assert run.codes(legacy) == {"DL201", "DL202", "DL302"}
    assert run.codes(draft) == {"DL101", "DL102"}
    assert run.codes(other) == DEFAULT_CODES


def test_per_file_ignores_do_not_depend_on_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Patterns are relative to the settings file, wherever dimlint is run from."""
    root = tmp_path / "project"
    put(root / "dimlint.toml", '[per-file-ignores]\n"legacy/*" = ["DL1"]\n')
    legacy = put(root / "legacy" / "config.json", BROKEN)
    expected = {"DL201", "DL202", "DL302"}
    monkeypatch.chdir(root)
    assert check("legacy/config.json").codes("legacy/config.json") == expected
    monkeypatch.chdir(tmp_path)
    assert check("project/legacy/config.json").codes("project/legacy/config.json") == expected
    assert check(legacy).codes(legacy) == expected


def test_severity_override(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", '[severity]\nDL202 = "error"\nDL101 = "info"\n')
    path = put(tmp_path / "project" / "config.json", BROKEN)
    run = check(path)
    severity = {f["code"]: f["severity"] for f in run.findings if f["code"] != "DL201"}
    assert severity == {"DL101": "info", "DL102": "error", "DL202": "error", "DL302": "info"}
    warning_only = put(tmp_path / "project" / "w" / "config.json", WARNING_ONLY)
    assert check(warning_only).code == 1  # its DL202 is now an error


def test_fail_level(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    put(root / "dimlint.toml", 'fail-level = "warning"\n')
    put(root / "config.json", WARNING_ONLY)
    monkeypatch.chdir(root)
    assert check("config.json").code == 1
    assert check("config.json", "--fail-level", "error").code == 0  # the command line wins
    assert check("config.json", "--no-config").code == 0


def test_exclude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "project"
    put(root / "dimlint.toml", 'exclude = ["drafts", "*.old.json"]\n')
    kept = put(root / "models" / "config.json", BROKEN)
    put(root / "drafts" / "config.json", BROKEN)
    put(root / "models" / "config.old.json", BROKEN)
    monkeypatch.chdir(root)
    run = check(".")
    assert {f["file"] for f in run.findings} == {os.path.join(".", "models", "config.json")}
    assert kept.exists()


def test_exclude_with_a_path_pattern(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pattern with a folder in it matches relative to the settings file, as in ruff."""
    root = tmp_path / "project"
    put(root / "dimlint.toml", 'exclude = ["drafts/*.json"]\n')
    put(root / "drafts" / "config.json", BROKEN)
    put(root / "models" / "config.json", BROKEN)
    monkeypatch.chdir(root)
    assert {f["file"] for f in check(".").findings} == {"./models/config.json"}
    assert {f["file"] for f in check().findings} == {"./models/config.json"}


def test_exclude_applies_when_run_from_outside_the_project(tmp_path: Path) -> None:
    """The project's settings file is the nearest one to its files, wherever the cwd is."""
    root = tmp_path / "project"
    put(root / "dimlint.toml", 'exclude = ["drafts"]\n')
    put(root / "drafts" / "config.json", BROKEN)
    kept = put(root / "models" / "config.json", BROKEN)
    assert {f["file"] for f in check(root).findings} == {str(kept)}


def test_target_keys_are_accepted(tmp_path: Path) -> None:
    put(
        tmp_path / "project" / "dimlint.toml",
        'targets = ["vllm:tp=8"]\nbudget = "8xH100-80GB"\ncontext = 32768\nbatch = 1\n'
        'dtype = "bf16"\nkv-dtype = "fp8"\n',
    )
    path = put(tmp_path / "project" / "config.json", BROKEN)
    run = check(path)
    assert run.code == 1
    assert {"DL101", "DL102"} <= run.codes(path)


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "typo", "suggestion"),
    [
        ("dimlint.toml", 'ignores = ["DL2"]\n', "ignores", "'ignore'"),
        ("dimlint.toml", 'extend_select = ["DL2"]\n', "extend_select", "'extend-select'"),
        ("pyproject.toml", '[tool.dimlint]\nselct = ["DL1"]\n', "selct", "'select'"),
        ("pyproject.toml", '[tool.dimlint]\nfail_level = "info"\n', "fail_level", "'fail-level'"),
    ],
)
def test_unknown_key_suggests_the_nearest(
    tmp_path: Path, name: str, text: str, typo: str, suggestion: str
) -> None:
    settings = put(tmp_path / "project" / name, text)
    path = put(tmp_path / "project" / "config.json", BROKEN)
    run = check(path)
    usage_error(run, typo, suggestion, str(settings))


def test_unknown_key_far_from_any_lists_the_valid_keys(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", "zzzzzz = 1\n")
    run = check(put(tmp_path / "project" / "config.json", BROKEN))
    usage_error(run, "zzzzzz", "select", "per-file-ignores")


def test_invalid_toml(tmp_path: Path) -> None:
    settings = put(tmp_path / "project" / "dimlint.toml", 'select = ["DL1"\n')
    run = check(put(tmp_path / "project" / "config.json", BROKEN))
    usage_error(run, str(settings), "TOML")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('select = "DL1"', "select"),
        ('select = ["DL9"]', "DL9"),
        ('ignore = ["NOPE"]', "NOPE"),
        ('fail-level = "fatal"', "fatal"),
        ('exclude = "drafts"', "exclude"),
        ('[severity]\nDL101 = "loud"', "loud"),
        ('[severity]\nDL999 = "error"', "DL999"),
        ('[per-file-ignores]\n"x.json" = ["DL9"]', "DL9"),
        ('per-file-ignores = ["x.json"]', "per-file-ignores"),
        ('severity = "error"', "severity"),
        ('[per-file-ignores]\n"x.json" = "DL1"', "per-file-ignores"),
    ],
)
def test_invalid_values_are_one_line_usage_errors(tmp_path: Path, text: str, fragment: str) -> None:
    put(tmp_path / "project" / "dimlint.toml", text + "\n")
    run = check(put(tmp_path / "project" / "config.json", BROKEN))
    usage_error(run, fragment)


def test_pyproject_tool_dimlint_not_a_table(tmp_path: Path) -> None:
    put(tmp_path / "project" / "pyproject.toml", '[tool]\ndimlint = "yes"\n')
    run = check("--config", tmp_path / "project" / "pyproject.toml", tmp_path / "project")
    usage_error(run, "tool.dimlint")


# --- --no-config and --config -----------------------------------------------------------------


def test_no_config_ignores_settings_files(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", 'select = ["DL1"]\n')
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path, "--no-config").codes(path) == DEFAULT_CODES


def test_no_config_ignores_even_a_broken_settings_file(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", "ignores = [\n")
    path = put(tmp_path / "project" / "config.json", BROKEN)
    run = check(path, "--no-config")
    assert run.code == 1
    assert run.codes(path) == DEFAULT_CODES


def test_config_file_is_used_instead_of_the_nearest(tmp_path: Path) -> None:
    put(tmp_path / "project" / "dimlint.toml", 'select = ["DL1"]\n')
    chosen = put(tmp_path / "elsewhere" / "strict.toml", 'select = ["DL3"]\n')
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path, "--config", chosen).codes(path) == {"DL302"}


def test_config_file_may_be_a_pyproject(tmp_path: Path) -> None:
    chosen = put(
        tmp_path / "elsewhere" / "pyproject.toml", '[tool.dimlint]\nignore = ["DL2", "DL3"]\n'
    )
    path = put(tmp_path / "project" / "config.json", BROKEN)
    assert check(path, "--config", chosen).codes(path) == {"DL101", "DL102"}


def test_config_file_that_is_missing_or_broken(tmp_path: Path) -> None:
    path = put(tmp_path / "project" / "config.json", BROKEN)
    missing = tmp_path / "nope.toml"
    usage_error(check(path, "--config", missing), str(missing))
    broken = put(tmp_path / "broken.toml", "select = [\n")
    usage_error(check(path, "--config", broken), str(broken))
    typo = put(tmp_path / "typo.toml", 'ignores = ["DL1"]\n')
    usage_error(check(path, "--config", typo), "'ignore'")


def test_config_file_settings_apply_to_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """fail-level and exclude of --config hold wherever dimlint runs from."""
    chosen = put(tmp_path / "strict.toml", 'fail-level = "warning"\nexclude = ["drafts"]\n')
    root = tmp_path / "project"
    put(root / "config.json", WARNING_ONLY)
    put(root / "drafts" / "config.json", BROKEN)
    monkeypatch.chdir(root)
    run = check(".", "--config", chosen)
    assert {f["file"] for f in run.findings} == {"./config.json"}
    assert run.code == 1
