"""Deployment targets: parsing, the engines' parallel rules, and DL401–DL407/DL502 in ``check``.

The vLLM cases are the public issues DOMAIN.md cites: Qwen2-7B on 8 GPUs (vllm #11797), Llama-2-13B
on 3 (#596), a 151552-token vocabulary on 6 (#31474), Falcon-7B's 71 heads. Real configs come from
``../shared/corpus`` when it is there; the inline copies carry the same values (DOMAIN.md's table)
so that the rules are tested either way.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, SHARED, codes, lint_text

from dimlint import cli
from dimlint.config.maxlen import derived_max_length
from dimlint.config.normalize import specs_for_document
from dimlint.config.spec import ModelSpec
from dimlint.deploy.engines import ENGINES, cp_refusals, ep_refusals, pp_refusals, tp_refusals
from dimlint.deploy.engines import valid_degrees as degrees
from dimlint.deploy.targets import (
    DTYPES,
    Deployment,
    Target,
    TargetError,
    deployment,
    parse_budget_text,
    parse_target,
)
from dimlint.diagnostics import Severity

CORPUS = SHARED / "corpus" / "configs"
QWEN2_7B_FILE = "sophgo__LLM-TPU__models__Qwen2__compile__files__Qwen2-7B-Instruct__config.json"
FALCON_7B_FILE = "kimborgen__falcon-llm__falcon7b-pretrained-configs__config.json"
LLAMA2_13B_FILE = "mlc-ai__mlc-llm__python__mlc_llm__model__model_preset.py__llama2_13b.json"
GLM45_AIR_FILE = "h9-tec__llmviz__tests__fixtures__glm45_air.json"
DEEPSEEK_V3_FILE = (
    "AI-Hypercomputer__maxtext__src__maxtext__checkpoint_conversion__utils__hf_model_configs.py"
    "__deepseek3_671b_dict_L895.json"
)

#: DOMAIN.md's values, for when ../shared is absent.
QWEN2_7B: dict[str, Any] = {
    "model_type": "qwen2",
    "hidden_size": 3584,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "intermediate_size": 18944,
    "num_hidden_layers": 28,
    "max_position_embeddings": 32768,
    "vocab_size": 152064,
}
FALCON_7B: dict[str, Any] = {
    "model_type": "falcon",
    "hidden_size": 4544,
    "n_head": 71,
    "multi_query": True,
    "n_layer": 32,
    "vocab_size": 65024,
}
LLAMA2_13B: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 5120,
    "num_attention_heads": 40,
    "num_key_value_heads": 40,
    "intermediate_size": 13824,
    "num_hidden_layers": 40,
    "vocab_size": 32000,
}
GLM45_AIR: dict[str, Any] = {
    "model_type": "glm4_moe",
    "hidden_size": 4096,
    "head_dim": 128,
    "num_attention_heads": 96,
    "num_key_value_heads": 8,
    "intermediate_size": 10944,
    "moe_intermediate_size": 1408,
    "n_routed_experts": 128,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 46,
    "vocab_size": 151552,
}
DEEPSEEK_V3: dict[str, Any] = {
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 61,
    "vocab_size": 129280,
}


def config(file: str, inline: dict[str, Any]) -> dict[str, Any]:
    """The corpus config when ../shared is present, else DOMAIN.md's inline values."""
    path = CORPUS / file
    if path.exists():
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return loaded
    return dict(inline)


def spec_of(value: dict[str, Any]) -> ModelSpec:
    return specs_for_document("config.json", value)[0]


def vllm_tp(value: dict[str, Any], limit: int = 8) -> list[int]:
    return degrees(ENGINES["vllm"], spec_of(value), "tp", limit)[0]


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


