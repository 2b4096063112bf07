"""Hub ids where users install them: a fresh process with ``huggingface_hub`` and *without*
transformers or torch (``pip install 'dimlint[hub]'``).

In a process where nothing imported ``huggingface_hub.constants`` first, reading it as an
attribute of the lazy package failed ("No huggingface_hub attribute constants"); the in-process
tests of ``test_hub.py`` could not see it because transformers (or an earlier test) had imported
the submodule. So every test here runs ``dimlint`` in a new interpreter in which importing
``transformers`` or ``torch`` fails, against a pre-filled HF cache (offline) or the local stand-in
Hub of :mod:`tests.hubserver` (online). Nothing here needs torch: the model's safetensors file is
written by hand. ``.ci/run`` runs this file in a virtual environment that has only the ``[hub]``
and ``[dev]`` extras.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("huggingface_hub")

from tests.hubserver import SHA, FakeHub, Repo, serve

REPO_ROOT = Path(__file__).resolve().parent.parent

#: A small llama whose config says 4 KV heads while its weights hold 2 (DL610 on the Hub).
CONFIG: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 4,
    "head_dim": 16,
    "vocab_size": 256,
    "max_position_embeddings": 128,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
WEIGHT_KV_HEADS = 2
JSON = ("--output-format", "json")

#: Runs ``dimlint`` with the modules named in argv[1] (comma-separated) made unimportable.
LAUNCH = """
import sys
for name in filter(None, sys.argv[1].split(",")):
    sys.modules[name] = None  # import fails as if not installed
from dimlint.cli import main
sys.exit(main(sys.argv[2:]))
"""


def _tensors() -> dict[str, list[int]]:
    hidden, inter, vocab = CONFIG["hidden_size"], CONFIG["intermediate_size"], CONFIG["vocab_size"]
    heads, head_dim = CONFIG["num_attention_heads"], CONFIG["head_dim"]
    shapes = {"model.embed_tokens.weight": [vocab, hidden], "model.norm.weight": [hidden]}
    shapes["lm_head.weight"] = [vocab, hidden]
    for layer in range(CONFIG["num_hidden_layers"]):
        at = f"model.layers.{layer}"
        shapes |= {
            f"{at}.input_layernorm.weight": [hidden],
            f"{at}.post_attention_layernorm.weight": [hidden],
            f"{at}.self_attn.q_proj.weight": [heads * head_dim, hidden],
            f"{at}.self_attn.k_proj.weight": [WEIGHT_KV_HEADS * head_dim, hidden],
            f"{at}.self_attn.v_proj.weight": [WEIGHT_KV_HEADS * head_dim, hidden],
            f"{at}.self_attn.o_proj.weight": [hidden, heads * head_dim],
            f"{at}.mlp.gate_proj.weight": [inter, hidden],
            f"{at}.mlp.up_proj.weight": [inter, hidden],
            f"{at}.mlp.down_proj.weight": [hidden, inter],
        }
    return shapes


def _safetensors(shapes: dict[str, list[int]]) -> bytes:
    """A bf16 safetensors file of zeros with these tensors, written as the format says."""
    header: dict[str, Any] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for name, shape in shapes.items():
        size = 2
        for dim in shape:
            size *= dim
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + bytes(offset)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fresh") / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(CONFIG, indent=2) + "\n")
    (folder / "tokenizer_config.json").write_text(json.dumps({"added_tokens_decoder": {}}))
    (folder / "model.safetensors").write_bytes(_safetensors(_tensors()))
    return folder


@pytest.fixture
def hub(model: Path) -> Iterator[FakeHub]:
    with serve(FakeHub({"acme/model": Repo.from_folder(model)})) as fake:
        yield fake


def dimlint(
    tmp_path: Path, *argv: str, endpoint: str = "http://127.0.0.1:9", **env: str
) -> tuple[int, str, str]:
    """``dimlint *argv`` in a new interpreter without transformers and torch, its HF state
    (cache, token, settings) under ``tmp_path``; ``blocked`` adds modules to make unimportable."""
    blocked = ",".join(["transformers", "torch", *env.pop("blocked", "").split(",")])
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("HF_", "HUGGINGFACE_")) and key != "PYTHONPATH"
    }
    environment |= {
        "PYTHONPATH": str(REPO_ROOT),
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_CACHE": str(tmp_path / "cache"),
        "HF_ENDPOINT": endpoint,
        "HF_HUB_OFFLINE": "0",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        **env,
    }
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, blocked, *argv],
        capture_output=True,
        text=True,
        cwd=work,
        env=environment,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def one_line(err: str) -> str:
    assert "Traceback" not in err
    assert "internal error" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def local_findings(tmp_path: Path, folder: Path, root: str) -> list[dict[str, Any]]:
    """``check`` on the folder itself, its paths written as the Hub model's."""
    code, out, err = dimlint(tmp_path, "check", str(folder), "--no-config", *JSON)
    assert code in (0, 1), err
    return [{**f, "file": f["file"].replace(str(folder), root)} for f in json.loads(out)]


