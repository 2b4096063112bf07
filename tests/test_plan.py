"""``dimlint plan`` and DL501 (``check --budget``): accepted layouts and what fits.

The accepted degrees come from :mod:`dimlint.deploy.engines` (tested in detail in test_targets.py);
here the JSON contract of DESIGN.md, the per-GPU memory of each layout from
:mod:`dimlint.memory`, and DL501's message: needed vs available bytes, the longest context and
largest batch that fit, and which setting to change.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import lint_text
from test_targets import (
    FALCON_7B,
    FALCON_7B_FILE,
    GLM45_AIR,
    GLM45_AIR_FILE,
    LLAMA2_13B,
    LLAMA2_13B_FILE,
    QWEN2_7B,
    QWEN2_7B_FILE,
    config,
)

from dimlint import cli
from dimlint.deploy.targets import deployment

#: Llama-3.1-70B in the corpus: the Llama-3-70B architecture with a 131072-token context.
LLAMA31_70B_FILE = "casys-kaist__LLMServingSim__configs__model__meta-llama__Llama-3.1-70B.json"
#: Llama-3-70B (DOMAIN.md: 80 layers, 64 heads, 8 KV heads, 70.6 B parameters).
LLAMA3_70B: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "max_position_embeddings": 8192,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}
LLAMA3_8B: dict[str, Any] = {
    **LLAMA3_70B,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
}


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def write(tmp_path: Path, value: dict[str, Any], name: str = "config.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return str(path)


def plan_json(tmp_path: Path, value: dict[str, Any], *options: str) -> dict[str, Any]:
    code, out, err = run("plan", write(tmp_path, value), "--output-format", "json", *options)
    assert (code, err) == (0, "")
    result: dict[str, Any] = json.loads(out)
    return result


# --- the JSON contract ---------------------------------------------------------------------------


def test_plan_json_contract(tmp_path: Path) -> None:
    plan = plan_json(tmp_path, config(QWEN2_7B_FILE, QWEN2_7B), "--gpu", "H100-80GB")
    assert set(plan["engines"]) == {"vllm", "sglang", "megatron", "hf"}
    vllm = plan["engines"]["vllm"]
    assert vllm["tp"] == [1, 2, 4]
    assert sorted(vllm["tp_invalid"], key=int) == ["3", "5", "6", "7", "8"]
    assert "must be divisible by tensor parallel size (8)" in vllm["tp_invalid"]["8"]
    assert vllm["pp"] == list(range(1, 9))
    assert vllm["ep"] == [1]
    assert "no routed experts" in vllm["ep_invalid"]["2"]
    for layout in vllm["layouts"]:
        assert layout["tp"] in vllm["tp"]
        assert layout["gpus"] == layout["tp"] * layout["pp"] <= 8
        memory = layout["memory"]
        assert set(memory) == {"weights", "kv_cache", "activations", "overhead", "total"}
        assert memory["total"] >= memory["weights"] + memory["kv_cache"]
        assert layout["fits"] is (memory["total"] <= plan["gpu"]["usable_bytes"])
    assert vllm["smallest_fit"] == vllm["layouts"][0]  # 15 GB of bf16 weights fit one H100
    assert plan["gpu"]["usable_bytes"] == int(plan["gpu"]["memory_bytes"] * 0.9)
    assert plan["context"] == 32768  # the model's own longest context by default
    assert (plan["batch"], plan["dtype"], plan["kv_dtype"]) == (1, "bf16", "bf16")


@pytest.mark.parametrize(
    ("file", "inline", "expected"),
    [
        (QWEN2_7B_FILE, QWEN2_7B, [1, 2, 4]),  # vllm #11797
        (FALCON_7B_FILE, FALCON_7B, [1]),
        (LLAMA2_13B_FILE, LLAMA2_13B, [1, 2, 4, 8]),  # vllm #596: not 3
    ],
)
def test_plan_vllm_tp_sets(
    tmp_path: Path, file: str, inline: dict[str, Any], expected: list[int]
) -> None:
    assert plan_json(tmp_path, config(file, inline))["engines"]["vllm"]["tp"] == expected


def test_plan_vocab_151552_on_6(tmp_path: Path) -> None:
    plan = plan_json(tmp_path, config(GLM45_AIR_FILE, GLM45_AIR))
    assert "151552 is not divisible by tp 6" in plan["engines"]["vllm"]["tp_invalid"]["6"]
    assert "151552" not in plan["engines"]["megatron"]["tp_invalid"].get("6", "")


def test_plan_memory_shrinks_with_tp_and_the_kv_cache_stops_at_the_kv_heads(tmp_path: Path) -> None:
    plan = plan_json(tmp_path, LLAMA3_8B, "--context", "8192", "--max-gpus", "16")
    layouts = {(lay["tp"], lay["pp"]): lay["memory"] for lay in plan["engines"]["vllm"]["layouts"]}
    assert layouts[2, 1]["weights"] < layouts[1, 1]["weights"]
    # 8 KV heads: at tp 16 each is replicated on two ranks, so the cache stops shrinking
    assert layouts[16, 1]["kv_cache"] == layouts[8, 1]["kv_cache"]
    assert plan["gpu"] is None
    assert all(lay["fits"] is None for lay in plan["engines"]["vllm"]["layouts"])


def test_plan_smallest_fit_for_a_70b_model(tmp_path: Path) -> None:
    plan = plan_json(tmp_path, LLAMA3_70B, "--gpu", "H100-80GB", "--context", "8192")
    vllm = plan["engines"]["vllm"]
    assert not [lay for lay in vllm["layouts"] if lay["gpus"] == 1 and lay["fits"]]
    assert vllm["smallest_fit"] is not None
    assert vllm["smallest_fit"]["gpus"] in (2, 4)
    assert vllm["smallest_fit"]["memory"]["total"] <= plan["gpu"]["usable_bytes"]


def test_plan_table(tmp_path: Path) -> None:
    code, out, _ = run("plan", write(tmp_path, QWEN2_7B), "--gpu", "H100-80GB")
    assert code == 0
    assert "vllm (vLLM)" in out
    assert "  tp accepted: 1, 2, 4" in out
    assert "tp 3, 5, 6, 8: num_attention_heads 28 is not divisible by tp\n" in out
    assert "ep 2–8: the model has no routed experts to distribute" in out
    assert "smallest layout that fits: tp 1 × pp 1 (1 GPU" in out
    assert "memory per GPU in GiB" in out


def test_plan_folder_and_errors(tmp_path: Path) -> None:
    write(tmp_path, QWEN2_7B)
    assert run("plan", str(tmp_path), "--output-format", "json")[0] == 0
    code, out, err = run("plan", str(tmp_path), "--gpu", "H101-80GB")
    assert (code, out) == (2, "")
    assert "H100-80GB" in err  # the unknown GPU's message lists the known ones
    assert run("plan", str(tmp_path / "missing.json"))[0] == 2
    assert run("plan", write(tmp_path, {"tokenizer_class": "x"}, "t.json"))[0] == 2
    assert run("plan", str(tmp_path), "--max-gpus", "0")[0] == 2


# --- DL501 ---------------------------------------------------------------------------------------


def dl501(value: dict[str, Any], **options: Any) -> list[str]:
    found = lint_text(json.dumps(value), select=("DL501",), deployment=deployment({}, **options))
    return [d.message for d in found]


def test_dl501_llama3_70b_on_one_h100(tmp_path: Path) -> None:
    path = write(tmp_path, config(LLAMA31_70B_FILE, LLAMA3_70B))
    code, out, _ = run("check", "--no-config", "--budget", "1xH100-80GB", "--context", "8192",
                       "--output-format", "json", path)  # fmt: skip
    findings = [f for f in json.loads(out) if f["code"] == "DL501"]
    assert code == 1
    assert len(findings) == 1
    message = findings[0]["message"]
    assert findings[0]["severity"] == "error"
    assert "needs" in message
    assert "bytes) per GPU" in message
    assert "provides" in message
    assert "0.9 of the" in message
    assert "Longest context that fits at batch 1: none" in message
    assert "largest batch at context 8192: none" in message
    assert "To fit, change: tp 2" in message or "To fit, change: tp 4" in message
    assert "a budget of" in message


def test_dl501_llama3_70b_on_four_h100_with_vllm_tp4_fits(tmp_path: Path) -> None:
    path = write(tmp_path, config(LLAMA31_70B_FILE, LLAMA3_70B))
    code, out, _ = run("check", "--no-config", "--budget", "4xH100-80GB", "--target", "vllm:tp=4",
                       "--context", "8192", "--output-format", "json", path)  # fmt: skip
    assert [f["code"] for f in json.loads(out)] == []
    assert code == 0
    # without a target the default layout uses the budget's 4 GPUs too
    assert dl501(LLAMA3_70B, budget="4xH100-80GB", context=8192) == []


def test_dl501_kv_cache_bound_suggests_kv_dtype_and_context() -> None:
    messages = dl501(LLAMA3_8B, budget="1xH100-80GB", context=131072, batch=8)
    assert len(messages) == 1
    message = messages[0]
    assert "--kv-dtype fp8" in message or "--context" in message
    assert "Longest context that fits at batch 8: " in message
    longest = int(message.split("Longest context that fits at batch 8: ")[1].split(";")[0])
    assert 0 < longest < 131072
    assert dl501(LLAMA3_8B, budget="1xH100-80GB", context=longest, batch=8) == []


def test_dl501_target_needs_more_gpus_than_the_budget() -> None:
    messages = dl501(LLAMA3_70B, budget="2xH100-80GB", targets=["vllm:tp=4"], context=8192)
    assert messages == [
        "target vllm:tp=4 needs 4 GPUs (tp 4 × pp 1) but the budget 2xH100-80GB has 2. Use a"
        " budget of at least 4 GPUs, or a smaller tp/pp."
    ]


def test_dl501_silent_without_a_budget() -> None:
    assert dl501(LLAMA3_70B, context=8192) == []
    assert dl501(LLAMA3_70B, targets=["vllm:tp=1"]) == []


def test_unknown_gpu_in_budget_is_a_usage_error(tmp_path: Path) -> None:
    code, out, err = run(
        "check", "--no-config", "--budget", "1xH101-80GB", write(tmp_path, LLAMA3_8B)
    )
    assert (code, out) == (2, "")
    assert "H100-80GB" in err