# --- parsing -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("vllm:tp=8", Target("vllm", tp=8, text="vllm:tp=8")),
        ("megatron:tp=4,pp=2,ep=8", Target("megatron", 4, 2, 8, text="megatron:tp=4,pp=2,ep=8")),
        ("hf:tp=4", Target("hf", tp=4, text="hf:tp=4")),
        ("sglang:tp=8", Target("sglang", tp=8, text="sglang:tp=8")),
        ("vllm", Target("vllm", text="vllm")),
        ("fa2", Target("fa2", text="fa2")),
        (" FP8 ", Target("fp8", text="FP8")),
        ("transformers:tp=2", Target("hf", tp=2, text="transformers:tp=2")),
        ("deepspeed:ep=8,sp=4", Target("deepspeed", ep=8, sp=4, text="deepspeed:ep=8,sp=4")),
    ],
)
def test_parse_target(text: str, expected: Target) -> None:
    assert parse_target(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("vlm:tp=8", "did you mean 'vllm'"),
        ("vllm:tq=8", "'tq=8' is not one of tp=N, pp=N, ep=N"),
        ("vllm:tp=0", "tp must be a positive integer"),
        ("vllm:tp=x", "tp must be a positive integer"),
        ("vllm:tp=2,tp=4", "tp is given twice"),
        ("vllm:cp=2", "is not one of"),
        ("fa2:tp=2", "takes no sizes"),
    ],
)
def test_parse_target_errors(text: str, message: str) -> None:
    with pytest.raises(TargetError, match=message):
        parse_target(text)


def test_budget_form() -> None:
    assert parse_budget_text("8xH100-80GB") == (8, "H100-80GB")
    assert parse_budget_text("2×MI300X-192GB") == (2, "MI300X-192GB")
    assert parse_budget_text("24gib") == (1, "24gib")  # a bare name or memory: one GPU
    for bad in ("0xH100-80GB", "8x", "8 * "):
        with pytest.raises(TargetError, match="is not N×GPU"):
            parse_budget_text(bad)


