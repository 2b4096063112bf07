"""Every command reads a config through the same front end as ``check`` (issue 11, item 2).

``mem``, ``plan`` and ``shapes`` never compute numbers from a config that ``check`` rejects:
they print the same error-level input findings (DL001–DL005) in their output format and exit 1.
Settings (``[tool.dimlint]`` / ``dimlint.toml``) apply to them as to ``check``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main

LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "torch_dtype": "bfloat16",
}
QWEN2_7B: dict[str, Any] = {
    "model_type": "qwen2",
    "architectures": ["Qwen2ForCausalLM"],
    "hidden_size": 3584,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "num_hidden_layers": 28,
    "intermediate_size": 18944,
    "vocab_size": 152064,
    "max_position_embeddings": 32768,
    "torch_dtype": "bfloat16",
}
COMMANDS = ("mem", "plan", "shapes")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def write(folder: Path, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def with_value(key: str, literal: str) -> str:
    """The Llama config with ``key``'s value replaced by a JSON literal, as a user might type."""
    text = json.dumps(LLAMA, indent=2)
    return text.replace(f'"{key}": {json.dumps(LLAMA[key])}', f'"{key}": {literal}')


HOSTILE = {
    "truncated": json.dumps(LLAMA)[:-9],
    "duplicate": json.dumps(LLAMA)[:-1] + ', "hidden_size": 4096}',
    "float-overflow": with_value("hidden_size", "1e400"),
    "negative-layers": with_value("num_hidden_layers", "-2"),
    "zero-kv-heads": with_value("num_key_value_heads", "0"),
    "string-width": with_value("hidden_size", '"4096"'),
    "top-level-array": "[1, 2, 3]",
}


