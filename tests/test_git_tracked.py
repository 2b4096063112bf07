"""A walk never prunes what git tracks, whatever a ``.gitignore`` says (batch 7: CogVideo).

THUDM/CogVideo commits ``sat/`` (its model YAML) beside a ``.gitignore`` naming ``**/sat``;
git ignores only untracked files, so the folder is the repository's and its configs must be
checked. The tracked paths come from the index, in each of its versions (2, 3 with extended
flags, 4 with prefix-compressed names); an untracked file the ``.gitignore`` names stays
unchecked, with a ``--verbose`` note.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from dimlint.cli import main
from dimlint.lint.discovery import discover, walk_skips
from dimlint.lint.gitindex import entry_names, tracked

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="needs the git program to build an index")
CONFIG = '{"model_type": "llama", "hidden_size": 4100, "num_attention_heads": 32}\n'


def _git(root: Path, *args: str) -> None:
    assert GIT is not None
    environment = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root)}
    subprocess.run([GIT, "-C", str(root), *args], check=True, capture_output=True, env=environment)


def _repository(tmp_path: Path, version: int) -> Path:
    root = tmp_path / "repo"
    for relative in ("sat/configs/model.json", "sat/deep/er/model.json", "other/model.json"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(CONFIG)
    _git(root, "init", "-q")
    _git(root, "add", "sat", "other")
    (root / ".gitignore").write_text("**/sat\nlogs/\n")
    (root / "logs").mkdir()
    (root / "logs" / "model.json").write_text(CONFIG)  # ignored and untracked
    (root / "sat" / "scratch.json").write_text(CONFIG)  # inside a tracked folder, untracked
    # intent to add sets an entry's extended flags, which only version 3 holds
    _git(root, "add", *(["-N"] if version == 3 else []), "-f", "sat/scratch.json")
    _git(root, "update-index", "--index-version", str(version))
    return root


@needs_git
@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_lists_the_tracked_paths(tmp_path: Path, version: int) -> None:
    root = _repository(tmp_path, version)
    data = (root / ".git" / "index").read_bytes()
    assert int.from_bytes(data[4:8], "big") == version
    assert entry_names(data) == [
        "other/model.json",
        "sat/configs/model.json",
        "sat/deep/er/model.json",
        "sat/scratch.json",
    ]
    known = tracked(str(root))
    assert known is not None
    assert known.holds(str(root / "sat" / "deep"), True)
    assert not known.holds(str(root / "logs"), True)


@needs_git
@pytest.mark.parametrize("version", [2, 4])
def test_a_tracked_folder_a_gitignore_names_is_walked(tmp_path: Path, version: int) -> None:
    root = _repository(tmp_path, version)
    walked = {os.path.relpath(t.path, root) for t in discover([str(root)])}
    assert walked == {
        "other/model.json",
        "sat/configs/model.json",
        "sat/deep/er/model.json",
        "sat/scratch.json",
    }
    assert walk_skips(str(root / "sat" / "configs" / "model.json")) is None
    assert walk_skips(str(root / "logs" / "model.json")) is not None


def test_without_a_readable_index_the_gitignore_decides(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x09" + b"\x00" * 8)  # version 9
    (root / ".gitignore").write_text("sat/\n")
    for relative in ("sat/model.json", "ok/model.json"):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(CONFIG)
    notes: list[tuple[str, str]] = []
    walked = [t.path for t in discover([str(root)], passed_over=lambda p, r: notes.append((p, r)))]
    assert [os.path.relpath(p, root) for p in walked] == ["ok/model.json"]
    assert [(os.path.relpath(p, root), "gitignore" in r) for p, r in notes] == [("sat", True)]


def test_a_truncated_index_is_no_index() -> None:
    assert entry_names(b"DIRC\x00\x00\x00\x02\x00\x00\x00\x05" + b"\x00" * 40) is None
    assert entry_names(b"not an index") is None


@needs_git
def test_verbose_names_what_the_gitignore_passes_over(tmp_path: Path) -> None:
    root = _repository(tmp_path, 2)
    out, err = io.StringIO(), io.StringIO()
    code = main(["check", str(root), "--no-config", "--verbose", "--select", "DL101"], out, err)
    assert code == 1
    assert f"skipped {root / 'logs'}: named by a .gitignore" in err.getvalue()
    assert str(root / "sat" / "deep" / "er" / "model.json") in out.getvalue()
