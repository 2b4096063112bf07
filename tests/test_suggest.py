"""``dimlint suggest``: every printed candidate passes ``check``, matches ``mem`` and fits.

The grid spans dense models from 0.5B to 405B, mixture-of-experts (Mixtral-, Qwen2-MoE- and
DeepSeek-style, the latter with MLA), with and without budgets and targets. Expected values are
the request itself (a hand-written parameter target, ±3%) and the answers of the other commands
— ``check`` under the same targets, ``mem`` for counts and fit, ``plan`` for the default
layout — run through the CLI on the written ``config.json``.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main
from dimlint.errors import UsageError
from dimlint.fix.suggest.request import MoE, expand_target, parse_moe, parse_range, parse_size


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


#: (id, arguments, total parameters asked, active parameters asked or None)
GRID: list[tuple[str, list[str], float, float | None]] = [
    ("dense-0.5b", ["--params", "0.5B"], 0.5e9, None),
    (
        "dense-1b-4090",
        ["--params", "1B", "--budget", "1xRTX4090-24GB", "--context", "8192"],
        1e9,
        None,
    ),
    (
        "qwen2-3b-vocab",
        ["--params", "3B", "--like", "qwen2", "--vocab", "50257", "--target", "vllm:tp=1,2,4"],
        3e9,
        None,
    ),
    (
        "llama-8b-h100",
        ["--params", "8B", "--budget", "1xH100-80GB", "--context", "32768", "--batch", "4"],
        8e9,
        None,
    ),
    (
        "mistral-7b-targets",
        [
            "--params",
            "7B",
            "--like",
            "mistral",
            "--budget",
            "8xH100-80GB",
            "--context",
            "32768",
            "--target",
            "vllm:tp=2,4,8",
            "--target",
            "hf:tp=4",
        ],
        7e9,
        None,
    ),
    ("gemma2-9b-fa2", ["--params", "9B", "--like", "gemma2", "--target", "fa2"], 9e9, None),
    (
        # issue 23: once a false "impossible" (the FFN was tried only at multiples of 256)
        "llama-8b-tp3-32-layers",
        ["--params", "8B", "--head-dim", "128", "--layers", "32", "--target", "vllm:tp=3"],
        8e9,
        None,
    ),
    (
        "qwen2-14b-kv8",
        ["--params", "14B", "--like", "qwen2", "--kv-heads", "8", "--target", "sglang:tp=8"],
        14e9,
        None,
    ),
    (
        "llama-70b-8xh100",
        [
            "--params",
            "70B",
            "--budget",
            "8xH100-80GB",
            "--context",
            "32768",
            "--target",
            "vllm:tp=8",
        ],
        70e9,
        None,
    ),
    (
        "llama-70b-megatron",
        ["--params", "70B", "--target", "megatron:tp=8,pp=4", "--layers", "80"],
        70e9,
        None,
    ),
    (
        "llama-405b",
        [
            "--params",
            "405B",
            "--gqa-ratio",
            "8..16",
            "--target",
            "vllm:tp=8",
            "--target",
            "megatron:tp=8,pp=8",
        ],
        405e9,
        None,
    ),
    (
        "mixtral-47b",
        [
            "--params",
            "47B",
            "--active",
            "13B",
            "--moe",
            "experts=8,top_k=2",
            "--vocab",
            "32000",
            "--target",
            "vllm:tp=8",
        ],
        47e9,
        13e9,
    ),
    (
        "qwen2moe-30b",
        [
            "--params",
            "30B",
            "--active",
            "3B",
            "--moe",
            "experts=128,top_k=8,shared=1",
            "--like",
            "qwen2",
            "--target",
            "vllm:tp=4",
        ],
        30e9,
        3e9,
    ),
    (
        "deepseek-mla-200b",
        [
            "--params",
            "200B",
            "--active",
            "20B",
            "--mla",
            "--moe",
            "experts=128,top_k=8,shared=1",
            "--target",
            "vllm:tp=8",
            "--budget",
            "8xH200-141GB",
            "--dtype",
            "fp8",
            "--context",
            "32768",
        ],
        200e9,
        20e9,
    ),
    (
        "deepseek-mla-16b",
        [
            "--params",
            "16B",
            "--active",
            "2.5B",
            "--mla",
            "--moe",
            "experts=64,top_k=6,shared=2",
            "--budget",
            "1xH100-80GB",
            "--context",
            "16384",
        ],
        16e9,
        2.5e9,
    ),
    (
        "fixed-dims-fp8",
        [
            "--params",
            "2B",
            "--layers",
            "24",
            "--head-dim",
            "64",
            "--gqa-ratio",
            "2..4",
            "--target",
            "fp8",
        ],
        2e9,
        None,
    ),
]


def _option(argv: list[str], name: str) -> str | None:
    return argv[argv.index(name) + 1] if name in argv else None


def suggest(argv: list[str], folder: Path) -> dict[str, Any]:
    code, out, err = run("suggest", *argv, "--top", "3", "--output-format", "json")
    assert code == 0, err or out
    data: dict[str, Any] = json.loads(out)
    assert data["candidates"], out
    return data


def _deployment(argv: list[str], request: dict[str, Any]) -> list[str]:
    """The same deployment for ``check``: expanded targets, budget, context, batch, formats."""
    options = [arg for target in request["targets"] for arg in ("--target", target)]
    for name in ("--budget", "--context", "--batch", "--dtype", "--kv-dtype"):
        value = _option(argv, name)
        if value is not None:
            options += [name, value]
    return options


def _layouts(argv: list[str], request: dict[str, Any], path: Path) -> list[tuple[int, int]]:
    """(tp, pp) of each layout the budget is judged on: every engine target, else the largest
    TP ≤ the budget's GPUs that ``dimlint plan`` says vLLM accepts."""
    layouts = []
    for target in request["targets"]:
        _engine, _, sizes = target.partition(":")
        if not sizes:
            continue
        values = dict(part.split("=") for part in sizes.split(","))
        layouts.append((int(values.get("tp", 1)), int(values.get("pp", 1))))
    if layouts:
        return layouts
    count = int(request["budget"].split("x")[0])
    code, out, err = run("plan", str(path), "--max-gpus", str(count), "--output-format", "json")
    assert code == 0, err
    return [(json.loads(out)["engines"]["vllm"]["tp"][-1], 1)]


