"""``mem --training`` with LoRA, QLoRA, offload and ZeRO-3's gathered buffer, end to end.

Expected values are written out from the model's dimensions (Llama-3-8B: 32 layers of
q/k/v/o and gate/up/down projections) and the storage rules in
``dimlint.memory.training.finetune``'s docstring, not read back from dimlint.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.cli import main
from dimlint.memory.training.linear_layers import nf4_bytes

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
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
PARAMS = 8_030_261_248
H, KV, F, L, V = 4096, 1024, 14336, 32, 128256
#: (in, out) of each Linear of one layer.
LAYER = [(H, H), (H, KV), (H, KV), (H, H), (H, F), (H, F), (F, H)]


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_3_8B), encoding="utf-8")
    return str(path)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def training(path: str, **options: Any) -> dict[str, Any]:
    report = dimlint.mem(path, training=True, context=4096, **options)
    return dict(report["training"])


def test_lora_trains_float32_adapters_on_a_frozen_base(config: str) -> None:
    plan = training(config, lora_rank=16)
    trainable = L * sum(16 * (i + o) for i, o in LAYER)
    assert plan["method"] == "lora"
    assert plan["lora_targets"] == ["all-linear"]
    assert plan["trainable_params"] == trainable == 41_943_040
    assert plan["weights"] == 2 * PARAMS + 4 * trainable
    assert plan["gradients"] == 4 * trainable
    assert plan["optimizer_states"] == 8 * trainable  # fp32 m and v, no master copy
    named = training(config, lora_rank=8, lora_targets="q_proj,v_proj")
    assert named["trainable_params"] == L * 8 * ((H + H) + (H + KV))


def test_qlora_stores_the_linear_weights_in_nf4(config: str) -> None:
    plan = training(config, lora_rank=16, qlora=True)
    trainable = plan["trainable_params"]
    linear = L * sum(i * o for i, o in LAYER)
    nf4 = L * sum(nf4_bytes(i * o) for i, o in LAYER)
    assert plan["weights"] == nf4 + 2 * (PARAMS - linear) + 4 * trainable
    # within 1% of the layout's rate: 4 bits, one byte of absmax per 64, fp32 per 256 blocks
    rate = 0.5 + 1 / 64 + 4 / (64 * 256)
    assert nf4 == pytest.approx(linear * rate, rel=0.01)


def test_zero3_gathers_the_embedding_whole(config: str) -> None:
    full = training(config, zero=3, dp=8)
    assert full["zero3_gathered"] == 2 * 2 * V * H  # bf16 table and its unreduced gradient
    assert full["zero3_gathered"] == pytest.approx(2.1e9, rel=0.01)  # the 2.1 GB
    lora = training(config, zero=3, dp=8, lora_rank=16)
    assert lora["zero3_gathered"] == 2 * V * H  # frozen: no gradient to reduce
    assert training(config, zero=2, dp=8)["zero3_gathered"] == 0


def test_offload_moves_states_to_the_cpu(config: str) -> None:
    plain = training(config, zero=2, dp=4)
    moved = training(config, zero=2, dp=4, offload="optimizer")
    assert moved["optimizer_states"] == 0
    assert moved["cpu_offloaded"] == plain["optimizer_states"] + plain["gradients"]
    assert moved["gradients"] == min(plain["gradients"], 500_000_000 * 2)  # one reduce bucket
    assert moved["weights"] == plain["weights"]
    infinity = training(config, zero=3, dp=4, offload="params")
    assert infinity["weights"] == 0
    assert infinity["zero3_gathered"] > 0
    assert infinity["total"] < moved["total"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("--training", "--offload", "params", "--zero", "2"), "needs --zero 3"),
        (("--training", "--offload", "optimizer"), "needs --zero 1, 2 or 3"),
        (("--training", "--qlora"), "--qlora needs --lora-rank"),
        (("--lora-rank", "8"), "add --training"),
        (("--training", "--lora-rank", "8", "--lora-targets", "c_attn"), "q_proj"),
    ],
)
def test_bad_combinations_are_usage_errors(
    config: str, argv: tuple[str, ...], message: str
) -> None:
    code, _, err = run("mem", config, *argv)
    assert code == 2
    assert message in err


def test_qlora_on_one_24gb_card_answers_its_longest_sequence(config: str) -> None:
    base = ("mem", config, "--training", "--lora-rank", "16", "--qlora")
    code, out, _ = run(*base, "--budget", "1xRTX4090-24GB", "--output-format", "json")
    assert code == 1  # at the model's longest context it does not fit
    report = json.loads(out)
    longest = report["budget"]["longest_seq"]
    assert 0 < longest < 8192  # without checkpointing the 8k logits and layers do not fit
    usable = report["budget"]["usable_bytes"]
    options = {"training": True, "lora_rank": 16, "qlora": True, "budget": "1xRTX4090-24GB"}
    at = dimlint.mem(config, context=longest, **options)["training"]["total"]
    beyond = dimlint.mem(config, context=longest + 1, **options)["training"]["total"]
    assert at <= usable < beyond
    _, out, _ = run(*base, "--recompute", "full", "--budget", "1xRTX4090-24GB", "--output-format",
                    "json")  # fmt: skip
    assert json.loads(out)["budget"]["longest_seq"] > 4 * longest  # checkpointing: ~8k
    _, table, _ = run(*base, "--recompute", "full", "--budget", "1xL40S")
    assert "longest training sequence that fits: 8,192" in table  # the model's own longest
    assert "qlora r=16" in table


def test_gemma2_counts_the_attention_transformers_runs(tmp_path: Path) -> None:
    gemma2 = {
        "model_type": "gemma2",
        "hidden_size": 2304,
        "num_attention_heads": 8,
        "num_key_value_heads": 4,
        "head_dim": 256,
        "intermediate_size": 9216,
        "num_hidden_layers": 26,
        "vocab_size": 256000,
        "max_position_embeddings": 8192,
        "sliding_window": 4096,
    }
    path = tmp_path / "gemma2.json"
    path.write_text(json.dumps(gemma2), encoding="utf-8")
    report = dimlint.mem(str(path), training=True, context=8192)
    assert report["training"]["attention"] == "eager"
    assert any("refuses sdpa attention for gemma2" in note for note in report["notes"])
    eager = dimlint.mem(str(path), training=True, context=8192, attention="eager")
    assert eager["training"]["activations"] == report["training"]["activations"]
    code, _, err = run("mem", str(path), "--training", "--attention", "sdpa")
    assert code == 2
    assert "refuses sdpa for gemma2" in err
