"""Hub ids (``hf://org/name[@rev]``) through ``huggingface_hub`` against a local stand-in Hub.

The client is the real ``huggingface_hub``; the server (:mod:`tests.hubserver`) answers the way
the Hub does and counts the bytes it sends, so the tests show that the checkpoint cross-check
reads only safetensors headers (8 + N bytes per shard, derived below from the files themselves),
that the HF cache is reused and honoured offline, and that each failure is one line, exit 2.
"""

from __future__ import annotations

import io
import json
import os
import struct
import sys
from pathlib import Path
from typing import Any

import pytest

from dimlint.cli import main
from dimlint.sources.hub import HubId, parse_hub_id

pytest.importorskip("huggingface_hub")

from tests.hubserver import SHA, FakeHub, hub, llama

__all__ = ["hub", "llama"]  # fixtures


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def _header_bytes(shard: Path) -> int:
    with shard.open("rb") as handle:
        return 8 + int(struct.unpack("<Q", handle.read(8))[0])


def _local_findings(folder: Path, *extra: str) -> list[dict[str, Any]]:
    code, out, _ = run("check", str(folder), "--no-config", "--output-format", "json", *extra)
    assert code in (0, 1)
    return list(json.loads(out))


def _as_hub(finding: dict[str, Any], folder: Path, root: str) -> dict[str, Any]:
    return {**finding, "file": finding["file"].replace(str(folder), root)}


def test_sharded_checkpoint_checked_from_headers_only(hub: FakeHub, llama: Path) -> None:
    code, out, err = run("check", "hf://org/llama", "--no-config", "--output-format", "json")
    assert code == 1, err
    found = json.loads(out)
    dl610 = [f for f in found if f["code"] == "DL610"]
    assert dl610, found
    assert all(f["file"] == f"hf://org/llama@{SHA}/config.json" for f in dl610)
    assert all(f["pointer"] == "/num_key_value_heads" for f in dl610)
    # the same findings, line for line, as the same files checked locally
    local = [_as_hub(f, llama, f"hf://org/llama@{SHA}") for f in _local_findings(llama)]
    assert found == local
    # only headers were read: per shard exactly its 8-byte length and its JSON
    shards = sorted(llama.glob("model-*.safetensors"))
    assert len(shards) > 1
    for shard in shards:
        assert hub.served["org/llama", shard.name] == _header_bytes(shard)
    total = sum(shard.stat().st_size for shard in shards)
    read = sum(hub.served["org/llama", shard.name] for shard in shards)
    assert read < total / 10, (read, total)
    ranges = [r for method, path, r in hub.requests if path.endswith(".safetensors")]
    assert ranges
    assert all(r is not None and r.startswith("bytes=") for r in ranges)


def test_a_server_that_ignores_ranges(hub: FakeHub, llama: Path) -> None:
    """A mirror that answers a range request with the whole file: the client still reads only
    the header's bytes of the stream and gets the same findings."""
    code, out, _ = run("check", "hf://org/norange", "--no-config", "--output-format", "json")
    assert code == 1
    local = [_as_hub(f, llama, f"hf://org/norange@{SHA}") for f in _local_findings(llama)]
    assert json.loads(out) == local


def test_outputs_name_the_hub_file(hub: FakeHub) -> None:
    code, out, _ = run("check", "org/llama", "--no-config", "--output-format", "github")
    assert code == 1
    assert f"file=hf%3A//org/llama@{SHA}/config.json,line=" in out  # ":" escaped as GitHub asks
    code, out, _ = run("check", "hf://org/llama@main", "--no-config", "--output-format", "sarif")
    locations = [
        result["locations"][0]["physicalLocation"]
        for result in json.loads(out)["runs"][0]["results"]
    ]
    assert {loc["artifactLocation"]["uri"] for loc in locations} == {
        f"hf://org/llama@{SHA}/config.json"
    }
    assert all(loc["region"]["startLine"] > 1 for loc in locations)


def test_no_weights_reads_no_shard(hub: FakeHub) -> None:
    code, out, _ = run("check", "hf://org/llama", "--no-config", "--no-weights")
    assert code == 0, out
    assert not any(path.endswith(".safetensors") for _, path, _ in hub.requests)


def test_fix_never_writes_to_a_hub_model(hub: FakeHub, tmp_path: Path) -> None:
    run("check", "hf://org/llama", "--no-config")  # the cache holds the config now
    before = {p: p.read_bytes() for p in (tmp_path / "cache").rglob("*") if p.is_file()}
    assert any(p.name == "config.json" for p in before)
    code, _, err = run("check", "hf://org/llama", "--no-config", "--fix", "--unsafe-fixes")
    assert code == 1
    assert "not fixed: a Hub model has no file here to write" in one_line(err)
    for path, data in before.items():
        assert path.read_bytes() == data


def test_the_cache_is_reused(hub: FakeHub) -> None:
    run("check", "hf://org/llama", "--no-config")
    config_bytes = hub.served["org/llama", "config.json"]
    assert config_bytes > 0
    run("check", "hf://org/llama", "--no-config")
    assert hub.served["org/llama", "config.json"] == config_bytes  # not fetched again


