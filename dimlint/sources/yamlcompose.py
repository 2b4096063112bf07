"""Compose a Hydra config from its ``defaults:`` list, from the files present in the tree.

A Hydra trainer (flash-attention's ``training/``, safari, lightning-hydra-template, NeMo's
launcher) rarely writes a model in one file: ``experiment/owt/gpt2s.yaml`` selects
``override /model: gpt2``, ``model/gpt2.yaml`` selects ``gpt2model: gpt2-small``, and that file
states ``n_embd``, ``n_head``, ``n_layer``. Read alone, each file holds part of a model or none;
composed, they hold the model Hydra builds. This module composes them the way Hydra's defaults
list does (``hydra/_internal/defaults_list.py``, ``hydra/core/default_element.py``), for the
subset that needs no Python code and no command line:

* entries ``group: option`` (a relative group is a folder beside the containing config, ``/group``
  one below the config root), ``option`` lists, ``group: null`` (nothing), ``optional``,
  ``group@package``, ``_here_``, the shorthand ``group: sub/option``; plain config entries
  (``- base``, ``- /experiment/owt/base.yaml``);
* ``_self_``: where the containing config's own values go; without it, after its defaults (and a
  config whose list holds only overrides is read as a leaf, as Hydra does);
* ``override group: option``: registered in Hydra's reverse depth-first order (the last override
  of a key, in depth-first order, wins) and applied to the default of that group wherever it
  appears. An override with no default to override (an experiment file read on its own, whose
  primary config lists ``model: null``) selects its option before the file's values, which is
  where the primary config's default would have put it; ``--verbose`` says so;
* packages: the default package is the group path, ``# @package`` headers are absolute,
  ``_global_`` is the root, every other package is relative to the containing config's;
* merging as ``OmegaConf.merge`` does: mappings merge key by key, anything else is replaced by
  the later value, and ``???`` never replaces a value.

The config root (where ``/group`` paths start) is the nearest folder above the file whose
primary config selects the group the file sits in (``config.yaml`` listing ``- experiment:
null`` above ``experiment/owt/``); failing that, the nearest folder where the file's absolute
entries exist; failing that, the file's own folder.

What cannot be read is left out and said under ``--verbose``, never guessed: a file that is not
there (Hydra's own ``hydra/`` groups come from its package, not the tree), ``???`` (chosen on the
command line), an interpolated choice, a value not a string or list, ``..`` in a path, a ``.yml``
file (Hydra reads ``.yaml`` only), more than :data:`MAX_CONFIGS` configs or deeper than
:data:`MAX_NESTING`. Every value keeps where it was written: a finding points at the file and
line of the value that takes effect.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from typing import Any, Protocol

from dimlint.config.pointers import escape_pointer_token
from dimlint.sources.jsonfile import InputProblem


class YamlDocument(Protocol):
    """What composition needs of a parsed file (``yamlfile.YamlDocument``, whose reader calls
    this module and hands it its ``load``: the two modules do not import each other)."""

    @property
    def path(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def value(self) -> Any: ...
    def spans(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]: ...


#: ``yamlfile.load`` as composition calls it: a path and bytes, read raw.
Loader = Callable[[str, bytes], tuple[YamlDocument | None, InputProblem | None]]

#: Configs one composition may load (a Hydra experiment loads a handful).
MAX_CONFIGS = 64
#: Entries of one defaults list (a real one lists a dozen groups).
MAX_ENTRIES = 256
#: How deep defaults lists may nest (a cycle stops here, as a hostile file does).
MAX_NESTING = 8
#: How many folders above the file the config root is looked for.
MAX_ROOT_LEVELS = 4
#: Bytes of one config loaded by the defaults list; a larger file is left out.
MAX_CONFIG_BYTES = 1 << 20
#: Files of a folder above read while looking for the primary config, and the bytes of each.
MAX_SCAN_FILES = 64
MAX_SCAN_BYTES = 256 << 10
#: Values (and values dropped) one composition may copy: bounded like alias expansion.
MAX_WORK = 200_000
_MISSING = "???"
_HEADER = re.compile(r"^\s*#\s*@(\S+)\s+(\S+)\s*$")
_KEYWORDS = frozenset({"optional", "override"})
_ABSENT = object()


class _Source:
    """A config file as composition reads it: its values, their spans, its package header."""

    __slots__ = ("defaults", "document", "header", "keys", "path", "value", "values")

    def __init__(
        self,
        path: str,
        value: dict[str, Any],
        values: dict[str, tuple[int, int]],
        keys: dict[str, tuple[int, int]],
        text: str,
        document: YamlDocument | None,
    ) -> None:
        self.path = path
        self.value = value
        self.values = values
        self.keys = keys
        #: None for the linted file itself (its spans stay local), else the file's document.
        self.document = document
        self.header = _package_header(text)
        raw = value.get("defaults", _ABSENT)
        self.defaults: list[Any] | None = raw if isinstance(raw, list) else None


class Origin:
    """Where a composed value is written: the source (None: the linted file) and characters."""

    __slots__ = ("document", "end", "start")

    def __init__(self, document: YamlDocument | None, start: int, end: int) -> None:
        self.document = document
        self.start = start
        self.end = end


class Composed:
    """The composed value, where each of its values and keys is written, and what was left out."""

    __slots__ = ("documents", "keys", "notes", "value", "values")

    def __init__(self) -> None:
        self.value: dict[str, Any] = {}
        self.values: dict[str, Origin] = {}
        self.keys: dict[str, Origin] = {}
        self.notes: list[str] = []
        #: The other files composed in, in the order they were loaded.
        self.documents: list[YamlDocument] = []


class _Default:
    """One entry of a defaults list, with the containing config's group path and package
    (Hydra's ``GroupDefault`` and ``ConfigDefault``: ``group`` is None for a config entry)."""

    __slots__ = (
        "group",
        "header",
        "optional",
        "override",
        "package",
        "parent_base",
        "parent_package",
        "path",
        "value",
    )

    def __init__(
        self,
        *,
        group: str | None = None,
        path: str | None = None,
        value: str | list[str] | None = None,
        package: str | None = None,
        optional: bool = False,
        override: bool = False,
    ) -> None:
        self.group = group
        self.path = path
        self.value = value
        self.package = "" if package == "_here_" else package
        self.optional = optional
        self.override = override
        self.parent_base = ""
        self.parent_package = ""
        self.header: str | None = None

    @property
    def is_self(self) -> bool:
        return self.path == "_self_" if self.group is None else self.value == "_self_"

    def name(self) -> str | None:
        if self.group is None:
            assert self.path is not None
            return self.path.rsplit("/", 1)[-1]
        return self.value if isinstance(self.value, str) else None

    def group_path(self) -> str:
        """The config group, from the config root."""
        if self.group is not None:
            if self.group.startswith("/"):
                return self.group[1:]
            return f"{self.parent_base}/{self.group}" if self.parent_base else self.group
        assert self.path is not None
        absolute = self.path.startswith("/")
        path = self.path[1:] if absolute else self.path
        group = path.rsplit("/", 1)[0] if "/" in path else ""
        if absolute or not self.parent_base:
            return group
        return f"{self.parent_base}/{group}" if group else self.parent_base

    def config_path(self) -> str:
        """The config's path from the config root, without the ``.yaml``."""
        if self.group is not None:
            return f"{self.group_path()}/{self.name()}"
        assert self.path is not None
        absolute = self.path.startswith("/")
        path = self.path[1:] if absolute else self.path
        return path if absolute or not self.parent_base else f"{self.parent_base}/{path}"

    def _relative_group_path(self) -> str:
        if self.group is not None:
            return self.group.removeprefix("/")
        assert self.path is not None
        path = self.path.removeprefix("/")
        return path.rsplit("/", 1)[0] if "/" in path else ""

    def final_package(self, with_header: bool = True) -> str:
        """Where the config's values go: Hydra's ``_get_final_package``."""
        package = self.package
        if package is None and with_header:
            package = self.header
        if package is None:
            package = self._relative_group_path().replace("/", ".")
        if not self.parent_package:
            found = package
        elif not package:
            found = self.parent_package
        else:
            found = f"{self.parent_package}.{package}"
        last = found.rfind("_global_")
        return found if last == -1 else found[last + len("_global_") + 1 :]

    def override_key(self) -> str:
        """The key an ``override`` names and a group default answers to."""
        key = self.group_path()
        default = key.replace("/", ".")
        final = self.final_package(with_header=False)
        if default != final:
            key = f"{key}@{final or '_global_'}"
        return key

    def shown(self) -> str:
        if self.group is None:
            return str(self.path)
        return f"{'override ' if self.override else ''}{self.group}: {self.value}"


def _package_header(text: str) -> str | None:
    """The ``# @package`` header (Hydra reads it from the leading comment lines), absolute."""
    for line in text.splitlines()[:32]:
        if not line.strip():
            continue
        match = _HEADER.match(line)
        if match is None:
            return None
        if match.group(1) == "package":
            header = match.group(2)
            if header == "_group_":
                return None  # Hydra 1.0's spelling of the default package
            if header == "_global_" or header.startswith("_global_."):
                return header
            return f"_global_.{header}" if header else "_global_"
    return None


def _entries(raw: list[Any], where: str, notes: list[str]) -> list[_Default] | None:
    """The entries of a defaults list; None when it is not Hydra's (then nothing is composed)."""
    if len(raw) > MAX_ENTRIES:
        notes.append(
            f"defaults: {where} lists {len(raw)} entries, more than {MAX_ENTRIES}: not composed"
        )
        return None
    found: list[_Default] = []
    for item in raw:
        if isinstance(item, str):
            path, _, package = item.partition("@")
            if not path:
                return None
            found.append(_Default(path=path.strip(), package=package.strip() or None))
            continue
        if not isinstance(item, dict) or len(item) != 1:
            return None
        ((key, value),) = item.items()
        if not isinstance(key, str):
            return None
        words = key.split()
        if not words or any(word not in _KEYWORDS for word in words[:-1]):
            return None
        group, _, package = words[-1].partition("@")
        if not group:
            return None
        if isinstance(value, list):
            if not all(isinstance(option, str) for option in value):
                notes.append(f"{where}: defaults entry '{key}' has an option that is not a name")
                continue
        elif value is not None and not isinstance(value, str):
            notes.append(f"{where}: defaults entry '{key}' is not an option name")
            continue
        if _is_shorthand(value):  # ``group: sub/option`` is ``group/sub: option``
            assert isinstance(value, str)
            suffix, value = value.rsplit("/", 1)
            group = f"{group}/{suffix}"
        entry = _Default(
            group=group,
            value=value,
            package=package or None,
            optional="optional" in words[:-1],
            override="override" in words[:-1],
        )
        found.append(entry)
    return found


def _is_shorthand(value: Any) -> bool:
    if not isinstance(value, str) or "/" not in value or "${" in value or value == _MISSING:
        return False
    return ".." not in value.split("/")


def has_defaults_list(value: Any) -> bool:
    """Whether a parsed YAML value starts a Hydra composition."""
    return isinstance(value, dict) and isinstance(value.get("defaults"), list)


class _Composer:
    def __init__(
        self, root: str, config: str, primary: _Source, notes: list[str], load: Loader
    ) -> None:
        self.load = load
        self.root = root
        #: The linted file's config path from the root: loading it again is loading itself.
        self.config = config
        self.primary = primary
        self.notes = notes
        self.loaded: dict[str, _Source | None] = {}
        self.overrides: dict[str, _Default] = {}
        self.order: list[str] = []  # override keys in depth-first order
        self.used: set[str] = set()
        self.loads = 0

    def note(self, entry: _Default, reason: str) -> None:
        self.notes.append(f"defaults: {entry.shown()} not read ({reason})")

    def source(self, entry: _Default) -> _Source | None:
        config = entry.config_path()
        if config == self.config:
            return self.primary
        if config in self.loaded:
            return self.loaded[config]
        found = self._load(entry, config)
        self.loaded[config] = found
        return found

    def _load(self, entry: _Default, config: str) -> _Source | None:
        from dimlint.sources.safeio import is_regular

        parts = config.split("/")
        if any(part in ("", ".", "..") for part in parts):
            self.note(entry, "a path outside the config folder")
            return None
        if config.endswith(".yml"):
            self.note(entry, "Hydra reads .yaml files only")
            return None
        name = config if config.endswith(".yaml") else f"{config}.yaml"
        target = os.path.join(self.root, *name.split("/"))
        if not is_regular(target):
            if not entry.optional and not config.startswith("hydra/"):
                self.note(entry, f"{target} is not in the tree")
            return None
        self.loads += 1
        if self.loads > MAX_CONFIGS:
            self.note(entry, f"more than {MAX_CONFIGS} configs in one composition")
            return None
        document, why = _read(target, MAX_CONFIG_BYTES, self.load)
        if document is None or not isinstance(document.value, dict):
            self.note(entry, f"{target}: {why or 'not a mapping'}")
            return None
        values, keys = document.spans()
        return _Source(document.path, document.value, values, keys, document.text, document)

    def expand(self, entry: _Default, depth: int) -> list[tuple[_Source, str]]:
        """The configs ``entry`` stands for, in merge order, each with its package."""
        name = entry.name()
        if name is None:
            return []
        if name == _MISSING:
            self.note(entry, "chosen on the command line (???)")
            return []
        if "${" in name:
            self.note(entry, "an interpolated choice")
            return []
        if depth > MAX_NESTING:
            self.note(entry, f"defaults lists nested deeper than {MAX_NESTING}")
            return []
        source = self.source(entry)
        if source is None:
            return []
        entry.header = source.header
        defaults: list[_Default] = []
        if source.defaults:
            parsed = _entries(source.defaults, source.path, self.notes)
            defaults = parsed if parsed is not None else []
            selves = [index for index, d in enumerate(defaults) if d.is_self]
            if selves:  # Hydra refuses a second _self_: the first is kept
                defaults = [d for i, d in enumerate(defaults) if not d.is_self or i == selves[0]]
            elif any(not d.override for d in defaults):
                defaults.append(_Default(path="_self_"))
        base, package = entry.group_path(), entry.final_package()
        children: list[list[tuple[_Source, str]]] = []
        for default in reversed(defaults):
            if default.is_self:
                children.append([(source, package)])
                continue
            default.parent_base, default.parent_package = base, package
            if default.override:
                key = default.override_key()
                if key not in self.overrides:
                    self.overrides[key] = default
                    self.order.insert(0, key)
                continue
            if default.group is not None:
                key = default.override_key()
                if key in self.overrides:
                    default.value = self.overrides[key].value
                    self.used.add(key)
            if default.group is not None and isinstance(default.value, list):
                for option in reversed(default.value):
                    item = _Default(
                        path=f"{default.group}/{option}",
                        package=default.package,
                        optional=default.optional,
                    )
                    item.parent_base, item.parent_package = base, package
                    children.append(self.expand(item, depth + 1))
                continue
            children.append(self.expand(default, depth + 1))
        if not children:
            return [(source, package)]
        return [found for child in reversed(children) for found in child]

    def unmatched(self) -> list[tuple[_Source, str]]:
        """Overrides of groups no default in the tree lists, read as selecting their option."""
        found: list[tuple[_Source, str]] = []
        for key in list(self.order):
            if key in self.used:
                continue
            override = self.overrides[key]
            self.used.add(key)
            self.notes.append(
                f"defaults: {override.shown()} has no default of this file's tree to override"
                " (a primary config's): read as selecting it"
            )
            chosen = _Default(
                group=override.group,
                value=override.value,
                package=override.package,
                optional=override.optional,
            )
            chosen.parent_base, chosen.parent_package = (
                override.parent_base,
                override.parent_package,
            )
            if isinstance(chosen.value, list):
                for option in chosen.value:
                    item = _Default(path=f"{chosen.group}/{option}", package=chosen.package)
                    item.parent_base, item.parent_package = (
                        chosen.parent_base,
                        chosen.parent_package,
                    )
                    found.extend(self.expand(item, 1))
            else:
                found.extend(self.expand(chosen, 1))
        return found


def compose(
    path: str,
    text: str,
    value: dict[str, Any],
    values: dict[str, tuple[int, int]],
    keys: dict[str, tuple[int, int]],
    load: Loader,
    notes: list[str],
) -> Composed | None:
    """The composition of the YAML file ``path`` (parsed into ``value`` with its spans) with the
    configs its defaults list names; None when the list is not Hydra's or the file not ``.yaml``
    (``notes`` then says why, when there is a reason worth a ``--verbose`` line)."""
    if not path.endswith(".yaml"):
        return None
    result = Composed()
    parsed = _entries(value["defaults"], path, result.notes)
    if parsed is None:
        notes.extend(result.notes)  # why the file is read as it is written
        return None
    primary = _Source(path, value, values, keys, text, None)
    folder = os.path.dirname(path)
    root = _root(folder, parsed, load)
    relative = (
        os.path.relpath(path, root or os.curdir) if root != folder else os.path.basename(path)
    )
    config = relative.replace(os.sep, "/").removesuffix(".yaml")
    composer = _Composer(root, config, primary, result.notes, load)
    entry = _Default(path=config)
    found = composer.expand(entry, 0)
    found = composer.unmatched() + found
    merger = _Merger(result)
    for source, package in found:
        if source.document is not None and source.document not in result.documents:
            result.documents.append(source.document)
        merger.place(source, package)
        if merger.exhausted:
            notes.append(f"defaults: composition stopped after {MAX_WORK} values")
            return None
    return result


def _root(folder: str, entries: list[_Default], load: Loader) -> str:
    """The config root of a file in ``folder`` (see the module docstring)."""
    current, below = folder, ""
    for _ in range(MAX_ROOT_LEVELS):
        parent = os.path.dirname(current) if current else ""
        if not current or parent == current:
            break
        below = os.path.basename(current)
        current = parent
        if _selects_group(current or ".", below, load):
            return current
    absolute = [e for e in entries if _is_absolute(e) and isinstance(e.name(), str)]
    candidate = folder
    for _ in range(MAX_ROOT_LEVELS + 1):
        if absolute and all(_exists(candidate, e) for e in absolute):
            return candidate
        parent = os.path.dirname(candidate)
        if not candidate or parent == candidate:
            break
        candidate = parent
    return folder


def _is_absolute(entry: _Default) -> bool:
    written = entry.group if entry.group is not None else entry.path
    return bool(written) and str(written).startswith("/")


def _exists(root: str, entry: _Default) -> bool:
    name = entry.name()
    if name is None or name == _MISSING or "${" in name:
        return True
    config = entry.config_path()
    target = config if config.endswith(".yaml") else f"{config}.yaml"
    if any(part in ("", ".", "..") for part in target.split("/")):
        return False
    from dimlint.sources.safeio import is_regular

    return is_regular(os.path.join(root or ".", *target.split("/")))


def _selects_group(folder: str, group: str, load: Loader) -> bool:
    """Whether a YAML file of ``folder`` has a defaults list naming the group ``group``."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return False
    scanned = 0
    for name in names:
        if not name.endswith(".yaml"):
            continue
        scanned += 1
        if scanned > MAX_SCAN_FILES:
            break
        document, _ = _read(os.path.join(folder, name), MAX_SCAN_BYTES, load)
        if document is None or not has_defaults_list(document.value):
            continue
        for entry in _entries(document.value["defaults"], name, []) or []:
            written = entry.group if entry.group is not None else entry.path
            if written and written.removeprefix("/").split("/")[0] == group:
                return True
    return False


#: Files read raw, by path, size and modification time: the configs of a Hydra tree are composed
#: into many experiments of one walk (a file edited since is read again). Composition never
#: changes what it reads (it merges copies).
_READ: dict[tuple[str, int, int, int], tuple[YamlDocument | None, str | None]] = {}
MAX_CACHED = 512


def _read(path: str, limit: int, load: Loader) -> tuple[YamlDocument | None, str | None]:
    """A file read raw (None and why when it cannot be: unreadable, too large, not YAML)."""
    from dimlint.sources.safeio import read_regular

    try:
        status = os.stat(path)
    except (OSError, ValueError) as error:
        return None, str(error)
    key = (path, status.st_size, status.st_mtime_ns, limit)
    if key in _READ:
        return _READ[key]
    found: tuple[YamlDocument | None, str | None]
    if status.st_size > limit:
        found = None, f"larger than {limit} bytes"
    else:
        try:
            data = read_regular(path, limit + 1)
        except OSError as error:
            return None, error.strerror or str(error)
        document, problem = load(path, data) if len(data) <= limit else (None, None)
        found = document, (problem.message if problem is not None else None)
        if document is None and found[1] is None:
            found = None, f"larger than {limit} bytes"
    if len(_READ) >= MAX_CACHED:
        _READ.pop(next(iter(_READ)))
    _READ[key] = found
    return found


class _Merger:
    """``OmegaConf.merge`` of each config at its package, keeping where every value is written."""

    def __init__(self, result: Composed) -> None:
        self.result = result
        self.work = 0
        self.exhausted = False

    def _charge(self) -> bool:
        self.work += 1
        if self.work > MAX_WORK:
            self.exhausted = True
        return not self.exhausted

    def place(self, source: _Source, package: str) -> None:
        node, pointer = self.result.value, ""
        for part in package.split(".") if package else []:
            pointer = f"{pointer}/{escape_pointer_token(part)}"
            child = node.get(part, _ABSENT)
            if not isinstance(child, dict):
                self._drop(pointer, child)
                child = {}
                node[part] = child
            node = child
        content = {k: v for k, v in source.value.items() if k != "defaults"}
        self._merge(node, pointer, content, "", source)

    def _merge(
        self,
        dest: dict[str, Any],
        dest_pointer: str,
        src: dict[str, Any],
        src_pointer: str,
        source: _Source,
    ) -> None:
        for key, value in src.items():
            if not self._charge():
                return
            token = escape_pointer_token(str(key))
            here, there = f"{dest_pointer}/{token}", f"{src_pointer}/{token}"
            span = source.keys.get(there)
            if span is not None:
                self.result.keys[here] = Origin(source.document, *span)
            old = dest.get(key, _ABSENT)
            if isinstance(value, dict) and isinstance(old, dict):
                self._merge(old, here, value, there, source)
            elif value == _MISSING and old is not _ABSENT:
                continue
            else:
                self._drop(here, old)
                dest[key] = self._copy(value, here, there, source)

    def _copy(self, value: Any, here: str, there: str, source: _Source) -> Any:
        span = source.values.get(there)
        if span is not None:
            self.result.values[here] = Origin(source.document, *span)
        if isinstance(value, dict):
            copied: dict[str, Any] = {}
            for key, child in value.items():
                if not self._charge():
                    break
                token = escape_pointer_token(str(key))
                key_span = source.keys.get(f"{there}/{token}")
                if key_span is not None:
                    self.result.keys[f"{here}/{token}"] = Origin(source.document, *key_span)
                copied[key] = self._copy(child, f"{here}/{token}", f"{there}/{token}", source)
            return copied
        if isinstance(value, list):
            items = []
            for index, child in enumerate(value):
                if not self._charge():
                    break
                items.append(self._copy(child, f"{here}/{index}", f"{there}/{index}", source))
            return items
        return value

    def _drop(self, pointer: str, old: Any) -> None:
        """Forget where a replaced value and everything under it were written."""
        pending = [(pointer, old)]
        while pending and self._charge():
            at, node = pending.pop()
            self.result.values.pop(at, None)
            if isinstance(node, dict):
                for key, child in node.items():
                    child_pointer = f"{at}/{escape_pointer_token(str(key))}"
                    self.result.keys.pop(child_pointer, None)
                    pending.append((child_pointer, child))
            elif isinstance(node, list):
                pending.extend((f"{at}/{index}", child) for index, child in enumerate(node))
