"""Read a YAML file into a value plus the position of every key and value.

Training repositories configure models in YAML (gpt-neox, OLMo, nanotron, lingua, Megatron-LM,
NeMo, torchtune, axolotl). A finding must point at the exact scalar and a fix must replace
exactly its characters, so the reader needs the *marks* of every node, never a re-serialisation.

Why PyYAML's compose tree and not ruamel.yaml: both keep marks, but fixes here are byte edits over
the original text (DESIGN.md, *fix*), so ruamel's round-trip machinery (comment and layout
preservation on dump) buys nothing, while its pure-Python loader is several times slower and a
heavier dependency. PyYAML's ``compose`` gives every node ``start_mark``/``end_mark`` as character
offsets (the libyaml-backed ``CSafeLoader`` when available, the pure-Python one otherwise), and
its ``SafeConstructor`` gives scalars the exact values a training script's ``yaml.safe_load``
sees (``100_000`` is an int, ``1.0e-5`` a float). It is imported only when a YAML file is read,
so the JSON path stays lean.

JSON pointers address YAML values as they address JSON ones (``/model/d_model``). Anchors and
aliases resolve to the node where the value is written, and merge keys (``<<: *base``, nested
too) take the merged values with their own positions: a fix edits the definition, which is what
takes effect. A value's span is the scalar itself: an anchor before it (``&h 4096.0``) stays out
of it, so a fix keeps the anchor the rest of the file refers to, and a block scalar's span ends
at its last character, not at the next key's line.

Hostile input is bounded and never raises: explicit tags that do not construct (``!!bool 1``,
``!!int ""``) become :class:`~dimlint.config.values.Malformed` values (DL003 on a dimension
key); a framework's own tags (``!ENV``) become :class:`~dimlint.config.values.Unresolved`;
levanter's ``!include other.yaml`` reads the file beside this one; integers too long for
arithmetic become :class:`~dimlint.config.values.HugeInt`; and alias expansion is capped both
in values built and in the characters of the JSON pointers built for them (a long anchored key
aliased many times over builds long pointers long before it builds many nodes).
"""

from __future__ import annotations

import bisect
import codecs
import os
from typing import Any, cast

from dimlint.config.pointers import escape_pointer_token
from dimlint.config.values import HugeInt, Malformed, Unresolved
from dimlint.diagnostics import Position, Span, line_starts, position_of
from dimlint.sources.jsonfile import InputProblem

#: Nesting deeper than this is not a config; it also bounds the walk on hostile input.
MAX_DEPTH = 64
#: Values built, aliases expanded: far above any config, far below what exhausts memory.
MAX_NODES = 200_000
#: Characters of JSON pointers built while expanding aliases: the memory a hostile file can make
#: the reader spend on positions (a real config builds a few thousand).
MAX_POINTER_CHARS = 8_000_000
#: An integer scalar longer than this is no dimension: kept as its digit count (``HugeInt``)
#: without converting it (a 20,000-part base-60 literal would take seconds and print nowhere).
MAX_INT_CHARS = 40
#: How many ``!include`` files deep a YAML file is read, and how large each may be.
MAX_INCLUDE_DEPTH = 4
MAX_INCLUDE_BYTES = 1 << 20
_STANDARD_TAG = "tag:yaml.org,2002:"
_INT_TAG = _STANDARD_TAG + "int"
_MERGE_TAG = _STANDARD_TAG + "merge"


