"""Read the Megatron arguments of a launch script (``--hidden-size 4096`` in a ``.sh`` file).

Megatron-LM, Megatron-DeepSpeed and NeMo's examples launch training from shell scripts whose
model is a list of arguments: ``--num-layers 32 --hidden-size 4096 --num-attention-heads 32``,
often through variables (``HIDDEN=4096`` … ``--hidden-size $HIDDEN``). This reader turns them
into the same document the YAML reader gives (a mapping of ``--name`` keys, each value located
where it is written), so the YAML front end and its Megatron dialect judge them alike.

Scripts choose sizes in ``if``/``elif``/``else`` branches (``if [ $MODEL_SIZE = 7B ]; then
HIDDEN=4096 …``, or a ``MODEL_ARGS="--hidden-size 1024 …"`` per branch) or in the arms of a
``case "$MODEL_SIZE" in 7B) … ;; esac``: each branch or arm that writes a size is read as its
own model (an arm that copies an argument, ``--hidden) HIDDEN=$2;;``, writes none). What is not
certain is not read: a variable assigned more than once outside such branches, assigned from
another command or computed, an argument given twice with different values. Those become
:class:`~dimlint.config.values.Unresolved` and are said under ``--verbose``. ``${VAR:-4096}``
reads as its written default.
"""

from __future__ import annotations

import re
from typing import Any

from dimlint.config.pointers import escape_pointer_token
from dimlint.config.values import Unresolved
from dimlint.sources.yamlfile import YamlDocument

#: A model argument of Megatron: ``--name value`` or ``--name=value`` (a flag has no value).
#: Forks spell the names with underscores (epfLLM's Megatron-LLM: ``--hidden_size 4096``, which
#: its ``arguments.py`` defines); the dialect reads both spellings alike.
_ARGUMENT = re.compile(r"(?<![\w-])--([a-z][a-z0-9_-]*)(?:(?:[ \t]|\\\n)+|=)?")
#: The value token after an argument: a quoted or bare word.
_VALUE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s\\;|&)\"']+")
#: ``NAME=value`` (optionally ``export``ed) at the start of a line, or after a ``;`` or a
#: ``case`` pattern's ``)`` (``7B) HIDDEN=4096;;``).
_ASSIGNMENT = re.compile(r"(?m)(?:^|;|\))[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)=([^\s;]*)")
#: ``$NAME``, ``${NAME}`` or ``${NAME:-default}``.
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_]\w*)(?::?-([^}]*))?\}|([A-Za-z_]\w*))$")
_NUMBER = re.compile(r"[0-9]+")
#: Arguments and assignments past which a script's branches are not read one by one.
MAX_BRANCH_WORK = 1_500
#: Arguments a Megatron model is read from (a script needs two to be a model's).
MODEL_ARGUMENTS = ("hidden-size", "num-attention-heads", "num-layers")


def may_have_model(data: bytes) -> bool:
    """Whether the script names at least two of Megatron's model-size arguments (in either
    spelling: ``--hidden-size`` or ``--hidden_size``)."""
    return (
        sum(any(f"--{n}".encode() in data for n in _spellings(name)) for name in MODEL_ARGUMENTS)
        >= 2
    )


def _spellings(name: str) -> tuple[str, str]:
    """An argument's name with hyphens (Megatron-LM) and with underscores (its forks)."""
    return name, name.replace("-", "_")


def _model_argument(name: str) -> bool:
    return name.replace("_", "-") in MODEL_ARGUMENTS


