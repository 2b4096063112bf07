"""Hostile input (issue 10): no crash stops a run, nothing is read or written outside the tree,
fixes land exactly on their value or are not applied, and the output says what happened.

Every case is a file a stranger's pull request could hold; each test names the case of the issue
it pins. Expected positions are computed here from the text written, never from dimlint's readers.
"""

from __future__ import annotations

import io
import json
import os
import stat
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from dimlint.cli import main

REPO = Path(__file__).resolve().parent.parent

LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "vocab_size": 32000,
    "intermediate_size": 14336,
    "max_position_embeddings": 8192,
}


def config(**overrides: Any) -> str:
    values = {**LLAMA, **overrides}
    return json.dumps(values, indent=2, ensure_ascii=False) + "\n"


class Run(NamedTuple):
    code: int
    stdout: str
    stderr: str

    @property
    def findings(self) -> list[dict[str, Any]]:
        loaded: list[dict[str, Any]] = json.loads(self.stdout)
        return loaded


def run(*args: str | Path, settings: bool = False) -> Run:
    out, err = io.StringIO(), io.StringIO()
    command, *rest = map(str, args)
    argv = [command, *([] if settings or command != "check" else ["--no-config"]), *rest]
    code = main(argv, out, err)
    return Run(code, out.getvalue(), err.getvalue())


def check_json(*args: str | Path) -> Run:
    return run("check", "--output-format", "json", *args)


