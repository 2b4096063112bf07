"""Integrations with the real clients: GitHub annotations and the action, SARIF, JUnit.

Formats are checked against what their consumers accept (the OASIS SARIF schema, GitHub's
workflow-command escaping, the check-jsonschema copies of GitHub's action/workflow schemas),
not against a remembered shape.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from dimlint.cli import main
from tests.conftest import REPO, shared_path

BROKEN = "examples/broken-llama/config.json"
SCRIPTS = Path(sys.executable).parent


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


# --- GitHub workflow commands -------------------------------------------------------------


def test_github_lines_are_workflow_commands_with_positions() -> None:
    code, out, _ = run("check", BROKEN, "--output-format", "github")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(
        f"::error file={BROKEN},line=4,col=18,endLine=4,endColumn=22,"
        "title=DL101 head-divisibility::"
    )
    assert all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    # info findings are notices; percent signs in messages are escaped
    assert any(line.startswith("::notice ") for line in lines)
    assert "%25 parameters" in out
    assert "% parameters" not in out


def test_github_escaping_follows_the_actions_toolkit() -> None:
    from dimlint.report.github import escape_data, escape_property

    assert escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_auto_means_github_under_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = run("check", BROKEN)
    assert out.startswith("::error ")
    monkeypatch.setenv("GITHUB_ACTIONS", "false")
    _, out, _ = run("check", BROKEN, "--output-format", "auto")
    assert out.startswith(f"{BROKEN}:4:18: DL101")


def _many_findings(tmp_path: Path, count: int) -> list[str]:
    paths = []
    for number in range(count):
        path = tmp_path / f"m{number:02d}" / "config.json"
        path.parent.mkdir()
        config = {
            "model_type": "llama",
            "hidden_size": 4100,  # DL101 (error) + DL201 (warning)
            "num_attention_heads": 32,
            "num_hidden_layers": 2,
            "vocab_size": 32000,
        }
        path.write_text(json.dumps(config, indent=2))
        paths.append(str(path))
    return paths


def test_annotations_are_capped_per_level_and_the_rest_goes_to_the_step_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    paths = _many_findings(tmp_path, 14)
    code, out, _ = run("check", *paths, "--output-format", "github")
    assert code == 1
    lines = out.splitlines()
    assert sum(line.startswith("::error ") for line in lines) == 10
    assert sum(line.startswith("::warning ") for line in lines) == 10
    # errors first: the most severe findings are the ones GitHub shows
    assert all(line.startswith("::error ") for line in lines[:10])
    text = summary.read_text()
    assert "28 findings: 14 errors, 14 warnings." in text
    assert "8 findings are listed here only" in text
    assert text.count("| ○ ") == 8
    assert text.count("| ● ") == 20
    assert "| DL101 head-divisibility | 14 |" in text


def test_action_files_validate_against_githubs_schemas() -> None:
    check = shutil.which("check-jsonschema", path=str(SCRIPTS)) or shutil.which("check-jsonschema")
    if check is None:
        pytest.skip("check-jsonschema is not installed (dev extra)")
    for schema, document in (
        ("vendor.github-actions", "action.yml"),
        ("vendor.github-workflows", "docs/github-workflow.yml"),
    ):
        done = subprocess.run(
            [check, "--builtin-schema", schema, document],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr


def test_action_script_annotates_and_writes_the_step_summary(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    shutil.copytree(REPO / "examples", workspace / "models")
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    dimlint = SCRIPTS / "dimlint"
    env = {
        **os.environ,
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "DIMLINT_PATHS": "models",
        "DIMLINT_ARGS": "--ignore DL302",
        "DIMLINT_SARIF": "true",
        "DIMLINT": str(dimlint) if dimlint.exists() else "dimlint",
    }
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "github-action.sh")],
        check=False,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("::error file=models/broken-llama/config.json,line=4,col=18")
    assert not any("DL302" in line for line in lines)
    assert "### dimlint" in summary.read_text()
    assert outputs.read_text().strip() == "sarif-file=dimlint.sarif"
    sarif = json.loads((workspace / "dimlint.sarif").read_text())
    assert len(sarif["runs"][0]["results"]) == len(lines)


# --- SARIF ----------------------------------------------------------------------------------


def _sarif_and_json(*argv: str) -> tuple[dict[str, object], list[dict[str, object]]]:
    _, sarif_text, _ = run("check", *argv, "--output-format", "sarif")
    _, json_text, _ = run("check", *argv, "--output-format", "json")
    sarif: dict[str, object] = json.loads(sarif_text)
    findings: list[dict[str, object]] = json.loads(json_text)
    return sarif, findings


def test_sarif_validates_against_the_oasis_schema() -> None:
    import jsonschema

    schema = json.loads(shared_path("schemas", "sarif-schema-2.1.0.json").read_text())
    sarif, _ = _sarif_and_json(BROKEN, "examples/qwen2-7b/config.json")
    jsonschema.validate(sarif, schema)


_FIX_WORDS = {"safe": "fix", "unsafe": "unsafe fix", "display": "suggested fix"}


def test_sarif_results_agree_one_to_one_with_json_output() -> None:
    sarif, findings = _sarif_and_json(BROKEN)
    (sarif_run,) = sarif["runs"]  # type: ignore[misc]
    results = sarif_run["results"]
    assert len(results) == len(findings)
    levels = {"error": "error", "warning": "warning", "info": "note"}
    for result, finding in zip(results, findings, strict=True):
        region = result["locations"][0]["physicalLocation"]["region"]
        assert result["ruleId"] == finding["code"]
        assert result["level"] == levels[str(finding["severity"])]
        fix = finding["fix"]
        chosen = "" if fix is None else f" [{_FIX_WORDS[fix['applicability']]}: {fix['message']}]"
        assert result["message"]["text"] == finding["message"] + chosen  # names the chosen fix
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == BROKEN
        assert (region["startLine"], region["startColumn"]) == (finding["line"], finding["column"])
        assert (region["endLine"], region["endColumn"]) == (
            finding["end_line"],
            finding["end_column"],
        )
        assert ("fixes" in result) == (finding["fix"] is not None)
    driver = sarif_run["tool"]["driver"]
    assert driver["name"] == "dimlint"
    assert driver["version"]
    assert driver["informationUri"].startswith("https://")
    described = {rule["id"]: rule for rule in driver["rules"]}
    assert set(described) == {f["code"] for f in findings}
    for rule in described.values():
        assert rule["shortDescription"]["text"]
        assert rule["fullDescription"]["text"]
        assert "Why is this bad?" in rule["help"]["markdown"]
    assert sarif_run["columnKind"] == "unicodeCodePoints"


def test_sarif_fix_replacements_match_json_edits() -> None:
    sarif, findings = _sarif_and_json(BROKEN)
    results = sarif["runs"][0]["results"]  # type: ignore[index]
    for result, finding in zip(results, findings, strict=True):
        if finding["fix"] is None:
            continue
        replacements = result["fixes"][0]["artifactChanges"][0]["replacements"]
        edits = finding["fix"]["edits"]  # type: ignore[index]
        assert [r["insertedContent"]["text"] for r in replacements] == [e["content"] for e in edits]


# --- JUnit ----------------------------------------------------------------------------------


def test_junit_has_a_suite_per_file_and_a_failure_per_finding() -> None:
    _, out, _ = run("check", BROKEN, "examples/qwen2-7b/config.json", "--output-format", "junit")
    root = ElementTree.fromstring(out)
    _, json_text, _ = run(
        "check", BROKEN, "examples/qwen2-7b/config.json", "--output-format", "json"
    )
    findings = json.loads(json_text)
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    assert set(suites) == {BROKEN, "examples/qwen2-7b/config.json"}
    assert len(suites[BROKEN].findall("testcase/failure")) == len(findings)
    assert suites["examples/qwen2-7b/config.json"].findall("testcase/failure") == []
    assert root.get("failures") == str(len(findings))


# --- snapshots of every format ----------------------------------------------------------------

SNAPSHOTS = REPO / "tests" / "snapshots"


@pytest.mark.parametrize("output_format", ["full", "concise", "json", "github", "sarif", "junit"])
def test_output_snapshot(output_format: str) -> None:
    _, out, _ = run("check", BROKEN, "--output-format", output_format)
    out = out.replace(Path.cwd().as_uri(), "file:///CWD")
    snapshot = SNAPSHOTS / f"broken-llama.{output_format}.txt"
    if os.environ.get("DIMLINT_UPDATE_SNAPSHOTS"):
        # an update run must not pass by comparing the file with what it just wrote
        changed = not snapshot.exists() or snapshot.read_text(encoding="utf-8") != out
        if changed:
            snapshot.parent.mkdir(exist_ok=True)
            snapshot.write_text(out, encoding="utf-8")
            pytest.fail(
                f"{snapshot.name} rewritten: review the diff, then rerun without the variable"
            )
    assert snapshot.exists(), f"no {snapshot.name}: create it with DIMLINT_UPDATE_SNAPSHOTS=1"
    assert out == snapshot.read_text(encoding="utf-8"), (
        f"{snapshot.name} differs; rerun with DIMLINT_UPDATE_SNAPSHOTS=1 after reviewing"
    )


# --- pre-commit, with the real client ---------------------------------------------------------


def _pre_commit() -> str:
    found = shutil.which("pre-commit", path=str(SCRIPTS)) or shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (dev extra)")
    return found


def _git_repository(path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "config", "user.email", "ci@example.com"], check=True)
    subprocess.run(["git", "-C", str(path), "config", "user.name", "CI"], check=True)


def _try_repo(repository: Path, hook: str, files: list[str], home: Path) -> tuple[int, str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    done = subprocess.run(
        [_pre_commit(), "try-repo", str(REPO), hook, "--files", *files],
        check=False,
        cwd=repository,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return done.returncode, done.stdout + done.stderr


def test_pre_commit_hooks_with_the_real_client(tmp_path: Path) -> None:
    repository = tmp_path / "models"
    _git_repository(repository)
    (repository / "good").mkdir()
    (repository / "bad").mkdir()
    shutil.copy(REPO / "examples" / "qwen2-7b" / "config.json", repository / "good" / "config.json")
    duplicated = '{\n  "model_type": "llama",\n  "hidden_size": 4096,\n  "hidden_size": 4096,\n'
    duplicated += (
        '  "num_attention_heads": 32,\n  "num_hidden_layers": 32,\n  "vocab_size": 32000\n}\n'
    )
    (repository / "bad" / "config.json").write_text(duplicated)
    (repository / "bad" / "tokenizer.json").write_text("{}")  # not matched by the hook
    subprocess.run(["git", "-C", str(repository), "add", "."], check=True)
    home = tmp_path / "pre-commit-home"

    code, output = _try_repo(repository, "dimlint", ["bad/config.json"], home)
    assert code == 1, output
    assert "DL002" in output
    code, output = _try_repo(repository, "dimlint", ["good/config.json"], home)
    assert code == 0, output
    # a training YAML is seen; JSON with comments and a tokenizer file are not failed
    (repository / "train.yaml").write_text("model:\n  d_model: 1000\n  n_heads: 16\n")
    (repository / "tsconfig.json").write_text('{\n  // JSONC\n  "compilerOptions": {}\n}\n')
    subprocess.run(["git", "-C", str(repository), "add", "."], check=True)
    code, output = _try_repo(repository, "dimlint", ["train.yaml"], home)
    assert code == 1, output
    assert "DL101" in output
    code, output = _try_repo(repository, "dimlint", ["tsconfig.json", "bad/tokenizer.json"], home)
    assert code == 0, output

    code, output = _try_repo(repository, "dimlint-fix", ["bad/config.json"], home)
    assert code == 1, output  # pre-commit fails a hook that modified files
    fixed = (repository / "bad" / "config.json").read_text()
    assert fixed.count('"hidden_size"') == 1
    json.loads(fixed)
    subprocess.run(["git", "-C", str(repository), "add", "."], check=True)
    code, output = _try_repo(repository, "dimlint-fix", ["bad/config.json"], home)
    assert code == 0, output


def test_hook_manifest_is_valid() -> None:
    done = subprocess.run(
        [_pre_commit(), "validate-manifest", ".pre-commit-hooks.yaml"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- what the hooks see, and the README's snippets ---------------------------------------------


def _hooks() -> list[dict[str, object]]:
    import yaml

    hooks: list[dict[str, object]] = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    return hooks


def _readme_yaml_blocks(section: str) -> list[object]:
    import re

    import yaml

    text = (REPO / "README.md").read_text(encoding="utf-8")
    body = text.split(f"## {section}\n", 1)[1].split("\n## ", 1)[0]
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", body, re.S)]


def test_the_hooks_see_every_file_kind_check_reads() -> None:
    """pre-commit's ``identify`` tags of every extension a folder walk reads are in the hooks'
    ``types_or``, and no ``files`` pattern narrows them (training YAMLs were never seen)."""
    from identify.identify import tags_from_filename

    from dimlint.lint.discovery import _wanted_name

    names = ["config.json", "train.yaml", "train.yml", "model.py", "launch.sh", "run.toml"]
    read = [name for name in names if _wanted_name(name)]  # what a walk reads, today
    assert {"config.json", "train.yaml", "model.py"} <= set(read)
    for hook in _hooks():
        assert "files" not in hook
        assert "--skip-non-configs" in str(hook["entry"])
        kinds = set(hook["types_or"])  # type: ignore[call-overload]
        for name in read:
            assert kinds & tags_from_filename(name), (hook["id"], name)


def test_the_readme_snippets_work_as_written() -> None:
    """The local hook is the manifest's hook; a remote ``rev`` is a tag that exists or a
    commit (no release is tagged: ``v0.1.0`` was named and did not exist)."""
    tags = subprocess.run(
        ["git", "-C", str(REPO), "tag"], capture_output=True, text=True, check=False
    ).stdout.split()
    manifest = {str(hook["id"]): hook for hook in _hooks()}
    blocks = _readme_yaml_blocks("pre-commit")
    assert len(blocks) == 2
    for block in blocks:
        for repo in block["repos"]:  # type: ignore[index]
            if repo["repo"] == "local":
                for hook in repo["hooks"]:
                    own = manifest[hook["id"]]
                    assert hook["entry"] == own["entry"]
                    assert hook["types_or"] == own["types_or"]
                    assert hook["language"] == "system"
            else:
                rev = str(repo["rev"])
                assert rev in tags or (len(rev) == 40 and int(rev, 16) >= 0), rev
                assert {hook["id"] for hook in repo["hooks"]} <= set(manifest)


def test_skip_non_configs_judges_named_files_as_a_walk(tmp_path: Path) -> None:
    files = {
        "tsconfig.json": '{\n  // comments, as JSONC allows\n  "compilerOptions": {}\n}\n',
        ".vscode/settings.json": '{ /* editor */ "editor.tabSize": 2 }\n',
        "tokenizer.json": '{"model": {"vocab": {"a": 0}}}\n',
        "chart/templates/deploy.yaml": "{{ if .Values.x }}\ndim: {{ .Values.dim }}\n",
        "README.md": "# not read\n",
        "train/olmo.yaml": "model:\n  d_model: 1000\n  n_heads: 16\n  n_layers: 4\n",
        "model/config.json": '{"model_type": "llama", "hidden_size": 4100,'
        ' "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 32000}\n',
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    names = [str(tmp_path / name) for name in files]
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["check", "--no-config", "--skip-non-configs", "--output-format", "json", *names], out, err
    )
    assert code == 1, err.getvalue()
    found = {
        (Path(f["file"]).relative_to(tmp_path).as_posix(), f["code"])
        for f in json.loads(out.getvalue())
        if f["severity"] == "error"
    }
    assert found == {("train/olmo.yaml", "DL101"), ("model/config.json", "DL101")}
    out = io.StringIO()
    assert main(["check", "--no-config", "--output-format", "json", *names], out, err) == 1
    unread = {Path(f["file"]).name for f in json.loads(out.getvalue()) if f["code"] == "DL001"}
    # named without the flag: a YAML template is reported; JSON with comments is read as JSONC
    # (its owners' dialect) and is no model config
    assert "deploy.yaml" in unread
    assert not {"tsconfig.json", "settings.json"} & unread
