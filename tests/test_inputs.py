"""Bad inputs through ``dimlint check``: each one is a clear finding with a position, never a
traceback, and never stops the other files of the same run from being checked.

Every test runs ``dimlint.cli.main`` with ``--output-format json`` on the bad file *and* on a
config with a known finding (``BROKEN``: DL101 at /hidden_size), so a crash or an early exit
shows up as the missing DL101.
"""

from __future__ import annotations

import errno
import io
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from dimlint.cli import main

BROKEN = (
    '{\n  "model_type": "llama",\n  "hidden_size": 4100,\n  "num_attention_heads": 32,\n'
    '  "num_hidden_layers": 32,\n  "vocab_size": 32000,\n  "intermediate_size": 11008\n}\n'
)
#: A clean llama-like config with a placeholder for hidden_size.
TEMPLATE = (
    '{\n  "model_type": "llama",\n  "hidden_size": %s,\n  "num_attention_heads": 32,\n'
    '  "num_key_value_heads": 8,\n  "num_hidden_layers": 32,\n  "vocab_size": 32000,\n'
    '  "intermediate_size": 14336,\n  "max_position_embeddings": 8192\n}\n'
)
HIDDEN_LINE = 3
HIDDEN_COLUMN = len('  "hidden_size": ') + 1


class Run(NamedTuple):
    code: int
    findings: list[dict[str, Any]]
    stderr: str

    def of(self, path: Path | str) -> list[dict[str, Any]]:
        return [f for f in self.findings if f["file"] == str(path)]

    def codes(self, path: Path | str) -> list[str]:
        return [f["code"] for f in self.of(path)]


def check(*args: str | Path) -> Run:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--output-format", "json", "--no-config", *map(str, args)], out, err)
    stderr = err.getvalue()
    assert "Traceback" not in stderr
    assert "internal error" not in stderr, stderr
    return Run(code, json.loads(out.getvalue()), stderr)


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    """A second file in every run: its DL101 proves the run went on after the bad file."""
    folder = tmp_path / "other"
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(BROKEN, encoding="utf-8")
    return path


def write(tmp_path: Path, data: bytes | str, name: str = "config.json") -> Path:
    folder = tmp_path / "bad"
    folder.mkdir(exist_ok=True)
    path = folder / name
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def only(run: Run, path: Path, code: str = "DL001") -> dict[str, Any]:
    """The one finding of ``path``, which must have ``code``; the other file still checked."""
    found = run.of(path)
    assert [f["code"] for f in found] == [code], found
    return found[0]


# --- encodings and bytes ----------------------------------------------------------------------


def test_utf8_bom_is_dl001_at_1_1_and_the_content_is_still_checked(
    tmp_path: Path, broken: Path
) -> None:
    path = write(tmp_path, b"\xef\xbb\xbf" + BROKEN.encode())
    run = check(path, broken)
    assert run.code == 1
    assert run.codes(path) == ["DL001", "DL101", "DL201"]
    bom = run.of(path)[0]
    assert (bom["line"], bom["column"]) == (1, 1)
    assert "byte-order mark" in bom["message"]
    assert bom["fix"]["applicability"] == "safe"
    head = run.of(path)[1]
    assert (head["line"], head["column"]) == (HIDDEN_LINE, HIDDEN_COLUMN)  # the BOM is no column
    assert "DL101" in run.codes(broken)


def test_fix_removes_only_the_bom(tmp_path: Path) -> None:
    path = write(tmp_path, b"\xef\xbb\xbf" + BROKEN.encode())
    run = check("--fix", path)
    assert path.read_bytes() == BROKEN.encode()  # DL101's unsafe fix is not applied
    assert "DL001" not in run.codes(path)
    assert "DL101" in run.codes(path)