def load(path: str, text: str) -> YamlDocument:
    """The arguments of the script as a document (values located where they are written).

    The arguments outside any ``if`` or ``case`` are the document's top level. Each branch of an
    outermost ``if``/``elif``/``else`` chain, and each arm of an outermost ``case``, that sets
    model sizes (``HIDDEN=4096`` for the sizes the arguments name, or ``--hidden-size 1024`` of
    its own) is one more model, a member named by its condition: the arguments outside with the
    branch's variables, plus the branch's own."""
    assignments: dict[str, list[tuple[str, int]]] = {}
    for match in _ASSIGNMENT.finditer(text):
        assignments.setdefault(match.group(1), []).append((match.group(2), match.start(2)))
    occurrences = [m for m in _ARGUMENT.finditer(text) if not _commented(text, m.start())]
    places = sum(len(found) for found in assignments.values())
    # a branch re-reads the arguments outside it: bounded work on a hostile script
    branches = _branches(text) if len(occurrences) + places <= MAX_BRANCH_WORK else []
    if not branches and len(occurrences) + places <= MAX_BRANCH_WORK:
        branches = _commands(text, occurrences)

    def where(offset: int) -> int | None:
        return next((i for i, (_, s, e) in enumerate(branches) if s <= offset < e), None)

    value: dict[str, Any] = {}
    values: dict[str, tuple[int, int]] = {}
    keys: dict[str, tuple[int, int]] = {}
    notes: list[str] = []
    outside = [m for m in occurrences if where(m.start()) is None]
    _read_arguments(text, outside, assignments, value, values, keys, notes, "")
    for index, (label, start, end) in enumerate(branches):
        local = {
            name: [(w, o) for w, o in places if start <= o < end]
            for name, places in assignments.items()
        }
        local = {name: places for name, places in local.items() if places}
        own = [m for m in occurrences if where(m.start()) == index]
        used = {
            name
            for m in outside
            if (name := _variable_of(text, m)) is not None
            and any(_numeric(written) for written, _ in local.get(name, ()))
        }
        if not used and not any(_model_argument(m.group(1)) for m in own):
            continue
        chosen = {
            name: local.get(name, [p for p in places if where(p[1]) is None])
            for name, places in assignments.items()
        }
        member: dict[str, Any] = {}
        prefix = f"/{escape_pointer_token(label)}"
        _read_arguments(text, [*outside, *own], chosen, member, values, keys, notes, prefix)
        value[label] = member
    if any(isinstance(member, dict) for member in value.values()):
        # the sizes are the branches' models: the top level is no model of its own
        for name in MODEL_ARGUMENTS:
            for spelling in _spellings(name):
                value.pop(f"--{spelling}", None)
    document = YamlDocument(path, text, value, values, keys)
    document.notes = notes
    return document


def _read_arguments(
    text: str,
    occurrences: list[re.Match[str]],
    assignments: dict[str, list[tuple[str, int]]],
    value: dict[str, Any],
    values: dict[str, tuple[int, int]],
    keys: dict[str, tuple[int, int]],
    notes: list[str],
    prefix: str,
) -> None:
    """Read ``occurrences`` into ``value``, located under the pointer ``prefix``."""
    for match in occurrences:
        key = f"--{match.group(1)}"
        token = _VALUE.match(text, match.end())
        start, end = (token.start(), token.end()) if token else (match.end(), match.end())
        raw = token.group(0) if token else ""
        if not raw or (raw.startswith("-") and not _NUMBER.fullmatch(raw[1:])):
            item: Any = True  # a flag: ``--swiglu``
            start, end = match.start(), match.start() + len(key)
        else:
            item, start, end = _value(raw, start, end, assignments)
        pointer = f"{prefix}/{key}"
        if key in value and value[key] != item:
            if prefix and pointer in values and where_key(keys, pointer) < match.start():
                value[key] = item  # the branch's own argument after the common one
                values[pointer], keys[pointer] = (
                    (start, end),
                    (match.start(), match.start() + len(key)),
                )
                continue
            item = Unresolved(key, "given more than once with different values")
        if isinstance(item, Unresolved):
            notes.append(f"{pointer}: {raw or key} not read ({item.reason})")
        value[key] = item
        values.setdefault(pointer, (start, end))
        keys.setdefault(pointer, (match.start(), match.start() + len(key)))


def where_key(keys: dict[str, tuple[int, int]], pointer: str) -> int:
    return keys[pointer][0] if pointer in keys else -1


#: A line that opens, continues or closes an ``if`` chain or a ``case`` statement, and the
#: ``;;`` (``;&``, ``;;&``) that ends a ``case`` arm.
_BRANCH = re.compile(
    r"(?m)^[ \t]*(if|elif|else|fi|esac)\b(.*)$"
    r"|^[ \t]*(case)[ \t]+(\S+)[ \t]+in\b(.*)$"
    r"|(;;&?|;&)"
)
#: A ``case`` arm's pattern, from where the previous arm ended: ``7B)``, ``"13B"|13b)``,
#: ``(*)``, with blank and comment lines before it.
_PATTERN = re.compile(r"(?:\s|#[^\n]*)*\(?([^()\n;#]*)\)")
#: Branches and arms past which a script's models are not read one by one.
MAX_BRANCHES = 32


