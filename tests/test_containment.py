"""Containment by real paths (issue 25): every guard that keeps a read or write inside a tree
refuses a sibling folder whose name extends the root's (``tree/`` against ``tree-evil/``).

A string-prefix comparison gets exactly this case wrong, and no other test of the suite would
notice: each guard has its own test here, and ``check tree/ --fix`` through a symlink is run end
to end.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest
from conftest import llama_json

from dimlint.cli import main
from dimlint.fix.apply import write_refusal
from dimlint.lint.discovery import discover
from dimlint.report.sarif import artifact_uri
from dimlint.sources.checkpoint import shard_outside
from dimlint.sources.confine import within, within_any
from dimlint.sources.hub import HubError, HubId, parse_hub_id


def _run(*args: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", "--no-config", *map(str, args)], out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    """``tree/`` and its sibling ``tree-evil/``, whose name starts with the tree's."""
    tree, evil = tmp_path / "tree", tmp_path / "tree-evil"
    tree.mkdir()
    evil.mkdir()
    return tree, evil


# --- the helper ---------------------------------------------------------------------------------


def test_within_compares_whole_components(trees: tuple[Path, Path]) -> None:
    tree, evil = trees
    (tree / "sub").mkdir()
    assert within(str(tree / "sub" / "x.json"), str(tree))
    assert within(str(tree), str(tree))
    assert within(str(tree / "x.json"), str(tree) + os.sep)  # a root spelled with its separator
    assert not within(str(evil / "x.json"), str(tree))
    assert not within(str(evil / "x.json"), str(tree) + os.sep)
    assert not within(str(tree.parent), str(tree))
    assert not within(str(tree / ".." / "tree-evil" / "x.json"), str(tree))


def test_within_follows_links_on_both_sides(trees: tuple[Path, Path]) -> None:
    tree, evil = trees
    (tree / "escape").symlink_to(evil)
    assert not within(str(tree / "escape" / "x.json"), str(tree))
    alias = tree.parent / "alias"
    alias.symlink_to(tree)  # the root named through a link is the same root
    assert within(str(tree / "x.json"), str(alias))
    assert within_any(str(evil / "x.json"), [str(tree), str(evil)])
    assert not within_any(str(evil / "x.json"), [str(tree)])
    assert not within_any(str(evil / "x.json"), [])


# --- fix/apply: --fix writes only inside the folders checked ------------------------------------


def test_write_refusal_refuses_the_sibling_folder(trees: tuple[Path, Path]) -> None:
    tree, evil = trees
    victim = evil / "victim.json"
    victim.write_text(llama_json())
    link = tree / "config.json"
    link.symlink_to(Path("..") / "tree-evil" / "victim.json")
    for root in (str(tree), str(tree) + os.sep):
        refusal = write_refusal(str(link), [os.path.realpath(root)])
        assert refusal == f"it is a link to {os.path.realpath(victim)}, outside the folders checked"
    inside = tree / "inside.json"
    inside.write_text(llama_json())
    assert write_refusal(str(inside), [os.path.realpath(tree)]) is None


