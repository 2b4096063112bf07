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
aliases resolve to the node where the value is written, and merge keys (``<<: *base``) take the
merged values with their own positions: a fix edits the definition, which is what takes effect.
"""

from __future__ import annotations

import bisect
import codecs
from typing import Any

from dimlint.config.pointers import escape_pointer_token
from dimlint.diagnostics import Position, Span, line_starts, position_of
from dimlint.sources.jsonfile import InputProblem

#: Nesting deeper than this is not a config; it also bounds the walk on hostile input.
MAX_DEPTH = 64
#: Values built, aliases expanded: far above any config, far below what exhausts memory.
MAX_NODES = 200_000


class YamlDocument:
    """A parsed YAML file: its text, its value, and the spans of keys and values by pointer."""

    __slots__ = (
        "_keys",
        "_line_starts",
        "_values",
        "bom",
        "has_duplicates",
        "path",
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
        bom: bool = False,
    ) -> None:
        self.path = path
        self.text = text
        self.value = value
        self.bom = bom
        self.has_duplicates = False
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

    def key_span(self, pointer: str) -> Span | None:
        """Where the key of the mapping member at ``pointer`` is written."""
        found = self._keys.get(pointer)
        return self.span(*found) if found is not None else None


def decode(data: bytes) -> tuple[str | None, bool, InputProblem | None]:
    """The text (UTF-8, BOM removed), whether there was a BOM, and why it cannot be decoded."""
    bom = data.startswith(codecs.BOM_UTF8)
    if bom:
        data = data[len(codecs.BOM_UTF8) :]
    if b"\x00" in data[:8192]:
        return None, bom, InputProblem("the file is binary (it contains NUL bytes), not YAML")
    try:
        return data.decode("utf-8"), bom, None
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8", errors="replace")
        position = position_of(prefix, len(prefix))
        return None, bom, InputProblem("invalid UTF-8: save the file as UTF-8", position)


def load(path: str, data: bytes) -> tuple[YamlDocument | None, InputProblem | None]:
    """Parse file bytes: the document, or why it is not readable YAML (a DL001 problem)."""
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
    builder = _Builder(yaml)
    try:
        value = builder.build(node, "", 0)
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as error:
        return None, InputProblem(f"invalid YAML value: {error}")
    return YamlDocument(path, text, value, builder.values, builder.keys, bom), None


class _Builder:
    """Turn a compose tree into plain values, recording each value's and key's offsets."""

    def __init__(self, yaml: Any) -> None:
        self.yaml = yaml
        self.constructor = yaml.constructor.SafeConstructor()
        self.values: dict[str, tuple[int, int]] = {}
        self.keys: dict[str, tuple[int, int]] = {}
        #: Nodes being built (an alias cycle would recurse forever).
        self.active: set[int] = set()
        self.built = 0

    def build(self, node: Any, pointer: str, depth: int) -> Any:
        self.built += 1
        if self.built > MAX_NODES:
            # aliases of aliases ("billion laughs") expand exponentially: refuse, bounded
            raise ValueError(f"more than {MAX_NODES} values once aliases are expanded")
        self.values.setdefault(pointer, (node.start_mark.index, node.end_mark.index))
        if depth > MAX_DEPTH or id(node) in self.active:
            return None
        yaml = self.yaml
        if isinstance(node, yaml.ScalarNode):
            return self.constructor.construct_object(node, deep=True)
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
                if key_node.tag == "tag:yaml.org,2002:merge":
                    merged.append(value_node)
                    continue
                key = self.constructor.construct_object(key_node, deep=True)
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    continue  # complex keys name no config field
                name = str(key) if not isinstance(key, bool) else str(key).lower()
                child = f"{pointer}/{escape_pointer_token(name)}"
                if child not in self.keys:
                    self.keys[child] = (key_node.start_mark.index, key_node.end_mark.index)
                else:
                    self.values.pop(child, None)  # YAML readers keep the later duplicate
                    self.keys[child] = (key_node.start_mark.index, key_node.end_mark.index)
                result[name] = self.build(value_node, child, depth + 1)
            for source in merged:
                sources = source.value if isinstance(source, yaml.SequenceNode) else [source]
                for mapping in sources:
                    if not isinstance(mapping, yaml.MappingNode):
                        continue
                    for name, value in self._merge(mapping, pointer, depth).items():
                        result.setdefault(name, value)
            return result
        finally:
            self.active.discard(id(node))

    def _merge(self, mapping: Any, pointer: str, depth: int) -> dict[str, Any]:
        """The members of a merged mapping, located where they are written."""
        found: dict[str, Any] = {}
        for key_node, value_node in mapping.value:
            key = self.constructor.construct_object(key_node, deep=True)
            if not isinstance(key, str):
                continue
            child = f"{pointer}/{escape_pointer_token(key)}"
            if child in self.keys:
                continue  # the mapping's own key wins over a merged one
            self.keys[child] = (key_node.start_mark.index, key_node.end_mark.index)
            found[key] = self.build(value_node, child, depth + 1)
        return found