def check_errors(path: str) -> list[dict[str, Any]]:
    code, out, _ = run("check", path, "--no-config", "--output-format", "json")
    assert code == 1
    return [d for d in json.loads(out) if d["severity"] == "error"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_commands_report_the_input_findings_of_check(
    tmp_path: Path, command: str, case: str
) -> None:
    path = write(tmp_path, "config.json", HOSTILE[case])
    expected = check_errors(path)
    assert expected, f"check finds no error in {case}: the case tests nothing"
    code, out, err = run(command, path, "--no-config", "--output-format", "json")
    assert code == 1, err
    assert json.loads(out) == expected
    assert "internal error" not in err
    assert "nothing was computed" in err


@pytest.mark.parametrize("command", COMMANDS)
def test_table_format_shows_the_findings_with_a_code_frame(tmp_path: Path, command: str) -> None:
    path = write(tmp_path, "config.json", HOSTILE["negative-layers"])
    code, out, _ = run(command, path, "--no-config")
    assert code == 1
    assert "DL003" in out
    assert '"num_hidden_layers": -2' in out  # the code frame of the full format
    assert "KV cache" not in out


@pytest.mark.parametrize("command", COMMANDS)
def test_deeply_nested_config_is_no_internal_error(tmp_path: Path, command: str) -> None:
    text = json.dumps(LLAMA)[:-1] + ', "nested": ' + "[" * 1000 + "]" * 1000 + "}"
    path = write(tmp_path, "config.json", text)
    code, _, err = run(command, path, "--no-config", "--output-format", "json")
    assert code in (0, 1)
    assert "internal error" not in err


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_accepts_verbose_and_settings_flags(tmp_path: Path, command: str) -> None:
    path = write(tmp_path, "config.json", json.dumps(LLAMA))
    code, _, err = run(command, path, "--verbose", "--no-config")
    assert code == 0, err


@pytest.mark.parametrize("command", COMMANDS)
def test_missing_path_is_a_usage_error(tmp_path: Path, command: str) -> None:
    code, _, err = run(command, str(tmp_path / "nowhere.json"))
    assert code == 2
    assert "no such file" in err


def test_settings_context_applies_to_mem_plan_and_shapes(tmp_path: Path) -> None:
    folder = tmp_path / "project"
    path = write(folder, "config.json", json.dumps(LLAMA))
    write(folder, "dimlint.toml", 'context = 2048\ndtype = "fp8"\n')
    _, out, _ = run("mem", path, "--output-format", "json")
    mem = json.loads(out)
    assert mem["kv_cache"]["context"] == 2048
    assert mem["weights"]["dtype"] == "fp8"
    _, out, _ = run("plan", path, "--output-format", "json")
    plan = json.loads(out)
    assert (plan["context"], plan["dtype"]) == (2048, "fp8")
    _, out, _ = run("shapes", path, "--output-format", "json")
    assert json.loads(out)["seq"] == 2048
    # The command line still wins over the settings file.
    _, out, _ = run("mem", path, "--context", "1024", "--output-format", "json")
    assert json.loads(out)["kv_cache"]["context"] == 1024


def test_commands_share_one_default_context(tmp_path: Path) -> None:
    """Without --context, mem, plan and shapes all use vLLM's default: the model's longest."""
    path = write(tmp_path, "config.json", json.dumps(LLAMA))
    _, mem, _ = run("mem", path, "--no-config", "--output-format", "json")
    _, plan, _ = run("plan", path, "--no-config", "--output-format", "json")
    _, shapes, _ = run("shapes", path, "--no-config", "--output-format", "json")
    contexts = {
        json.loads(mem)["kv_cache"]["context"],
        json.loads(plan)["context"],
        json.loads(shapes)["seq"],
    }
    assert contexts == {LLAMA["max_position_embeddings"]}


def test_mem_budget_exits_1_when_the_model_does_not_fit(tmp_path: Path) -> None:
    path = write(tmp_path, "config.json", json.dumps(LLAMA))
    # 8.0 B parameters: 16 GB of weights in bf16 fit a 24 GB card (21.6 GiB usable at vLLM's
    # 0.9 utilisation) with an 8k-token KV cache of 1 GiB; in fp32 the weights alone are 32 GB.
    code, out, _ = run("mem", path, "--no-config", "--budget", "1xRTX4090-24GB")
    assert code == 0, out
    code, out, _ = run("mem", path, "--no-config", "--budget", "1xRTX4090-24GB", "--dtype", "fp32")
    assert code == 1
    assert "does NOT fit" in out


def test_mem_names_the_engines_that_refuse_the_layout(tmp_path: Path) -> None:
    path = write(tmp_path, "config.json", json.dumps(QWEN2_7B))
    code, out, _ = run("mem", path, "--no-config", "--tp", "3", "--output-format", "json")
    assert code == 0
    refused = json.loads(out)["refused_by"]
    # 28 heads are divisible by tp 3? No: 28 = 3 × 9 + 1, so vLLM refuses to start.
    assert "vLLM" in refused
    assert "28" in refused["vLLM"]
    code, out, _ = run("mem", path, "--no-config", "--tp", "3")
    assert "vLLM refuses tp 3" in out
    _, out, _ = run("mem", path, "--no-config", "--tp", "4", "--output-format", "json")
    assert "vLLM" not in json.loads(out)["refused_by"]  # 28 heads, 4 KV heads: tp 4 is fine


def test_plan_notes_a_context_beyond_the_model(tmp_path: Path) -> None:
    path = write(tmp_path, "config.json", json.dumps(LLAMA))
    _, out, _ = run("plan", path, "--no-config", "--context", "65536", "--output-format", "json")
    notes = json.loads(out)["notes"]
    assert len(notes) == 1
    assert "65536 exceeds the model's 8192" in notes[0]
    _, out, _ = run("plan", path, "--no-config", "--context", "4096", "--output-format", "json")
    assert json.loads(out)["notes"] == []


def test_shapes_refuses_a_layer_out_of_range(tmp_path: Path) -> None:
    path = write(tmp_path, "config.json", json.dumps(LLAMA))
    code, _, err = run("shapes", path, "--no-config", "--layer", "99999")
    assert code == 2
    assert "out of range" in err
    assert "32 layers" in err