def test_utf16_file(tmp_path: Path, broken: Path) -> None:
    data = BROKEN.encode("utf-16")
    path = write(tmp_path, data)
    run = check("--fix", path, broken)
    finding = run.of(path)[0]
    assert finding["code"] == "DL001"
    assert (finding["line"], finding["column"]) == (1, 1)
    assert "UTF-16" in finding["message"]
    assert "DL101" in run.codes(path)  # decodable: the content is still checked
    assert path.read_bytes() == data  # --fix does not rewrite a UTF-16 file
    assert "DL101" in run.codes(broken)


def test_invalid_utf8_byte_is_reported_at_its_position(tmp_path: Path, broken: Path) -> None:
    data = BROKEN.replace('"llama"', '"ll\udcffama"').encode("utf-8", "surrogateescape")
    path = write(tmp_path, data)
    run = check(path, broken)
    finding = only(run, path)
    assert (finding["line"], finding["column"]) == (2, len('  "model_type": "ll') + 1)
    assert "0xff" in finding["message"]
    offset = data.index(b"\xff")
    assert f"offset {offset}" in finding["message"]
    assert run.code == 1
    assert "DL101" in run.codes(broken)


def test_invalid_utf8_after_non_ascii_counts_code_points(tmp_path: Path) -> None:
    data = '{"名前": "日本", "x": "'.encode() + b"\xc3(" + b'"}'
    path = write(tmp_path, data)
    finding = only(check(path), path)
    assert (finding["line"], finding["column"]) == (1, len('{"名前": "日本", "x": "') + 1)


def test_utf16_without_a_bom_is_not_called_binary(tmp_path: Path, broken: Path) -> None:
    """UTF-16 written without a BOM (utf-16-le) is all NUL bytes between ASCII ones."""
    path = write(tmp_path, BROKEN.encode("utf-16-le"))
    run = check(path, broken)
    finding = run.of(path)[0]
    assert finding["code"] == "DL001"
    assert "UTF-16" in finding["message"]
    assert "DL101" in run.codes(broken)