class YamlDocument:
    """A parsed YAML file: its text, its value, and the spans of keys and values by pointer."""

    __slots__ = (
        "_keys",
        "_line_starts",
        "_values",
        "bom",
        "composed_from",
        "foreign",
        "has_duplicates",
        "notes",
        "path",
        "spelled",
        "text",
        "value",
    )

    def __init__(
        self,
        path: str,
        text: str,
        value: Any,
        values: dict[str, tuple[int, int]],
        keys: dict[str, tuple[int, int]],
        bom: int = 0,
    ) -> None:
        self.path = path
        self.text = text
        self.value = value
        #: How many byte order marks the file starts with (a fix writes them back as they were).
        self.bom = bom
        #: What the reader could not know (``--verbose`` prints them): unresolved values.
        self.notes: list[str] = []
        self.has_duplicates = False
        #: Values a Hydra defaults list composed in from other files: where each is written.
        self.foreign: dict[str, tuple[YamlDocument, int, int]] = {}
        #: Those files, in the order they were composed (their text for reports).
        self.composed_from: list[YamlDocument] = []
        #: A dialect key's common pointer → the key as the file writes it (``/hidden_size`` →
        #: ``hidden_dim``): messages name what the user wrote.
        self.spelled: dict[str, str] = {}
        self._values = values
        self._keys = keys
        self._line_starts: list[int] | None = None

    def position(self, offset: int) -> Position:
        """1-based line and column (code points) of a character offset."""
        if self._line_starts is None:
            self._line_starts = line_starts(self.text)
        line = bisect.bisect_right(self._line_starts, offset)
        return Position(line, offset - self._line_starts[line - 1] + 1)

    def span(self, start: int, end: int) -> Span:
        return Span(start, end, self.position(start), self.position(end))

    def value_span(self, pointer: str) -> Span | None:
        """Where the value at ``pointer`` is written (None when absent)."""
        found = self._values.get(pointer)
        return self.span(*found) if found is not None else None

    def foreign_span(self, pointer: str) -> tuple[str, Span] | None:
        """The file and place of a value composed in from another file (None when it is this
        file's or absent)."""
        found = self.foreign.get(pointer)
        if found is None:
            return None
        document, start, end = found
        return document.path, document.span(start, end)

    def spans(self) -> tuple[dict[str, tuple[int, int]], dict[str, tuple[int, int]]]:
        """Where each value and each key is written, by pointer (composition copies them)."""
        return self._values, self._keys

    def alias(self, pointer: str, target: str) -> None:
        """Make ``pointer`` (a dialect key's common name) located where ``target`` is written,
        and named as it is written there."""
        written = target.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
        self.spelled.setdefault(pointer, written)
        for table in (self._values, self._keys):
            found = table.get(target)
            if found is not None:
                table.setdefault(pointer, found)
        elsewhere = self.foreign.get(target)
        if elsewhere is not None and pointer not in self._values:
            self.foreign.setdefault(pointer, elsewhere)

    def key_span(self, pointer: str) -> Span | None:
        """Where the key of the mapping member at ``pointer`` is written."""
        found = self._keys.get(pointer)
        return self.span(*found) if found is not None else None


def decode(data: bytes) -> tuple[str | None, int, InputProblem | None]:
    """The text (UTF-8, BOMs removed), how many BOMs it started with, and why it cannot be
    decoded. Every leading BOM goes: libyaml skips one without counting it in its offsets, so a
    second one left in the text would shift every span by one character."""
    bom = 0
    while data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
        bom += 1
    if b"\x00" in data[:8192]:
        return None, bom, InputProblem("the file is binary (it contains NUL bytes), not YAML")
    try:
        return data.decode("utf-8"), bom, None
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8", errors="replace")
        position = position_of(prefix, len(prefix))
        return None, bom, InputProblem("invalid UTF-8: save the file as UTF-8", position)


def load(
    path: str, data: bytes, include_depth: int = 0, *, raw: bool = False
) -> tuple[YamlDocument | None, InputProblem | None]:
    """Parse file bytes: the document, or why it is not readable YAML (a DL001 problem).

    A file with a Hydra defaults list is composed with the configs it names
    (:mod:`~dimlint.sources.yamlcompose`); ``raw`` reads one file as it is, neither composed
    nor its references resolved (how composition reads the configs it merges)."""
    text, bom, problem = decode(data)
    if text is None:
        return None, problem
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        position = Position(mark.line + 1, mark.column + 1) if mark else Position(1, 1)
        reason = error.problem or error.context or "syntax error"
        return None, InputProblem(f"invalid YAML: {reason}", position)
    except (yaml.YAMLError, RecursionError) as error:
        return None, InputProblem(f"invalid YAML: {error}")
    if node is None:
        return None, InputProblem("the file is empty: a config must be a YAML mapping")
    builder = _Builder(yaml, text, os.path.dirname(path), include_depth)
    try:
        value = builder.build(node, "", 0)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as error:
        return None, InputProblem(f"invalid YAML value: {error}")
    if raw:
        document = YamlDocument(path, text, value, builder.values, builder.keys, bom)
        document.notes = builder.notes
        return document, None
    if include_depth == 0 and isinstance(value, dict) and isinstance(value.get("defaults"), list):
        composed = _composed(path, text, value, builder, bom)
        if composed is not None:
            return composed, None
    if "${" in text or "???" in text:
        from dimlint.sources.yamlrefs import resolve

        resolve(value, builder.values, builder.notes, text)
    document = YamlDocument(path, text, value, builder.values, builder.keys, bom)
    document.notes = builder.notes
    return document, None


