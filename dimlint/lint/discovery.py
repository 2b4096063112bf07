"""Turn command-line paths into the files to check.

A directory is walked for JSON, YAML and Python files, skipping version-control folders, virtual
environments, ``node_modules``, caches, what ``.gitignore`` files name (unless git tracks it:
:mod:`dimlint.lint.gitindex`; ``--verbose`` names each one passed over), and HF files that are
never model configs (``tokenizer.json``…). A file named on the command line is always checked,
whatever its name. Symlinked directories are not followed, so symlink loops cannot trap the walk.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator, Sequence

from dimlint.lint.gitindex import tracked
from dimlint.records import Record
from dimlint.sources.confine import within
from dimlint.sources.filenames import TOKENIZER_FILES, is_weight_file

SKIP_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "node_modules", "__pycache__",
        ".mypy_cache", ".ruff_cache", ".pytest_cache", "site-packages", ".eggs", "build", "dist",
    }
)  # fmt: skip
#: JSON files a model repository holds that are never model configs: not even opened.
NOT_CONFIGS = frozenset(
    {
        "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json",
        "added_tokens.json", "generation_config.json", "preprocessor_config.json",
        "processor_config.json", "chat_template.json", "package.json", "package-lock.json",
        "tsconfig.json", "trainer_state.json", "all_results.json", "eval_results.json",
        "train_results.json", "model.safetensors.index.json", "pytorch_model.bin.index.json",
    }
)  # fmt: skip


def companions(names: Sequence[str]) -> tuple[str, ...]:
    """The names among a folder's entries that the checks of its ``config.json`` read."""
    return tuple(sorted(n for n in names if n in TOKENIZER_FILES or is_weight_file(n)))


class _Pattern(Record):
    glob: str
    negated: bool
    dir_only: bool
    anchored: bool


class _IgnoreRules:
    """The patterns of one ``.gitignore`` (a practical subset: globs, ``/``-anchoring, ``!``)."""

    __slots__ = ("base", "patterns")

    def __init__(self, base: str, patterns: list[_Pattern]) -> None:
        self.base = base
        self.patterns = patterns

    @classmethod
    def read(cls, directory: str) -> _IgnoreRules | None:
        directory = os.path.abspath(directory)
        from dimlint.sources.safeio import read_regular

        try:
            data = read_regular(os.path.join(directory, ".gitignore"), limit=1 << 20)
        except OSError:
            return None  # absent, unreadable, or a FIFO (which would block a plain open)
        lines = data.decode("utf-8", errors="replace").splitlines()
        patterns = []
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            line = line.lstrip("!")
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            patterns.append(_Pattern(line.lstrip("/"), negated, dir_only, "/" in line))
        return cls(directory, patterns)

    def ignored(self, path: str, is_dir: bool) -> bool | None:
        """True/False when a pattern decides, None when none matches."""
        relative = os.path.relpath(os.path.abspath(path), self.base).replace(os.sep, "/")
        name = os.path.basename(path)
        verdict: bool | None = None
        for pattern in self.patterns:
            if pattern.dir_only and not is_dir:
                continue
            glob = pattern.glob
            subject = relative if pattern.anchored else name
            matched = fnmatch.fnmatch(subject, glob)
            if not matched and glob.startswith("**/"):
                # "**/gen" also matches "gen" at the top, and at any depth by its name
                matched = fnmatch.fnmatch(relative, glob[3:]) or fnmatch.fnmatch(name, glob[3:])
            if matched:
                verdict = not pattern.negated
        return verdict


class Target(Record):
    """A file to check; ``explicit`` when the user named it.

    ``companions``: for a ``config.json``, the checkpoint and tokenizer files beside it (names
    in its folder), which the checkpoint and tokenizer rules read.
    """

    path: str
    explicit: bool
    companions: tuple[str, ...] = ()


def _never(_: str) -> bool:
    return False


def _no_note(path: str, reason: str) -> None:
    del path, reason


