"""One limit on parallel degrees for every command (issue 23): 1024.

``suggest`` tries every degree up to the largest a target names, ``plan`` and DL401 list every
degree up to theirs; above 1024 (no engine shards one model over more ranks of one kind) each
command that takes a degree refuses it as a usage error that names the limit, at once. 1024
itself is taken.
"""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from dimlint import api
from dimlint.cli import main
from dimlint.deploy.targets import MAX_DEGREE, TargetError, parse_target
from dimlint.errors import UsageError

LLAMA = {
    "model_type": "llama",
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rope_theta": 500000.0,
    "torch_dtype": "bfloat16",
}


def run(*argv: str) -> tuple[int, str, str, float]:
    out, err = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue(), time.perf_counter() - start


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "m" / "config.json"
    path.parent.mkdir()
    path.write_text(json.dumps(LLAMA), encoding="utf-8")
    return path


def _commands(config: Path, degree: int) -> list[list[str]]:
    folder = str(config.parent)
    return [
        ["check", folder, "--no-config", "--target", f"vllm:tp={degree}"],
        ["check", folder, "--no-config", "--target", f"megatron:tp=1,pp={degree}"],
        ["check", folder, "--no-config", "--target", f"megatron:cp={degree}"],
        ["check", folder, "--no-config", "--target", f"deepspeed:sp={degree}"],
        ["mem", str(config), "--no-config", "--tp", str(degree)],
        ["mem", str(config), "--no-config", "--pp", str(degree)],
        ["plan", str(config), "--no-config", "--max-gpus", str(degree)],
        ["suggest", "--params", "8B", "--target", f"vllm:tp={degree}"],
        ["suggest", "--params", "8B", "--target", f"vllm:tp=8,ep={degree}"],
    ]


@pytest.mark.parametrize("degree", [MAX_DEGREE + 1, 10**9, 10**15])
def test_above_the_limit_is_a_usage_error_naming_it(config: Path, degree: int) -> None:
    for argv in _commands(config, degree):
        code, _out, err, seconds = run(*argv)
        assert code == 2, (argv, err)
        assert str(MAX_DEGREE) in err, (argv, err)
        assert "Traceback" not in err
        assert "internal error" not in err
        assert seconds < 5, argv


def test_the_limit_itself_is_taken(config: Path) -> None:
    """1024 is a degree the commands answer (with findings or refusals), not a usage error."""
    for argv in _commands(config, MAX_DEGREE)[:7]:
        code, _out, err, seconds = run(*argv)
        assert code in (0, 1), (argv, err)
        assert seconds < 30, argv


def test_settings_file_degrees_keep_the_limit(config: Path) -> None:
    settings = config.parent / "dimlint.toml"
    settings.write_text('targets = ["vllm:tp=4096"]\n', encoding="utf-8")
    code, _out, err, _seconds = run("check", str(config.parent), "--config", str(settings))
    assert code == 2, err
    assert "4,096 is above 1024" in err


def test_parse_target_and_the_api() -> None:
    with pytest.raises(TargetError, match="tp 2,048 is above 1024"):
        parse_target("vllm:tp=2048")
    assert parse_target("vllm:tp=1024").tp == MAX_DEGREE
    with pytest.raises(UsageError, match="from 1 to 1024"):
        api.mem(json.dumps(LLAMA), tp=2048)
    with pytest.raises(UsageError, match="from 1 to 1024"):
        api.plan(json.dumps(LLAMA), max_gpus=2048)