def put(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def safetensors(header: dict[str, Any], data: bytes = b"") -> bytes:
    raw = json.dumps(header).encode("utf-8")
    return struct.pack("<Q", len(raw)) + raw + data


@pytest.fixture(autouse=True)
def _plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("DIMLINT_JOBS", "1")


# --- 1. containment ---------------------------------------------------------------------------


def _explode_on(monkeypatch: pytest.MonkeyPatch, marker: str) -> None:
    """Make the normalizer raise for configs whose model_type is ``marker`` (a stand-in for any
    bug in a rule): the guard, not the bug, is under test."""
    from dimlint.lint import pipeline as linter

    real = linter.specs_for_document

    def exploding(path: str, value: Any) -> Any:
        if isinstance(value, dict) and value.get("model_type") == marker:
            raise RuntimeError("boom\nsecond line")
        return real(path, value)

    monkeypatch.setattr(linter, "specs_for_document", exploding)


def test_a_check_that_raises_is_a_dl001_on_that_file_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _explode_on(monkeypatch, "kaboom")
    bad = put(tmp_path / "bad" / "config.json", config(model_type="kaboom"))
    good = put(tmp_path / "good" / "config.json", config(hidden_size=4100))
    result = check_json(tmp_path)
    assert result.code == 1
    by_file = {(f["file"], f["code"]) for f in result.findings}
    assert (str(good), "DL101") in by_file
    crash = [f for f in result.findings if f["file"] == str(bad)]
    assert [f["code"] for f in crash] == ["DL001"]
    assert crash[0]["message"].startswith(
        "dimlint could not check this file: RuntimeError: boom second line"
    )
    assert "Traceback" not in result.stderr


def test_verbose_gives_the_traceback_of_a_failed_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _explode_on(monkeypatch, "kaboom")
    put(tmp_path / "config.json", config(model_type="kaboom"))
    result = run("check", "--verbose", "--output-format", "concise", tmp_path)
    assert result.code == 1
    assert "Traceback (most recent call last)" in result.stderr
    assert "RuntimeError: boom" in result.stderr


def test_a_fix_that_raises_leaves_the_file_alone_and_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dimlint.fix import apply as fixer

    def broken(*_: Any, **__: Any) -> Any:
        raise ValueError("fixer bug")

    monkeypatch.setattr(fixer, "fix_file", broken)
    path = put(tmp_path / "config.json", config(hidden_size=4100))
    before = path.read_bytes()
    result = check_json("--fix", "--unsafe-fixes", path)
    assert path.read_bytes() == before
    assert result.code == 1
    messages = [f["message"] for f in result.findings if f["code"] == "DL001"]
    assert messages
    assert "ValueError: fixer bug" in messages[0]


@pytest.mark.parametrize("command", ["mem", "plan", "shapes"])
def test_commands_say_what_failed_in_one_line_never_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    from dimlint.lint import model_input

    def broken(*_: Any, **__: Any) -> Any:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(model_input, "deployment_of", broken)  # every command calls it
    path = put(tmp_path / "config.json", config())
    result = run(command, path)
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "internal error" not in result.stderr
    assert lines[0].startswith(f"dimlint {command}: cannot compute {path}: ZeroDivisionError")


IMPORT = "from transformers import LlamaConfig\n"


IMPORT = "from transformers import LlamaConfig\n"


def _hostile_folder(root: Path) -> dict[str, Path]:
    """One folder per hostile case of the issue, each holding what a fuzzer produced."""
    cases: dict[str, Path] = {}

    def case(name: str, files: dict[str, str | bytes]) -> None:
        for relative, content in files.items():
            put(root / name / relative, content)
        cases[name] = root / name

    surrogate_keys = '{"model_type": "llama", "a\\ud800": 1, "a\\ud800": 2, "hidden_size": 4096}'
    case("surrogate-key", {"config.json": surrogate_keys})
    case("layer-types-unhashable", {"config.json": config(layer_types=[["a"], {"b": 1}])})
    case("broken-json", {"config.json": '{"model_type": "llama", "hidden_size": 40'})
    case(
        "dtype-list",
        {
            "config.json": config(),
            "model.safetensors": safetensors(
                {"a": {"dtype": ["F32"], "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4
            ),
        },
    )
    case(
        "zero-byte-tensor",
        {
            "config.json": config(torch_dtype="bfloat16"),
            "model.safetensors": safetensors(
                {
                    "model.embed_tokens.weight": {
                        "dtype": "F32",
                        "shape": [0],
                        "data_offsets": [0, 0],
                    }
                }
            ),
        },
    )
    case("added-tokens-int", {"config.json": config(), "tokenizer.json": '{"added_tokens": 5}'})
    index = {"metadata": {"total_size": 8}, "weight_map": {"a": "../../../../../../etc/passwd"}}
    case(
        "index-climbs", {"config.json": config(), "model.safetensors.index.json": json.dumps(index)}
    )
    index = {"metadata": {"total_size": 8}, "weight_map": {"a": "/dev/stdin", "b": "/etc/passwd"}}
    case(
        "index-absolute",
        {"config.json": config(), "model.safetensors.index.json": json.dumps(index)},
    )
    case(
        "str-bytes",
        {"model.py": f"x = 'a' b'b'\n{IMPORT}LlamaConfig(hidden_size=8)\n"},
    )
    case(
        "nul-string",
        {"model.py": f"x = 'a\x00b'\n{IMPORT}LlamaConfig(hidden_size=4100)\n"},
    )
    return cases


def test_a_folder_of_hostile_files_reports_each_and_the_real_dl101(tmp_path: Path) -> None:
    """The issue's "done when": one valid config with a real DL101 among the hostile files."""
    cases = _hostile_folder(tmp_path)
    valid = put(tmp_path / "valid" / "config.json", config(hidden_size=4100))
    os.mkfifo(tmp_path / "fifo-config.json")
    result = run("check", "--output-format", "json", tmp_path)
    assert result.code == 1
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    assert "fifo" not in result.stdout + result.stderr  # skipped quietly without --verbose
    verbose = run("check", "--verbose", "--output-format", "json", tmp_path)
    assert verbose.findings == result.findings
    assert (str(valid), "DL101") in {(f["file"], f["code"]) for f in result.findings}
    for name, folder in cases.items():
        found = [f for f in result.findings if f["file"].startswith(str(folder) + os.sep)]
        assert found, f"no diagnostic for the hostile case {name}"
        # each is understood (DL001 on the file, DL003 on the value…), not a contained crash
        crashes = [f for f in found if "dimlint could not check" in f["message"]]
        assert not crashes, crashes
    assert f"skipped {tmp_path / 'fifo-config.json'}: a named pipe" in verbose.stderr
    assert not any("passwd" in f["file"] or "stdin" in f["file"] for f in result.findings)


# --- 2. stay inside ---------------------------------------------------------------------------


def test_fix_does_not_write_through_a_symlink_out_of_the_tree(tmp_path: Path) -> None:
    victim = put(tmp_path / "outside" / "victim.json", config(hidden_size=4100))
    before = victim.read_bytes()
    tree = tmp_path / "tree" / "model"
    tree.mkdir(parents=True)
    (tree / "config.json").symlink_to("../../outside/victim.json")
    for target in (tmp_path / "tree", tree / "config.json"):
        result = check_json("--fix", "--unsafe-fixes", target)
        assert victim.read_bytes() == before
        assert result.code == 1
        assert "fix not written: it is a link to" in result.stderr
        assert "outside the folders checked" in result.stderr


def test_fix_writes_through_a_symlink_that_stays_inside(tmp_path: Path) -> None:
    real = put(tmp_path / "tree" / "shared" / "base.json", config(num_hidden_layers=32.0))
    (tmp_path / "tree" / "model").mkdir()
    link = tmp_path / "tree" / "model" / "config.json"
    link.symlink_to("../shared/base.json")
    result = check_json("--fix", tmp_path / "tree")
    assert result.code == 0, result
    assert link.is_symlink()
    assert json.loads(real.read_text())["num_hidden_layers"] == 32
    assert real.read_text() == config().replace(
        '"num_hidden_layers": 32', '"num_hidden_layers": 32'
    )


def test_fix_never_replaces_a_read_only_file(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", config(num_hidden_layers=32.0))
    path.chmod(0o444)
    before = path.read_bytes()
    result = check_json("--fix", path)
    assert path.read_bytes() == before
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert "fix not written: the file is read-only" in result.stderr
    assert result.code == 1


def test_fix_keeps_the_mode_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", config(num_hidden_layers=32.0))
    path.chmod(0o640)
    assert check_json("--fix", path).code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json"]


@pytest.mark.parametrize("option", ["--write-baseline", "--sarif-file"])
def test_outputs_never_follow_a_planted_temporary_name(tmp_path: Path, option: str) -> None:
    """``--write-baseline FILE`` used to write ``FILE.tmp``, following a symlink planted there."""
    put(tmp_path / "model" / "config.json", config(hidden_size=4100))
    victim = put(tmp_path / "victim.txt", "precious\n")
    out = tmp_path / "report.json"
    for planted in (f"{out}.tmp", f"{out}.dimlint-tmp", f"{out}~"):
        os.symlink(victim, planted)
    result = run("check", option, out, tmp_path / "model")
    assert result.code in (0, 1)
    assert victim.read_text() == "precious\n"
    assert json.loads(out.read_text())  # the report itself was written
    assert not out.is_symlink()


@pytest.mark.parametrize("option", ["--write-baseline", "--sarif-file"])
def test_output_into_a_missing_folder_is_a_usage_error(tmp_path: Path, option: str) -> None:
    put(tmp_path / "config.json", config(hidden_size=4100))
    target = tmp_path / "missing" / "out.json"
    result = run("check", option, target, tmp_path / "config.json")
    assert result.code == 2
    assert result.stderr.strip().splitlines() == [
        f"dimlint: error: cannot write {target}: the folder {target.parent} does not exist"
    ]
    assert not target.parent.exists()


@pytest.mark.parametrize(
    "shard",
    ["/etc/passwd", "/dev/stdin", "../../../../../../etc/passwd", "sub/../../x.safetensors"],
)
def test_index_shard_names_outside_the_folder_are_reported_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shard: str
) -> None:
    """Such names made dimlint open /etc/passwd (leaking 8 bytes as a header length) or hang."""
    import dimlint.sources.safetensors as reader

    opened: list[str] = []
    real_open = reader._open
    monkeypatch.setattr(reader, "_open", lambda path: opened.append(path) or real_open(path))
    index = {"metadata": {"total_size": 8}, "weight_map": {"model.norm.weight": shard}}
    path = put(tmp_path / "model.safetensors.index.json", json.dumps(index))
    put(tmp_path / "config.json", config())
    result = check_json(tmp_path / "config.json")
    assert opened == []
    problems = [f for f in result.findings if f["file"] == str(path) and f["code"] == "DL001"]
    assert len(problems) == 1
    assert repr(shard) in problems[0]["message"]
    assert "not read" in problems[0]["message"]
    assert "header length" not in result.stdout


def test_a_shard_symlink_out_of_the_folder_is_not_read(tmp_path: Path) -> None:
    secret = put(tmp_path / "secret.bin", b"\x10\x00\x00\x00\x00\x00\x00\x00{}" + b" " * 14)
    model = tmp_path / "model"
    put(model / "config.json", config())
    (model / "model.safetensors").symlink_to(secret)
    result = check_json(model / "config.json")
    problems = [f for f in result.findings if f["code"] == "DL001"]
    assert len(problems) == 1
    assert "outside the model folder: not read" in problems[0]["message"]


def test_the_huggingface_cache_layout_is_read_through_its_links(tmp_path: Path) -> None:
    """snapshots/<rev>/model.safetensors → ../../blobs/<sha> stays inside the cache folder."""
    repo = tmp_path / "models--org--name"
    blob = put(
        repo / "blobs" / "abc",
        safetensors({"x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4),
    )
    snapshot = repo / "snapshots" / "0123"
    put(snapshot / "config.json", config())
    (snapshot / "model.safetensors").symlink_to(os.path.relpath(blob, snapshot))
    result = check_json(snapshot / "config.json")
    assert not [f for f in result.findings if f["code"] == "DL001"]
    assert any(f["code"] == "DL611" for f in result.findings)  # the header was read


def test_fifos_anywhere_are_skipped_not_read(tmp_path: Path) -> None:
    """A FIFO named like any file dimlint opens used to block the run forever (subprocess, so
    that a regression fails on the timeout instead of hanging the suite)."""
    model = tmp_path / "model"
    put(model / "config.json", config(hidden_size=4100))
    for name in ("tokenizer.json", "model.safetensors", ".gitignore", "x.py", "other.json"):
        os.mkfifo(model / name)
    sharded = tmp_path / "sharded"
    put(sharded / "config.json", config())
    os.mkfifo(sharded / "model.safetensors.index.json")
    indexed = tmp_path / "indexed"
    put(indexed / "config.json", config())
    index = {"weight_map": {"model.norm.weight": "model-00001-of-00001.safetensors"}}
    put(indexed / "model.safetensors.index.json", json.dumps(index))
    os.mkfifo(indexed / "model-00001-of-00001.safetensors")
    os.mkfifo(tmp_path / "baseline.json")
    os.mkfifo(tmp_path / "dimlint.toml")
    command = [sys.executable, "-m", "dimlint", "check", "--verbose", "--output-format", "json"]
    environment = {**os.environ, "PYTHONPATH": str(REPO), "DIMLINT_JOBS": "1"}
    done = subprocess.run(
        [*command, "--no-config", str(tmp_path)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
    )
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    assert ("DL101", str(model / "config.json")) in {(f["code"], f["file"]) for f in findings}
    assert f"skipped {model / 'x.py'}: a named pipe" in done.stderr
    assert "Traceback" not in done.stderr
    for extra, message in (
        (["--baseline", str(tmp_path / "baseline.json")], "a named pipe"),
        (["--config", str(tmp_path / "dimlint.toml")], "a named pipe"),
    ):
        done = subprocess.run(
            [*command, *extra, str(model / "config.json")],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
            env=environment,
        )
        assert done.returncode == 2
        assert message in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("extra", [[], ["--diff", "--unsafe-fixes"]])
def test_stdout_closed_early_is_no_traceback(tmp_path: Path, extra: list[str]) -> None:
    for number in range(40):
        put(tmp_path / f"m{number:02d}" / "config.json", config(hidden_size=4100))
    process = subprocess.Popen(
        [sys.executable, "-m", "dimlint", "check", "--no-config", *extra, str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # what `| head -1` does
    stderr = process.stderr.read().decode()
    process.wait(timeout=120)
    assert "Traceback" not in stderr
    assert "Exception ignored" not in stderr
    assert "could not check" not in stderr


def test_a_tree_1100_folders_deep_is_checked(tmp_path: Path) -> None:
    """Settings were looked up recursively, one frame per folder: RecursionError."""
    root = tmp_path / "deep"
    root.mkdir()
    descriptor = os.open(root, os.O_RDONLY)
    try:
        for _ in range(1100):
            os.mkdir("a", dir_fd=descriptor)
            inner = os.open("a", os.O_RDONLY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = inner
        handle = os.open("config.json", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=descriptor)
        os.write(handle, config(hidden_size=4100).encode())
        os.close(handle)
    finally:
        os.close(descriptor)
    try:
        result = run("check", "--output-format", "json", root, settings=True)
    finally:
        subprocess.run(["rm", "-rf", str(root)], check=True)  # shutil.rmtree recurses too deep
    assert result.code == 1, result.stderr
    assert [f["code"] for f in result.findings if f["severity"] == "error"] == ["DL101"]
    assert result.findings[0]["file"].count("/a") == 1100


# --- 3. fixes right or absent -----------------------------------------------------------------

PY_BODY = (
    "from transformers import LlamaConfig\n"
    "c = LlamaConfig(hidden_size=4100, num_attention_heads=32)\n"
)


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("form feed before the code", "\x0c" + PY_BODY),
        ("a lone backslash first line", "\\\n" + PY_BODY),
        ("CR line endings", PY_BODY.replace("\n", "\r")),
        ("CRLF line endings", PY_BODY.replace("\n", "\r\n")),
        ("CR inside a docstring", '"""a\rb\rc"""\n' + PY_BODY),
        ("CRLF docstring in an LF file", '"""a\r\nb"""\n' + PY_BODY),
        ("form feed between statements", "import os\n\x0c\n" + PY_BODY),
    ],
)
def test_python_fixes_land_exactly_on_the_value(tmp_path: Path, name: str, source: str) -> None:
    path = tmp_path / "model.py"
    path.write_bytes(source.encode())
    offset = source.index("4100")
    before = source[:offset]
    lines = before.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    line, column = len(lines), len(lines[-1]) + 1
    finding = next(f for f in check_json("--select", "DL101", path).findings)
    assert (finding["line"], finding["column"], finding["end_column"]) == (line, column, column + 4)
    edit = finding["fix"]["edits"][0]
    assert (edit["line"], edit["column"], edit["end_column"]) == (line, column, column + 4)
    result = check_json("--select", "DL101", "--fix", "--unsafe-fixes", path)
    content = edit["content"]
    assert path.read_bytes() == (source[:offset] + content + source[offset + 4 :]).encode(), name
    assert result.findings == []


def test_a_fix_whose_finding_stays_is_rolled_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A "safe" fix that rewrote a value and left its finding in place was applied and counted."""
    from dimlint.checks import schema
    from dimlint.diagnostics import Applicability

    monkeypatch.setattr(schema, "_repair", lambda value, expected: ('"32"', Applicability.SAFE))
    path = put(tmp_path / "config.json", config(num_hidden_layers="thirty-two"))
    before = path.read_bytes()
    result = run("check", "--fix", "--output-format", "concise", path)
    assert path.read_bytes() == before
    assert "Fixed" not in result.stdout
    assert result.code == 1


@pytest.mark.parametrize(
    ("key", "literal"), [("tie_word_embeddings", '"1"'), ("rope_scaling", '"8"')]
)
def test_dl003_never_guesses_a_number_for_a_string(tmp_path: Path, key: str, literal: str) -> None:
    text = config()[:-3] + f',\n  "{key}": {literal}\n}}\n'
    path = put(tmp_path / "config.json", text)
    findings = [f for f in check_json(path).findings if f["code"] == "DL003"]
    assert findings
    assert findings[0]["pointer"] == f"/{key}"
    assert findings[0]["fix"] is None
    result = run("check", "--fix", "--unsafe-fixes", "--output-format", "concise", path)
    assert path.read_text() == text
    assert "Fixed" not in result.stdout
    assert result.code == 1


def test_dl003_digit_string_for_a_dimension_is_only_an_unsafe_fix(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", config(num_hidden_layers="32"))
    finding = next(f for f in check_json(path).findings if f["code"] == "DL003")
    assert finding["fix"]["applicability"] == "unsafe"
    check_json("--fix", path)
    assert json.loads(path.read_text())["num_hidden_layers"] == "32"
    check_json("--fix", "--unsafe-fixes", path)
    assert json.loads(path.read_text())["num_hidden_layers"] == 32


# --- 4. wrong output ----------------------------------------------------------------------------


def _frame_column(stdout: str, line: int) -> tuple[str, int]:
    """The code frame's source line and the 1-based column of its first caret."""
    rows = stdout.split("\n")  # not splitlines(): U+2028 and form feeds are not line ends
    source_row = next(r for r in rows if r.startswith(f"{line} | "))
    caret_row = rows[rows.index(source_row) + 1]
    prefix = f"{len(str(line))} | "
    return source_row[len(prefix) :], caret_row.index("^") - len(prefix) + 1


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("CR-only line endings", config(hidden_size=4100).replace("\n", "\r")),
        (
            "U+2028 inside a string",
            '{"model_type": "llama", "name": "a\u2028b", "hidden_size": 4100,'
            ' "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 32000}\n',
        ),
        (
            "U+0085 and U+2029 inside strings",
            '{"model_type": "llama", "x": "\u0085\u2029",\n "hidden_size": 4100,'
            ' "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 32000}\n',
        ),
    ],
)
def test_positions_and_code_frame_agree_on_lines(tmp_path: Path, name: str, text: str) -> None:
    path = put(tmp_path / "config.json", text)
    offset = text.index("4100")
    lines = text[:offset].replace("\r\n", "\n").replace("\r", "\n").split("\n")
    line, column = len(lines), len(lines[-1]) + 1
    finding = next(f for f in check_json("--select", "DL101", path).findings)
    assert (finding["line"], finding["column"]) == (line, column), name
    full = run("check", "--select", "DL101", "--output-format", "full", path)
    source, caret = _frame_column(full.stdout, line)
    assert source[caret - 1 : caret + 3] == "4100", name


def test_diff_without_fix_exits_1_on_an_unfixable_error(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", config(tie_word_embeddings="1"))
    result = run("check", "--diff", path)
    assert result.stdout == ""  # nothing to fix
    assert result.code == 1


def test_diff_with_nothing_failing_exits_0(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", config())
    before = path.read_bytes()
    result = run("check", "--diff", path)
    assert (result.code, result.stdout) == (0, "")  # no finding: no diff
    assert path.read_bytes() == before


def test_fix_diff_json_prints_json(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", config(num_hidden_layers=32.0))
    before = path.read_bytes()
    result = run("check", "--fix", "--diff", "--output-format", "json", path)
    assert path.read_bytes() == before
    assert [f["code"] for f in result.findings] == ["DL003"]
    assert result.findings[0]["fix"]["edits"][0]["content"] == "32"
    assert result.code == 1


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ('ignore = [""]', "an empty code would match every rule"),
        ('select = ["DL1", " "]', "an empty code would match every rule"),
        ('severity = {DL1 = "info"}', "'DL1' is not a rule code"),
        ("severity = {DL101 = 3}", 'severity.DL101 must be a string ("error"'),
        ("exclude = [1]", "exclude must be a list of glob patterns"),
        ('exclude = "drafts"', "exclude must be a list of glob patterns"),
        ("baseline = 5", "baseline must be the path of a baseline file"),
        ('baseline = ""', "baseline must be the path of a baseline file"),
    ],
)
def test_settings_that_would_be_ignored_are_rejected(
    tmp_path: Path, settings: str, message: str
) -> None:
    put(tmp_path / "dimlint.toml", settings + "\n")
    path = put(tmp_path / "config.json", config(hidden_size=4100))
    result = run("check", path, settings=True)
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    assert lines[0].startswith(f"dimlint: error: {tmp_path / 'dimlint.toml'}: ")


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("dimlint.toml", b'ignore = ["DL2"]\n# \xff\xfe\n', "not UTF-8"),
        ("pyproject.toml", b'[tool.dimlint]\nignore = ["DL2"]\n# \xff\n', "not UTF-8"),
        ("pyproject.toml", b'tool = 5\n[x]\n"[tool.dimlint" = 1\n', None),
        ("dimlint.toml", b"ignore = 5\n", "ignore must be a list of rule codes"),
        ("dimlint.toml", b"severity = 5\n", "severity must be a table"),
        ("dimlint.toml", b"[[x]]\n" * 3 + b"a = [[[[[[[[[[1]]]]]]]]]]\n", "unknown setting"),
    ],
)
def test_odd_settings_files_are_a_clear_error(
    tmp_path: Path, name: str, content: bytes, message: str | None
) -> None:
    put(tmp_path / name, content)
    path = put(tmp_path / "config.json", config(hidden_size=4100))
    result = run("check", "--output-format", "json", path, settings=True)
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    if message is None:  # no [tool.dimlint] table: no settings, a normal run
        assert result.code == 1
        return
    assert result.code == 2
    assert message in result.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'{"tool": "dimlint", "findings": [\xff]}', "is not UTF-8"),
        (b'{"tool": "dimlint", "findings": 5}', "findings must be a list"),
        (b'{"tool": "dimlint", "findings": [5, {"fingerprint": 7}]}', None),
        (b"[" * 100_000, "is not valid JSON"),
        (b"[]", "is not a dimlint baseline"),
    ],
)
def test_odd_baselines_are_a_clear_error(
    tmp_path: Path, content: bytes, message: str | None
) -> None:
    baseline = put(tmp_path / "baseline.json", content)
    path = put(tmp_path / "config.json", config(hidden_size=4100))
    result = run("check", "--baseline", baseline, "--output-format", "concise", path)
    assert "Traceback" not in result.stderr
    assert "internal error" not in result.stderr
    if message is None:  # nothing usable recorded: every finding is new
        assert result.code == 1
        assert "DL101" in result.stdout
        return
    assert result.code == 2
    assert message in result.stderr


SURROGATES = (
    '{"model_type": "ll\\udc00ama", "hidden_size": 4100, "num_attention_heads": 32,'
    ' "a\\ud800": 3, "a\\ud800": 4, "vocab_size": 32000}\n'
)


@pytest.mark.parametrize("output", ["full", "concise", "json", "github", "sarif", "junit"])
def test_lone_surrogates_in_keys_and_model_type_in_every_format(
    tmp_path: Path, output: str
) -> None:
    path = put(tmp_path / "config.json", SURROGATES)
    result = run("check", "--output-format", output, path)
    assert result.code == 1
    result.stdout.encode("utf-8")  # writable to any UTF-8 stream
    if output in ("json", "sarif"):
        json.loads(result.stdout)
    if output == "json":
        duplicate = next(f for f in result.findings if f["code"] == "DL002")
        assert duplicate["pointer"] == "/a\ud800"  # the escape reads back as the same key
    # a real process writing to a pipe, as CI does
    done = subprocess.run(
        [sys.executable, "-m", "dimlint", "check", "--no-config", "--output-format", output, path],
        check=False,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "PYTHONIOENCODING": "utf-8"},
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    assert b"Traceback" not in done.stderr


def test_lone_surrogates_in_baselines(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", SURROGATES)
    baseline = tmp_path / "baseline.json"
    assert run("check", "--write-baseline", baseline, path).code == 0
    baseline.read_bytes().decode("utf-8")
    result = run("check", "--baseline", baseline, "--output-format", "json", path)
    assert (result.code, result.findings) == (0, [])


MLA = {
    "model_type": "deepseek_v3",
    "hidden_size": 1024,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "num_hidden_layers": 4,
    "vocab_size": 32000,
    "intermediate_size": 4096,
    "kv_lora_rank": 512,
    "q_lora_rank": None,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": -128,
    "max_position_embeddings": 4096,
}


@pytest.mark.parametrize("command", ["mem", "plan", "shapes"])
def test_commands_refuse_invalid_values_as_check_does(tmp_path: Path, command: str) -> None:
    """``mem`` printed "KV cache -2.74 GiB" (a minus sign) for a negative v_head_dim."""
    path = put(tmp_path / "config.json", json.dumps(MLA))
    result = run(command, path)
    assert result.code == 1
    assert "DL003" in result.stdout
    assert "v_head_dim is -128" in result.stdout
    assert "KV cache" not in result.stdout
    assert "nothing was computed" in result.stderr
    assert "internal error" not in result.stderr


@pytest.mark.parametrize("layer", ["99999", "32", "-1"])
def test_shapes_layer_out_of_range_is_an_error(tmp_path: Path, layer: str) -> None:
    path = put(tmp_path / "config.json", config())
    result = run("shapes", "--layer", layer, path)
    assert result.code == 2
    assert result.stdout == ""
    assert f"--layer {layer} is out of range: the model has 32 layers (0 to 31)" in result.stderr


def test_shapes_last_layer_is_accepted(tmp_path: Path) -> None:
    path = put(tmp_path / "config.json", config())
    result = run("shapes", "--layer", "31", "--output-format", "json", path)
    assert result.code == 0
    assert json.loads(result.stdout)["layer"] == 31
