"""Turn command-line paths into the files to check.

A directory is walked for JSON files, skipping version-control folders, virtual environments,
``node_modules``, caches, what ``.gitignore`` files name, and HF files that are never model
configs (``tokenizer.json``…). A file named on the command line is always checked, whatever its
name. Symlinked directories are not followed, so symlink loops cannot trap the walk.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules", "__pycache__",
        ".mypy_cache", ".ruff_cache", ".pytest_cache", "site-packages", ".eggs", "build", "dist",
    }
)
#: JSON files a model repository holds that are never model configs: not even opened.
NOT_CONFIGS = frozenset(
    {
        "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json",
        "added_tokens.json", "generation_config.json", "preprocessor_config.json",
        "processor_config.json", "chat_template.json", "package.json", "package-lock.json",
        "tsconfig.json", "trainer_state.json", "all_results.json", "eval_results.json",
        "train_results.json", "model.safetensors.index.json", "pytorch_model.bin.index.json",
    }
)


@dataclass
class _IgnoreRules:
    """The patterns of one ``.gitignore`` (a practical subset: globs, ``/``-anchoring, ``!``)."""

    base: Path
    patterns: list[tuple[str, bool, bool, bool]] = field(default_factory=list)

    @classmethod
    def read(cls, directory: Path) -> _IgnoreRules | None:
        try:
            lines = (directory / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return None
        rules = cls(directory)
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line.lstrip("!")
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            rules.patterns.append((line.lstrip("/"), negated, dir_only, anchored))
        return rules

    def ignored(self, path: Path, is_dir: bool) -> bool | None:
        """True/False when a pattern decides, None when none matches."""
        relative = path.relative_to(self.base).as_posix()
        verdict: bool | None = None
        for pattern, negated, dir_only, anchored in self.patterns:
            if dir_only and not is_dir:
                continue
            subject = relative if anchored else path.name
            if fnmatch.fnmatch(subject, pattern) or (anchored and fnmatch.fnmatch(relative, pattern + "/*")):
                verdict = not negated
        return verdict


@dataclass(frozen=True)
class Target:
    """A file to check; ``explicit`` when the user named it."""

    path: str
    explicit: bool


def _excluded(path: Path, patterns: Sequence[str]) -> bool:
    posix = path.as_posix()
    return any(fnmatch.fnmatch(posix, p) or fnmatch.fnmatch(path.name, p) for p in patterns)


def discover(paths: Sequence[str], exclude: Sequence[str] = ()) -> Iterator[Target]:
    """Yield files to check, in a stable order, each once."""
    seen: set[str] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in _walk(path, exclude):
                if found not in seen:
                    seen.add(found)
                    yield Target(found, explicit=False)
        elif raw not in seen:
            seen.add(raw)
            yield Target(raw, explicit=True)


def _walk(root: Path, exclude: Sequence[str]) -> Iterator[str]:
    stack: list[tuple[Path, list[_IgnoreRules]]] = [(root, [])]
    while stack:
        directory, inherited = stack.pop()
        rules = list(inherited)
        own = _IgnoreRules.read(directory)
        if own is not None:
            rules.append(own)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name, reverse=True)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if _is_ignored(path, is_dir, rules) or _excluded(path, exclude):
                continue
            if is_dir:
                if entry.name in SKIP_DIRS or (path / "pyvenv.cfg").exists():
                    continue
                stack.append((path, rules))
            elif entry.name.endswith(".json") and entry.name not in NOT_CONFIGS:
                yield entry.path
    return


def _is_ignored(path: Path, is_dir: bool, rules: list[_IgnoreRules]) -> bool:
    verdict = False
    for rule in rules:
        decided = rule.ignored(path, is_dir)
        if decided is not None:
            verdict = decided
    return verdict
