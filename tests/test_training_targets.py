"""Training targets: ``mem --training``, ``plan --training`` and DL501 give one answer.

"Does this fine-tune fit on one 24 GB card" is asked three ways (``mem --budget``, ``plan
--gpu``, ``check --budget`` with ``--training`` or a ``megatron:``/``deepspeed:`` target, or a
``training`` table in the settings); each must name the same longest sequence, and that sequence
must be the boundary: its step fits the card's reported memory, one token more does not.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.cli import main
from dimlint.memory import gpu_named

#: Llama-3-8B (DOMAIN.md: 32 layers, 32/8 heads, FFN 14336, 8.03 B parameters, 8k positions).
LLAMA_3_8B = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
QLORA = ("--training", "--lora-rank", "16", "--qlora")
CARD = "RTX4090-24GB"


@pytest.fixture
def config(tmp_path: Path) -> str:
    folder = tmp_path / "llama3-8b"
    folder.mkdir()
    path = folder / "config.json"
    path.write_text(json.dumps(LLAMA_3_8B), encoding="utf-8")
    return str(path)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def dl501(config: str, *argv: str) -> list[dict[str, Any]]:
    code, out, err = run("check", config, "--output-format", "json", "--no-config", *argv)
    assert code in (0, 1), err
    return [f for f in json.loads(out) if f["code"] == "DL501"]


def longest_in(message: str) -> int:
    found = re.search(r"Longest training sequence that fits at micro-batch \d+: (\d+)", message)
    assert found is not None, message
    return int(found.group(1))


def test_qlora_on_one_24gb_card_one_answer_from_mem_plan_and_check(config: str) -> None:
    _, out, _ = run("mem", config, *QLORA, "--budget", f"1x{CARD}", "--output-format", "json")
    report = json.loads(out)
    from_mem = report["budget"]["longest_seq"]
    _, out, _ = run("plan", config, *QLORA, "--gpu", CARD, "--max-gpus", "1", "--output-format",
                    "json")  # fmt: skip
    layouts = json.loads(out)["engines"]["megatron"]["layouts"]
    assert [(lay["tp"], lay["pp"], lay["dp"]) for lay in layouts] == [(1, 1, 1)]
    from_plan = layouts[0]["memory"]["longest_seq"]
    findings = dl501(config, *QLORA, "--budget", f"1x{CARD}")
    assert len(findings) == 1
    assert "a training step (qlora r=16" in findings[0]["message"]
    from_check = longest_in(findings[0]["message"])
    assert from_mem == from_plan == from_check
    assert 0 < from_mem < 8192  # without checkpointing the 8k step does not fit
    # the boundary, judged on all the card reports (a training step may fill it)
    card = gpu_named(CARD).memory_bytes
    assert report["budget"]["usable_bytes"] == card
    options = {"training": True, "lora_rank": 16, "qlora": True}
    at = dimlint.mem(config, context=from_mem, **options)["training"]["total"]
    beyond = dimlint.mem(config, context=from_mem + 1, **options)["training"]["total"]
    assert at <= card < beyond
    # and the three agree on the totals at the asked sequence
    assert layouts[0]["memory"]["total"] == report["training"]["total"]
    assert f"{report['training']['total']:,} bytes" in findings[0]["message"]


def test_with_checkpointing_it_fits_at_its_longest_context(config: str) -> None:
    full = (*QLORA, "--recompute", "full")
    assert dl501(config, *full, "--budget", f"1x{CARD}") == []
    code, table, _ = run("mem", config, *full, "--budget", f"1x{CARD}")
    assert code == 0
    assert "longest training sequence that fits: 8,192" in table  # the model's own longest
    code, table, _ = run("plan", config, *full, "--gpu", CARD, "--max-gpus", "1")
    assert code == 0
    assert "training qlora r=16, adam, ZeRO-0, recompute full" in table
    assert re.search(r"\s8,192\s+yes", table), table
    # the misfit without checkpointing proposes it, with its per-GPU total
    message = dl501(config, *QLORA, "--budget", f"1x{CARD}")[0]["message"]
    assert "--recompute full (" in message


def test_a_megatron_target_judges_a_training_step(config: str) -> None:
    """Megatron trains: its budget is a training step on tp × pp with the other GPUs as dp,
    ``mem --training --tp 2 --budget 8x…`` split the same way."""
    argv = ("--budget", "8xH100-80GB", "--context", "8192")
    findings = dl501(config, "--target", "megatron:tp=2", *argv)
    assert len(findings) == 1
    message = findings[0]["message"]
    assert message.startswith("target megatron:tp=2 (tp 2 × pp 1 × dp 4): a training step (full")
    mem = dimlint.mem(config, training=True, tp=2, budget="8xH100-80GB", context=8192)
    assert mem["training"]["dp"] == 4
    assert f"{mem['training']['total']:,} bytes" in message
    assert longest_in(message) == mem["budget"]["longest_seq"]
    # the serving engine is judged on serving, as before
    assert dl501(config, "--target", "vllm:tp=2", *argv) == []


def test_the_settings_training_table_applies_to_every_command(config: str) -> None:
    folder = Path(config).parent
    settings = folder / "dimlint.toml"
    settings.write_text(
        'budget = "1xL40S"\ntraining = { lora-rank = 16, qlora = true }\n', encoding="utf-8"
    )
    toml = ("--config", str(settings))
    code, out, _ = run("check", config, *toml, "--output-format", "json")
    assert code == 1
    (finding,) = json.loads(out)
    longest = longest_in(finding["message"])
    _, out, _ = run("mem", config, *toml, "--output-format", "json")
    assert json.loads(out)["training"]["method"] == "qlora"
    assert json.loads(out)["budget"]["longest_seq"] == longest
    _, out, _ = run("plan", config, *toml, "--output-format", "json")
    assert json.loads(out)["engines"]["hf"]["layouts"][0]["memory"]["longest_seq"] == longest
    # a flag replaces its key, the others stay
    code, out, _ = run("check", config, *toml, "--recompute", "full", "--output-format", "json")
    assert (code, json.loads(out)) == (0, [])
    _, out, _ = run("mem", config, *toml, "--recompute", "full", "--output-format", "json")
    assert json.loads(out)["training"]["method"] == "qlora"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("training = { lora_rank = 16 }", "unknown training key 'lora_rank'; did you mean"),
        ("training = 3", "training must be true or a table"),
        ("training = { qlora = true }", "--qlora needs --lora-rank"),
        ('training = { recompute = "some" }', "--recompute must be one of none, selective, full"),
        ("training = { zero = 2, offload = \"params\" }", "--offload params needs --zero 3"),
    ],
)  # fmt: skip
def test_bad_training_settings_are_usage_errors(config: str, text: str, message: str) -> None:
    settings = Path(config).parent / "dimlint.toml"
    settings.write_text(f'budget = "1x{CARD}"\n{text}\n', encoding="utf-8")
    for command in ("check", "mem", "plan"):
        code, _, err = run(command, config, "--config", str(settings))
        assert code == 2, (command, err)
        assert message in err
        assert str(settings) in err


def test_training_flags_need_training(config: str) -> None:
    code, _, err = run("check", config, "--no-config", "--lora-rank", "16")
    assert code == 2
    assert "--lora-rank describe training: add --training" in err
    code, _, err = run("plan", config, "--no-config", "--qlora")
    assert code == 2
    assert "--qlora describe training" in err


def test_a_model_that_cannot_be_trained_so_is_said_in_the_finding(config: str) -> None:
    findings = dl501(config, "--training", "--lora-rank", "8", "--lora-targets", "c_attn",
                     "--budget", f"1x{CARD}")  # fmt: skip
    assert len(findings) == 1
    assert "the training step cannot be sized: --lora-targets 'c_attn'" in findings[0]["message"]


def test_api_plan_takes_the_training_keywords(config: str) -> None:
    data = dimlint.plan(config, gpu=CARD, max_gpus=1, training=True, lora_rank=16, qlora=True).data
    assert data["training"]["method"] == "qlora"
    assert data["gpu"]["usable_bytes"] == gpu_named(CARD).memory_bytes
    mem = dimlint.mem(config, training=True, lora_rank=16, qlora=True, budget=f"1x{CARD}")
    layout = data["engines"]["vllm"]["layouts"][0]
    assert layout["memory"]["longest_seq"] == mem["budget"]["longest_seq"]
    with pytest.raises(dimlint.UsageError, match="zero=4"):
        dimlint.plan(config, training=True, zero=4)


def test_api_check_takes_training_as_the_settings_keys(config: str) -> None:
    found = dimlint.check(config, budget=f"1x{CARD}", training={"lora-rank": 16, "qlora": True})
    messages = [d.message for d in found if d.code == "DL501"]
    assert len(messages) == 1
    longest = dimlint.mem(config, training=True, lora_rank=16, qlora=True, budget=f"1x{CARD}")
    assert longest_in(messages[0]) == longest["budget"]["longest_seq"]
    full = {"lora-rank": 16, "qlora": True, "recompute": "full"}
    assert dimlint.check(config, budget="1xL40S", training=full) == []
    with pytest.raises(dimlint.UsageError, match="did you mean 'lora-rank'"):
        dimlint.check(config, budget=f"1x{CARD}", training={"lora_rank": 16})


def test_when_not_one_token_fits_mem_says_so(config: str) -> None:
    """Llama-3-8B's NF4 base alone (about 5.5 GiB) exceeds a 4 GiB card: no sequence length
    helps, and the verdict says that instead of "longest … fits: 0"."""
    code, table, _ = run("mem", config, *QLORA, "--budget", "1x4GiB")
    assert code == 1  # does not fit
    assert "does NOT fit; no training sequence fits, not even one token a micro-batch" in table
    assert "fits: 0" not in table