def discover(
    paths: Sequence[str],
    excluded: Callable[[str], bool] = _never,
    passed_over: Callable[[str, str], None] = _no_note,
) -> Iterator[Target]:
    """Yield files to check, in a stable order, each once; ``excluded`` prunes the walk.

    A second name of a file already yielded (a symlink to it, or the path given twice) is not
    yielded again. The files the walk passes over on purpose — tokenizers, package manifests,
    second names — go to ``passed_over`` with the reason, so ``--verbose`` can say what was not
    checked and why.
    """
    first_name: dict[object, str] = {}

    def is_new(path: str) -> bool:
        # The file's identity (device, inode): one stat, where realpath would lstat every
        # component of the path; a link that cannot be followed is known by its name.
        key: object
        try:
            status = os.stat(path)
            key = (status.st_dev, status.st_ino)
        except (OSError, ValueError):
            key = path
        first = first_name.setdefault(key, path)
        if first == path:
            return True
        passed_over(path, f"the same file as {first}, already checked")
        return False

    yielded: set[str] = set()
    for path in paths:
        if os.path.isdir(path):
            root = os.path.realpath(path)
            for found, beside, passed, link in _walk(path, excluded):
                reason = passed or (_link_into(found, root) if link else None)
                if reason is not None:
                    passed_over(found, reason)
                elif found not in yielded and is_new(found):
                    yielded.add(found)
                    yield Target(found, explicit=False, companions=beside)
        elif path not in yielded and is_new(path):
            yielded.add(path)
            yield Target(path, explicit=True, companions=_beside_named(path))


def walk_skips(path: str, root: str | None = None) -> str | None:
    """Why a walk of ``root`` would not check the file ``path`` inside it (None: it would).

    The language server asks this of each open document (``root``: its workspace folder, else
    the top of its repository), so that the editor is as quiet as ``check .`` on files that are
    not ours: names never checked (``package.json``, ``tsconfig.json``, anything but JSON, YAML
    and Python), files under folders a walk skips (``node_modules``, virtual environments,
    caches) and files a ``.gitignore`` names.
    """
    name = os.path.basename(path)
    if not _wanted_name(name):
        if name in NOT_CONFIGS:
            return _not_config_reason(name)
        return "not a JSON, YAML or Python file"
    folder = os.path.dirname(os.path.abspath(path))
    top = os.path.abspath(root) if root is not None else _repository_top(folder)
    if top is None or os.path.commonpath([top, folder]) != top:
        top = folder
    below: list[str] = []  # the folders a walk from ``top`` enters on its way to the file
    directory = folder
    while directory != top:
        below.append(directory)
        directory = os.path.dirname(directory)
    rules = _ancestor_rules(top)
    repository = _repository_top(folder)
    kept = tracked(repository) if repository is not None else None
    own = _IgnoreRules.read(top)
    if own is not None:
        rules.append(own)
    for directory in reversed(below):
        if os.path.basename(directory) in SKIP_DIRS or os.path.exists(
            os.path.join(directory, "pyvenv.cfg")
        ):
            return f"inside {os.path.basename(directory)}/, a folder a walk skips"
        if _is_ignored(directory, True, rules) and not (kept and kept.holds(directory, True)):
            return f"{directory} is named by a .gitignore"
        inner = _IgnoreRules.read(directory)
        if inner is not None:
            rules.append(inner)
    if _is_ignored(path, False, rules) and not (kept and kept.holds(path, False)):
        return "named by a .gitignore"
    return None


