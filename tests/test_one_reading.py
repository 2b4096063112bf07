"""One reading of a model: the same model written in every style dimlint reads — a JSON file, a
folder, a ``dict``, a transformers ``PretrainedConfig``, a Hub model in the HF cache, a training
YAML in two dialects, a Python file — gives the same parameter count and the same findings
through every door: ``check``, ``mem``, ``plan``, ``shapes``, the API and the language server
(its diagnostics, and the totals of its hover) on every file kind an editor opens.

All of them go through :func:`dimlint.lint.model_input.read_model`, which lints the source with
``check``'s own front ends and computes from the models those front ends read
(``FileResult.models``), so a YAML or Python file is no longer "no hidden size found" for
``mem`` while ``check`` reads it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import dimlint
from dimlint.cli import main

#: A small Llama with findings below error level (an FFN width off the 64 and 256 grids).
MODEL: dict[str, Any] = {
    "model_type": "llama",
    "hidden_size": 2048,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "num_hidden_layers": 4,
    "intermediate_size": 5640,
    "vocab_size": 32000,
    "max_position_embeddings": 4096,
    "tie_word_embeddings": False,
}
SHA = "0123456789abcdef0123456789abcdef01234567"


def _yaml_value(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _write_styles(root: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The model in every style: name → what a user passes (a path, an id or an object)."""
    folder = root / "json"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(MODEL, indent=2))
    styles: dict[str, Any] = {
        "json file": str(folder / "config.json"),
        "folder": str(folder),
        "dict": dict(MODEL),
    }
    nanotron = root / "nanotron.yaml"  # HF keys nested in a training file
    nanotron.write_text(
        "model:\n  model_config:\n"
        + "".join(f"    {k}: {_yaml_value(v)}\n" for k, v in MODEL.items())
    )
    styles["yaml (nanotron)"] = str(nanotron)
    megatron = root / "megatron.yaml"  # Megatron-LM / NeMo keys
    megatron.write_text(
        "model:\n  num_layers: 4\n  hidden_size: 2048\n  ffn_hidden_size: 5640\n"
        "  num_attention_heads: 16\n  num_query_groups: 4\n  max_position_embeddings: 4096\n"
        "  padded_vocab_size: 32000\n  activation: swiglu\n"
        "  share_embeddings_and_output_weights: false\n"
    )
    styles["yaml (megatron)"] = str(megatron)
    python = root / "model.py"
    arguments = ", ".join(f"{k}={v!r}" for k, v in MODEL.items() if k != "model_type")
    python.write_text(
        f"from transformers import LlamaConfig\n\nconfig = LlamaConfig({arguments})\n"
    )
    styles["python file"] = str(python)
    try:
        import transformers
    except ImportError:
        pass
    else:
        fields = {k: v for k, v in MODEL.items() if k != "model_type"}
        styles["PretrainedConfig"] = transformers.LlamaConfig(**fields)
    try:
        import huggingface_hub  # noqa: F401
    except ImportError:
        pass
    else:  # a Hub model the user downloaded once: read offline from the HF cache
        cache = root / "hf-cache"
        repo = cache / "models--acme--llama"
        (repo / "refs").mkdir(parents=True)
        (repo / "refs" / "main").write_text(SHA)
        (repo / "snapshots" / SHA).mkdir(parents=True)
        (repo / "snapshots" / SHA / "config.json").write_text(json.dumps(MODEL, indent=2))
        monkeypatch.setenv("HF_HUB_CACHE", str(cache))
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        monkeypatch.setenv("HF_HOME", str(root / "hf-home"))
        styles["hub (cache)"] = "hf://acme/llama"
    return styles


def run(*argv: str) -> tuple[int, Any]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    assert code in (0, 1), err.getvalue()
    return code, json.loads(out.getvalue())