def _composed(
    path: str, text: str, value: dict[str, Any], builder: _Builder, bom: int
) -> YamlDocument | None:
    """The document of a file composed with its defaults list: this file's spans where its
    values take effect, the others' in ``foreign`` (None when nothing is Hydra's)."""
    from dimlint.sources.yamlcompose import compose
    from dimlint.sources.yamlrefs import resolve

    def raw(name: str, data: bytes) -> tuple[YamlDocument | None, InputProblem | None]:
        return load(name, data, raw=True)

    composed = compose(path, text, value, builder.values, builder.keys, raw, builder.notes)
    if composed is None:
        return None
    notes = [*builder.notes, *composed.notes]
    if (
        "${" in text
        or "???" in text
        or any("${" in d.text or "???" in d.text for d in composed.documents)
    ):
        # a composition that gave up nothing is the whole config: a key it lacks is absent
        resolve(composed.value, composed.values, notes, text, complete=not composed.notes)
    values = {p: (o.start, o.end) for p, o in composed.values.items() if o.document is None}
    keys = {p: (o.start, o.end) for p, o in composed.keys.items() if o.document is None}
    document = YamlDocument(path, text, composed.value, values, keys, bom)
    document.notes = notes
    # every document composition holds came from ``raw``: they are YamlDocuments
    document.foreign = {
        p: (cast("YamlDocument", o.document), o.start, o.end)
        for p, o in composed.values.items()
        if o.document is not None
    }
    document.composed_from = [cast("YamlDocument", d) for d in composed.documents]
    return document


def value_range(text: str, start: int, end: int) -> tuple[int, int]:
    """The characters of a value node without its properties and trailing blank lines.

    PyYAML's marks start at a node's anchor (``&h 4096.0``), and a block scalar's end at the
    line after it: a fix replacing that range would delete the anchor or join two lines. The
    anchor is skipped (the rest of the file refers to it) and the tag kept (``!!str 4096`` → the
    fix writes ``4096``, which is what it means); trailing whitespace is trimmed.
    """
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    if start < end and text[start] == "&":
        cursor = start
        while cursor < end and text[cursor] not in " \t\r\n":
            cursor += 1
        while cursor < end and text[cursor] in " \t\r\n":
            cursor += 1
        if cursor < end:
            start = cursor
    return start, end


