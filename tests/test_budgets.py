"""Budgets as users write them: an ambiguous GPU name is a usage error that lists what it
matches (``2xH100`` was silently the 80 GB card), and any card can be given by its memory
(``2x24GiB``, ``2x24GB``, ``24gib``), GB meaning 10^9 bytes and GiB 2^30, said in the output."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.cli import main
from dimlint.memory.gpus import GPU_MEMORY_UTILIZATION, GPUS, parse_budget

LLAMA: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 11008,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "torch_dtype": "bfloat16",
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA))
    return str(path)


@pytest.mark.parametrize("name", ["H100", "a100", "2xH100", "8 x A100"])
def test_an_ambiguous_name_lists_its_matches(config: str, name: str) -> None:
    family = "H100" if "H100" in name.upper() else "A100"
    matches = [gpu for gpu in GPUS if gpu.startswith(family)]
    assert len(matches) > 1  # the catalogue really holds several cards of the family
    listed = f"it matches {', '.join(matches)}"
    for argv in (
        ("mem", config, "--budget", name),
        ("check", config, "--no-config", "--budget", name),
        ("plan", config, "--gpu", name.rsplit("x", maxsplit=1)[-1].strip()),
    ):
        code, out, err = run(*argv)
        assert code == 2, (argv, out)
        assert listed in err
        assert len(err.strip().splitlines()) == 1
    with pytest.raises(dimlint.UsageError, match=listed):
        dimlint.mem(config, budget=name)
    with pytest.raises(dimlint.UsageError, match=listed):
        dimlint.check(config, budget=name)


@pytest.mark.parametrize(
    ("text", "count", "memory", "unit"),
    [
        ("2x24GiB", 2, 24 * 2**30, "GiB"),
        ("2x24GB", 2, 24 * 10**9, "GB"),
        ("24gib", 1, 24 * 2**30, "GiB"),
        ("4 x 40 gb", 4, 40 * 10**9, "GB"),
        ("2x24 GiB", 2, 24 * 2**30, "GiB"),
        ("1x1.5TB", 1, 15 * 10**11, "TB"),
    ],
)
def test_any_card_by_its_memory(config: str, text: str, count: int, memory: int, unit: str) -> None:
    found_count, gpu = parse_budget(text)
    assert (found_count, gpu.memory_bytes) == (count, memory)
    code, out, err = run("mem", config, "--budget", text, "--output-format", "json")
    assert code in (0, 1), err
    budget = json.loads(out)["budget"]
    assert budget["count"] == count
    assert budget["memory_bytes"] == memory
    assert budget["usable_bytes"] == int(memory * GPU_MEMORY_UTILIZATION)
    power = {"GB": "10^9", "GiB": "2^30", "TB": "10^12"}[unit]
    assert budget["gpu"].endswith(f" {unit}, 1 {unit} = {power} bytes")  # the unit, said
    code, out, _ = run("mem", config, "--budget", text)
    assert f"1 {unit} = {power} bytes" in out


def test_gb_and_gib_decide_a_fit(config: str) -> None:
    """A 7B model at a batch whose total lies between 0.9 × 24 GB and 0.9 × 24 GiB fits two
    24 GiB cards and not two 24 GB ones; ``check --budget`` agrees (DL501)."""
    low, high = 0.9 * 24 * 10**9, 0.9 * 24 * 2**30
    chosen = None
    for batch in range(1, 65):
        total = dimlint.mem(config, context=4096, batch=batch, tp=2)["per_gpu"]["total"]
        if low < total <= high:
            chosen = batch
            break
    assert chosen is not None
    fits = {}
    for text in ("2x24GiB", "2x24GB"):
        found = dimlint.mem(config, context=4096, batch=chosen, budget=text)
        fits[text] = found["budget"]["fits"]
        codes = [d.code for d in dimlint.check(config, context=4096, batch=chosen, budget=text)]
        assert ("DL501" in codes) is (not fits[text])
    assert fits == {"2x24GiB": True, "2x24GB": False}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2x0.5GB", "at least 1 GiB"),
        ("0x24GB", "is not N×GPU"),
        ("2xNOPE", "unknown GPU 'NOPE'"),
        (f"{'9' * 40}xH100-80GB", "is not N×GPU"),
    ],
)
def test_bad_budgets_are_usage_errors(config: str, text: str, message: str) -> None:
    code, _, err = run("mem", config, "--budget", text)
    assert code == 2
    assert message in err


def test_unambiguous_names_still_resolve() -> None:
    assert parse_budget("MI300X")[1].name == "MI300X-192GB"
    assert parse_budget("2xRTX4090")[1].name == "RTX4090-24GB"
    assert parse_budget("L4")[1].name == "L4"  # exact, although L40S starts with it too
    assert parse_budget("1xH100-NVL")[1].name == "H100-94GB"