@pytest.mark.parametrize(
    ("argv", "params", "active"), [g[1:] for g in GRID], ids=[g[0] for g in GRID]
)
def test_grid(argv: list[str], params: float, active: float | None, tmp_path: Path) -> None:
    data = suggest(argv, tmp_path)
    request = data["request"]
    for candidate in data["candidates"]:
        folder = tmp_path / f"candidate{candidate['rank']}"
        folder.mkdir()
        path = folder / "config.json"
        path.write_text(json.dumps(candidate["config"], indent=2), encoding="utf-8")
        # no finding at warning level or above under the same targets and budget
        assert not [f for f in candidate["findings"] if f["severity"] != "info"]
        check = ["check", str(path), "--no-config", "--fail-level", "warning"]
        code, out, err = run(*check, "--output-format", "json", *_deployment(argv, request))
        assert code == 0, out + err
        assert all(f["severity"] == "info" for f in json.loads(out)), out
        # within ±3% of the target, as counted by `mem`
        mem = ["mem", str(path), "--output-format", "json"]
        if request["kv_dtype"]:
            mem += ["--kv-dtype", request["kv_dtype"]]
        code, out, err = run(*mem)
        assert code == 0, err
        counted = json.loads(out)
        assert counted["params"]["total"] == candidate["params"]["total"]
        assert counted["params"]["active"] == candidate["params"]["active"]
        assert counted["kv_cache"]["bytes_per_token"] == candidate["kv_cache"]["bytes_per_token"]
        assert abs(counted["params"]["total"] - params) <= 0.03 * params
        if active is not None:
            assert abs(counted["params"]["active"] - active) <= 0.03 * active
        else:
            assert counted["params"]["active"] == counted["params"]["total"]
        # fits the budget by `mem`, on every layout
        if request["budget"]:
            for tp, pp in _layouts(argv, request, path):
                fit = [*mem, "--budget", request["budget"], "--tp", str(tp), "--pp", str(pp)]
                for name in ("--context", "--batch", "--dtype"):
                    if _option(argv, name):
                        fit += [name, _option(argv, name) or ""]
                code, out, err = run(*fit)
                assert code == 0, err
                assert json.loads(out)["budget"]["fits"], (tp, pp, out)


def test_write_and_table(tmp_path: Path) -> None:
    code, out, err = run("suggest", "--params", "8B", "--write", str(tmp_path / "new"))
    assert code == 0, err
    written = json.loads((tmp_path / "new" / "config.json").read_text(encoding="utf-8"))
    assert written["model_type"] == "llama"
    assert "wrote" in err
    lines = out.splitlines()
    first = next(line for line in lines if line.startswith("1 "))
    assert str(written["hidden_size"]) in first
    assert str(written["intermediate_size"]) in first
    assert "nearest released models (shared corpus):" in out
    # Llama-3-8B's shape (4096 × 32 layers, 32/8 heads) is in the generated reference table
    assert "4096 × 32 layers, 32/8 heads, ffn 14336" in out


def test_explain_answers_the_power_of_two_question() -> None:
    code, out, err = run("suggest", "--params", "9B", "--like", "gemma2", "--explain")
    assert code == 0, err
    assert "Why " in out
    assert "power of two" in out
    assert "KV heads" in out


def _explanation(*argv: str) -> list[str]:
    code, out, err = run("suggest", *argv, "--explain")
    assert code == 0, err
    lines = out.splitlines()
    return lines[next(i for i, line in enumerate(lines) if line.startswith("Why ")) :]


@pytest.mark.parametrize(
    "argv",
    [
        ["--params", "8B", "--vocab", "128256", "--target", "vllm:tp=8"],
        ["--params", "9B", "--like", "gemma2"],
        [
            "--params",
            "46.7B",
            "--active",
            "12.9B",
            "--moe",
            "experts=8,top_k=2",
            "--vocab",
            "32000",
        ],
    ],
    ids=["8b-tp8", "gemma2-9b", "mixtral"],
)
def test_explain_is_the_same_whatever_top_is(argv: list[str]) -> None:
    """Issue 23: the reasons never depend on how many candidates are shown."""
    assert _explanation(*argv, "--top", "3") == _explanation(*argv, "--top", "50")


