"""Hydra defaults-list composition (``dimlint/sources/yamlcompose.py``): a tree laid out as
flash-attention's ``training/configs`` is (a primary config selecting groups, experiments that
override them under ``# @package _global_``, a model config selecting its size from a nested
group), composed as Hydra composes it, each finding at the file and line where its value is
written."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dimlint.cli import main
from dimlint.sources import yamlfile

PRIMARY = """\
# @package _global_
defaults:
  - _self_
  - trainer: default
  - model: null
  - experiment: null
  - override hydra/job_logging: colorlog

work_dir: ${hydra:runtime.cwd}
"""
TRAINER = "max_steps: 1000\ndevices: 8\n"
MODEL = """\
defaults:
  - _self_
  - size: small

_target_: flash_attn.models.gpt.GPTLMHeadModel
config:
  _target_: transformers.GPT2Config
  n_positions: ${datamodule.max_length}
"""
SMALL = """\
# @package _global_
model:
  config:
    n_embd: 768
    n_head: 12
    n_layer: 12
"""
LARGE = """\
# @package _global_
model:
  config:
    n_embd: 1280
    n_head: {heads}
    n_layer: 36
"""
BASE = """\
# @package _global_
defaults:
  - override /model: gpt2
  - override /model/size: small

datamodule:
  max_length: 1024
"""
EXPERIMENT = """\
# @package _global_
defaults:
  - /experiment/owt/base.yaml
  - override /model/size: large

model:
  config:
    fused_mlp: true
