"""Config vs checkpoint (DL610, DL611, DL612, DL503, DL001 for unreadable shards).

Checkpoints are real architectures scaled down, built with transformers and written with
``save_pretrained`` (see ``checkpoint_builders``), so tensor names come from the library. Each
saved checkpoint must be clean; each corruption — the ways configs and weights drift apart —
must be reported with the right code, naming the tensor and pointing at the config value that
explains it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from checkpoint_builders import (
    FAMILIES,
    SHARDED,
    build,
    check,
    checkpoint_findings,
    copy,
    edit_config,
    header,
    read_config,
    rewrite_header,
    shard_holding,
)

from dimlint.config.normalize import specs_for_document
from dimlint.memory import count_parameters
from dimlint.memory.checkpoint.expected_tensors import plan_for

pytest.importorskip("transformers", reason="the test checkpoints are built with transformers")
pytest.importorskip("safetensors")

REPO = Path(__file__).resolve().parent.parent
Built = dict[tuple[str, bool], tuple[Path, int]]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """Every family saved once in one file, and some also sharded."""
    root = tmp_path_factory.mktemp("checkpoints")
    found: Built = {}
    for family in FAMILIES:
        folder = root / family
        found[family, False] = folder, build(family, folder)
    for family in SHARDED:
        folder = root / f"{family}-sharded"
        found[family, True] = folder, build(family, folder, sharded=True)
    return found


@pytest.fixture
def fresh(built: Built, tmp_path: Path) -> Any:
    """A copy of a built checkpoint, to corrupt."""

    def make(family: str, sharded: bool = False) -> Path:
        return copy(
            built[family, sharded][0], tmp_path / f"{family}{'-sharded' if sharded else ''}"
        )

    return make


def _spec(folder: Path) -> Any:
    return specs_for_document(str(folder / "config.json"), read_config(folder))[0]


def _only(found: list[dict[str, Any]], code: str) -> list[dict[str, Any]]:
    assert {f["code"] for f in found} <= {code}, [f["message"] for f in found]
    return [f for f in found if f["code"] == code]


# --- untouched checkpoints --------------------------------------------------------------------


ALL = [pytest.param(family, False, id=family) for family in FAMILIES] + [
    pytest.param(family, True, id=f"{family}-sharded") for family in SHARDED
]


@pytest.mark.parametrize(("family", "sharded"), ALL)
def test_saved_checkpoints_are_clean(built: Built, family: str, sharded: bool) -> None:
    folder, _ = built[family, sharded]
    if sharded:
        assert len(list(folder.glob("model-*.safetensors"))) > 1
    assert checkpoint_findings(folder) == []


@pytest.mark.parametrize("family", FAMILIES)
def test_plan_agrees_with_library_and_parameter_count(built: Built, family: str) -> None:
    """The expected tensors are the library's, and sum to ``dimlint mem``'s count: the
    checkpoint check and the parameter count read the same knowledge."""
    folder, numel = built[family, False]
    spec = _spec(folder)
    plan = plan_for(spec)
    assert plan is not None, f"{family} has no tensor plan"
    stored = {
        name: entry["shape"]
        for name, entry in header(folder / "model.safetensors").items()
        if name != "__metadata__"
    }
    env = plan.env
    expected = {t.name: [axis.value(env) for axis in t.shape] for t in plan.tensors if t.present}
    assert expected == stored
    assert plan.parameters() == count_parameters(spec).total == numel


# --- corrupted configs ------------------------------------------------------------------------

KV_FAMILIES = [
    ("llama", False, ("k_proj", "v_proj")),
    ("qwen2", True, ("k_proj", "v_proj")),
    ("mistral", False, ("k_proj", "v_proj")),
    ("qwen3", False, ("k_proj", "v_proj")),
    ("gemma2", False, ("k_proj", "v_proj")),
    ("mixtral", False, ("k_proj", "v_proj")),
    ("phi3", False, ("qkv_proj",)),
]


@pytest.mark.parametrize(("family", "sharded", "tensors"), KV_FAMILIES)
def test_wrong_kv_heads(fresh: Any, family: str, sharded: bool, tensors: tuple[str, ...]) -> None:
    folder = fresh(family, sharded)
    edit_config(folder, num_key_value_heads=4)
    found = _only(checkpoint_findings(folder), "DL610")
    weights = [f for f in found if f["message"].split()[0].endswith(".weight")]
    assert sorted(f["message"].split()[0].split(".")[-2] for f in weights) == sorted(tensors)
    if family == "qwen2":  # and the q/k/v biases
        assert len(found) == 2 * len(weights)
    for finding in found:
        assert finding["pointer"] == "/num_key_value_heads"
        assert finding["message"].startswith("model.layers.0.self_attn.")
        assert "num_key_value_heads 4" in finding["message"]
        assert "num_key_value_heads 2 would explain it" in finding["message"]
        assert "Likewise 1 more tensor (model.layers.*." in finding["message"]


def test_wrong_kv_heads_message(fresh: Any) -> None:
    folder = fresh("llama")
    edit_config(folder, num_key_value_heads=4)
    messages = [f["message"] for f in checkpoint_findings(folder)]
    assert messages[0] == (
        "model.layers.0.self_attn.k_proj.weight is [32, 64] in the checkpoint but the config"
        " implies [64, 64]: its 32 rows should be head_dim 16 × num_key_value_heads 4 = 64;"
        " num_key_value_heads 2 would explain it. Loading fails with a size mismatch."
        " Likewise 1 more tensor (model.layers.*.self_attn.k_proj.weight)."
    )


def test_falcon_multi_query(fresh: Any) -> None:
    folder = fresh("falcon")
    edit_config(folder, multi_query=False)
    (finding,) = _only(checkpoint_findings(folder), "DL610")
    assert finding["message"].startswith("transformer.h.0.self_attention.query_key_value.weight")
    assert "multi_query true would explain it" in finding["message"]
    assert finding["pointer"] == "/multi_query"


def test_mla_latent_rank(fresh: Any) -> None:
    folder = fresh("deepseek_v3", True)
    edit_config(folder, kv_lora_rank=32)
    found = _only(checkpoint_findings(folder), "DL610")
    names = {f["message"].split()[0].split(".", 3)[-1] for f in found}
    assert names == {
        "self_attn.kv_a_proj_with_mqa.weight",
        "self_attn.kv_a_layernorm.weight",
        "self_attn.kv_b_proj.weight",
    }
    assert {f["pointer"] for f in found} == {"/kv_lora_rank"}
    assert all("kv_lora_rank 16 would explain it" in f["message"] for f in found)


def test_wrong_ffn_width_gpt2(fresh: Any) -> None:
    folder = fresh("gpt2", True)
    edit_config(folder, n_inner=512)
    found = _only(checkpoint_findings(folder), "DL610")
    assert {f["message"].split()[0] for f in found} == {
        "transformer.h.0.mlp.c_fc.weight",
        "transformer.h.0.mlp.c_fc.bias",
        "transformer.h.0.mlp.c_proj.weight",
    }
    assert all("n_inner 256 would explain it" in f["message"] for f in found)


LAYERS = [pytest.param(f, False, id=f) for f in FAMILIES] + [
    pytest.param("llama", True, id="llama-sharded")
]


@pytest.mark.parametrize(("family", "sharded"), LAYERS)
def test_missing_layer(fresh: Any, family: str, sharded: bool) -> None:
    folder = fresh(family, sharded)
    key = _spec(folder).layers.key
    edit_config(folder, **{key: 3})
    (finding,) = _only(checkpoint_findings(folder), "DL611")
    assert finding["pointer"] == f"/{key}"
    assert "no tensors for layer 2 (" in finding["message"]
    assert ".2.*" in finding["message"]
    assert f"{key} 2 would explain it" in finding["message"]
    assert finding["severity"] == "error"


@pytest.mark.parametrize("family", ["llama", "gpt2", "deepseek_v3"])
def test_extra_layer(fresh: Any, family: str) -> None:
    folder = fresh(family)
    key = _spec(folder).layers.key
    edit_config(folder, **{key: 1})
    found = checkpoint_findings(folder)
    layer_findings = [f for f in found if f["code"] == "DL611"]
    assert len(layer_findings) == 1, [f["message"] for f in found]
    assert "holds 2 layers" in layer_findings[0]["message"]
    assert layer_findings[0]["pointer"] == f"/{key}"


@pytest.mark.parametrize(
    ("family", "sharded"),
    [
        ("mixtral", False),
        ("mixtral", True),
        ("qwen2_moe", False),
        ("qwen3_moe", False),
        ("deepseek_v3", False),
    ],
)
def test_extra_expert(fresh: Any, family: str, sharded: bool) -> None:
    """One expert more in the checkpoint than the config says: transformers 5 stacks the
    experts into one tensor per layer, so loading fails on its shape (and the router's)."""
    folder = fresh(family, sharded)
    key = _spec(folder).experts.key
    edit_config(folder, **{key: 3})
    found = _only(checkpoint_findings(folder), "DL610")
    assert {f["pointer"] for f in found} == {f"/{key}"}
    assert any(".gate.weight is [4, 64]" in f["message"] for f in found)
    stacked = [f for f in found if "merged on load from 4 tensors such as" in f["message"]]
    assert stacked, [f["message"] for f in found]
    assert all(".experts.0." in f["message"] for f in stacked)
    assert all(f"{key} 4 would explain it" in f["message"] for f in found)


def test_missing_expert(fresh: Any) -> None:
    folder = fresh("mixtral")
    edit_config(folder, num_local_experts=5)
    found = _only(checkpoint_findings(folder), "DL610")
    assert any(
        "is [4, 64, 128] in the checkpoint but the config implies [5, 64, 128]" in f["message"]
        for f in found
    )
    assert all("num_local_experts 4 would explain it" in f["message"] for f in found)


def test_transposed_matrix_in_header(fresh: Any) -> None:
    folder = fresh("llama", True)
    name = "model.layers.1.mlp.down_proj.weight"

    def transpose(value: dict[str, Any]) -> None:
        value[name]["shape"] = value[name]["shape"][::-1]

    rewrite_header(shard_holding(folder, name), transpose)
    (finding,) = _only(checkpoint_findings(folder), "DL610")
    assert finding["message"] == (
        f"{name} is [128, 64] in the checkpoint but the config implies [64, 128]: the matrix"
        " is stored transposed. Loading fails with a size mismatch."
    )
    assert finding["pointer"] == ""
    assert (finding["line"], finding["column"]) == (1, 1)


def test_transposed_matrix_resaved(fresh: Any) -> None:
    from safetensors.torch import load_file, save_file

    folder = fresh("gpt2")
    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    name = "transformer.h.0.attn.c_attn.weight"
    tensors[name] = tensors[name].t().contiguous()
    save_file(tensors, str(path), metadata={"format": "pt"})
    (finding,) = _only(checkpoint_findings(folder), "DL610")
    assert finding["message"].startswith(f"{name} is [192, 64] in the checkpoint")
    assert "stored transposed" in finding["message"]


def test_untied_head_declared_tied(fresh: Any) -> None:
    folder = fresh("llama")
    edit_config(folder, tie_word_embeddings=True)
    (finding,) = _only(checkpoint_findings(folder), "DL611")
    assert finding["severity"] == "warning"
    assert "exist only when tie_word_embeddings is false (lm_head.weight)" in finding["message"]
    assert "loading replaces it with the tied embedding" in finding["message"]
    assert finding["pointer"] == "/tie_word_embeddings"


def test_tied_head_declared_untied(fresh: Any) -> None:
    folder = fresh("gemma")
    edit_config(folder, tie_word_embeddings=False)
    (finding,) = _only(checkpoint_findings(folder), "DL611")
    assert finding["severity"] == "error"
    assert "implies 1 tensor the checkpoint lacks (lm_head.weight)" in finding["message"]
    assert "Set tie_word_embeddings to true" in finding["message"]
    assert finding["pointer"] == "/tie_word_embeddings"


def test_biases_the_config_does_not_switch_on(fresh: Any) -> None:
    folder = fresh("qwen2")  # Qwen2 has q/k/v biases; as a llama config they need attention_bias
    edit_config(folder, model_type="llama", architectures=["LlamaForCausalLM"])
    (finding,) = _only(checkpoint_findings(folder), "DL611")
    assert "exist only when attention_bias is true" in finding["message"]
    assert "model.layers.0.self_attn.k_proj.bias" in finding["message"]
    assert finding["pointer"] == ""  # not in the file: the config's top level
    edit_config(folder, attention_bias=False)
    (finding,) = _only(checkpoint_findings(folder), "DL611")
    assert finding["pointer"] == "/attention_bias"


def test_dtype_mismatch(fresh: Any) -> None:
    folder = fresh("llama")
    assert read_config(folder)["dtype"] == "float32"
    edit_config(folder, dtype="bfloat16")
    code, found = check(str(folder), "--select", "DL612")
    (finding,) = found
    assert code == 0  # info: advice, not a failure
    assert finding["severity"] == "info"
    assert finding["pointer"] == "/dtype"
    assert "stored as F32 (100% of the floating-point bytes)" in finding["message"]


def test_index_total_size_wrong(fresh: Any) -> None:
    folder = fresh("llama", True)
    index_path = folder / "model.safetensors.index.json"
    index = json.loads(index_path.read_text(encoding="utf-8"))
    right = index["metadata"]["total_size"]
    index["metadata"]["total_size"] = right + 4096
    index["metadata"]["total_parameters"] += 1
    index_path.write_text(json.dumps(index, indent=2), encoding="utf-8")
    found = _only(checkpoint_findings(folder), "DL503")
    by_pointer = {f["pointer"]: f for f in found}
    assert set(by_pointer) == {"/metadata/total_size", "/metadata/total_parameters"}
    size = by_pointer["/metadata/total_size"]
    assert size["file"] == str(index_path)
    assert f"Set total_size to {right}" in size["message"]
    lines = index_path.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"total_size"' in text)
    assert (size["line"], size["column"]) == (line, 19)  # the value in the index file


def test_shards_not_downloaded(fresh: Any) -> None:
    """An index alone (a download of the JSON files) still says which tensors exist."""
    folder = fresh("llama", True)
    for shard in folder.glob("model-*.safetensors"):
        shard.unlink()
    assert checkpoint_findings(folder) == []
    edit_config(folder, num_hidden_layers=3)
    found = checkpoint_findings(folder)
    assert {f["code"] for f in found} == {"DL611", "DL503"}
    (estimate,) = [f for f in found if f["code"] == "DL503"]
    assert "the config implies 143,808 parameters × 4 bytes (F32)" in estimate["message"]


def test_fp8_checkpoint_scales_and_dtypes(fresh: Any) -> None:
    """FP8 block-quantized weights keep their shapes and add scale tensors (DeepSeek-V3)."""
    import torch
    from safetensors.torch import load_file, save_file

    folder = fresh("deepseek_v3")
    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    for name in [n for n, t in tensors.items() if n.endswith("proj.weight") and t.dim() == 2]:
        tensors[name] = tensors[name].to(torch.float8_e4m3fn)
        tensors[name.replace(".weight", ".weight_scale_inv")] = torch.ones(1, 1)
    save_file(tensors, str(path), metadata={"format": "pt"})
    quant = {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
    edit_config(folder, quantization_config=quant)
    assert checkpoint_findings(folder) == []
    edit_config(folder, kv_lora_rank=32)
    assert {f["code"] for f in checkpoint_findings(folder)} == {"DL610"}


def test_mtp_layers_are_not_extra(fresh: Any) -> None:
    """DeepSeek-V3 checkpoints hold a multi-token-prediction layer after the last one (with
    its own projection and norms), which transformers skips when loading."""
    import torch
    from safetensors.torch import load_file, save_file

    folder = fresh("deepseek_v3")
    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    for name in [n for n in tensors if n.startswith("model.layers.1.")]:
        tensors[name.replace("layers.1.", "layers.2.")] = tensors[name].clone()
    tensors["model.layers.2.eh_proj.weight"] = torch.zeros(64, 128)
    tensors["model.layers.2.enorm.weight"] = torch.zeros(64)
    tensors["model.layers.2.hnorm.weight"] = torch.zeros(64)
    save_file(tensors, str(path), metadata={"format": "pt"})
    assert read_config(folder).get("num_nextn_predict_layers", 1) == 1
    assert checkpoint_findings(folder) == []


def test_base_model_checkpoint_with_old_buffers(tmp_path: Path) -> None:
    """GPT-2 on the Hub was saved from the base model (``h.0…``, no ``transformer.``) and
    still carries its attention-mask buffers."""
    import torch
    from safetensors.torch import save_file
    from transformers import AutoConfig, AutoModel

    config = AutoConfig.for_model("gpt2", **FAMILIES["gpt2"])
    model = AutoModel.from_config(config)
    tensors = {name: p.detach().contiguous() for name, p in model.state_dict().items()}
    tensors["h.0.attn.bias"] = torch.ones(1, 1, 128, 128)
    tensors["h.0.attn.masked_bias"] = torch.tensor(-1e4)
    assert not any(name.startswith("transformer.") for name in tensors)
    folder = tmp_path / "gpt2-base"
    folder.mkdir()
    save_file(tensors, str(folder / "model.safetensors"), metadata={"format": "pt"})
    config.architectures = ["GPT2LMHeadModel"]
    config.save_pretrained(folder)
    assert checkpoint_findings(folder) == []
    edit_config(folder, n_layer=3)
    (finding,) = checkpoint_findings(folder)
    assert "no tensors for layer 2 (h.2.*" in finding["message"]


def test_template_family_compares_tensors(tmp_path: Path) -> None:
    """A model type without a hand plan is compared tensor by tensor from its template."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    folder = tmp_path / "starcoder2"
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(
        AutoConfig.for_model("starcoder2", **FAMILIES["llama"])
    )
    model.save_pretrained(folder)
    assert plan_for(_spec(folder)) is None
    assert checkpoint_findings(folder) == []
    edit_config(folder, num_hidden_layers=3)
    (finding,) = checkpoint_findings(folder)
    assert finding["code"] == "DL611"
    assert finding["severity"] == "error"
    assert "num_hidden_layers 2 would explain it" in finding["message"]


def test_unmatched_names_compare_totals(tmp_path: Path) -> None:
    """Names the loading renames do not explain (a spelling dimlint does not know) are not
    reported one by one: the checkpoint is compared by its parameter total (a warning)."""
    import torch
    from safetensors.torch import load_file, save_file
    from transformers import AutoConfig, AutoModelForCausalLM

    folder = tmp_path / "starcoder2"
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(
        AutoConfig.for_model("starcoder2", **FAMILIES["llama"])
    )
    model.save_pretrained(folder)
    path = folder / "model.safetensors"
    tensors = load_file(str(path))
    tensors["model.final_layernorm.weight"] = tensors.pop("model.norm.weight")
    tensors["model.final_layernorm.bias"] = tensors.pop("model.norm.bias")
    save_file(tensors, str(path), metadata={"format": "pt"})
    assert checkpoint_findings(folder) == []
    edit_config(folder, num_hidden_layers=3)
    (finding,) = checkpoint_findings(folder)
    assert finding["code"] == "DL611"
    assert finding["severity"] == "warning"
    assert "compares totals only" in finding["message"]


# --- files: truncation, cache layout, discovery -------------------------------------------


def test_truncated_header_is_an_input_problem(fresh: Any) -> None:
    folder = fresh("llama", True)
    shard = sorted(folder.glob("model-*.safetensors"))[1]
    with shard.open("r+b") as handle:
        handle.truncate(100)
    edit_config(folder, num_key_value_heads=4)
    code, found = check(str(folder), "--select", "DL001,DL610")
    assert code == 1
    problems = [f for f in found if f["code"] == "DL001"]
    assert [p["file"] for p in problems] == [str(shard)]
    assert problems[0]["message"].startswith(f"{shard.name}: the header length field says")
    assert "truncated" in problems[0]["message"]
    # the shards that can be read are still checked
    assert any(f["code"] == "DL610" for f in found)


def test_truncated_data_is_an_input_problem(fresh: Any) -> None:
    folder = fresh("llama")
    path = folder / "model.safetensors"
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - 1000)
    (problem,) = checkpoint_findings(folder)
    assert problem["code"] == "DL001"
    assert "a truncated download" in problem["message"]
    assert problem["message"].startswith("model.safetensors: the file ends 1,000 bytes before")


def test_truncated_header_through_the_real_command(fresh: Any) -> None:
    folder = fresh("llama")
    with (folder / "model.safetensors").open("r+b") as handle:
        handle.truncate(5)
    result = subprocess.run(
        [sys.executable, "-m", "dimlint", "check", str(folder), "--output-format", "concise"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=False,
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "model.safetensors: the file has 5 bytes" in result.stdout


def test_huggingface_cache_layout(built: Built, tmp_path: Path) -> None:
    """``models--org--name/snapshots/<rev>/`` holds symlinks into ``blobs/``."""
    source, _ = built["llama", True]
    repo = tmp_path / "hub" / "models--tiny--llama"
    blobs, snapshot = repo / "blobs", repo / "snapshots" / "0123abcd"
    blobs.mkdir(parents=True)
    snapshot.mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0123abcd", encoding="utf-8")
    for number, file in enumerate(sorted(source.iterdir())):
        blob = blobs / f"{number:040x}"
        blob.write_bytes(file.read_bytes())
        (snapshot / file.name).symlink_to(os.path.relpath(blob, snapshot))
    assert checkpoint_findings(tmp_path / "hub") == []
    config_blob = (snapshot / "config.json").resolve()
    config = json.loads(config_blob.read_text(encoding="utf-8"))
    config["num_key_value_heads"] = 4
    config_blob.write_text(json.dumps(config), encoding="utf-8")
    found = checkpoint_findings(tmp_path / "hub")
    assert {f["code"] for f in found} == {"DL610"}
    assert {f["file"] for f in found} == {str(snapshot / "config.json")}


def test_partial_cache_snapshot(built: Built, tmp_path: Path) -> None:
    """A snapshot whose shard symlinks dangle (blobs not downloaded) is checked by its index."""
    source, _ = built["llama", True]
    snapshot = tmp_path / "models--tiny--llama" / "snapshots" / "rev"
    snapshot.mkdir(parents=True)
    for file in source.iterdir():
        if file.suffix == ".safetensors":
            (snapshot / file.name).symlink_to("../../blobs/missing")
        else:
            (snapshot / file.name).write_bytes(file.read_bytes())
    assert checkpoint_findings(tmp_path) == []


def test_explicit_config_path_reads_the_weights(fresh: Any) -> None:
    folder = fresh("llama")
    edit_config(folder, num_key_value_heads=4)
    found = checkpoint_findings(folder / "config.json")
    assert {f["code"] for f in found} == {"DL610"}


def test_no_weights_turns_it_off(fresh: Any) -> None:
    folder = fresh("llama")
    edit_config(folder, num_key_value_heads=4)
    assert checkpoint_findings(folder, "--no-weights") == []


def test_shape_fixes_are_display_only_beside_weights(fresh: Any, tmp_path: Path) -> None:
    """With weights there, a fix that changes shapes is shown, never applied."""
    folder = fresh("llama")
    _, found = check(str(folder), "--select", "DL201")
    fixes = [f["fix"] for f in found if f["fix"] is not None]
    assert fixes
    assert {fix["applicability"] for fix in fixes} == {"display"}
    before = (folder / "config.json").read_bytes()
    check(str(folder), "--select", "DL201", "--fix", "--unsafe-fixes")
    assert (folder / "config.json").read_bytes() == before
    # the same config without weights: the fix is unsafe, and applied on request
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "config.json").write_bytes(before)
    _, found = check(str(alone), "--select", "DL201")
    assert {f["fix"]["applicability"] for f in found if f["fix"]} == {"unsafe"}
    check(str(alone), "--select", "DL201", "--fix", "--unsafe-fixes")
    assert (alone / "config.json").read_bytes() != before
    # --no-weights: the user asked to ignore the checkpoint
    _, found = check(str(folder), "--select", "DL201", "--no-weights")
    assert {f["fix"]["applicability"] for f in found if f["fix"]} == {"unsafe"}


def test_lfs_pointers_are_not_weights(fresh: Any) -> None:
    """A clone without ``git lfs pull`` has pointer files: nothing to check, nothing wrong."""
    folder = fresh("llama")
    (folder / "model.safetensors").write_text(
        "version https://git-lfs.github.com/spec/v1\noid sha256:0\nsize 427264\n",
        encoding="utf-8",
    )
    assert checkpoint_findings(folder) == []