def test_explain_names_the_mechanisms_with_numbers() -> None:
    """Per-GPU KV with replication, heads % TP, tiles and waves, released widths from the
    table; the power-of-two comparison stays inside the depth/width range of the request."""
    argv = ["--params", "8B", "--vocab", "128256", "--target", "vllm:tp=8"]
    text = "\n".join(_explanation(*argv))
    code, out, err = run("suggest", *argv, "--top", "1", "--output-format", "json")
    assert code == 0, err
    data = json.loads(out)
    config = data["candidates"][0]["config"]
    heads, ffn = config["num_attention_heads"], config["intermediate_size"]
    assert f"{heads} % 8 = 0, {heads // 8} query heads per GPU" in text
    assert f"ffn shard {ffn} / 8 = {ffn // 8}" in text
    assert "wave quantization at TP 8" in text
    assert "per GPU at TP 8" in text
    # released widths are quoted from the released-shape table, whatever it holds
    from dimlint.fix.suggest.reference import released

    widest = max((m for m in released() if not m.experts), key=lambda m: m.hidden)
    assert f"{widest.name} {widest.hidden}" in text
    low, _median, high = data["request"]["depth_width_range"]
    compared = next(line for line in text.splitlines() if "power of two:" in line)
    ratio = float(compared.split("(hidden/layers ")[1].split(")")[0])
    assert low <= ratio <= high


def _passes_check_under(relaxation: dict[str, Any]) -> None:
    """The relaxed request's candidate passes ``check`` under the relaxed deployment."""
    import tempfile

    request = relaxation["request"]
    options = [arg for target in request["targets"] for arg in ("--target", target)]
    for key in ("budget", "context", "batch", "dtype", "kv_dtype"):
        if request[key] is not None:
            options += ["--" + key.replace("_", "-"), str(request[key])]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_text(json.dumps(relaxation["candidate"]["config"]), encoding="utf-8")
        code, out, err = run("check", str(path), "--no-config", "--fail-level", "warning", *options)
        assert code == 0, (relaxation["change"], out, err)