@pytest.mark.parametrize("spelling", ["tree/", "tree"])
def test_check_fix_through_a_symlink_into_the_sibling_is_refused(
    trees: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    """The issue's case end to end: ``dimlint check tree/ --fix`` and ``tree-evil/victim.json``."""
    tree, evil = trees
    victim = evil / "victim.json"
    victim.write_text(llama_json(num_hidden_layers=32.0))  # DL003 with a safe fix: write 32
    before = victim.read_bytes()
    (tree / "config.json").symlink_to(Path("..") / "tree-evil" / "victim.json")
    monkeypatch.chdir(tree.parent)
    code, out, err = _run(spelling, "--fix")
    assert victim.read_bytes() == before
    assert code == 1
    assert "DL003" in out
    real = os.path.realpath(victim)
    assert f"fix not written: it is a link to {real}, outside the folders checked" in err
    # the same fix inside the tree is written: the guard is what refused it
    (tree / "config.json").unlink()
    (tree / "config.json").write_bytes(before)
    code, _, err = _run(spelling, "--fix")
    assert (code, err) == (0, "")
    assert json.loads((tree / "config.json").read_text())["num_hidden_layers"] == 32


# --- sources/checkpoint: shards stay in the model folder ---------------------------------------


def test_shard_linking_into_the_sibling_is_not_read(trees: tuple[Path, Path]) -> None:
    tree, evil = trees
    (evil / "model.safetensors").write_bytes(b"\0" * 8)
    (tree / "model.safetensors").symlink_to(Path("..") / "tree-evil" / "model.safetensors")
    real = os.path.realpath(evil / "model.safetensors")
    assert shard_outside(str(tree), "model.safetensors") == (
        f"the shard 'model.safetensors' resolves to {real}, outside the model folder: not read"
    )
    assert shard_outside(str(tree) + os.sep, "model.safetensors") is not None
    (tree / "own.safetensors").write_bytes(b"\0" * 8)
    assert shard_outside(str(tree), "own.safetensors") is None


def test_shard_naming_the_model_folder_itself_is_not_read(trees: tuple[Path, Path]) -> None:
    tree, _ = trees
    assert shard_outside(str(tree), ".") is not None


@pytest.mark.parametrize("local", [True, False])
def test_shard_climbing_with_dot_dot_is_refused_by_name(
    trees: tuple[Path, Path], local: bool
) -> None:
    """``..`` is refused before any path is resolved: for a Hub repository (``local=False``) the
    name is all there is to judge."""
    tree, evil = trees
    (evil / "x.safetensors").write_bytes(b"\0" * 8)
    for name in ("../tree-evil/x.safetensors", "sub/../../tree-evil/x.safetensors", "..\\x"):
        found = shard_outside(str(tree), name, local=local)
        assert "climbs out of the model folder with '..'" in (found or ""), name
    assert shard_outside(str(tree), "a..b.safetensors", local=local) is None  # a dotted name


def test_hf_cache_blobs_are_inside_but_a_sibling_cache_folder_is_not(tmp_path: Path) -> None:
    repo = tmp_path / "models--org--name"
    snapshot = repo / "snapshots" / ("0" * 40)
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir()
    (repo / "blobs" / "abc").write_bytes(b"\0" * 8)
    (snapshot / "model.safetensors").symlink_to(Path("..") / ".." / "blobs" / "abc")
    assert shard_outside(str(snapshot), "model.safetensors") is None
    evil = tmp_path / "models--org--name-evil" / "blobs"
    evil.mkdir(parents=True)
    (evil / "abc").write_bytes(b"\0" * 8)
    (snapshot / "other.safetensors").symlink_to(evil / "abc")
    found = shard_outside(str(snapshot), "other.safetensors")
    assert "outside the model folder" in (found or "")


def test_check_reports_a_shard_in_the_sibling_folder(trees: tuple[Path, Path]) -> None:
    tree, evil = trees
    (tree / "config.json").write_text(llama_json())
    index = {"metadata": {"total_size": 8}, "weight_map": {"lm_head.weight": "model-1.safetensors"}}
    (tree / "model.safetensors.index.json").write_text(json.dumps(index))
    (evil / "model-1.safetensors").write_bytes(b"\x02\0\0\0\0\0\0\0{}")
    (tree / "model-1.safetensors").symlink_to(Path("..") / "tree-evil" / "model-1.safetensors")
    code, out, _ = _run("--output-format", "json", tree)
    messages = [f["message"] for f in json.loads(out)]
    real = os.path.realpath(evil / "model-1.safetensors")
    assert any(f"resolves to {real}, outside the model folder" in m for m in messages), messages
    assert code == 1


# --- sources/hub: a Hub id never climbs ---------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["hf://org/a..b", "hf://org/name@v1..v2", "hf://org/name@main/../../x", "hf://a..b"]
)
def test_hub_ids_with_dot_dot_are_refused(text: str) -> None:
    with pytest.raises(HubError, match="not a Hub model id"):
        parse_hub_id(text)


def test_bare_names_with_dot_dot_are_local_paths() -> None:
    assert parse_hub_id("org/a..b") is None
    assert parse_hub_id("org/name@a..b") is None
    assert parse_hub_id("org/a.b@v1.0") == HubId("org/a.b", "v1.0", bare=True)  # dots alone pass


# --- lint/discovery: a link out of the walked tree is checked under its own name ---------------


def test_walk_checks_a_link_into_the_sibling_under_its_name(trees: tuple[Path, Path]) -> None:
    tree, evil = trees
    (evil / "config.json").write_text(llama_json())
    (tree / "config.json").symlink_to(Path("..") / "tree-evil" / "config.json")
    passed: list[tuple[str, str]] = []
    found = [t.path for t in discover([str(tree)], passed_over=lambda p, r: passed.append((p, r)))]
    assert found == [str(tree / "config.json")]
    assert passed == []


def test_walk_skips_a_link_to_a_file_it_checks_anyway(trees: tuple[Path, Path]) -> None:
    tree, _ = trees
    (tree / "real").mkdir()
    (tree / "real" / "config.json").write_text(llama_json())
    (tree / "config.json").symlink_to(Path("real") / "config.json")
    found = [t.path for t in discover([str(tree)])]
    assert found == [str(tree / "real" / "config.json")]


# --- report/sarif: a file whose name starts with '..' is in the working folder ----------------


def test_sarif_uri_of_a_dotted_name_in_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert artifact_uri("..config.json") == "..config.json"
    assert artifact_uri(str(tmp_path / "a" / "config.json")) == "a/config.json"
    outside = tmp_path.parent / "config.json"
    assert artifact_uri(str(outside)) == "file://" + str(outside)


def test_within_is_false_where_paths_share_no_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows: paths on two drives have no common path (``commonpath`` raises)."""

    def no_common_path(paths: list[str]) -> str:
        raise ValueError("Paths don't have the same drive")

    monkeypatch.setattr(os.path, "commonpath", no_common_path)
    assert within("/a/b", "/a") is False