def _repository_top(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` holding ``.git`` (None outside a repository)."""
    directory = folder
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _link_into(path: str, root: str) -> str | None:
    """A symlink to a file inside the walked tree that the walk checks under its own name is
    not checked twice. (The Hugging Face cache's ``snapshots/<rev>/config.json`` links to a
    ``blobs/<hash>`` the walk never reads: that link is the only name, and it is checked.)"""
    target = os.path.realpath(path)
    inside = within(target, root)
    if inside and os.path.isfile(target) and _wanted_name(os.path.basename(target)):
        return f"a symlink to {os.path.relpath(target)}, checked under that name"
    return None


def _beside_named(path: str) -> tuple[str, ...]:
    """The companions of a ``config.json`` named on the command line (one folder listing)."""
    if os.path.basename(path) != "config.json":
        return ()
    try:
        return companions(os.listdir(os.path.dirname(path) or "."))
    except OSError:
        return ()


def _ancestor_rules(root: str) -> list[_IgnoreRules]:
    """``.gitignore`` files above ``root`` up to its repository's top (where ``.git`` is)."""
    directory = os.path.abspath(root)
    chain: list[str] = []
    while True:
        parent = os.path.dirname(directory)
        if os.path.exists(os.path.join(directory, ".git")) or parent == directory:
            break
        directory = parent
        chain.append(directory)
    if not os.path.exists(os.path.join(directory, ".git")):
        return []  # not inside a repository: .gitignore files above it do not apply
    rules = [_IgnoreRules.read(folder) for folder in reversed(chain)]
    return [rule for rule in rules if rule is not None]


def _walk(
    root: str, excluded: Callable[[str], bool]
) -> Iterator[tuple[str, tuple[str, ...], str | None, bool]]:
    """Files to check, each with its companions (only a ``config.json`` has any), and the JSON
    files passed over, each with the reason; and whether the name is a symlink (known from
    the directory listing, without another system call)."""
    stack: list[tuple[str, list[_IgnoreRules]]] = [(root, _ancestor_rules(root))]
    top = _repository_top(os.path.abspath(root))
    kept = tracked(top) if top is not None else None
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
        files: list[tuple[str, tuple[str, ...], str | None, bool]] = []
        # weights are often git-ignored, but the config must still match them
        beside = companions([entry.name for entry in entries])
        for entry in entries:
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if excluded(entry.path):
                continue
            if _is_ignored(entry.path, is_dir, rules):
                if kept is not None and kept.holds(entry.path, is_dir):
                    pass  # git ignores no tracked file: a committed folder is the repository's
                elif is_dir or _candidate(entry):
                    files.append((entry.path, (), _IGNORED, False))
                    continue
                else:
                    continue
            if is_dir:
                if entry.name not in SKIP_DIRS and not os.path.exists(
                    os.path.join(entry.path, "pyvenv.cfg")
                ):
                    stack.append((entry.path, rules))
            elif _candidate(entry):
                companions_of = beside if entry.name == "config.json" else ()
                files.append((entry.path, companions_of, None, entry.is_symlink()))
            elif entry.name in NOT_CONFIGS:
                files.append((entry.path, (), _not_config_reason(entry.name), False))
        yield from reversed(files)


#: Why a walk passes over what a ``.gitignore`` names (a folder: none of its files is read).
_IGNORED = "named by a .gitignore (and not tracked by git), not checked"


def _not_config_reason(name: str) -> str:
    """Why a JSON file of :data:`NOT_CONFIGS` is not checked as a config."""
    if name in TOKENIZER_FILES or name in ("special_tokens_map.json", "vocab.json"):
        return "a tokenizer file, not a model config (DL605 reads it beside its config.json)"
    if name.endswith(".index.json"):
        return "a checkpoint index, not a model config (DL503 reads it beside its config.json)"
    return f"{name} is never a model config"


def _wanted_name(name: str) -> bool:
    """A JSON or YAML file that may be a model config, Python code (which may define one), a
    launch script (whose Megatron arguments may), or a gin file (T5X's model bindings)."""
    return name.endswith((".py", ".yaml", ".yml", ".sh", ".gin")) or (
        name.endswith(".json") and name not in NOT_CONFIGS
    )


def _candidate(entry: os.DirEntry[str]) -> bool:
    """A file with a wanted name. Named pipes, sockets and devices are kept: the reader opens
    nothing but regular files (:mod:`dimlint.sources.safeio`) and skips them with a
    ``--verbose`` note, so a FIFO can neither block the run nor vanish without a word.
    """
    return _wanted_name(entry.name)


def _is_ignored(path: str, is_dir: bool, rules: list[_IgnoreRules]) -> bool:
    verdict = False
    for rule in rules:
        decided = rule.ignored(path, is_dir)
        if decided is not None:
            verdict = decided
    return verdict