def test_tp3_ffn_is_searched_at_multiples_of_lcm_256_64tp() -> None:
    """At TP 3 the FFN must divide by 3: widths are tried at multiples of lcm(256, 192) = 768
    as well, so the shape the issue verified with ``check --target vllm:tp=3`` (4608 × 32, 36/6
    heads, ffn 12288) is found, and every FFN shard is a whole number of 64-wide tiles."""
    argv = ["--params", "8B", "--head-dim", "128", "--layers", "32", "--target", "vllm:tp=3"]
    code, out, err = run("suggest", *argv, "--top", "10", "--output-format", "json")
    assert code == 0, err
    candidates = json.loads(out)["candidates"]
    shapes = [
        (
            c["config"]["hidden_size"],
            c["config"]["num_attention_heads"],
            c["config"]["num_key_value_heads"],
            c["config"]["intermediate_size"],
        )
        for c in candidates
    ]
    assert (4608, 36, 6, 12288) in shapes
    for _hidden, heads, kv, ffn in shapes:
        assert heads % 3 == 0
        assert ffn % 3 == 0
        assert (ffn // 3) % 64 == 0
        assert kv % 3 == 0 or 3 % kv == 0


def _check_at_context(config: dict[str, Any], context: int) -> list[dict[str, Any]]:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        argv = ["check", str(path), "--no-config", "--context", str(context)]
        code, out, err = run(*argv, "--output-format", "json")
        assert code == 0, out + err
        findings: list[dict[str, Any]] = json.loads(out)
        return findings


@pytest.mark.parametrize(
    ("argv", "context"),
    [
        (["--params", "8B", "--target", "vllm:tp=8", "--budget", "8xH200-141GB"], 1048576),
        (["--params", "7B", "--like", "qwen2"], 131072),
        (
            [
                "--params",
                "671B",
                "--active",
                "37.6B",
                "--mla",
                "--moe",
                "experts=256,top_k=8,shared=1",
                "--vocab",
                "129280",
            ],
            131072,
        ),
    ],
    ids=["llama-1m", "qwen2-128k", "deepseek-v3-128k"],
)
def test_long_context_is_written_as_the_family_releases_it(argv: list[str], context: int) -> None:
    """Issue 23: a long-context request writes the rope scaling of the family's released
    long-context models (read from the released-shape table), and ``check --context`` accepts
    the written config (DL502: the positions after scaling reach the context; DL604)."""
    from dimlint.fix.suggest.reference import released

    code, out, err = run(
        "suggest", *argv, "--context", str(context), "--top", "1", "--output-format", "json"
    )
    assert code == 0, err
    data = json.loads(out)
    config = data["candidates"][0]["config"]
    findings = _check_at_context(config, context)
    assert not [f for f in findings if f["code"] in ("DL502", "DL604")], findings
    scaling = config["rope_scaling"]
    kind = scaling.get("rope_type") or scaling.get("type")
    releases = [m for m in released() if m.model_type == config["model_type"]]
    scaled = [m for m in releases if m.rope_scaling]
    if scaled:  # the family's released scaling type, with its own parameters
        longest = max(scaled, key=lambda m: m.max_positions)
        assert longest.rope_scaling is not None
        assert kind == (longest.rope_scaling.get("rope_type") or longest.rope_scaling.get("type"))
        for key in ("original_max_position_embeddings", "low_freq_factor", "beta_fast"):
            if key in longest.rope_scaling:
                assert scaling[key] == longest.rope_scaling[key]
    else:  # θ alone up to the longest release, then YaRN over it
        longest_context = max(m.max_positions for m in releases)
        assert kind == "yarn"
        assert scaling["original_max_position_embeddings"] == longest_context
    routed = [m for m in releases if m.routing and "n_group" in m.routing]
    if routed:  # DeepSeek-V3's group-limited routing as released
        release = max(routed, key=lambda m: m.params)
        assert release.routing is not None
        assert config["n_group"] == release.routing["n_group"]
        assert config["topk_group"] == release.routing["topk_group"]


def test_impossible_70b_on_one_24gb_gpu() -> None:
    argv = ["suggest", "--params", "70B", "--budget", "1xRTX4090-24GB", "--context", "8192"]
    code, out, err = run(*argv, "--output-format", "json")
    assert code == 1, err
    impossible = json.loads(out)["impossible"]
    assert impossible["constraint"] == "budget"
    assert "RTX4090-24GB" in impossible["message"]
    changes = [r["change"] for r in impossible["relaxations"]]
    # 70B at bf16 is 140 GB: no single format or context change fits one 24 GB GPU, more do
    assert any("--budget" in change for change in changes), changes
    assert any("--dtype int4" in change for change in changes), changes
    for relaxation in impossible["relaxations"]:
        assert all(row["fits"] for row in relaxation["candidate"]["memory"])
        _passes_check_under(relaxation)
    code, table, _ = run(*argv)
    assert code == 1
    assert "nearest feasible relaxations" in table


def test_impossible_budget_offers_formats_and_context() -> None:
    argv = ["suggest", "--params", "70B", "--budget", "8xH100-80GB", "--context", "49152"]
    code, out, _ = run(*argv, "--target", "vllm:tp=2", "--output-format", "json")
    assert code == 1
    relaxations = json.loads(out)["impossible"]["relaxations"]
    changes = [r["change"] for r in relaxations]
    assert "--dtype fp8" in changes
    assert "--kv-dtype fp8" in changes
    assert any(change.startswith("--context ") for change in changes)
    for relaxation in relaxations:
        _passes_check_under(relaxation)


def test_impossible_active_share() -> None:
    argv = ["suggest", "--params", "30B", "--active", "3B", "--like", "qwen2"]
    code, out, _ = run(*argv, "--moe", "experts=64,top_k=8,shared=1", "--output-format", "json")
    assert code == 1
    impossible = json.loads(out)["impossible"]
    assert impossible["constraint"] == "shape"
    assert "9 of 65 expert MLPs" in impossible["message"]
    changes = [r["change"] for r in impossible["relaxations"]]
    assert "--moe experts=128,top_k=8,shared=1" in changes
    for relaxation in impossible["relaxations"]:
        _passes_check_under(relaxation)
        moe = relaxation["request"]["moe"]
        total = relaxation["candidate"]["params"]["total"]
        assert abs(total - 30e9) <= 0.03 * 30e9
        assert moe["experts"] >= 64


def test_impossible_active_too_high_raises_top_k() -> None:
    """Issue 23: an --active above what top-2 of 8 experts can carry is met by a larger top_k
    or fewer experts, never by a smaller top_k or more experts."""
    argv = ["suggest", "--params", "46.7B", "--active", "30B", "--moe", "experts=8,top_k=2"]
    code, out, _ = run(*argv, "--vocab", "32000", "--layers", "32", "--output-format", "json")
    assert code == 1
    impossible = json.loads(out)["impossible"]
    assert "raise top_k" in impossible["message"]
    relaxations = impossible["relaxations"]
    assert relaxations
    for relaxation in relaxations:
        moe = relaxation["request"]["moe"]
        assert moe["top_k"] >= 2
        assert moe["experts"] <= 8
        if relaxation["change"].startswith("--active"):
            assert relaxation["request"]["active"] < 30e9
        _passes_check_under(relaxation)
    assert any(r["request"]["moe"]["top_k"] > 2 for r in relaxations)


def test_expert_parallel_layouts() -> None:
    """Issue 23: MoE candidates state the EP degrees every engine accepts with the expert
    weights per GPU; an EP degree Megatron cannot split the experts over is refused as DL406."""
    argv = ["--params", "46.7B", "--active", "12.9B", "--moe", "experts=8,top_k=2"]
    argv += ["--vocab", "32000"]
    code, out, err = run("suggest", *argv, "--top", "1", "--output-format", "json")
    assert code == 0, err
    why = json.loads(out)["candidates"][0]["why"]
    line = next(w for w in why if w.startswith("expert parallel"))
    for ep in (2, 4, 8):
        assert f"EP {ep}: {8 // ep} expert" in line
    code, out, _ = run(
        "suggest", *argv, "--target", "megatron:tp=2,ep=3", "--output-format", "json"
    )
    assert code == 1
    assert json.loads(out)["impossible"]["message"].startswith("DL406: 8 experts")


def test_impossible_targets() -> None:
    argv = ["suggest", "--params", "8B", "--target", "vllm:tp=3", "--kv-heads", "8"]
    code, out, _ = run(*argv, "--output-format", "json")
    assert code == 1
    impossible = json.loads(out)["impossible"]
    # the blocker is named with its rule: 8 KV heads neither split over nor replicate onto 3
    assert impossible["message"].startswith("DL402: --kv-heads 8")
    assert "divisible by 3" not in impossible["message"]
    assert "without --target vllm:tp=3" in [r["change"] for r in impossible["relaxations"]]
    for relaxation in impossible["relaxations"]:
        _passes_check_under(relaxation)


@pytest.mark.parametrize(
    "argv",
    [
        ["--params", "eight"],
        ["--params", "8B", "--active", "2B"],
        ["--params", "8B", "--moe", "experts=8"],
        ["--params", "8B", "--moe", "experts=8,top_k=2,shared=1"],
        ["--params", "8B", "--like", "gemma2", "--moe", "experts=8,top_k=2"],
        ["--params", "8B", "--mla", "--like", "llama"],
        ["--params", "8B", "--kv-heads", "8", "--gqa-ratio", "4"],
        ["--params", "8B", "--head-dim", "100"],
        ["--params", "8B", "--target", "vllm:tp=2,x"],
        ["--params", "8B", "--budget", "1xNOPE-1GB"],
        ["--params", "8B", "--gqa-ratio", "8..4"],
        ["--params", "8B", "--layers", "0"],
        # hostile arguments (issue 23): refused at once, never searched or an internal error
        ["--params", "8B", "--gqa-ratio", "1..1000000000000000000000"],
        ["--params", "8B", "--gqa-ratio", "1..\u00b2"],
        ["--params", "8B", "--gqa-ratio", "\u00b2"],
        ["--params", "8B", "--moe", "experts=\u00b2,top_k=2"],
        ["--params", "8B", "--moe", "experts=100000000,top_k=2"],
        ["--params", "8B", "--target", "vllm:tp=\u00b2"],
        ["--params", "8B", "--target", "vllm:tp=2,\u00b2"],
        ["--params", "8B", "--target", "vllm:tp=100000000000"],
        ["--tokens", "15T", "--flops", "1e24", "--params", "8B"],
        ["--flops", "lots"],
        ["--hidden", "4096"],
        ["--params", "8B", "--training"],
        ["--params", "largest", "--budget", "1xH100-80GB", "--tokens", "1T"],
        ["--flops", "nan"],
        # --train-budget (issue 23): GPU time as FLOPs; malformed, unknown peaks, out of range
        ["--train-budget", "8xH100-80GB"],
        ["--train-budget", "8xH100-80GB:3w"],
        ["--train-budget", "8xH100-80GB:\u00b2d"],
        ["--train-budget", "8xH100-80GB:0d"],
        ["--train-budget", "8xH100-80GB:99999d"],
        ["--train-budget", "8xH100:30d"],
        ["--train-budget", "8x24GiB:30d"],
        ["--train-budget", "1000000000000000xB200:3650d"],
        ["--train-budget", "8xH100-80GB:30d", "--flops", "1e24"],
        ["--train-budget", "8xH100-80GB:30d", "--mfu", "1.5"],
        ["--train-budget", "8xH100-80GB:30d", "--mfu", "nan"],
        ["--params", "8B", "--mfu", "0.4"],
        ["--tokens", "1T", "--moe", "experts=8,top_k=2"],  # Chinchilla sizes dense models
        ["--flops", "1e24", "--active", "3B", "--moe", "experts=8,top_k=2"],
        ["--params", "8B", "--attention", "eager"],  # what a training step counts: --training
        [
            "--params",
            "2B",
            "--like",
            "gemma2",
            "--budget",
            "1xB200",
            "--training",
            "--attention",
            "sdpa",
        ],
        ["--params", "largest", "--budget", "1xH100-80GB", "--train-budget", "8xH100-80GB:1d"],
    ],
)
def test_usage_errors(argv: list[str]) -> None:
    import time

    start = time.perf_counter()
    code, _out, err = run("suggest", *argv)
    assert code == 2, err
    assert err.startswith("dimlint: error:") or "usage:" in err
    assert "Traceback" not in err
    assert "internal error" not in err
    assert time.perf_counter() - start < 10


@pytest.mark.parametrize(
    ("argv", "params", "tokens"),
    [
        (["--tokens", "1.4T"], 70e9, 1.4e12),  # Chinchilla: 20 tokens a parameter
        (["--flops", "5.88e23"], 70e9, 1.4e12),  # C = 6 · N · D = 120 · N²
        (["--flops", "5.88e23", "--tokens", "2.8T"], 35e9, 2.8e12),  # N = C / (6 · D)
        (["--params", "8B", "--tokens", "15T"], 8e9, 15e12),
        # a mixture of experts: C = 6 · N_active · D
        (
            [
                "--params",
                "30B",
                "--active",
                "3B",
                "--like",
                "qwen2",
                "--flops",
                "1.8e23",
                "--moe",
                "experts=128,top_k=8,shared=1",
            ],
            30e9,
            1e13,
        ),
    ],
    ids=["tokens", "flops", "flops-and-tokens", "params-and-tokens", "moe-flops"],
)
def test_training_budget_sizes_the_model(argv: list[str], params: float, tokens: float) -> None:
    """Issue 23: --tokens/--flops size the model at the compute-optimal 20 tokens a parameter
    and report 6·N·D training FLOPs; every candidate is within ±3% of that size."""
    code, out, err = run("suggest", *argv, "--top", "2", "--output-format", "json")
    assert code == 0, err
    request = json.loads(out)["request"]
    assert abs(request["params"] - params) <= 1e-3 * params
    training = request["training_run"]
    assert abs(training["tokens"] - tokens) <= 1e-3 * tokens
    counted = request["active"] or request["params"]
    assert training["flops"] == pytest.approx(6 * counted * training["tokens"])
    for candidate in json.loads(out)["candidates"]:
        assert abs(candidate["params"]["total"] - request["params"]) <= 0.03 * request["params"]
    code, table, _ = run("suggest", *argv, "--top", "1")
    assert code == 0
    assert "(6·N·D)" in table.splitlines()[0]


def test_train_budget_is_gpu_time_at_an_mfu() -> None:
    """Issue 23: --train-budget NxGPU:TIME is C = GPUs × peak dense BF16 × MFU × seconds (the
    H100 SXM datasheet's 1,979 sparse TFLOPS are 989.4 dense; MFU 0.40 by default, Llama 3's
    38-43%), and the request is then exactly --flops C: the same size, tokens and shapes."""
    argv = ["--train-budget", "1024xH100-80GB:30d", "--top", "3", "--output-format", "json"]
    code, out, err = run("suggest", *argv)
    assert code == 0, err
    data = json.loads(out)
    flops = 1024 * 989.4e12 * 0.40 * 30 * 86400
    budget = data["request"]["train_budget"]
    assert budget["gpus"] == 1024
    assert budget["hours"] == 720
    assert data["request"]["flops"] == pytest.approx(flops, rel=1e-12)
    assert data["request"]["params"] == round((flops / 120) ** 0.5)  # C = 6 · N · 20 N
    argv = ["--flops", repr(flops), "--top", "3", "--output-format", "json"]
    code, same, err = run("suggest", *argv)
    assert code == 0, err
    as_flops = json.loads(same)
    assert as_flops["request"]["params"] == data["request"]["params"]
    assert as_flops["request"]["training_run"] == data["request"]["training_run"]
    configs = [c["config"] for c in data["candidates"]]
    assert [c["config"] for c in as_flops["candidates"]] == configs
    # hours and an MFU: 720 h at 0.5 is 1.25 × the compute; with --params the tokens follow
    argv = ["--params", "8B", "--train-budget", "1024xH100-80GB:720h", "--mfu", "0.5"]
    code, out, err = run("suggest", *argv, "--top", "1", "--output-format", "json")
    assert code == 0, err
    run_data = json.loads(out)["request"]["training_run"]
    assert run_data["tokens"] == round(1.25 * flops / (6 * 8e9))
    code, table, _ = run("suggest", *argv, "--top", "1")
    assert "from 1024xH100-80GB for 30 days at 50% MFU" in table.splitlines()[0]


def test_training_step_must_fit_as_mem_computes_it(tmp_path: Path) -> None:
    """Issue 23: --training adds a training step per layout, sized by `mem --training` (the
    budget's other GPUs are data-parallel ranks ZeRO shards over); it must fit the device."""
    argv = ["--params", "8B", "--budget", "8xH100-80GB", "--training", "--zero", "3"]
    code, out, err = run("suggest", *argv, "--top", "1", "--output-format", "json")
    assert code == 0, err
    best = json.loads(out)["candidates"][0]
    rows = [row for row in best["memory"] if "training" in row["layout"]]
    assert rows
    path = tmp_path / "config.json"
    path.write_text(json.dumps(best["config"]), encoding="utf-8")
    for row in rows:
        assert row["fits"]
        dp = 8 // (row["tp"] * row["pp"])
        mem = ["mem", str(path), "--training", "--zero", "3", "--dp", str(dp), "--tp"]
        mem += [str(row["tp"]), "--pp", str(row["pp"]), "--context", "4096"]
        code, out, err = run(*mem, "--output-format", "json")
        assert code == 0, err
        assert json.loads(out)["training"]["total"] == row["per_gpu_bytes"]
    # without ZeRO on one GPU, Adam's 16 bytes a parameter do not fit 80 GB
    code, out, _ = run(
        "suggest",
        "--params",
        "8B",
        "--budget",
        "1xH100-80GB",
        "--training",
        "--output-format",
        "json",
    )
    assert code == 1
    assert "training" in json.loads(out)["impossible"]["message"]


@pytest.mark.parametrize("attention", [[], ["--attention", "flash"]], ids=["default", "flash"])
def test_training_row_counts_the_attention_mem_counts(tmp_path: Path, attention: list[str]) -> None:
    """Gemma-2's transformers class refuses sdpa, so `mem --training` counts eager attention
    (its a·s² scores): suggest's training row is the same number, and --attention is passed
    on as mem takes it."""
    argv = ["--params", "2B", "--like", "gemma2", "--budget", "1xH100-80GB", "--training"]
    code, out, err = run("suggest", *argv, *attention, "--top", "1", "--output-format", "json")
    assert code == 0, err
    best = json.loads(out)["candidates"][0]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(best["config"]), encoding="utf-8")
    row = next(r for r in best["memory"] if "training" in r["layout"])
    mem = ["mem", str(path), "--training", "--dp", "1", "--context", "4096", *attention]
    code, out, err = run(*mem, "--output-format", "json")
    assert code == 0, err
    assert json.loads(out)["training"]["total"] == row["per_gpu_bytes"]