class _Builder:
    """Turn a compose tree into plain values, recording each value's and key's offsets."""

    def __init__(self, yaml: Any, text: str, folder: str, include_depth: int) -> None:
        self.yaml = yaml
        self.text = text
        self.folder = folder
        self.include_depth = include_depth
        self.constructor = yaml.constructor.SafeConstructor()
        self.values: dict[str, tuple[int, int]] = {}
        self.keys: dict[str, tuple[int, int]] = {}
        self.notes: list[str] = []
        #: Nodes being built (an alias cycle would recurse forever).
        self.active: set[int] = set()
        self.built = 0
        self.pointer_chars = 0

    def _count(self, pointer: str) -> None:
        """Charge the work of one value: bounded in values and in pointer characters."""
        self.built += 1
        self.pointer_chars += len(pointer)
        if self.built > MAX_NODES:
            # aliases of aliases ("billion laughs") expand exponentially: refuse, bounded
            raise ValueError(f"more than {MAX_NODES} values once aliases are expanded")
        if self.pointer_chars > MAX_POINTER_CHARS:
            raise ValueError(
                f"aliases expand to more than {MAX_POINTER_CHARS} characters of key paths"
            )

    def build(self, node: Any, pointer: str, depth: int) -> Any:
        self._count(pointer)
        if pointer not in self.values:
            self.values[pointer] = value_range(
                self.text, node.start_mark.index, node.end_mark.index
            )
        if depth > MAX_DEPTH or id(node) in self.active:
            return None
        yaml = self.yaml
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, pointer)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [
                    self.build(item, f"{pointer}/{index}", depth + 1)
                    for index, item in enumerate(node.value)
                ]
            result: dict[str, Any] = {}
            merged: list[Any] = []
            for key_node, value_node in node.value:
                if key_node.tag == _MERGE_TAG:
                    merged.append(value_node)
                    continue
                name = self._key(key_node)
                if name is None:
                    continue  # complex keys name no config field
                child = f"{pointer}/{escape_pointer_token(name)}"
                if child in self.keys:
                    self.values.pop(child, None)  # YAML readers keep the later duplicate
                self.keys[child] = (key_node.start_mark.index, key_node.end_mark.index)
                result[name] = self.build(value_node, child, depth + 1)
            self._merge_into(result, merged, pointer, depth)
            return result
        finally:
            self.active.discard(id(node))

    def _key(self, key_node: Any) -> str | None:
        """A mapping key as a pointer token's text (None for a key that names no field)."""
        if not isinstance(key_node, self.yaml.ScalarNode):
            return None
        key = self._scalar(key_node, None)
        if isinstance(key, bool):
            return str(key).lower()
        if isinstance(key, HugeInt):
            return None
        if key is None or isinstance(key, (str, int, float)):
            return str(key) if key is not None else "None"
        return None

    def _merge_into(
        self, result: dict[str, Any], merged: list[Any], pointer: str, depth: int
    ) -> None:
        """Add the members of ``<<`` merges not stated in the mapping itself (earlier merged
        mappings win over later ones, as in YAML's merge-key spec)."""
        for source in merged:
            sources = source.value if isinstance(source, self.yaml.SequenceNode) else [source]
            for mapping in sources:
                if not isinstance(mapping, self.yaml.MappingNode) or depth > MAX_DEPTH:
                    continue
                if id(mapping) in self.active:
                    continue  # a mapping merging itself through an alias
                self.active.add(id(mapping))
                try:
                    for name, value in self._merge(mapping, pointer, depth).items():
                        result.setdefault(name, value)
                finally:
                    self.active.discard(id(mapping))

    def _merge(self, mapping: Any, pointer: str, depth: int) -> dict[str, Any]:
        """The members of a merged mapping, located where they are written; a merge key inside
        it (``<<`` in a merged mapping) merges in turn, below the mapping's own members."""
        found: dict[str, Any] = {}
        nested: list[Any] = []
        for key_node, value_node in mapping.value:
            if key_node.tag == _MERGE_TAG:
                nested.append(value_node)
                continue
            key = self._key(key_node)
            if key is None:
                continue
            child = f"{pointer}/{escape_pointer_token(key)}"
            if child in self.keys:
                continue  # the mapping's own key wins over a merged one
            self.keys[child] = (key_node.start_mark.index, key_node.end_mark.index)
            found[key] = self.build(value_node, child, depth + 1)
        self._merge_into(found, nested, pointer, depth + 1)
        return found

    def _scalar(self, node: Any, pointer: str | None) -> Any:
        """A scalar's value as ``yaml.safe_load`` reads it, or a marker for what it cannot."""
        tag: str = node.tag
        raw: str = node.value
        start, end = value_range(self.text, node.start_mark.index, node.end_mark.index)
        written = self.text[start:end]
        if tag == _INT_TAG and len(raw) > MAX_INT_CHARS:
            return HugeInt(max(1, sum(c.isdigit() for c in raw)))
        if not tag.startswith(_STANDARD_TAG):
            if tag == "!include" and pointer is not None:
                return self._include(raw, pointer)
            return self._unresolved(
                written, pointer, f"the tag {tag} is read by the framework, not by YAML"
            )
        try:
            value = self.constructor.construct_object(node, deep=True)
        except Exception:  # PyYAML's constructors raise KeyError, IndexError, AttributeError…
            return Malformed(_short(written), f"not a valid {tag.removeprefix(_STANDARD_TAG)}")
        if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
            return HugeInt(int(value.bit_length() * 0.30103) + 1)
        return value

    def _unresolved(self, written: str, pointer: str | None, reason: str) -> Unresolved:
        if pointer is not None:
            self.notes.append(f"{pointer or '/'}: {_short(written)} not read ({reason})")
        return Unresolved(_short(written), reason)

    def _include(self, name: str, pointer: str) -> Any:
        """levanter's ``!include file.yaml``: the value of that file, read beside this one.

        Its values have no position in this file: findings on them point at the ``!include``
        and offer no fix (the value to edit is in the other file)."""
        written = f"!include {name}"
        if self.include_depth >= MAX_INCLUDE_DEPTH:
            return self._unresolved(written, pointer, "includes nested too deep")
        from dimlint.sources.safeio import is_regular, read_regular

        target = os.path.join(self.folder, name)
        if not is_regular(target):
            return self._unresolved(written, pointer, "the included file is not beside this one")
        try:
            data = read_regular(target, MAX_INCLUDE_BYTES)
        except OSError as error:
            return self._unresolved(written, pointer, error.strerror or str(error))
        document, problem = load(target, data, self.include_depth + 1)
        if document is None:
            reason = problem.message if problem is not None else "unreadable"
            return self._unresolved(written, pointer, f"the included file: {reason}")
        self._count(pointer)
        return document.value


def _short(text: str) -> str:
    """A value's text for a message: one line, at most 60 characters."""
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."
