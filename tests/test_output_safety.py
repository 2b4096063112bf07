"""Whatever the input holds, every command prints a clear result: no control character from the
input reaches the terminal, numbers of any size print, and the five reproducers that used to end
in "a bug in dimlint", a traceback or an ``OverflowError`` get a diagnostic or a usage error."""

from __future__ import annotations

import io
import json
import struct
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.cli import main
from dimlint.report.escape import for_json, for_terminal

LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "vocab_size": 256,
    "max_position_embeddings": 128,
}
NANOGPT = """from dataclasses import dataclass

@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50304
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def no_bug(*texts: str) -> None:
    for text in texts:
        assert "a bug in dimlint" not in text
        assert "Traceback" not in text
        assert "internal error" not in text


# -- the five reproducers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cookie", "tail", "expected"),
    [
        ("nosuchcodec", b"", "names 'nosuchcodec': Python knows no such encoding"),
        ("undefined", b"# caf\xe9\n", "cannot be decoded as undefined"),
        ("undefined", b"", "cannot be decoded as undefined"),
        ("rot13", b"", "names 'rot13': it is not a text encoding"),
        ("unicode_escape", b"# caf\xe9 \\ud800\n", "the lone surrogate U+D800"),
        ("unicode_escape", b'x = "\\N{nope}"  # \xe9\n', "cannot be decoded as unicode_escape"),
    ],
)
def test_coding_cookies_python_refuses_are_dl001(
    tmp_path: Path, cookie: str, tail: bytes, expected: str
) -> None:
    path = tmp_path / "model.py"
    path.write_bytes(f"# -*- coding: {cookie} -*-\n".encode() + NANOGPT.encode() + tail)
    code, out, err = run("check", str(path), "--no-config", "--output-format", "json")
    no_bug(out, err)
    assert code == 1
    [finding] = json.loads(out)
    assert finding["code"] == "DL001"
    assert expected in finding["message"]
    code, out, err = run("mem", str(path))
    no_bug(out, err)
    assert code == 1  # the input finding, in the command's format
    assert "DL001" in out


def test_a_cookie_python_accepts_is_read(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    path.write_bytes(b"# -*- coding: latin-1 -*-\n" + NANOGPT.encode() + b"# caf\xe9\n")
    code, out, err = run("check", str(path), "--no-config", "--output-format", "json")
    assert code == 0, err
    assert json.loads(out) == []


def _safetensors(folder: Path, names: list[str]) -> None:
    header: dict[str, Any] = {}
    for offset, name in enumerate(names):
        header[name] = {"dtype": "BF16", "shape": [2], "data_offsets": [4 * offset, 4 * offset + 4]}
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    (folder / "model.safetensors").write_bytes(
        struct.pack("<Q", len(raw)) + raw + bytes(4 * len(names))
    )


@pytest.mark.parametrize("digits", [19, 300, 5000])
def test_a_huge_layer_index_in_a_tensor_name(tmp_path: Path, digits: int) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    huge = "9" * digits
    _safetensors(tmp_path, ["model.embed_tokens.weight", f"model.layers.{huge}.mlp.up.weight"])
    code, out, err = run("check", str(tmp_path), "--no-config", "--output-format", "json")
    no_bug(out, err)
    assert code == 1
    [problem] = [f for f in json.loads(out) if f["code"] == "DL001"]
    assert (
        f"holds a {digits:,}-digit number where a layer or expert index belongs"
        in (problem["message"])
    )
    assert len(problem["message"]) < 300  # the name is shortened, not printed whole


def test_an_index_with_a_huge_layer_number(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    _safetensors(tmp_path, ["model.embed_tokens.weight"])
    weight_map = {"model.embed_tokens.weight": "model.safetensors"}
    weight_map[f"model.layers.{'1' * 400}.mlp.up.weight"] = "model.safetensors"
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": weight_map}))
    code, out, err = run("check", str(tmp_path), "--no-config", "--output-format", "json")
    no_bug(out, err)
    assert code == 1
    assert any("400-digit number" in f["message"] for f in json.loads(out))


def test_superscript_digits_in_a_token_id(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    decoder = {"¹²": {"content": "<x>"}, "٣٠٠": {"content": "<y>"}, "300": {"content": "<z>"}}
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"added_tokens_decoder": decoder}))
    code, out, err = run("check", str(tmp_path), "--no-config", "--output-format", "json")
    no_bug(out, err)
    assert code == 1
    found = json.loads(out)
    assert [f["code"] for f in found if f["code"] in ("DL001", "DL605")] == ["DL605"]
    assert (
        "token id 300 (added token '<z>')"
        in next(f for f in found if f["code"] == "DL605")["message"]
    )


def test_superscript_digits_in_per_layer_keys(tmp_path: Path) -> None:
    config = {**LLAMA, "per_layer_config": {"¹": {"intermediate_size": 64}}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    code, out, err = run("mem", str(tmp_path), "--output-format", "json")
    no_bug(out, err)
    assert code == 0, err


@pytest.mark.parametrize("option", ["--batch", "--context", "--tp"])
def test_a_320_digit_count_is_a_usage_error(tmp_path: Path, option: str) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    code, out, err = run("mem", str(tmp_path), option, "9" * 320)
    no_bug(out, err)
    assert code == 2
    assert f"argument {option}: a 320-digit number: at most 10^15" in err
    code, _, err = run("mem", str(tmp_path), option, "²")
    assert code == 2
    assert "expected a positive integer, got '²'" in err


def test_huge_counts_through_the_api_and_targets(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps(LLAMA))
    with pytest.raises(dimlint.UsageError, match="batch=a number of about 321 digits"):
        dimlint.mem(str(tmp_path), batch=10**320)
    with pytest.raises(dimlint.UsageError, match="about 5,001 digits"):
        dimlint.plan(str(tmp_path), context=10**5000)
    for spec in ("vllm:tp=²", f"vllm:tp={'9' * 400}"):
        code, out, err = run("check", str(tmp_path), "--no-config", "--target", spec)
        no_bug(out, err)
        assert code == 2
        assert "tp must be a positive integer" in err


# -- control characters ----------------------------------------------------------------------

CONTROLS = ("\x1b", "\x07", "\x9b", "\x00", "\x7f")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A config whose folder name and model_type hold terminal controls, wide enough (512, FFN
    1372: not a multiple of 8) that the performance rules judge it and name its path."""
    folder = tmp_path / "model\x1b[2J"
    folder.mkdir()
    config = {
        **LLAMA,
        "hidden_size": 512,
        "intermediate_size": 1372,
        "model_type": "lla\x1b[31mma\x07\x9b",
        "bad\x00key\x7f": 1,
    }
    (folder / "config.json").write_text(json.dumps(config))
    return folder


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "--no-config"),
        ("check", "--no-config", "--output-format", "concise"),
        ("check", "--no-config", "--output-format", "github"),
        ("check", "--no-config", "--statistics"),
        ("mem",),
        ("plan",),
        ("shapes",),
    ],
)
def test_no_control_character_reaches_the_terminal(hostile: Path, argv: tuple[str, ...]) -> None:
    code, out, err = run(*argv, str(hostile))
    no_bug(out, err)
    assert code in (0, 1), err
    for control in CONTROLS:
        assert control not in out + err
    if argv[0] != "check" or len(argv) == 2:
        assert "\\x1b[2J" in out  # the folder name, escaped as Python would write it


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "--no-config", "--output-format", "json"),
        ("check", "--no-config", "--output-format", "sarif"),
        ("mem", "--output-format", "json"),
        ("plan", "--output-format", "json"),
        ("shapes", "--output-format", "json"),
    ],
)
def test_json_outputs_escape_controls_and_keep_the_strings(
    hostile: Path, argv: tuple[str, ...]
) -> None:
    code, out, err = run(*argv, str(hostile))
    assert code in (0, 1), err
    for control in CONTROLS:
        assert control not in out
    names = ("model\x1b[2J", "model%1B%5B2J")  # as it is, or as a SARIF URI encodes it
    assert any(n in text for text in _strings(json.loads(out)) for n in names)  # round trip


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_stderr_and_rejected_inputs_are_escaped(tmp_path: Path) -> None:
    code, out, err = run("check", str(tmp_path / "missing\x1b[2J.json"), "--no-config")
    assert code == 2
    assert "\x1b" not in err
    assert "missing\\x1b[2J.json" in err
    bad = tmp_path / "bad\x07"
    bad.mkdir()
    (bad / "config.json").write_text(json.dumps({**LLAMA, "hidden_size": "64"}))
    for command in ("mem", "plan", "shapes"):
        code, out, err = run(command, str(bad))
        assert code == 1
        assert "\x07" not in out + err
        assert "DL003" in out


def test_the_escapes() -> None:
    assert for_terminal("a\x1bb\tc\nd\x9b\ud800") == "a\\x1bb\tc\nd\\x9b\\ud800"
    text = json.dumps({"k\x7f": "\x9b\ud800"}, ensure_ascii=False)
    assert json.loads(for_json(text)) == {"k\x7f": "\x9b\ud800"}
    assert not any(c in for_json(text) for c in "\x7f\x9b")
