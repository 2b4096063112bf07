"""The noise budget of issue 20: performance rules stay silent on toy-sized configs unless
asked, and ``--fix`` repairs info-level findings only when their rule is named."""

from __future__ import annotations

import io
import json
from pathlib import Path

from dimlint.cli import main

#: A unit-test sized model: width 48, 3 heads of 16, a GPT-2 vocabulary (not a multiple of 64).
TOY = {"model_type": "gpt2", "n_embd": 48, "n_head": 3, "n_layer": 2, "vocab_size": 50257}


def _codes(path: Path, *extra: str) -> list[str]:
    out = io.StringIO()
    main(["check", str(path), "--output-format", "json", *extra], out, io.StringIO())
    return [finding["code"] for finding in json.loads(out.getvalue())]


def test_performance_rules_are_silent_on_a_toy(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TOY))
    assert _codes(path) == []


def test_a_toy_is_judged_when_a_rule_is_named_or_a_target_given(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TOY))
    assert "DL202" in _codes(path, "--extend-select", "DL202")
    assert "DL202" not in _codes(path, "--extend-select", "DL2")  # a prefix is not a request
    assert "DL202" in _codes(path, "--target", "vllm:tp=1")


def test_a_wide_model_still_gets_performance_findings(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**TOY, "n_embd": 768, "n_head": 12}))
    assert "DL202" in _codes(path)


def test_correctness_rules_still_run_on_a_toy(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**TOY, "n_embd": 50}))
    assert "DL101" in _codes(path)


def test_fix_leaves_info_findings_alone_unless_named(tmp_path: Path) -> None:
    wide = {**TOY, "n_embd": 768, "n_head": 12}
    path = tmp_path / "config.json"
    path.write_text(json.dumps(wide))
    main(["check", str(tmp_path), "--fix", "--unsafe-fixes"], io.StringIO(), io.StringIO())
    assert json.loads(path.read_text())["vocab_size"] == 50257  # DL202 is info: not fixed
    main(
        ["check", str(tmp_path), "--fix", "--unsafe-fixes", "--extend-select", "DL202"],
        io.StringIO(),
        io.StringIO(),
    )
    assert json.loads(path.read_text())["vocab_size"] != 50257


def test_a_swapped_layers_heads_pair_is_swapped_back(tmp_path: Path) -> None:
    # pythia-12b-deduped's defect: 40 layers and 36 heads for pythia-12b's 36 and 40
    path = tmp_path / "pythia-12b-deduped.yml"
    path.write_text(
        '{\n  "num-layers": 40,\n  "hidden-size": 5120,\n  "num-attention-heads": 36\n}\n'
    )
    out = io.StringIO()
    main(["check", str(path), "--output-format", "json"], out, io.StringIO())
    (finding,) = json.loads(out.getvalue())
    assert "look swapped" in finding["fix"]["message"]
    main(["check", str(path), "--fix", "--unsafe-fixes"], io.StringIO(), io.StringIO())
    assert '"num-layers": 36' in path.read_text()
    assert '"num-attention-heads": 40' in path.read_text()