def test_offline_from_a_filled_cache(
    hub: FakeHub, llama: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import huggingface_hub

    online = run("check", "hf://org/llama", "--no-config", "--output-format", "json")
    for shard in llama.glob("model-*.safetensors"):  # the user downloaded the weights once
        huggingface_hub.hf_hub_download(
            "org/llama", shard.name, endpoint=hub.url, cache_dir=tmp_path / "cache"
        )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # nothing listens there
    before = len(hub.requests)
    offline = run("check", "hf://org/llama", "--no-config", "--output-format", "json")
    assert offline[2] == ""
    assert json.loads(offline[1]) == json.loads(online[1])
    assert offline[0] == online[0]
    assert len(hub.requests) == before
    code, _, err = run("check", "hf://org/never-fetched", "--no-config")
    assert code == 2
    assert "HF_HUB_OFFLINE" in one_line(err)


def test_gated_repository(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run("check", "hf://org/gated", "--no-config")
    assert code == 2, out
    line = one_line(err)
    assert "hf://org/gated" in line
    assert "gated" in line
    assert "HF_TOKEN" in line
    monkeypatch.setenv("HF_TOKEN", "hf_secret")
    code, out, err = run("check", "hf://org/gated", "--no-config", "--output-format", "json")
    assert code == 1, err
    assert any(f["code"] == "DL610" for f in json.loads(out))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("hf://org/missing", "no such model repository, or it is private"),
        ("org/missing", "no local path org/missing exists either"),
        ("hf://org/llama@v9", "no revision 'v9'"),
        ("hf://org/noconfig", "config.json: no such file in the repository"),
        ("hf://org/dropping", "network error"),
        ("hf://org/huge", "config.json is 40960 MiB; model configs are a few KB"),
    ],
)
def test_failures_are_one_line(hub: FakeHub, source: str, expected: str) -> None:
    code, out, err = run("check", source, "--no-config")
    assert code == 2, (out, err)
    assert expected in one_line(err)
    assert not any("/org/huge/resolve/" in path for _, path, _ in hub.requests)
    if source == "hf://org/dropping":
        return  # the connection drops on the shards: mem, plan and shapes do not read them
    for command in ("mem", "plan", "shapes"):
        code, _, err = run(command, source)
        assert code == 2
        assert expected in one_line(err)


def test_other_paths_are_still_checked(hub: FakeHub, llama: Path) -> None:
    code, out, err = run(
        "check", "hf://org/missing", str(llama), "--no-config", "--output-format", "json"
    )
    assert code == 2
    assert "hf://org/missing" in one_line(err)
    assert json.loads(out) == _local_findings(llama)


def test_unreachable_hub(hub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    code, _, err = run("check", "hf://org/llama", "--no-config")
    assert code == 2
    assert "hf://org/llama" in one_line(err)


@pytest.mark.parametrize("command", ["mem", "plan", "shapes"])
def test_commands_accept_hub_ids(hub: FakeHub, llama: Path, command: str) -> None:
    code, out, err = run(command, "hf://org/llama", "--output-format", "json")
    assert code == 0, err
    _, local, _ = run(command, str(llama), "--output-format", "json")
    remote = json.loads(out)
    expected = json.loads(local)
    assert remote["path"] == f"hf://org/llama@{SHA}/config.json"
    assert {**remote, "path": None} == {**expected, "path": None}


def test_a_local_folder_wins_over_the_hub(
    hub: FakeHub, llama: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = tmp_path / "work" / "org" / "llama"
    local.mkdir(parents=True)
    (local / "config.json").write_bytes((llama / "config.json").read_bytes())
    monkeypatch.chdir(tmp_path / "work")
    code, out, _ = run("plan", "org/llama", "--output-format", "json")
    assert code == 0
    assert json.loads(out)["path"] == os.path.join("org", "llama", "config.json")
    code, out, _ = run("check", "org/llama", "--no-config", "--output-format", "json")
    assert code in (0, 1)
    assert {f["file"] for f in json.loads(out)} <= {os.path.join("org", "llama", "config.json")}
    assert hub.requests == []


def test_without_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)  # import fails as if not installed
    code, _, err = run("check", "hf://org/llama", "--no-config")
    assert code == 2
    assert "pip install 'dimlint[hub]'" in one_line(err)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("hf://Qwen/Qwen2-7B", HubId("Qwen/Qwen2-7B")),
        ("hf://org/name@v1.0", HubId("org/name", "v1.0")),
        ("hf://org/name@refs/pr/3", HubId("org/name", "refs/pr/3")),
        ("hf://gpt2", HubId("gpt2")),
        ("meta-llama/Llama-3.1-70B", HubId("meta-llama/Llama-3.1-70B", bare=True)),
        ("org/name@main", HubId("org/name", "main", bare=True)),
        ("gpt2", None),  # a bare single name is a (missing) local path
        ("models/config.json", None),  # a typo of a local file, not a Hub id
        ("a/b/c", None),
        ("./org/name", None),
        ("org/../name", None),
    ],
)
def test_spelling(text: str, expected: HubId | None) -> None:
    assert parse_hub_id(text) == expected


@pytest.mark.parametrize("text", ["hf://", "hf://a/b/c", "hf://org/name@", "hf://../x"])
def test_malformed_hub_ids_are_usage_errors(text: str) -> None:
    code, _, err = run("check", text, "--no-config")
    assert code == 2
    assert "not a Hub model id" in one_line(err)