def test_deployment_command_line_replaces_settings() -> None:
    settings = {"targets": ["vllm:tp=8"], "context": 4096, "batch": 2, "dtype": "bf16"}
    found = deployment(settings, targets=["hf:tp=2"], context=8192)
    assert found is not None
    assert [t.text for t in found.targets] == ["hf:tp=2"]
    assert (found.context, found.batch, found.dtype) == (8192, 2, "bf16")
    assert deployment({}) is None
    assert deployment({"baseline": "x.json"}) is None


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"targets": "vllm:tp=8"}, "targets must be a list"),
        ({"targets": ["vllm:tp=x"]}, "tp must be a positive integer"),
        ({"budget": 8}, "budget must be a string"),
        ({"budget": "8H100"}, "is not N×GPU"),
        ({"context": "long"}, "context must be a positive integer"),
        ({"batch": 0}, "batch must be a positive integer"),
        ({"dtype": "float8"}, "dtype must be one of"),
        ({"kv-dtype": True}, "kv-dtype must be one of"),
    ],
)
def test_deployment_setting_errors(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(TargetError, match=message):
        deployment(settings, source="dimlint.toml")


def test_cli_dtype_choices_match() -> None:
    assert cli.DTYPES == DTYPES


# --- vLLM's TP rules, with the public issues -----------------------------------------------------


def test_qwen2_7b_vllm_tp_is_1_2_4() -> None:
    """vllm #11797: 28 heads and 4 KV heads; TP 8 fails on the heads, 7 on the KV heads."""
    value = config(QWEN2_7B_FILE, QWEN2_7B)
    assert vllm_tp(value) == [1, 2, 4]
    refusals = tp_refusals(ENGINES["vllm"], spec_of(value), 8)
    assert [r.code for r in refusals] == ["DL401"]  # 4 KV heads replicate over 8 ranks
    assert "Total number of attention heads (28) must be divisible by tensor parallel size (8)" in (
        refusals[0].reason
    )
    # 7 divides the heads but neither the 4 KV heads, the FFN nor the 152064-row vocabulary
    assert [r.code for r in tp_refusals(ENGINES["vllm"], spec_of(value), 7)] == [
        "DL402",
        "DL403",
        "DL404",
    ]


def test_llama2_13b_on_3_gpus_is_refused() -> None:
    """vllm #596: 40 heads on 3 GPUs."""
    value = config(LLAMA2_13B_FILE, LLAMA2_13B)
    refusals = tp_refusals(ENGINES["vllm"], spec_of(value), 3)
    assert "DL401" in {r.code for r in refusals}
    assert "40 is not divisible by tp 3" in refusals[0].reason
    assert 3 not in vllm_tp(value)
    assert vllm_tp(value) == [1, 2, 4, 8]


def test_vocab_151552_on_6_gpus_is_refused() -> None:
    """vllm #31474: 151552 is already a multiple of 64, and 151552 % 6 = 4."""
    value = config(GLM45_AIR_FILE, GLM45_AIR)
    refusals = tp_refusals(ENGINES["vllm"], spec_of(value), 6)
    vocab = [r for r in refusals if r.code == "DL404"]
    assert len(vocab) == 1
    assert vocab[0].field == "vocab"
    assert "151552 is not divisible by tp 6" in vocab[0].reason
    assert "multiple of 64" in vocab[0].reason
    # the same vocabulary splits fine over 8, and an unpadded one is padded first
    assert not [r for r in tp_refusals(ENGINES["vllm"], spec_of(value), 8) if r.code == "DL404"]
    padded = tp_refusals(ENGINES["vllm"], spec_of({**LLAMA2_13B, "vocab_size": 32001}), 2)
    assert "32001, padded to 32064," not in " ".join(r.reason for r in padded)  # 32064 / 2 fine
    odd = tp_refusals(ENGINES["vllm"], spec_of({**LLAMA2_13B, "vocab_size": 32001}), 5)
    assert any("32001, padded to 32064," in r.reason for r in odd if r.code == "DL404")


def test_falcon_7b_only_tp_1() -> None:
    """71 heads (prime) and one KV head: only TP 1 (the KV head would replicate)."""
    value = config(FALCON_7B_FILE, FALCON_7B)
    assert vllm_tp(value) == [1]
    assert spec_of(value).effective_kv_heads == 1


@pytest.mark.parametrize("engine", ["vllm", "sglang", "megatron", "hf"])
def test_qwen2_7b_every_plan_engine(engine: str) -> None:
    assert degrees(ENGINES[engine], spec_of(QWEN2_7B), "tp", 8)[0] == [1, 2, 4]


# --- the other engines ---------------------------------------------------------------------------


def test_strict_kv_heads_in_transformers() -> None:
    """transformers #48307: no replication, so TP 8 with 4 KV heads is refused."""
    llama3 = {**QWEN2_7B, "num_attention_heads": 32, "num_key_value_heads": 4}
    assert [r.code for r in tp_refusals(ENGINES["hf"], spec_of(llama3), 8)] == ["DL402"]
    assert tp_refusals(ENGINES["vllm"], spec_of(llama3), 8) == []


def test_mla_has_no_kv_head_rule() -> None:
    """DeepSeek-V3 caches one latent: num_key_value_heads does not constrain TP."""
    value = config(DEEPSEEK_V3_FILE, DEEPSEEK_V3)
    spec = spec_of(value)
    assert spec.is_mla
    for engine in ("vllm", "hf"):
        for tp in range(1, 17):
            assert "DL402" not in {r.code for r in tp_refusals(ENGINES[engine], spec, tp)}
    assert vllm_tp(value) == [1, 2, 4, 8]


def test_megatron_pads_the_vocab_and_needs_even_pipeline_stages() -> None:
    value = config(GLM45_AIR_FILE, GLM45_AIR)
    spec = spec_of(value)
    assert not [r for r in tp_refusals(ENGINES["megatron"], spec, 6) if r.code == "DL404"]
    assert degrees(ENGINES["megatron"], spec, "pp", 8)[0] == [1, 2]  # 46 = 2 × 23
    assert degrees(ENGINES["vllm"], spec, "pp", 8)[0] == list(range(1, 9))  # uneven is fine
    assert pp_refusals(ENGINES["vllm"], spec_of({**QWEN2_7B, "num_hidden_layers": 2}), 4)


def test_expert_parallel_rules() -> None:
    spec = spec_of(GLM45_AIR)  # 128 experts
    assert ep_refusals(ENGINES["vllm"], spec, 3) == []  # vLLM spreads the remainder
    assert [r.code for r in ep_refusals(ENGINES["sglang"], spec, 3)] == ["DL406"]
    assert [r.code for r in ep_refusals(ENGINES["megatron"], spec, 3)] == ["DL406"]
    assert ep_refusals(ENGINES["vllm"], spec_of({**GLM45_AIR, "n_routed_experts": 2}), 4)
    dense = ep_refusals(ENGINES["vllm"], spec_of(QWEN2_7B), 2)
    assert "no routed experts" in dense[0].reason


def test_expert_ffn_split_follows_the_engine() -> None:
    value = {**GLM45_AIR, "moe_intermediate_size": 1400, "n_shared_experts": 0}
    spec = spec_of(value)
    codes_at = {
        name: [r.code for r in tp_refusals(ENGINES[name], spec, 16, ep)]
        for name, ep in (("vllm", 1), ("sglang", 16), ("megatron", 1), ("hf", 1))
    }
    # 1400 / 16 is not whole: vLLM and Megatron split experts over tp, SGLang over tp / ep = 1
    assert "DL403" in codes_at["vllm"]
    assert "DL403" in codes_at["megatron"]
    assert "DL403" not in codes_at["sglang"]
    assert "DL403" not in codes_at["hf"]
    assert "DL403" not in [r.code for r in tp_refusals(ENGINES["vllm"], spec, 16, 16)]


def test_quantized_ffn_alignment() -> None:
    gptq = {**QWEN2_7B, "quantization_config": {"quant_method": "gptq", "group_size": 128}}
    # 18944 / 4 = 4736 = 37 × 128; / 2 = 9472 fine; 18944 / 8 is refused by the heads anyway
    assert not [r for r in tp_refusals(ENGINES["vllm"], spec_of(gptq), 4) if r.code == "DL403"]
    coarse = {**gptq, "quantization_config": {"quant_method": "awq", "group_size": 1024}}
    found = [r for r in tp_refusals(ENGINES["vllm"], spec_of(coarse), 4) if r.code == "DL403"]
    assert "18944 / 4 = 4736 per rank is not a multiple of the awq group size 1024" in (
        found[0].reason
    )
    assert "quantized weight shape" in found[0].reason
    # fp8 blocks: a 512-wide shared expert on 8 GPUs leaves 64 columns (Qwen3-Next)
    qwen3_next = {
        "model_type": "qwen3_next",
        "hidden_size": 2048,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "intermediate_size": 5120,
        "moe_intermediate_size": 512,
        "shared_expert_intermediate_size": 512,
        "num_experts": 512,
        "num_experts_per_tok": 10,
        "num_hidden_layers": 48,
        "vocab_size": 151936,
        "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
    }
    refusals = [
        r for r in tp_refusals(ENGINES["vllm"], spec_of(qwen3_next), 8) if r.code == "DL403"
    ]
    assert refusals
    assert "512 / 8 = 64 per rank is not a multiple of the fp8 weight block_k 128" in (
        refusals[0].reason
    )
    assert not [
        r for r in tp_refusals(ENGINES["megatron"], spec_of(qwen3_next), 8) if r.code == "DL403"
    ]


def test_context_and_sequence_parallel() -> None:
    spec = spec_of(QWEN2_7B)
    assert cp_refusals(ENGINES["megatron"], spec, 2, 1, 4096) == []
    assert cp_refusals(ENGINES["megatron"], spec, 3, 1, 4096)[0].code == "DL407"
    ulysses = cp_refusals(ENGINES["deepspeed"], spec, 1, 8, 4096)
    assert "Number of heads (28) must be divisible by the sequence parallel size (8)" in (
        ulysses[0].reason
    )


# --- in check ------------------------------------------------------------------------------------


def qwen2_path(tmp_path: Path) -> Path:
    source = CORPUS / QWEN2_7B_FILE
    if source.exists():
        return source
    path = tmp_path / "config.json"
    path.write_text(json.dumps(QWEN2_7B, indent=2), encoding="utf-8")
    return path


def test_check_target_vllm_tp8_on_qwen2_7b_reports_dl401(tmp_path: Path) -> None:
    path = str(qwen2_path(tmp_path))
    code, out, _ = run("check", "--no-config", "--target", "vllm:tp=8", "--output-format",
                       "json", path)  # fmt: skip
    findings = json.loads(out)
    assert code == 1
    assert [f["code"] for f in findings] == ["DL401"]
    assert findings[0]["pointer"] == "/num_attention_heads"
    assert findings[0]["severity"] == "error"
    assert "tp sizes vLLM accepts for this model (up to 8): 1, 2, 4." in findings[0]["message"]
    assert "(target vllm:tp=8)" in findings[0]["message"]
    # the same config without a target, or with an accepted one, is clean of DL4xx
    for extra in ([], ["--target", "vllm:tp=4"], ["--target", "fa2"]):
        _, out, _ = run("check", "--no-config", "--output-format", "json", *extra, path)
        assert not [f for f in json.loads(out) if f["code"].startswith("DL4")]


def test_targets_from_settings(tmp_path: Path) -> None:
    (tmp_path / "dimlint.toml").write_text('targets = ["hf:tp=8"]\n', encoding="utf-8")
    config_path = tmp_path / "config.json"
    config_path.write_text(json.dumps(QWEN2_7B, indent=2), encoding="utf-8")
    code, out, _ = run("check", "--output-format", "json", str(config_path))
    assert code == 1
    assert sorted(f["code"] for f in json.loads(out)) == ["DL401", "DL402"]
    # --target replaces the settings' targets
    code, out, _ = run("check", "--target", "vllm:tp=2", "--output-format", "json",
                       str(config_path))  # fmt: skip
    assert (code, json.loads(out)) == (0, [])


def test_bad_target_settings_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "dimlint.toml").write_text('targets = ["vlm:tp=8"]\n', encoding="utf-8")
    (tmp_path / "config.json").write_text(json.dumps(QWEN2_7B), encoding="utf-8")
    code, out, err = run("check", str(tmp_path / "config.json"))
    assert (code, out) == (2, "")
    assert "dimlint.toml: unknown target 'vlm:tp=8'; did you mean 'vllm'?" in err
    code, _, err = run("check", "--no-config", "--target", "vllm:tp=two", "nowhere.json")
    assert code == 2
    assert "tp must be a positive integer" in err