def _branches(text: str) -> list[tuple[str, int, int]]:
    """(label, start, end) of each branch of the outermost ``if`` chains and of each arm of the
    outermost ``case`` statements (a one-line ``if …; fi`` or ``case … esac`` is neither): the
    parts of a script only one of which runs."""
    found: list[tuple[str, int, int]] = []
    nesting: list[str] = []  # "if" and "case", innermost last
    current: tuple[str, int] | None = None
    subject = ""

    def arm(after: int) -> tuple[str, int] | None:
        pattern = _PATTERN.match(text, after)
        if pattern is None or pattern.group(1).strip() in ("", "esac"):
            return None
        return _label("case", f"{subject} {pattern.group(1).strip()})"), pattern.end()

    for match in _BRANCH.finditer(text):
        word = match.group(1) or match.group(3) or match.group(6)
        if word in ("if", "case"):
            rest = match.group(2) if word == "if" else match.group(5)
            closing = r"\bfi" if word == "if" else r"\besac"
            if re.search(rf"{closing}\s*(?:;.*|#.*)?$", rest):
                continue  # opened and closed on one line
            nesting.append(word)
            if len(nesting) == 1:
                if word == "if":
                    current = (_label("if", rest), match.end())
                else:
                    subject = match.group(4)
                    current = arm(match.end())
        elif word in ("elif", "else"):
            if nesting == ["if"] and current is not None:
                found.append((current[0], current[1], match.start()))
                current = (_label(word, match.group(2)), match.end())
        elif word in ("fi", "esac"):
            if nesting and nesting[-1] == ("if" if word == "fi" else "case"):
                if len(nesting) == 1 and current is not None:
                    found.append((current[0], current[1], match.start()))
                current = None if len(nesting) == 1 else current
                nesting.pop()
                terminator = match.group(2).find(";;")  # ``fi;;``: the arm ends here too
                if nesting == ["case"] and terminator >= 0:
                    if current is not None:
                        found.append((current[0], current[1], match.start(2) + terminator))
                    current = arm(match.start(2) + terminator + 2)
        elif nesting == ["case"] and not _commented(text, match.start()):  # an arm's end
            if current is not None:
                found.append((current[0], current[1], match.start()))
            current = arm(match.end())
    return found[:MAX_BRANCHES]


#: A logical line that assigns a quoted string or an array (``GPT_ARGS="--num-layers 24 \\``,
#: ``ARGS=(``): arguments every command that names the variable shares, not a command.
_STRING_ASSIGNMENT = re.compile(r"\s*(?:export\s+)?[A-Za-z_]\w*=[\"'(]")


def _commands(text: str, occurrences: list[re.Match[str]]) -> list[tuple[str, int, int]]:
    """(label, start, end) of each command line (continuations joined) that writes model
    arguments of its own, when a script runs two or more (a training run and its resume, an
    evaluation in two steps): each is a model, so that one command's sizes are not
    "given more than once with different values" beside the other's. One such command gives
    none: its arguments are the script's top level, as before."""
    spans: list[tuple[str, int, int]] = []
    for match in re.finditer(r"(?:[^\n\\]|\\.|\\\n)+", text):
        start, end = match.span()
        if _STRING_ASSIGNMENT.match(text, start) or match.group(0).lstrip()[:1] in ("#", "-"):
            # a variable's arguments, a line of an array or of a quoted string: no command
            continue
        if any(start <= m.start() < end and _model_argument(m.group(1)) for m in occurrences):
            line = text.count("\n", 0, start) + 1
            spans.append((f"command at line {line}", start, end))
    return spans[:MAX_BRANCHES] if len(spans) >= 2 else []


def _label(word: str, condition: str) -> str:
    """``if [ $MODEL_SIZE = 7B ]; then`` → ``if $MODEL_SIZE = 7B``: a member name for a branch."""
    text = re.sub(r";?\s*then\s*(?:#.*)?$", "", condition.strip())
    text = " ".join(text.strip("[] ").split())[:60]
    return f"{word} {text}".strip()


def _variable_of(text: str, match: re.Match[str]) -> str | None:
    """The variable an argument's value names (``--hidden-size $HIDDEN`` → ``HIDDEN``)."""
    token = _VALUE.match(text, match.end())
    if token is None:
        return None
    variable = _VARIABLE.fullmatch(token.group(0).strip("\"'"))
    return (variable.group(1) or variable.group(3)) if variable else None


def _numeric(written: str) -> bool:
    """Whether an assignment writes a number (``4096``, ``"4096"``, ``${HIDDEN:-4096}``): a
    branch that only copies an argument (``--hidden) HIDDEN=$2;;``) sets no size."""
    literal = written.strip("\"'")
    inner = _VARIABLE.fullmatch(literal)
    if inner is not None and inner.group(2) is not None:
        literal = inner.group(2)
    return _NUMBER.fullmatch(literal) is not None


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