def test_check_online_in_a_fresh_process(hub: FakeHub, model: Path, tmp_path: Path) -> None:
    code, out, err = dimlint(
        tmp_path, "check", "acme/model", "--no-config", *JSON, endpoint=hub.url
    )
    assert code == 1, err
    assert err == ""
    found = json.loads(out)
    assert any(f["code"] == "DL610" for f in found), found
    assert found == local_findings(tmp_path, model, f"hf://acme/model@{SHA}")
    # the shard's header was read by range requests, never its tensor data
    header = 8 + struct.unpack("<Q", (model / "model.safetensors").read_bytes()[:8])[0]
    assert hub.served["acme/model", "model.safetensors"] == header


@pytest.mark.parametrize("command", ["mem", "plan", "shapes"])
def test_commands_online_in_a_fresh_process(
    hub: FakeHub, model: Path, tmp_path: Path, command: str
) -> None:
    code, out, err = dimlint(tmp_path, command, "hf://acme/model", *JSON, endpoint=hub.url)
    assert code == 0, err
    code, local, err = dimlint(tmp_path, command, str(model / "config.json"), *JSON)
    assert code == 0, err
    remote = json.loads(out)
    assert remote["path"] == f"hf://acme/model@{SHA}/config.json"
    assert {**remote, "path": None} == {**json.loads(local), "path": None}


def _prefilled_cache(cache: Path, config: bytes) -> None:
    """The HF cache layout ``hf_hub_download`` leaves: ``refs/main`` names the commit, the
    snapshot folder of that commit holds the file."""
    repo = cache / "models--acme--model"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(SHA)
    snapshot = repo / "snapshots" / SHA
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_bytes(config)


def test_offline_from_a_prefilled_cache(model: Path, tmp_path: Path) -> None:
    _prefilled_cache(tmp_path / "cache", (model / "config.json").read_bytes())
    only_config = tmp_path / "only-config"
    only_config.mkdir()
    (only_config / "config.json").write_bytes((model / "config.json").read_bytes())
    code, out, err = dimlint(
        tmp_path, "check", "acme/model", "--no-config", *JSON, HF_HUB_OFFLINE="1"
    )
    assert err == ""
    assert code == 0
    assert json.loads(out) == local_findings(tmp_path, only_config, f"hf://acme/model@{SHA}")
    code, out, err = dimlint(tmp_path, "mem", "acme/model", *JSON, HF_HUB_OFFLINE="1")
    assert code == 0, err
    assert json.loads(out)["path"] == f"hf://acme/model@{SHA}/config.json"
    code, out, err = dimlint(tmp_path, "check", "acme/other", "--no-config", HF_HUB_OFFLINE="1")
    assert code == 2
    assert "HF_HUB_OFFLINE" in one_line(err)
    assert "All checks passed" not in out


@pytest.mark.parametrize(
    ("source", "blocked", "expected"),
    [
        ("acme/missing", "", "no such model repository, or it is private"),
        ("hf://acme/model@v9", "", "no revision 'v9'"),
        ("acme/model", "huggingface_hub", "pip install 'dimlint[hub]'"),
    ],
)
@pytest.mark.parametrize("command", ["check", "mem"])
def test_failures_are_one_line_and_exit_2(
    hub: FakeHub, tmp_path: Path, command: str, source: str, blocked: str, expected: str
) -> None:
    code, out, err = dimlint(tmp_path, command, source, endpoint=hub.url, blocked=blocked)
    assert code == 2, (out, err)
    assert expected in one_line(err)
    assert "All checks passed" not in out


def test_a_network_error_is_one_line(tmp_path: Path) -> None:
    code, out, err = dimlint(tmp_path, "check", "acme/model")  # nothing listens on port 9
    assert code == 2
    assert "network error" in one_line(err)
    assert "All checks passed" not in out
    assert "1 input not checked" in out


@pytest.mark.parametrize(
    "path",
    ["configs/train.yaml", "org/model.yml", "org/name.toml", "./org/name", "a/b/c", "x/run.sh"],
)
def test_paths_that_look_like_files_never_reach_the_hub(
    hub: FakeHub, tmp_path: Path, path: str
) -> None:
    code, out, err = dimlint(tmp_path, "check", path, endpoint=hub.url)
    assert code == 2
    assert "no such file" in one_line(err)
    assert "All checks passed" not in out
    assert hub.requests == []


API = """
import sys
sys.modules["transformers"] = sys.modules["torch"] = None
import dimlint
try:
    dimlint.check(sys.argv[1])
except dimlint.UsageError as error:
    print(type(error).__name__, error)
"""


def test_the_api_raises_a_usage_error_offline(tmp_path: Path) -> None:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    environment |= {
        "PYTHONPATH": str(REPO_ROOT),
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_HUB_OFFLINE": "1",
    }
    done = subprocess.run(
        [sys.executable, "-c", API, "acme/model"],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert done.stderr == ""
    expected = "HubError hf://acme/model: config.json: not in the local HF cache"
    assert done.stdout.startswith(expected)