def test_a_pair_that_is_not_swapped_gets_the_usual_fix(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    wide = {"model_type": "llama", "hidden_size": 4100, "num_attention_heads": 32}
    path.write_text(json.dumps({**wide, "num_hidden_layers": 32, "vocab_size": 32000}))
    out = io.StringIO()
    main(["check", str(path), "--output-format", "json"], out, io.StringIO())
    fixes = [f["fix"]["message"] for f in json.loads(out.getvalue()) if f["code"] == "DL101"]
    assert fixes
    assert "swapped" not in fixes[0]


def test_a_utf16_file_that_is_no_config_is_skipped_in_a_walk(tmp_path: Path) -> None:
    vocab = tmp_path / "enwik8-vocab.json"
    vocab.write_bytes(json.dumps({"a": 1, "b": 2}).encode("utf-16"))
    config = tmp_path / "model" / "config.json"
    config.parent.mkdir()
    config.write_bytes(json.dumps({**TOY, "n_embd": 768, "n_head": 12}).encode("utf-16"))
    out = io.StringIO()
    main(["check", str(tmp_path), "--output-format", "json"], out, io.StringIO())
    files = {Path(finding["file"]).name for finding in json.loads(out.getvalue())}
    assert files == {"config.json"}  # the config's encoding is still reported


def test_a_toy_without_a_width_is_judged_by_its_attention_width(tmp_path: Path) -> None:
    path = tmp_path / "cache.py"
    path.write_text("cache = KVCache(num_heads=3, head_dim=5, num_layers=6, batch_size=2)\n")
    assert _codes(path) == []
    assert "DL104" in _codes(path, "--extend-select", "DL104")


def test_a_deepspeed_template_is_skipped_in_a_walk(tmp_path: Path) -> None:
    template = tmp_path / "ds_config_bert_TEMPLATE.json"
    template.write_text('{\n  "train_batch_size": GBSIZE,\n  "model_type": "encoder"\n}\n')
    err = io.StringIO()
    assert main(["check", str(tmp_path), "--verbose"], io.StringIO(), err) == 0
    assert "a template with placeholders to fill in (GBSIZE)" in err.getvalue()


def test_a_stream_of_json_values_is_skipped_in_a_walk(tmp_path: Path) -> None:
    """An Ascend tuning bank (CodeGeeX's ``repository_*_matmul.json``): records one after
    another, one of whose keys is ``model_type``; a walk does not fail the repository for it,
    naming the file still reports it, and a model config with trailing garbage stays DL001."""
    record = '{\n  "shape": {"op_type": "matmul", "model_type": "%d"},\n  "cost_time": 40\n}\n'
    bank = tmp_path / "bank" / "repository_matmul.json"
    bank.parent.mkdir()
    bank.write_text("".join(record % n for n in range(3)))
    broken = tmp_path / "model" / "params.json"
    broken.parent.mkdir()
    broken.write_text('{"model_type": "llama", "hidden_size": 4096}\n"hidden_size": 1}\n')
    err = io.StringIO()
    out = io.StringIO()
    assert main(["check", str(tmp_path), "--verbose", "--output-format", "json"], out, err) == 1
    assert "a stream of 3 concatenated JSON values" in err.getvalue()
    assert {Path(f["file"]).name for f in json.loads(out.getvalue())} == {"params.json"}
    assert main(["check", str(bank)], io.StringIO(), io.StringIO()) == 1


def test_a_cookiecutter_python_template_is_skipped_in_a_walk(tmp_path: Path) -> None:
    """transformers' add-new-model scaffolding (vendored in microsoft/LoRA, held-out batch 4):
    Jinja markup makes it Python only once rendered; a walk skips it with a --verbose note,
    naming it keeps DL001, and a broken Python file without markup (an f-string's escaped
    ``{{x}}`` is none) stays DL001 in a walk."""
    folder = tmp_path / "cookiecutter-template-{{cookiecutter.modelname}}"
    folder.mkdir()
    template = folder / "configuration_{{cookiecutter.lowercase_modelname}}.py"
    template.write_text(
        "from transformers import PretrainedConfig\n\n"
        "class {{cookiecutter.camelcase_modelname}}Config(PretrainedConfig):\n"
        "    def __init__(self, hidden_size=768, num_attention_heads=12):\n"
        "        super().__init__()\n"
    )
    broken = tmp_path / "model.py"
    broken.write_text('NAME = f"{{x}}"\nconfig = LlamaConfig(hidden_size=4096\n')
    out, err = io.StringIO(), io.StringIO()
    assert main(["check", str(tmp_path), "--verbose", "--output-format", "json"], out, err) == 1
    reported = json.loads(out.getvalue())
    assert [(Path(f["file"]).name, f["code"]) for f in reported] == [("model.py", "DL001")]
    assert "a template (Jinja markup {{cookiecutter.camelcase_modelname}})" in err.getvalue()
    assert _codes(template) == ["DL001"]
