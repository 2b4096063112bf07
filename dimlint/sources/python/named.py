"""Named config tables: what ``Config.from_name("gemma-2-9b", n_head=16)`` builds on.

litgpt (and code written like it) keeps its model configs in a table of dicts keyed by ``name``
(``litgpt/config.py``: ``configs = [dict(name=..., n_embd=..., head_size=...), ...]``,
``name_to_config``) and builds one with ``Config.from_name(name, **overrides)``: the table's
entry, updated by the overrides. Checking the overrides alone is wrong — the base keeps its
``head_size`` when a test shrinks ``n_embd`` — so the entry is looked up in the module that
defines ``from_name``, found from the call's import (``from litgpt import Config``) in the
package folder above the file. Entries whose name is a template expanded in a loop
(``"Mixtral-8x7B-{}v0.1"``) match the names it expands to; other names built at run time stay
unknown, and such a call is then not checked at all.

Each table is read once per process (a few seconds for litgpt's 3000-line table).
"""

from __future__ import annotations

import functools
import os
import re
from typing import Any

from dimlint.sources.safeio import read_regular

#: ``from litgpt import Config`` / ``from litgpt.config import Config as C`` / ``import litgpt``.
_IMPORT = re.compile(r"(?m)^\s*(?:from\s+([\w.]+)\s+import\s+(\([^)]*\)|[^\n]+)|import\s+([\w.]+))")
#: How far up from the checked file the package folder is searched.
MAX_LEVELS = 6
#: Files of a package searched for the table (bounded: a package is a few hundred files).
MAX_FILES = 400


def lookup(path: str, callee: str, name: str) -> dict[str, Any] | None:
    """The table entry ``name`` of the class ``callee`` (``Config.from_name``'s receiver) as
    seen from the file at ``path``; None when the table or the entry is not found."""
    package = _package_of(path, callee.split(".", maxsplit=1)[0])
    if package is None:
        return None
    table = _table_near(os.path.dirname(os.path.abspath(path)), package)
    if not table:
        return None
    found = table.get(name)
    if found is None:  # a template expanded in a loop: "Mixtral-8x7B-{}v0.1" ← "Instruct-"
        found = next(
            (v for k, v in table.items() if "{}" in k and _template(k).fullmatch(name)), None
        )
    return found


@functools.cache
def _template(name: str) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in name.split("{}")))


def _package_of(path: str, receiver: str) -> str | None:
    """The top-level package the receiver name is imported from in the file at ``path``."""
    try:
        text = read_regular(path, limit=200_000).decode("utf-8", "replace")
    except OSError:  # unreadable, or a FIFO (which a plain open would block on)
        return None
    for match in _IMPORT.finditer(text):
        module, names, plain = match.groups()
        if plain is not None and plain.split(".")[0] == receiver:
            return receiver
        if module is not None and re.search(rf"\b{re.escape(receiver)}\b", names):
            return module.split(".")[0]
    return None


@functools.cache
def _table_near(directory: str, package: str) -> dict[str, dict[str, Any]] | None:
    current = directory
    for _ in range(MAX_LEVELS):
        candidate = os.path.join(current, package)
        if os.path.isdir(candidate):
            source = _defining_file(candidate)
            return _read_table(source) if source is not None else None
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return None


def _defining_file(package_dir: str) -> str | None:
    """The package's module that defines ``from_name`` over a ``name_to_config`` table."""
    seen = 0
    for root, dirs, files in os.walk(package_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__")))
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            seen += 1
            if seen > MAX_FILES:
                return None
            full = os.path.join(root, file)
            try:
                text = read_regular(full, limit=2_000_000).decode("utf-8", "replace")
            except OSError:
                continue
            if "def from_name" in text and "name_to_config" in text:
                return full
    return None


@functools.cache
def _read_table(source: str) -> dict[str, dict[str, Any]]:
    """``name`` → the entry's known values (class defaults merged), from the module's dicts."""
    from dimlint.sources.python import file as pyfile
    from dimlint.sources.python import scan as pyscan
    from dimlint.sources.python.configs import Extractor
    from dimlint.sources.python.values import UNKNOWN, Evaluator

    try:
        data = read_regular(source)
    except OSError:
        return {}
    text, _, problem = pyfile.decode(data)
    if text is None or problem is not None:
        return {}
    module = pyfile.parse(text)
    if not hasattr(module, "body"):
        return {}
    scan = pyscan.scan(module)  # type: ignore[arg-type]
    extractor = Extractor(scan, Evaluator(scan))
    extractor.class_candidates()
    table: dict[str, dict[str, Any]] = {}
    for candidate in extractor.site_candidates(lambda _call: False):
        values = {
            key: member.value.value
            for key, member in candidate.members.items()
            if member.value.value is not UNKNOWN
        }
        names = [values.get("name")]
        hf = values.get("hf_config")
        if isinstance(hf, dict):
            names += [hf.get("name"), f"{hf.get('org')}/{hf.get('name')}"]
        for entry in names:
            if isinstance(entry, str):
                table.setdefault(entry, values)
                # a template expanded in a loop (``name="falcon-40b{}"`` → "", "-instruct"):
                # the plain name is one expansion, the others match the template
                table.setdefault(entry.replace("{}", ""), values)
    return table