def test_largest_model_that_fits() -> None:
    """Issue 23: --params largest finds the largest size whose shapes fit the budget: #1 fits
    by `mem` on every layout, and a search 10% larger finds none that does."""
    argv = ["--budget", "1xRTX4090-24GB", "--context", "8192"]
    code, out, err = run("suggest", "--params", "largest", *argv, "--output-format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["request"]["largest"] is True
    best = data["candidates"][0]
    assert best["memory"]
    assert all(row["fits"] for row in best["memory"])
    larger = str(round(data["request"]["params"] * 1.10))
    code, out, _ = run("suggest", "--params", larger, *argv, "--output-format", "json")
    assert code == 1
    assert json.loads(out)["impossible"]["constraint"] == "budget"
    code, _out, err = run("suggest", "--params", "largest")
    assert code == 2
    assert "--budget" in err


def test_largest_model_a_training_step_fits() -> None:
    """Issue 23: --params largest with --training: the largest size whose training step fits
    (as `mem --training` computes it) on every layout; 10% more does not fit."""
    argv = ["--budget", "1xH100-80GB", "--training", "--output-format", "json"]
    code, out, err = run("suggest", "--params", "largest", *argv, "--top", "1")
    assert code == 0, err
    data = json.loads(out)
    rows = data["candidates"][0]["memory"]
    assert any("training" in row["layout"] for row in rows)
    assert all(row["fits"] for row in rows)
    larger = str(round(data["request"]["params"] * 1.10))
    code, out, _ = run("suggest", "--params", larger, *argv)
    assert code == 1
    assert "training" in json.loads(out)["impossible"]["message"]


def test_fixed_hidden_and_heads() -> None:
    argv = ["--params", "8B", "--hidden", "3584", "--heads", "28", "--output-format", "json"]
    code, out, err = run("suggest", *argv)
    assert code == 0, err
    candidates = json.loads(out)["candidates"]
    assert candidates
    for candidate in candidates:
        assert candidate["config"]["hidden_size"] == 3584
        assert candidate["config"]["num_attention_heads"] == 28
    code, out, _ = run("suggest", "--params", "8B", "--hidden", "4000", "--output-format", "json")
    assert code == 1
    changes = [r["change"] for r in json.loads(out)["impossible"]["relaxations"]]
    assert "without --hidden" in changes


def _grouping(candidate: dict[str, Any]) -> float:
    config = candidate["config"]
    return config["num_attention_heads"] / config["num_key_value_heads"]


def test_grouping_beyond_the_family_only_when_the_budget_needs_it() -> None:
    """Issue 23: fewer KV heads than the family's release nearest in size uses cost quality;
    on one 24 GB card at 32k both groupings fit, so #1 keeps the family's (Llama-3.1-8B's),
    and the shape with fewer KV heads, which ranks below, is cheaper on KV. Where only fewer
    KV heads fit (48k), #1 groups more; --gqa-ratio leaves the choice to the designer."""
    from dimlint.fix.suggest.reference import nearest_grouping

    reference = nearest_grouping(8_000_000_000, False, "llama")
    assert reference is not None
    budget = ["--params", "8B", "--vocab", "128256", "--budget", "1xRTX4090-24GB"]
    code, out, err = run("suggest", *budget, "--context", "32768", "--top", "50",
                         "--output-format", "json")  # fmt: skip
    assert code == 0, err
    candidates = json.loads(out)["candidates"]
    assert _grouping(candidates[0]) <= reference
    beyond = [c for c in candidates if _grouping(c) > reference]
    assert beyond  # they pass, and they rank lower
    cheaper = min(beyond, key=lambda c: c["kv_cache"]["bytes_per_token"])
    assert cheaper["kv_cache"]["bytes_per_token"] < candidates[0]["kv_cache"]["bytes_per_token"]
    code, out, err = run("suggest", *budget, "--context", "49152", "--top", "50",
                         "--output-format", "json")  # fmt: skip
    assert code == 0, err
    tight = json.loads(out)["candidates"]
    assert tight
    assert all(_grouping(c) > reference for c in tight)  # the family's grouping does not fit
    code, out, err = run("suggest", *budget, "--context", "32768", "--gqa-ratio", "4..8",
                         "--top", "1", "--output-format", "json")  # fmt: skip
    assert code == 0, err
    assert _grouping(json.loads(out)["candidates"][0]) == 8  # fewest KV heads on one GPU


def test_family_curve_passes_through_the_releases() -> None:
    """The family's depth/width (and FFN/width) target is its own releases': at a released
    size the release's value, between two releases a value between theirs, beyond the family's
    range its nearest release's. Read from the released-shape table, whatever it holds."""
    import math

    from dimlint.fix.suggest.reference import family_curve, quotable, released

    def ratio(model: Any) -> float:
        return float(model.hidden / model.layers)

    rows = [m for m in released() if m.model_type == "gemma2" and quotable(m) and not m.experts]
    sizes = sorted({m.params for m in rows})
    assert len(sizes) >= 2

    def at(size: int) -> float:  # several rows of one size: their geometric mean
        logs = [math.log(ratio(m)) for m in rows if m.params == size]
        return math.exp(sum(logs) / len(logs))

    for size in sizes:
        assert family_curve(size, False, ("gemma2",), ratio) == pytest.approx(at(size))
    low, high = sizes[0], sizes[1]
    value = family_curve(round(math.sqrt(low * high)), False, ("gemma2",), ratio)
    assert value is not None
    assert min(at(low), at(high)) <= value <= max(at(low), at(high))
    assert family_curve(low // 10, False, ("gemma2",), ratio) == pytest.approx(at(low))
    assert family_curve(10**9, False, ("no-such-family",), ratio) is None


def test_wide_gqa_range_is_bounded() -> None:
    """The widest accepted range costs no more than the heads it can divide."""
    import time

    start = time.perf_counter()
    code, _out, err = run("suggest", "--params", "1B", "--gqa-ratio", "1..512", "--top", "1")
    assert code == 0, err
    assert time.perf_counter() - start < 30


def test_write_follows_the_fix_file_rules(tmp_path: Path) -> None:
    """``--write`` creates 0666 less the umask, keeps an existing file's mode, and refuses a
    read-only ``config.json`` or a link out of the folder, as ``--fix`` does."""
    import os
    import stat

    old = os.umask(0o022)
    try:
        code, _out, err = run(
            "suggest", "--params", "1B", "--top", "1", "--write", str(tmp_path / "a")
        )
    finally:
        os.umask(old)
    assert code == 0, err
    written = tmp_path / "a" / "config.json"
    assert stat.S_IMODE(written.stat().st_mode) == 0o644
    assert not [p.name for p in (tmp_path / "a").iterdir() if p.name != "config.json"]

    written.chmod(0o640)  # an existing writable file is replaced with its mode kept
    code, _out, err = run(
        "suggest", "--params", "0.5B", "--top", "1", "--write", str(tmp_path / "a")
    )
    assert code == 0, err
    assert stat.S_IMODE(written.stat().st_mode) == 0o640
    assert json.loads(written.read_text(encoding="utf-8"))["hidden_size"]

    written.write_text("{}", encoding="utf-8")
    written.chmod(0o444)  # read-only: left alone, like --fix
    code, _out, err = run("suggest", "--params", "1B", "--top", "1", "--write", str(tmp_path / "a"))
    assert code == 2
    assert "read-only" in err
    assert written.read_text(encoding="utf-8") == "{}"

    outside = tmp_path / "outside.json"
    outside.write_text("{}", encoding="utf-8")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "config.json").symlink_to(outside)
    code, _out, err = run("suggest", "--params", "1B", "--top", "1", "--write", str(tmp_path / "b"))
    assert code == 2
    assert "outside" in err
    assert outside.read_text(encoding="utf-8") == "{}"


def test_parsers() -> None:
    assert parse_size("8B") == 8_000_000_000
    assert parse_size("0.5B") == 500_000_000
    assert parse_size("135M") == 135_000_000
    assert expand_target("vllm:tp=2,4,8") == ["vllm:tp=2", "vllm:tp=4", "vllm:tp=8"]
    assert expand_target("megatron:tp=4,8,pp=2") == ["megatron:tp=4,pp=2", "megatron:tp=8,pp=2"]
    assert expand_target("fa2") == ["fa2"]
    assert parse_moe("experts=64,top_k=8,shared=1") == MoE(64, 8, 1)
    assert parse_range("4..8", "--gqa-ratio") == (4, 8)
    with pytest.raises(UsageError):
        parse_moe("experts=4,top_k=4")


def _transformers_count(folder: Path) -> int:
    """Parameters of the model transformers builds from ``folder/config.json`` (meta device)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    import warnings

    transformers.utils.logging.set_verbosity_error()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        config = transformers.AutoConfig.from_pretrained(str(folder))
        with torch.device("meta"):
            model = transformers.AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in model.parameters())


@pytest.mark.parametrize(
    ("argv", "params", "active"), [g[1:] for g in GRID], ids=[g[0] for g in GRID]
)
def test_written_config_builds_with_the_printed_count(
    argv: list[str], params: float, active: float | None, tmp_path: Path
) -> None:
    """``--write`` writes #1; transformers builds it with exactly the JSON's parameter count."""
    pytest.importorskip("transformers")
    folder = tmp_path / "model"
    code, out, err = run("suggest", *argv, "--top", "1", "--output-format", "json")
    assert code == 0, err
    run("suggest", *argv, "--top", "1", "--write", str(folder))
    best = json.loads(out)["candidates"][0]
    written = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert written == best["config"]
    assert _transformers_count(folder) == best["params"]["total"]


def test_json_contract() -> None:
    """DESIGN.md's suggest JSON: request, candidates best first, each with its fields."""
    argv = ["--params", "8B", "--target", "vllm:tp=2,4,8", "--output-format", "json"]
    code, out, _ = run("suggest", *argv)
    assert code == 0
    data = json.loads(out)
    assert data["request"]["params"] == 8_000_000_000
    assert data["request"]["targets"] == ["vllm:tp=2", "vllm:tp=4", "vllm:tp=8"]
    ranks = [c["rank"] for c in data["candidates"]]
    assert ranks == list(range(1, len(ranks) + 1))
    for candidate in data["candidates"]:
        assert set(candidate) >= {"config", "params", "kv_cache", "engines", "findings", "why"}
        assert {2, 4, 8} <= set(candidate["engines"]["vllm"]["tp"])
        assert candidate["kv_cache"]["bytes_per_token"] > 0
        assert candidate["why"]
        assert candidate["config"]["model_type"] == "llama"


def test_subprocess() -> None:
    """Once through a real process, as typed in a terminal."""
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-m", "dimlint", "suggest", "--params", "1B", "--top", "2"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("dimlint suggest: 1B parameters")
