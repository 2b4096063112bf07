"""Read the Megatron arguments of a launch script (``--hidden-size 4096`` in a ``.sh`` file).

Megatron-LM, Megatron-DeepSpeed and NeMo's examples launch training from shell scripts whose
model is a list of arguments: ``--num-layers 32 --hidden-size 4096 --num-attention-heads 32``,
often through variables (``HIDDEN=4096`` … ``--hidden-size $HIDDEN``). This reader turns them
into the same document the YAML reader gives (a mapping of ``--name`` keys, each value located
where it is written), so the YAML front end and its Megatron dialect judge them alike.

What is not certain is not read: a variable assigned more than once (scripts choose sizes in
``if``/``case`` branches), assigned from another command or computed, an argument given twice
with different values. Those become :class:`~dimlint.config.values.Unresolved` and are said
under ``--verbose``. ``${VAR:-4096}`` reads as its written default.
"""

from __future__ import annotations

import re
from typing import Any

from dimlint.config.values import Unresolved
from dimlint.sources.yamlfile import YamlDocument

#: A model argument of Megatron: ``--name value`` or ``--name=value`` (a flag has no value).
_ARGUMENT = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)(?:(?:[ \t]|\\\n)+|=)?")
#: The value token after an argument: a quoted or bare word.
_VALUE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s\\;|&)\"']+")
#: ``NAME=value`` (optionally ``export``ed) at the start of a line.
_ASSIGNMENT = re.compile(r"(?m)^[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)=(\S*)")
#: ``$NAME``, ``${NAME}`` or ``${NAME:-default}``.
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_]\w*)(?::?-([^}]*))?\}|([A-Za-z_]\w*))$")
_NUMBER = re.compile(r"[0-9]+")
#: Arguments a Megatron model is read from (a script needs two to be a model's).
MODEL_ARGUMENTS = ("hidden-size", "num-attention-heads", "num-layers")


def may_have_model(data: bytes) -> bool:
    """Whether the script names at least two of Megatron's model-size arguments."""
    return sum(f"--{name}".encode() in data for name in MODEL_ARGUMENTS) >= 2


def load(path: str, text: str) -> YamlDocument:
    """The arguments of the script as a document (values located where they are written)."""
    assignments: dict[str, list[tuple[str, int]]] = {}
    for match in _ASSIGNMENT.finditer(text):
        assignments.setdefault(match.group(1), []).append((match.group(2), match.start(2)))
    value: dict[str, Any] = {}
    values: dict[str, tuple[int, int]] = {}
    keys: dict[str, tuple[int, int]] = {}
    notes: list[str] = []
    for match in _ARGUMENT.finditer(text):
        if _commented(text, match.start()):
            continue
        key = f"--{match.group(1)}"
        token = _VALUE.match(text, match.end())
        start, end = (token.start(), token.end()) if token else (match.end(), match.end())
        raw = token.group(0) if token else ""
        if not raw or (raw.startswith("-") and not _NUMBER.fullmatch(raw[1:])):
            item: Any = True  # a flag: ``--swiglu``
            start, end = match.start(), match.start() + len(key)
        else:
            item, start, end = _value(raw, start, end, assignments)
        pointer = f"/{key}"
        if key in value and value[key] != item:
            item = Unresolved(key, "given more than once with different values")
        if isinstance(item, Unresolved):
            notes.append(f"{pointer}: {raw or key} not read ({item.reason})")
        value[key] = item
        values.setdefault(pointer, (start, end))
        keys.setdefault(pointer, (match.start(), match.start() + len(key)))
    document = YamlDocument(path, text, value, values, keys)
    document.notes = notes
    return document


def _commented(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return "#" in text[line_start:offset]


def _value(
    raw: str, start: int, end: int, assignments: dict[str, list[tuple[str, int]]]
) -> tuple[Any, int, int]:
    """The literal a value token stands for, and where that literal is written."""
    if raw[:1] in "\"'":
        raw, start, end = raw[1:-1], start + 1, end - 1
    if _NUMBER.fullmatch(raw):
        return int(raw), start, end
    if raw.startswith("-") and _NUMBER.fullmatch(raw[1:]):
        return Unresolved(raw, "a placeholder (the size is read from elsewhere)"), start, end
    variable = _VARIABLE.fullmatch(raw)
    if variable is None:
        return _literal(raw), start, end
    name = variable.group(1) or variable.group(3)
    default = variable.group(2)
    places = assignments.get(name, [])
    if len({text for text, _ in places}) > 1:
        return Unresolved(raw, f"${name} is assigned more than once"), start, end
    if places:
        written, offset = places[0]
        inner = _VARIABLE.fullmatch(written.strip("\"'"))
        if inner is not None and inner.group(2) is not None:
            default = inner.group(2)
            offset += written.index(default)
            written = default
        quoted = written[:1] in "\"'"
        literal = written.strip("\"'")
        offset += 1 if quoted else 0
        if _NUMBER.fullmatch(literal):
            return int(literal), offset, offset + len(literal)
        return Unresolved(raw, f"${name} is not a number written in this script"), start, end
    if default is not None and _NUMBER.fullmatch(default):
        offset = start + raw.index(default)
        return int(default), offset, offset + len(default)
    return Unresolved(raw, f"${name} is set outside this script"), start, end


def _literal(raw: str) -> Any:
    """A non-numeric word: a name (``swiglu``, ``RMSNorm``) or a boolean."""
    if raw in ("true", "True"):
        return True
    if raw in ("false", "False"):
        return False
    if "$" in raw or "`" in raw:
        return Unresolved(raw, "computed when the script runs")
    return raw