@pytest.mark.parametrize(
    ("targets", "expected"),
    [
        ((), Severity.WARNING),
        (("fa2",), Severity.ERROR),
        (("vllm:tp=1",), Severity.ERROR),
        (("fa3",), Severity.ERROR),
        (("fp8",), Severity.WARNING),
        (("megatron:tp=1",), Severity.WARNING),
    ],
)
def test_dl104_is_graded_by_kernel_targets(targets: tuple[str, ...], expected: Severity) -> None:
    wide = {**QWEN2_7B, "hidden_size": 4096, "num_attention_heads": 8, "num_key_value_heads": 8}
    found = lint_text(json.dumps(wide), select=("DL104",), deployment=Deployment(
        tuple(parse_target(t) for t in targets)))  # fmt: skip
    assert [(d.code, d.severity) for d in found] == [("DL104", expected)]
    if expected is Severity.ERROR:
        assert f"Under the {targets[0]} target this is an error" in found[0].message


def test_dl104_fa3_alignment() -> None:
    def graded(head_dim: int, *targets: str) -> list[Severity]:
        value = {**QWEN2_7B, "head_dim": head_dim}
        chosen = Deployment(tuple(parse_target(t) for t in targets))
        return [d.severity for d in lint_text(json.dumps(value), select=("DL104",),
                                              deployment=chosen)]  # fmt: skip

    assert graded(100) == [Severity.WARNING]
    assert graded(100, "fa2") == [Severity.WARNING]  # FlashAttention-2 pads it
    assert graded(100, "fa3") == [Severity.ERROR]
    assert graded(72, "fa3") == []
    assert graded(72, "fa3", "fp8") == [Severity.ERROR]
    assert graded(128, "fa3", "fp8", "vllm:tp=4") == []