@pytest.fixture
def styles(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.chdir(tmp_path)  # no settings file applies
    return _write_styles(tmp_path, monkeypatch)


def test_every_style_through_every_door(styles: dict[str, Any]) -> None:
    readings: dict[str, dict[str, Any]] = {}
    for name, source in styles.items():
        reading: dict[str, Any] = {}
        found = dimlint.check(source)
        reading["api check"] = sorted({d.code for d in found})
        reading["api mem"] = dimlint.mem(source)["params"]["total"]
        plan = dimlint.plan(source).data
        reading["api plan"] = {engine: entry["tp"] for engine, entry in plan["engines"].items()}
        if isinstance(source, str):  # the command line takes paths and Hub ids
            _, checked = run("check", source, "--no-config", "--output-format", "json")
            reading["check"] = sorted({f["code"] for f in checked})
            _, mem = run("mem", source, "--no-config", "--output-format", "json")
            reading["mem"] = mem["params"]["total"]
            _, plan = run("plan", source, "--no-config", "--output-format", "json")
            reading["plan"] = {engine: entry["tp"] for engine, entry in plan["engines"].items()}
            _, shapes = run("shapes", source, "--no-config", "--output-format", "json")
            reading["shapes"] = shapes["total"]
            if name != "yaml (megatron)":  # no model type: no family (see the test below)
                reading["suggest --like"] = _suggest("--like", source)
        readings[name] = reading
    reference = readings["json file"]
    assert reference["mem"] == reference["shapes"] == reference["api mem"] > 0
    assert reference["check"] == ["DL201", "DL302"]  # FFN width off the 64 and 256 grids
    for name, reading in readings.items():
        for door, value in reading.items():
            assert value == reference[door], (name, door)
    assert len(readings) >= 6
    # a model like this one: its family's conventions and its tokenizer, as when named
    assert reference["suggest --like"] == _suggest("--like", "llama", "--vocab", "32000")


def _suggest(*argv: str) -> Any:
    """``suggest``'s JSON for a 1B model (the request and the candidates it ranks)."""
    code, found = run("suggest", "--params", "1B", "--top", "3", "--output-format", "json", *argv)
    assert code == 0
    return found


def test_suggest_like_an_invalid_model_is_refused_as_mem_refuses_it(tmp_path: Path) -> None:
    """A reference model with an error-level finding (32 heads over 6 KV heads, DL102): its
    findings and exit 1, as ``mem`` — without ``mem``'s --force hint (suggest has none)."""
    folder = tmp_path / "kv6"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**MODEL, "num_key_value_heads": 6}))
    out, err = io.StringIO(), io.StringIO()
    assert main(["suggest", "--params", "1B", "--like", str(folder)], out, err) == 1
    assert "DL102" in out.getvalue()
    assert err.getvalue() == (
        "dimlint: suggest: the config has errors (shown above); nothing was computed from it\n"
    )
    err = io.StringIO()
    assert main(["mem", str(folder), "--no-config"], io.StringIO(), err) == 1
    assert "--force computes anyway" in err.getvalue()


def test_suggest_like_a_model_without_a_type_is_a_usage_error(styles: dict[str, Any]) -> None:
    """Megatron's keys say nothing of the family (``model_type``): ``suggest --like`` refuses
    it in one line, naming why, rather than guessing Llama's conventions."""
    err = io.StringIO()
    code = main(
        ["suggest", "--params", "1B", "--like", styles["yaml (megatron)"]], io.StringIO(), err
    )
    assert code == 2
    assert "a model that states no model type" in err.getvalue()
    assert len(err.getvalue().splitlines()) == 1
    missing = styles["yaml (megatron)"].replace("megatron", "absent")
    err = io.StringIO()
    assert main(["suggest", "--params", "1B", "--like", missing], io.StringIO(), err) == 2
    assert err.getvalue().startswith(f"dimlint: error: --like: {missing}: cannot read")


#: The styles an editor opens as files (the server sees no folder, dict, object or Hub id).
EDITOR_STYLES = ("json file", "yaml (nanotron)", "yaml (megatron)", "python file")


def test_the_server_reads_every_file_kind_as_the_other_doors(styles: dict[str, Any]) -> None:
    """The server's diagnostics are ``check``'s findings and its hover's totals ``mem``'s, on
    the text of each file as an editor holds it: both go through the one reading."""
    from dimlint.commands.server.config import ServerSettings
    from dimlint.commands.server.hover import _count, mem_figures
    from dimlint.commands.server.linting import lint_text
    from dimlint.commands.server.targets_at import hover_model, hover_text

    server = ServerSettings()
    totals = {}
    for name in EDITOR_STYLES:
        path = styles[name]
        text = Path(path).read_text(encoding="utf-8")
        resolved = server.resolve(path)
        outcome = lint_text(path, text, resolved.selection)
        _, checked = run("check", path, "--no-config", "--output-format", "json")
        assert sorted({d.code for d in outcome.diagnostics}) == sorted(
            {f["code"] for f in checked}
        ), name
        assert len(outcome.diagnostics) == len(checked), name
        offset = text.index("hidden_size") + 2
        found = hover_model(path, text, offset, resolved.settings)
        assert found is not None, name
        hit, model = found
        assert hit.field == "hidden", name
        assert model is not None, name
        figures = mem_figures(path, model.specs)
        assert figures is not None, name
        _, mem = run("mem", path, "--no-config", "--output-format", "json")
        totals[name] = figures.report["params"]["total"]
        assert totals[name] == mem["params"]["total"], name
        assert figures.report["kv_cache"]["bytes"] == mem["kv_cache"]["bytes"], name
        shown = hover_text(path, text, offset, None, resolved.settings)
        assert shown is not None, name
        assert _count(totals[name]) in shown[0], name
    assert len(set(totals.values())) == 1, totals


