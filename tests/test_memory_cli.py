"""``dimlint mem``: the JSON contract, the table, budgets, training, plots and errors."""

from __future__ import annotations

import builtins
import io
import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main

LLAMA_3_70B = {
    "model_type": "llama",
    "hidden_size": 8192,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "intermediate_size": 28672,
    "num_hidden_layers": 80,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "torch_dtype": "bfloat16",
}


def write(folder: Path, config: dict[str, Any], name: str = "config.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_contract(tmp_path: Path) -> None:
    path = write(tmp_path, LLAMA_3_70B)
    code, out, _ = run("mem", str(path), "--context", "8192", "--output-format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["params"]["total"] == 70_553_706_496
    assert report["params"]["active"] == 70_553_706_496
    assert report["params"]["embedding"] == 2 * 128256 * 8192
    assert report["params"]["components"] == [{"name": "model", "params": 70_553_706_496}]
    assert report["weights"] == {"dtype": "bf16", "bytes": 141_107_412_992, "quantization": None}
    assert report["kv_cache"]["bytes"] == 327_680 * 8192
    assert report["kv_cache"]["bytes_per_token"] == 327_680
    assert report["per_gpu"]["estimated"] == ["activations", "overhead"]
    assert report["notes"] == []


def test_several_paths_give_an_array_and_folders_work(tmp_path: Path) -> None:
    one = tmp_path / "a"
    one.mkdir()
    write(one, LLAMA_3_70B)
    two = write(tmp_path, {"model_type": "deepseek_v3"}, "ds.json")
    code, out, _ = run("mem", str(one), str(two), "--output-format", "json")
    assert code == 0
    reports = json.loads(out)
    assert [r["model_type"] for r in reports] == ["llama", "deepseek_v3"]
    assert reports[1]["params"]["active"] < reports[1]["params"]["total"]
    assert reports[1]["kv_cache"]["layers"] == {"latent_attention": 61}


def test_context_beyond_max_positions_is_computed_with_a_note(tmp_path: Path) -> None:
    path = write(tmp_path, LLAMA_3_70B)
    code, out, _ = run("mem", str(path), "--context", "32768", "--output-format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["kv_cache"]["bytes"] == 327_680 * 32768
    assert "exceeds max_position_embeddings 8192" in report["notes"][0]


def test_table_labels_estimates_and_budget(tmp_path: Path) -> None:
    path = write(tmp_path, LLAMA_3_70B)
    code, out, _ = run("mem", str(path), "--budget", "1xH100-80GB", "--context", "8192")
    assert code == 1  # does not fit: fails like `check --budget` (DL501)
    assert "activations" in out
    assert "estimate" in out
    assert "does NOT fit" in out
    code, out, _ = run("mem", str(path), "--budget", "4xH100-80GB", "--output-format", "json")
    report = json.loads(out)
    assert report["per_gpu"]["tp"] == 4  # the budget's GPUs, when --tp is not given
    assert report["budget"]["fits"] is True


def test_training_section(tmp_path: Path) -> None:
    path = write(tmp_path, LLAMA_3_70B)
    code, out, _ = run(
        "mem", str(path), "--training", "--zero", "3", "--dp", "8", "--output-format", "json"
    )
    assert code == 0
    training = json.loads(out)["training"]
    states = training["weights"] + training["gradients"] + training["optimizer_states"]
    assert states == pytest.approx(16 * 70_553_706_496 / 8, rel=1e-6)
    assert training["estimated"] == ["activations", "overhead"]
    _, table, _ = run("mem", str(path), "--training", "--recompute", "full")
    assert "optimizer states" in table
    assert "ZeRO-0" in table


def test_training_budget_is_split_once_between_tp_and_dp(tmp_path: Path) -> None:
    path = write(tmp_path, LLAMA_3_70B)
    base = ("mem", str(path), "--training", "--zero", "3", "--budget", "8xH100-80GB")
    weights = 2 * 70_553_706_496

    def training(*extra: str) -> tuple[dict[str, Any], dict[str, Any]]:
        report = json.loads(run(*base, *extra, "--output-format", "json")[1])
        return report["training"], report

    plan, report = training()
    assert (plan["tp"], plan["pp"], plan["dp"], plan["gpus"]) == (1, 1, 8, 8)
    assert plan["weights"] == pytest.approx(weights / 8, abs=1)  # 8-way, not tp 8 × dp 8
    assert report["per_gpu"]["tp"] == 1  # one plan for the whole report
    assert report["budget"]["judged"] == "training"
    assert report["budget"]["gpus_needed"] == 8
    assert any("split as tp 1 × pp 1 × dp 8" in note for note in report["notes"])
    plan, _ = training("--tp", "2")
    assert (plan["tp"], plan["dp"]) == (2, 4)
    assert plan["weights"] == pytest.approx(weights / 8, abs=1)
    plan, report = training("--tp", "2", "--dp", "8")
    assert report["budget"]["gpus_needed"] == 16
    assert report["budget"]["fits"] is False
    assert any("needs 16 GPUs, the budget has 8" in note for note in report["notes"])
    _, table, _ = run(*base)
    assert "tp 1 × pp 1 × dp 8" in table


def test_quantized_config(tmp_path: Path) -> None:
    config = {**LLAMA_3_70B, "quantization_config": {"quant_method": "awq", "bits": 4}}
    path = write(tmp_path, config)
    code, out, _ = run("mem", str(path), "--output-format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["weights"]["dtype"] == "int4"
    assert report["weights"]["quantization"].startswith("awq")
    assert report["kv_cache"]["dtype"] == "bf16"
    assert report["weights"]["bytes"] < 141_107_412_992 / 3


def test_errors_exit_2(tmp_path: Path) -> None:
    code, _, err = run("mem", str(tmp_path / "missing.json"))
    assert code == 2
    assert "cannot read" in err
    path = write(tmp_path, LLAMA_3_70B)
    code, _, err = run("mem", str(path), "--budget", "2xV100")
    assert code == 2
    assert "known GPUs are" in err
    bad = write(tmp_path, {"tokenizer_class": "x"}, "other.json")
    code, _, err = run("mem", str(bad))
    assert code == 2
    assert "no hidden size" in err


def test_plot_without_matplotlib_says_how_to_get_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_import = builtins.__import__

    def refuse(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    path = write(tmp_path, LLAMA_3_70B)
    code, _, err = run("mem", str(path), "--plot", str(tmp_path / "m.png"))
    assert code == 2
    assert "pip install 'dimlint[plot]'" in err


def test_plot_rejects_other_file_types(tmp_path: Path) -> None:
    path = write(tmp_path, LLAMA_3_70B)
    code, _, err = run("mem", str(path), "--plot", str(tmp_path / "m.pdf"))
    assert code == 2
    assert ".png or .svg" in err


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plot_single_and_side_by_side(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    one = write(tmp_path, LLAMA_3_70B, "llama.json")
    two = write(tmp_path, {"model_type": "deepseek_v3"}, "deepseek.json")
    single = tmp_path / f"single{suffix}"
    code, _, _ = run("mem", str(one), "--budget", "8xH100-80GB", "--plot", str(single))
    assert code == 0
    assert single.stat().st_size > 1000
    both = tmp_path / f"both{suffix}"
    code, _, _ = run("mem", str(one), str(two), "--plot", str(both), "--tp", "8")
    assert code == 0
    assert both.stat().st_size > 1000


def test_training_attention_implementation(tmp_path: Path) -> None:
    """``--attention`` (default sdpa, as transformers): eager also keeps the a·s² scores —
    float32 softmax and its bf16 cast, 6 bytes per head and key — on all 80 layers."""
    path = write(tmp_path, LLAMA_3_70B)
    base = ("mem", str(path), "--training", "--context", "4096", "--output-format", "json")
    default = json.loads(run(*base)[1])["training"]
    eager = json.loads(run(*base, "--attention", "eager")[1])["training"]
    flash = json.loads(run(*base, "--attention", "flash")[1])["training"]
    assert default["attention"] == "sdpa"
    assert flash["activations"] == default["activations"]
    scores = 80 * 4096 * 4096 * 64 * 6
    repeat_kv = 80 * 4096 * 2 * 2 * (64 - 8) * 128 - 80 * 4096 * 4 * 64  # copies; no lse
    assert eager["activations"] - default["activations"] == scores + repeat_kv
    code, _, err = run(*base, "--attention", "xformers")
    assert code == 2
    assert "invalid choice" in err


def test_api_takes_the_attention_implementation(tmp_path: Path) -> None:
    import dimlint

    path = str(write(tmp_path, LLAMA_3_70B))
    cli = json.loads(
        run("mem", path, "--training", "--attention", "eager", "--output-format", "json")[1]
    )
    api = dimlint.mem(path, training=True, attention="eager")
    assert api["training"]["attention"] == "eager"
    assert api["training"]["activations"] == cli["training"]["activations"]
    assert api["params"]["exact"] is True