def test_dl201_is_an_error_under_fp8() -> None:
    value = {**QWEN2_7B, "intermediate_size": 18952}  # 8 × 2369: info, and not a multiple of 16
    plain = lint_text(json.dumps(value), select=("DL201",))
    fp8 = lint_text(json.dumps(value), select=("DL201",),
                    deployment=Deployment((parse_target("fp8"),)))  # fmt: skip
    assert [d.severity for d in plain] == [Severity.INFO]
    assert [d.severity for d in fp8] == [Severity.ERROR]
    assert "assert_dim_for_fp8_exec" in fp8[0].message
    assert fp8[0].fix is not None  # the fix search still offers the aligned width
    aligned = {**QWEN2_7B, "intermediate_size": 18960}  # 16 × 1185, not 64
    found = lint_text(json.dumps(aligned), select=("DL201",),
                      deployment=Deployment((parse_target("fp8"),)))  # fmt: skip
    assert [d.severity for d in found] == [Severity.INFO]


def test_severity_override_beats_the_grade() -> None:
    from dimlint.lint.pipeline import lint_bytes
    from dimlint.lint.selection import Selection

    value = {**QWEN2_7B, "hidden_size": 4096, "num_attention_heads": 8, "num_key_value_heads": 8}
    selection = Selection(
        select=("DL104",),
        severity={"DL104": Severity.INFO},
        deployment=Deployment((parse_target("fa2"),)),
    )
    result = lint_bytes("config.json", json.dumps(value).encode(), selection)
    assert [d.severity for d in result.diagnostics] == [Severity.INFO]