"""


def _tree(root: Path, heads: int = 20) -> Path:
    files = {
        "config.yaml": PRIMARY,
        "trainer/default.yaml": TRAINER,
        "model/gpt2.yaml": MODEL,
        "model/size/small.yaml": SMALL,
        "model/size/large.yaml": LARGE.format(heads=heads),
        "experiment/owt/base.yaml": BASE,
        "experiment/owt/large.yaml": EXPERIMENT,
    }
    for name, text in files.items():
        path = root / "configs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "configs"


def _load(path: Path) -> yamlfile.YamlDocument:
    document, problem = yamlfile.load(str(path), path.read_bytes())
    assert document is not None, problem
    return document


def _check(*args: str) -> tuple[list[dict[str, object]], str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", *args, "--output-format", "json", "--no-config"], out, err)
    return json.loads(out.getvalue()), err.getvalue(), code


def test_experiment_composes_overrides_packages_and_references(tmp_path: Path) -> None:
    configs = _tree(tmp_path)
    document = _load(configs / "experiment/owt/large.yaml")
    config = document.value["model"]["config"]
    # the experiment's override of model/size wins over base.yaml's (later in depth-first order)
    assert (config["n_embd"], config["n_head"], config["n_layer"]) == (1280, 20, 36)
    # model/gpt2.yaml at package model, its size option at _global_, the experiment's own values
    assert document.value["model"]["_target_"] == "flash_attn.models.gpt.GPTLMHeadModel"
    assert config["fused_mlp"] is True
    # a reference resolved over the composed tree, located at its definition in base.yaml
    assert config["n_positions"] == 1024
    path, span = document.foreign_span("/model/config/n_positions") or ("", None)
    assert Path(path).name == "base.yaml"
    assert span is not None
    assert span.start_pos.line == 7
    path, span = document.foreign_span("/model/config/n_head") or ("", None)
    assert Path(path).name == "large.yaml"
    assert "size" in path
    assert span is not None
    assert span.start_pos.line == 5
    # the experiment's own value stays this file's: a fix may edit it
    assert document.value_span("/model/config/fused_mlp") is not None
    assert "defaults" not in document.value


def test_finding_points_at_the_file_that_writes_the_value(tmp_path: Path) -> None:
    configs = _tree(tmp_path, heads=19)  # 1280 / 19 is no head width
    findings, err, code = _check(str(configs / "experiment/owt/large.yaml"), "--verbose")
    (error,) = [f for f in findings if f["severity"] == "error"]
    assert error["code"] == "DL101"
    assert Path(str(error["file"])) == configs / "model/size/large.yaml"
    (alone,) = _check(str(configs / "model/size/large.yaml"))[0]
    assert (error["line"], error["column"]) == (alone["line"], alone["column"])
    assert error["fix"] is None  # --fix edits the file it lints, not the one composed in
    assert code == 1
    assert "trainer" not in err  # a file present is composed without a note
    # the whole tree: the value is reported once, with its own file's fix
    findings, _, _ = _check(str(configs))
    errors = [f for f in findings if f["severity"] == "error"]
    assert len(errors) == 1
    assert errors[0]["fix"] is not None


def test_self_order_decides_which_value_wins(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model/a.yaml").write_text("hidden_size: 4096\nnum_attention_heads: 32\n")
    first = "defaults:\n  - _self_\n  - model: a\n\nmodel:\n  hidden_size: 4100\n"
    (tmp_path / "first.yaml").write_text(first)
    assert _load(tmp_path / "first.yaml").value["model"]["hidden_size"] == 4096
    # without _self_, the file's own values come after its defaults and win
    last = "defaults:\n  - model: a\n\nmodel:\n  hidden_size: 4100\n  num_hidden_layers: 2\n"
    (tmp_path / "last.yaml").write_text(last)
    document = _load(tmp_path / "last.yaml")
    assert document.value["model"]["hidden_size"] == 4100
    findings, _, _ = _check(str(tmp_path / "last.yaml"))
    (error,) = [f for f in findings if f["severity"] == "error"]
    assert (Path(str(error["file"])).name, error["line"]) == ("last.yaml", 5)
    assert error["fix"] is not None


def test_option_lists_package_renames_and_absolute_groups(tmp_path: Path) -> None:
    for name, text in {
        "blocks/attn.yaml": "num_attention_heads: 16\n",
        "blocks/mlp.yaml": "intermediate_size: 8192\n",
        "width/w2k.yaml": "hidden_size: 2048\n",
        "model/base.yaml": "defaults:\n  - /width@net: w2k\n\nnum_hidden_layers: 24\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    text = "defaults:\n  - blocks@net: [attn, mlp]\n  - model@net: base\n  - _self_\n"
    (tmp_path / "train.yaml").write_text(text)
    value = _load(tmp_path / "train.yaml").value
    # /width@net inside model@net: a package is relative to its parent's (net.net)
    assert value["net"] == {
        "num_attention_heads": 16,
        "intermediate_size": 8192,
        "num_hidden_layers": 24,
        "net": {"hidden_size": 2048},
    }


@pytest.mark.parametrize(
    ("entry", "note"),
    [
        ("model: missing", "is not in the tree"),
        ("model: ???", "chosen on the command line"),
        ("model: ${oc.env:MODEL}", "an interpolated choice"),
        ("model: ../../etc", "a path outside the config folder"),
        ("/model: a.yml", "Hydra reads .yaml files only"),
    ],
)
def test_what_cannot_be_composed_is_a_verbose_note(tmp_path: Path, entry: str, note: str) -> None:
    text = f"defaults:\n  - {entry}\n  - optional extra: absent\n\nhidden_size: 4096\n"
    text += "num_attention_heads: 32\n"
    (tmp_path / "train.yaml").write_text(text)
    findings, err, code = _check(str(tmp_path / "train.yaml"), "--verbose")
    assert code == 0
    assert not [f for f in findings if f["severity"] == "error"]
    assert note in err
    assert "extra" not in err  # optional: absent is what it means


def test_hostile_defaults_stay_bounded(tmp_path: Path) -> None:
    # a config selecting itself, and two selecting each other: bounded, no traceback
    (tmp_path / "g").mkdir()
    (tmp_path / "g/a.yaml").write_text("defaults:\n  - b\nhidden_size: 7\n")
    (tmp_path / "g/b.yaml").write_text("defaults:\n  - a\nnum_attention_heads: 2\n")
    loop = "defaults:\n  - loop\n  - g: a\nhidden_size: 64\nnum_attention_heads: 4\n"
    (tmp_path / "loop.yaml").write_text(loop)
    findings, err, _ = _check(str(tmp_path / "loop.yaml"), "--verbose")
    assert "nested deeper than" in err
    assert "bug in dimlint" not in err + json.dumps(findings)
    # a defaults list of 10,000 entries is not composed (each would be a file to look for)
    many = "defaults:\n" + "".join(f"  - g{i}: x\n" for i in range(10_000))
    (tmp_path / "many.yaml").write_text(many + "hidden_size: 4096\nnum_attention_heads: 32\n")
    document = _load(tmp_path / "many.yaml")
    assert "defaults" in document.value
    assert any("more than 256" in note for note in document.notes)
    # a list that is not Hydra's (mappings of two keys) is left as it is
    other = "defaults:\n  - {a: 1, b: 2}\nhidden_size: 4096\nnum_attention_heads: 32\n"
    (tmp_path / "other.yaml").write_text(other)
    assert "defaults" in _load(tmp_path / "other.yaml").value


def test_noqa_of_the_primary_does_not_suppress_a_composed_finding(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model/a.yaml").write_text("hidden_size: 4100\nnum_attention_heads: 32\n")
    # line 1 of the primary carries a noqa; the finding is on line 1 of model/a.yaml
    text = "defaults:  # noqa: DL101\n  - model: a\n  - _self_\nmodel:\n  num_hidden_layers: 2\n"
    (tmp_path / "train.yaml").write_text(text)
    findings, _, _ = _check(str(tmp_path / "train.yaml"))
    assert [(Path(str(f["file"])).name, f["code"]) for f in findings if f["code"] == "DL101"] == [
        ("a.yaml", "DL101")
    ]


def test_a_layout_finding_through_a_primary_is_reported_once(tmp_path: Path) -> None:
    """FlagScale's trees (held-out batch 3): the group file states the parallel sizes beside
    its model, the primary composes it under ``train``; the DL405 found from each names the
    sizes' pointers in its own terms, and the run reports it once."""
    (tmp_path / "train").mkdir()
    (tmp_path / "train/big.yaml").write_text(
        "system:\n  pipeline_model_parallel_size: 3\n"
        "model:\n  num_layers: 8\n  hidden_size: 512\n  num_attention_heads: 8\n"
    )
    (tmp_path / "train.yaml").write_text("defaults:\n  - _self_\n  - train: big\n")
    found, _, _ = _check(str(tmp_path / "train.yaml"))
    (composed,) = [f for f in found if f["code"] == "DL405"]
    assert "/train/system/pipeline_model_parallel_size" in str(composed["message"])
    found, _, _ = _check(str(tmp_path))
    assert [f["line"] for f in found if f["code"] == "DL405"] == [4]