def test_a_nanogpt_file_is_read_by_mem_as_check_reads_it(tmp_path: Path) -> None:
    """``mem`` on a Python file computes from the config ``check`` read in it (it used to say
    "no hidden size found: is this a model config?")."""
    path = tmp_path / "model.py"
    path.write_text(
        "from dataclasses import dataclass\n\n@dataclass\nclass GPTConfig:\n"
        "    block_size: int = 1024\n    vocab_size: int = 50304\n    n_layer: int = 12\n"
        "    n_head: int = 12\n    n_embd: int = 768\n"
    )
    code, checked = run("check", str(path), "--no-config", "--output-format", "json")
    assert code == 0
    assert checked == []
    for command, key in (("mem", "params"), ("shapes", "layers"), ("plan", "engines")):
        code, document = run(command, str(path), "--no-config", "--output-format", "json")
        assert code == 0
        assert document[key]
    assert run("shapes", str(path), "--output-format", "json")[1]["layers"] == 12


def test_read_text_is_read_model_of_a_buffer(styles: dict[str, Any]) -> None:
    """The entry point of an editor's unsaved buffer (the language server's hover) reads the
    text as ``read_model`` reads the file."""
    from dimlint.lint.model_input import read_model, read_text
    from dimlint.lint.settings import Settings

    for name in ("json file", "yaml (megatron)", "python file"):
        path = styles[name]
        on_disk = read_model(path, no_config=True)
        in_hand = read_text(path, Path(path).read_bytes(), Settings())
        assert _signature(in_hand.specs) == _signature(on_disk.specs), name
    broken = Path(styles["json file"]).read_bytes().replace(b"2048", b"2050", 1)
    with pytest.raises(dimlint.RejectedInput, match="DL101"):
        read_text(styles["json file"], broken, Settings())


def _signature(specs: list[Any]) -> list[tuple[Any, ...]]:
    def value(located: Any) -> Any:
        return None if located is None else located.value

    return [
        (s.pointer, s.model_type, s.raw, value(s.hidden), value(s.heads), value(s.layers))
        for s in specs
    ]


def test_nanogpt_counts_the_same_through_every_door(tmp_path: Path) -> None:
    """nanoGPT's ``GPTConfig`` (its dialect identified): ``mem``, ``shapes``, the API and the
    server's hover give the count torch builds for GPT-2 small at 50,304 tokens (the hover
    showed 191 M, a Llama-like guess, once)."""
    from dimlint.commands.server.hover import mem_figures
    from dimlint.commands.server.targets_at import hover_model

    path = tmp_path / "model.py"
    text = (
        "from dataclasses import dataclass\n\n@dataclass\nclass GPTConfig:\n"
        "    block_size: int = 1024\n    vocab_size: int = 50304\n    n_layer: int = 12\n"
        "    n_head: int = 12\n    n_embd: int = 768\n    dropout: float = 0.0\n"
        "    bias: bool = True\n"
    )
    path.write_text(text)
    torch_count = 124_475_904  # tests/test_memory_nanogpt.py: hand derivation and meta builds
    assert run("mem", str(path), "--no-config", "--output-format", "json")[1]["params"] == {
        **dimlint.mem(str(path))["params"],
        "total": torch_count,
    }
    assert run("shapes", str(path), "--no-config", "--output-format", "json")[1]["total"] == (
        torch_count
    )
    found = hover_model(str(path), text, text.index("n_embd") + 1)
    assert found is not None
    assert found[1] is not None
    figures = mem_figures(str(path), found[1].specs)
    assert figures is not None
    assert figures.report["params"]["total"] == torch_count
    assert figures.report["params"]["exact"] is True