def test_binary_file(tmp_path: Path, broken: Path) -> None:
    path = write(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    run = check(path, broken)
    finding = only(run, path)
    assert "binary" in finding["message"]
    assert "DL101" in run.codes(broken)


@pytest.mark.parametrize("data", [b"", b"   \n\t\r\n  "], ids=["empty", "whitespace"])
def test_empty_file(tmp_path: Path, broken: Path, data: bytes) -> None:
    path = write(tmp_path, data)
    run = check(path, broken)
    finding = only(run, path)
    assert (finding["line"], finding["column"]) == (1, 1)
    assert "empty" in finding["message"]
    assert "DL101" in run.codes(broken)


def test_json_syntax_error_has_line_and_column(tmp_path: Path, broken: Path) -> None:
    path = write(tmp_path, BROKEN.replace('"vocab_size": 32000,', '"vocab_size": 32000,,'))
    run = check(path, broken)
    finding = only(run, path)
    assert (finding["line"], finding["column"]) == (6, len('  "vocab_size": 32000,') + 1)
    assert "invalid JSON" in finding["message"]
    assert "DL101" in run.codes(broken)


# --- the top level ----------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "kind"), [("[1, 2, 3]", "array"), ('"hidden_size"', "string")])
def test_top_level_not_an_object(tmp_path: Path, broken: Path, data: str, kind: str) -> None:
    config = write(tmp_path, data)
    other = write(tmp_path, data, "data.json")
    run = check(config, other, broken, "--verbose")
    finding = only(run, config)
    assert kind in finding["message"]
    assert (finding["line"], finding["column"]) == (1, 1)
    assert run.of(other) == []  # not named config.json: skipped, not an error
    assert f"skipped {other}" in run.stderr
    assert "DL101" in run.codes(broken)


# --- size and depth ---------------------------------------------------------------------------

SIXTY_MB = 60 * 2**20


def test_60mb_json_that_is_not_a_config_is_skipped(tmp_path: Path, broken: Path) -> None:
    row = '{"id": 12345, "text": "lorem ipsum dolor sit amet"},\n'
    path = write(tmp_path, '{"data": [' + row * (SIXTY_MB // len(row)) + "{}]}", "data.json")
    started = time.perf_counter()
    run = check(path, broken, "--verbose")
    elapsed = time.perf_counter() - started
    print(f"60 MB non-config JSON: {elapsed:.2f} s")  # ~2.5 s on the dev box
    assert run.of(path) == []
    assert f"skipped {path}" in run.stderr
    assert "DL101" in run.codes(broken)


def test_60mb_config_with_a_huge_array(tmp_path: Path) -> None:
    head = BROKEN.rstrip().rstrip("}") + ',\n  "big": ['
    path = write(tmp_path, head + "1234567," * (SIXTY_MB // 8) + "0]\n}\n")
    run = check(path)
    assert run.code == 1
    finding = run.of(path)[0]
    assert finding["code"] == "DL101"
    assert (finding["line"], finding["column"]) == (HIDDEN_LINE, HIDDEN_COLUMN)


def test_nesting_200000_levels_inside_a_config(tmp_path: Path, broken: Path) -> None:
    depth = 200_000
    nested = BROKEN.rstrip().rstrip("}") + ',\n  "x": ' + "[" * depth + "]" * depth + "\n}\n"
    path = write(tmp_path, nested)
    objects = write(
        tmp_path,
        BROKEN.rstrip().rstrip("}") + ',\n  "x": ' + '{"a": ' * depth + "1" + "}" * depth + "}",
        "objects.json",
    )
    run = check(path, objects, broken)
    for checked in (path, objects):
        finding = run.of(checked)[0]
        assert finding["code"] == "DL101"
        assert (finding["line"], finding["column"]) == (HIDDEN_LINE, HIDDEN_COLUMN)
    assert "DL101" in run.codes(broken)


def test_deep_nesting_with_a_syntax_error(tmp_path: Path, broken: Path) -> None:
    """The fallback parser reports syntax errors in deep documents with a position too."""
    depth = 200_000
    text = '{"model_type": "llama",\n "x": ' + "[" * depth + "]" * (depth - 1) + "}"
    path = write(tmp_path, text)
    run = check(path, broken)
    finding = only(run, path)
    assert finding["line"] == 2
    assert finding["column"] == len(' "x": ') + 2 * depth
    assert "DL101" in run.codes(broken)


# --- invalid dimension values -----------------------------------------------------------------


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_dimension_is_dl003(tmp_path: Path, broken: Path, literal: str) -> None:
    path = write(tmp_path, TEMPLATE % literal)
    run = check(path, broken)
    finding = only(run, path, "DL003")
    assert finding["pointer"] == "/hidden_size"
    assert (finding["line"], finding["column"]) == (HIDDEN_LINE, HIDDEN_COLUMN)
    assert finding["fix"] is None
    assert "DL101" in run.codes(broken)


def test_integer_of_thousands_of_digits(tmp_path: Path, broken: Path) -> None:
    path = write(tmp_path, TEMPLATE % ("4" * 6000))
    run = check(path, broken)
    finding = only(run, path, "DL003")
    assert "6000 digits" in finding["message"]
    assert (finding["line"], finding["column"]) == (HIDDEN_LINE, HIDDEN_COLUMN)
    assert (finding["end_line"], finding["end_column"]) == (HIDDEN_LINE, HIDDEN_COLUMN + 6000)
    assert "DL101" in run.codes(broken)


def test_integer_longer_than_the_interpreter_limit(tmp_path: Path, broken: Path) -> None:
    """PYTHONINTMAXSTRDIGITS / sys.set_int_max_str_digits can lower int()'s limit below 4300."""
    path = write(tmp_path, TEMPLATE % ("4" * 1000))
    previous = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        run = check(path, broken)
    finally:
        sys.set_int_max_str_digits(previous)
    finding = only(run, path, "DL003")
    assert "1000 digits" in finding["message"]
    assert "DL101" in run.codes(broken)


def test_float_dimension_has_a_safe_fix(tmp_path: Path) -> None:
    path = write(tmp_path, TEMPLATE % "4096.0")
    finding = only(check(path), path, "DL003")
    assert finding["fix"]["applicability"] == "safe"
    assert finding["fix"]["edits"] == [
        {
            "line": HIDDEN_LINE,
            "column": HIDDEN_COLUMN,
            "end_line": HIDDEN_LINE,
            "end_column": HIDDEN_COLUMN + 6,
            "content": "4096",
        }
    ]
    run = check("--fix", path)
    assert path.read_text(encoding="utf-8") == TEMPLATE % "4096"
    assert run.findings == []
    assert run.code == 0


@pytest.mark.parametrize(
    ("literal", "described"),
    [
        ('"4096"', 'the string "4096"'),
        ("true", "the boolean true"),
        ("null", "null"),
        ("0", "0"),
        ("-4096", "-4096"),
        ("4096.5", "the float 4096.5"),
        ('"²"', "string"),  # str.isdigit() is True for '²', int('²') is not
        ('"4k"', 'the string "4k"'),
    ],
)
def test_required_dimension_of_the_wrong_type_is_dl003(
    tmp_path: Path, broken: Path, literal: str, described: str
) -> None:
    path = write(tmp_path, TEMPLATE % literal)
    run = check(path, broken)
    finding = [f for f in run.of(path) if f["code"] == "DL003"]
    assert len(finding) == 1, run.of(path)
    assert finding[0]["pointer"] == "/hidden_size"
    assert described in finding[0]["message"]
    assert "DL101" in run.codes(broken)


def test_array_for_a_scalar_dimension_is_not_called_missing(tmp_path: Path) -> None:
    """Per-layer widths are legal (Swin, OpenELM); a finding must not say the key is absent."""
    path = write(tmp_path, TEMPLATE % "[4096, 4096]")
    run = check(path)
    assert all("hidden_size is not set" not in f["message"] for f in run.findings), run.findings


@pytest.mark.parametrize(
    ("key", "value"), [("num_attention_heads", 32), ("num_key_value_heads", 8)]
)
def test_zero_heads_is_dl003(tmp_path: Path, broken: Path, key: str, value: int) -> None:
    path = write(tmp_path, (TEMPLATE % "4096").replace(f'"{key}": {value}', f'"{key}": 0'))
    run = check(path, broken)
    finding = only(run, path, "DL003")
    assert finding["pointer"] == f"/{key}"
    assert "DL101" in run.codes(broken)


@pytest.mark.parametrize("key", ["q_lora_rank", "sliding_window"])
def test_null_optional_dimension_is_fine(tmp_path: Path, key: str) -> None:
    path = write(tmp_path, (TEMPLATE % "4096").replace("{\n", f'{{\n  "{key}": null,\n', 1))
    run = check(path)
    assert run.findings == []
    assert run.code == 0


# --- file system oddities ---------------------------------------------------------------------


def test_directory_named_config_json_is_walked(tmp_path: Path) -> None:
    folder = tmp_path / "model" / "config.json"
    folder.mkdir(parents=True)
    inner = folder / "config.json"
    inner.write_text(BROKEN, encoding="utf-8")
    run = check(tmp_path / "model")
    assert run.codes(inner) == ["DL101", "DL201"]
    run = check(folder)  # named explicitly: a directory is still walked
    assert run.codes(inner) == ["DL101", "DL201"]


def test_symlink_loop(tmp_path: Path, broken: Path) -> None:
    folder = tmp_path / "loop"
    folder.mkdir()
    a, b = folder / "a.json", folder / "b.json"
    os.symlink(b, a)
    os.symlink(a, b)
    run = check(a, broken)
    assert "cannot read" in only(run, a)["message"]
    assert "DL101" in run.codes(broken)
    walked = check(folder, broken)  # found by the walk: reported, not followed forever
    assert walked.codes(str(a)) == ["DL001"]
    assert walked.codes(str(b)) == ["DL001"]
    assert "DL101" in walked.codes(broken)


def test_symlink_to_a_missing_file(tmp_path: Path, broken: Path) -> None:
    link = tmp_path / "config.json"
    os.symlink(tmp_path / "gone.json", link)
    run = check(link, broken)
    finding = only(run, link)
    assert "cannot read" in finding["message"]
    assert run.code == 1
    assert "DL101" in run.codes(broken)


def _deny(path: Path, how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``path`` unreadable: ``chmod 000`` (root reads it anyway), or an ``os.open`` that
    fails on it with EACCES as the kernel would (so the test runs as root too, as CI runs)."""
    if how == "chmod":
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            pytest.skip("root reads a chmod 000 file (the simulated case runs instead)")
        path.chmod(0)
        return
    real_open = os.open
    denied = os.fspath(path)

    def refusing_open(name: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if os.fspath(name) == denied:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), denied)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)


@pytest.mark.parametrize("how", ["chmod", "simulated"])
def test_unreadable_file(
    tmp_path: Path, broken: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path, BROKEN)
    _deny(path, how, monkeypatch)
    try:
        run = check(path, broken)
    finally:
        path.chmod(0o644)
        monkeypatch.undo()
    finding = only(run, path)
    assert "cannot read" in finding["message"]
    assert os.strerror(errno.EACCES) in finding["message"]
    assert "DL101" in run.codes(broken)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_named_pipe_in_a_walked_folder_does_not_hang(tmp_path: Path, broken: Path) -> None:
    """A FIFO called *.json is not a file: reading it waits for a writer that never comes."""
    folder = broken.parent
    fifo = folder / "pipe.json"
    os.mkfifo(fifo)
    result: dict[str, Run] = {}
    thread = threading.Thread(target=lambda: result.update(run=check(folder)), daemon=True)
    thread.start()
    thread.join(5)
    hung = thread.is_alive()
    if hung:  # unblock the reader (it then sees an empty file) so the test run can go on
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(15)
    assert not hung, "dimlint blocked reading a named pipe found by the directory walk"
    assert "DL101" in result["run"].codes(broken)


def test_missing_path_exits_2_and_the_others_are_checked(tmp_path: Path, broken: Path) -> None:
    missing = tmp_path / "nope" / "config.json"
    run = check(missing, broken)
    assert run.code == 2
    assert str(missing) in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    assert "DL101" in run.codes(broken)


# --- JSON that is not a model config ----------------------------------------------------------

TOKENIZER = json.dumps(
    {
        "version": "1.0",
        "added_tokens": [{"id": 0, "content": "<s>", "special": True}],
        "model": {"type": "BPE", "vocab": {"a": 1, "b": 2}, "merges": ["a b"]},
    }
)
PACKAGE = json.dumps(
    {"name": "x", "version": "1.0.0", "scripts": {"test": "jest"}, "dependencies": {}}
)


@pytest.mark.parametrize(
    ("name", "content"),
    [("tok.json", TOKENIZER), ("tokenizer.json", TOKENIZER), ("pkg.json", PACKAGE)],
)
def test_json_that_is_not_a_config_is_skipped_silently(
    tmp_path: Path, broken: Path, name: str, content: str
) -> None:
    path = write(tmp_path, content, name)
    run = check(path, broken)
    assert run.of(path) == []
    assert run.stderr == ""
    assert "DL101" in run.codes(broken)
    verbose = check(path, broken, "--verbose")
    assert verbose.of(path) == []
    assert f"skipped {path}" in verbose.stderr
    assert "not a model config" in verbose.stderr
