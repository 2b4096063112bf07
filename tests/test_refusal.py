"""One refusal policy: a config with error-level findings is not turned into numbers by `mem`,
`plan`, `shapes` or the API; the findings are printed in the requested format (exit 1), and
``--force`` computes anyway with the output labelled as describing an invalid model."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.cli import main

LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 4,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 32000,
}
#: The cases of the issue: a hidden size no head count divides, and 32 query heads over 6 KV.
BROKEN = {
    "hidden_4100": ({"hidden_size": 4100}, "DL101"),
    "heads_32_over_6": ({"num_key_value_heads": 6}, "DL102"),
}
COMMANDS = ("mem", "plan", "shapes")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def write(folder: Path, **changes: Any) -> str:
    path = folder / "config.json"
    path.write_text(json.dumps({**LLAMA, **changes}, indent=2))
    return str(path)


@pytest.mark.parametrize("case", sorted(BROKEN))
@pytest.mark.parametrize("command", COMMANDS)
def test_errors_are_shown_not_numbers(tmp_path: Path, case: str, command: str) -> None:
    changes, code = BROKEN[case]
    path = write(tmp_path, **changes)
    _, checked, _ = run("check", path, "--no-config", "--output-format", "json")
    errors = [f for f in json.loads(checked) if f["severity"] == "error"]
    assert code in {f["code"] for f in errors}
    status, out, err = run(command, path, "--output-format", "json")
    assert status == 1, out
    assert json.loads(out) == errors  # the same findings check gives, in the JSON format
    assert "nothing was computed" in err
    assert "--force" in err
    status, out, _ = run(command, path)
    assert status == 1
    assert f"{code} [*] [error]" in out or f"{code} [error]" in out  # the full format
    for table_word in ("KV cache", "accepted", "output shape", "per GPU"):
        assert table_word not in out


@pytest.mark.parametrize("command", COMMANDS)
def test_force_labels_the_output(tmp_path: Path, command: str) -> None:
    path = write(tmp_path, hidden_size=4100)
    status, out, err = run(command, path, "--force", "--output-format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert next(iter(document)) == "invalid"  # first, where a reader looks
    assert document["invalid"]["note"].startswith("INVALID MODEL: the config has 1 error (DL101")
    assert [e["code"] for e in document["invalid"]["errors"]] == ["DL101"]
    status, out, err = run(command, path, "--force")
    assert status == 0, err
    assert out.splitlines()[0].startswith("INVALID MODEL")


def test_a_valid_config_is_not_labelled(tmp_path: Path) -> None:
    path = write(tmp_path)
    for command in COMMANDS:
        status, out, err = run(command, path, "--output-format", "json")
        assert status == 0, err
        assert "invalid" not in json.loads(out)
    assert "invalid" not in dimlint.mem(path)


def test_the_api_refuses_too(tmp_path: Path) -> None:
    value = {**LLAMA, "num_key_value_heads": 6}
    for call in (dimlint.mem, dimlint.plan):
        with pytest.raises(dimlint.RejectedInput) as raised:
            call(value)
        assert "DL102 [error]" in str(raised.value)
    assert dimlint.mem(value, force=True)["invalid"]["errors"][0]["code"] == "DL102"
    assert dimlint.plan(value, force=True).data["invalid"]["errors"][0]["code"] == "DL102"


def test_settings_decide_what_an_error_is(tmp_path: Path) -> None:
    """The settings file grades the rules here as in ``check``: DL101 ignored, numbers."""
    path = write(tmp_path, hidden_size=4100)
    (tmp_path / "dimlint.toml").write_text('ignore = ["DL101"]\n')
    status, out, err = run("mem", path, "--output-format", "json")
    assert status == 0, err
    assert "invalid" not in json.loads(out)


def test_force_does_not_read_what_cannot_be_read(tmp_path: Path) -> None:
    path = write(tmp_path, hidden_size="4096")  # DL003: no number to compute with
    status, out, err = run("mem", path, "--force")
    assert status == 1
    assert "DL003" in out
    assert "--force" not in err