def test_towers_are_not_judged() -> None:
    llava = {
        "model_type": "llava",
        "text_config": {**QWEN2_7B},
        "vision_config": {"model_type": "clip_vision_model", "hidden_size": 1024,
                          "num_attention_heads": 16, "num_hidden_layers": 24},
    }  # fmt: skip
    found = lint_text(json.dumps(llava), deployment=Deployment((parse_target("vllm:tp=8"),)))
    assert [(d.code, d.pointer) for d in found if d.code.startswith("DL4")] == [
        ("DL401", "/text_config/num_attention_heads")
    ]


# --- DL502 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "longest"),
    [
        ({}, 32768),
        ({"rope_scaling": {"type": "yarn", "factor": 4.0,
                           "original_max_position_embeddings": 32768}}, 131072),
        ({"rope_scaling": {"rope_type": "linear", "factor": 2.0}}, 65536),
        ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0}}, 32768),
        ({"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}, 65536),
        ({"rope_parameters": {"rope_type": "default", "rope_theta": 1e6}}, 32768),
        ({"seq_length": 8192}, 8192),  # the smallest position key wins
    ],
)  # fmt: skip
def test_derived_max_length(extra: dict[str, Any], longest: int) -> None:
    derived = derived_max_length(spec_of({**QWEN2_7B, **extra}))
    assert derived is not None
    assert derived.value == longest


def test_gemma3_positions_already_include_rope_scaling() -> None:
    gemma3 = {"model_type": "gemma3_text", "hidden_size": 1152, "num_attention_heads": 4,
              "num_hidden_layers": 26, "max_position_embeddings": 32768,
              "rope_scaling": {"rope_type": "linear", "factor": 8.0}}  # fmt: skip
    derived = derived_max_length(spec_of(gemma3))
    assert derived is not None
    assert derived.value == 32768


def test_dl502_context_beyond_positions() -> None:
    def found(context: int, value: dict[str, Any]) -> list[str]:
        return codes(lint_text(json.dumps(value), select=("DL502",),
                               deployment=Deployment(context=context)))  # fmt: skip

    assert found(32768, QWEN2_7B) == []
    assert found(32769, QWEN2_7B) == ["DL502"]
    assert found(100000, {**QWEN2_7B, "rope_scaling": {"type": "yarn", "factor": 4.0,
                          "original_max_position_embeddings": 32768}}) == []  # fmt: skip
    assert found(10**9, {k: v for k, v in QWEN2_7B.items() if k != "max_position_embeddings"}) == []
    message = lint_text(json.dumps(QWEN2_7B), select=("DL502",),
                        deployment=Deployment(context=65536))[0]  # fmt: skip
    assert message.pointer == "/max_position_embeddings"
    assert "User-specified max_model_len (65536) is greater than the derived" in message.message
    assert "--context 32768 or less" in message.message


def test_context_alone_turns_on_dl502(tmp_path: Path) -> None:
    path = str(qwen2_path(tmp_path))
    code, out, _ = run("check", "--no-config", "--context", "40000", "--output-format", "json",
                       path)  # fmt: skip
    assert code == 1
    assert [f["code"] for f in json.loads(out)] == ["DL502"]


# --- start-up ------------------------------------------------------------------------------------


def test_plain_check_does_not_import_the_memory_package() -> None:
    probe = (
        "import io, sys\n"
        "from dimlint.cli import main\n"
        "main(['check', '--no-config', 'examples/qwen2-7b/config.json'], io.StringIO(),"
        " io.StringIO())\n"
        "print(sorted(m for m in sys.modules if m.startswith('dimlint.memory')"
        " or m in ('dimlint.deploy.plan', 'dimlint.commands.plan')))\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    ).stdout
    assert output.strip() == "[]"
