"""The rule catalogue: one Markdown file per rule, read as documentation and as test cases.

Each registered rule has a file ``rules/DLxxx-<name>.md`` (in an installed wheel,
``dimlint/_rules/``). A file is::

    ---
    code: DL101
    name: head-divisibility
    severity: error          # error | warning | info
    fix: sometimes           # always | sometimes | never (the registry's fix kind)
    since: 0.1.0
    default: true            # enabled without --select/--extend-select
    ---
    # head-divisibility (DL101)
    ## What it does / ## Why is this bad? / ## Example / ## Use instead / ## Fix

The front matter is ``key: value`` lines (a ``#`` starts a comment; values may be quoted); no
YAML library is needed or used. Fenced code blocks whose info string is ``json example``,
``json use-instead`` or ``json fixed`` are examples; other fences are prose. Inside an
``example`` block, a *marker line* directly below a line marks where a finding is expected::

      "hidden_size": 4100,
    //               ^^^^ DL101

``//``, then spaces (none for column 3), then a run of ``^`` under the offending characters (same
columns), a space and the rule code. Columns 1–2 cannot be marked, so a finding at a top-level
``{`` needs the example indented. Several marker lines may follow one line. Marker lines are
removed before the JSON is linted; what remains must raise exactly the marked findings. The
*n*-th ``fixed`` block of a file is what applying every fix to the *n*-th ``example`` block
produces.

Rules about Python code (DL701) use ``python example`` / ``python use-instead`` /
``python fixed`` blocks, linted as a ``.py`` file; their marker lines start with ``#`` instead of
``//`` (so column 2 is the first that can be marked), and stay valid Python comments::

    attention = nn.MultiheadAttention(1024, 16)  # noqa: DL101
    #                                            ^^^^^^^^^^^^^ DL701

A Python example runs its rule together with the rules its ``# noqa`` comments name, which is
what an unused-noqa example needs to be meaningful.

Rules that judge a deployment (DL401–DL407, DL501, DL502, and DL104/DL201 under a target) need
one in their examples: attributes after the kind give it, as the command line would::

    ```json example target="vllm:tp=8" budget="1xH100-80GB" context="8192"

Attributes are ``target`` (repeatable), ``budget``, ``context``, ``batch``, ``dtype`` and
``kv-dtype``; values are double-quoted and contain no spaces.

Rules that read the files beside a ``config.json`` (DL503, DL605, DL610–DL612) give those files
as ``json file="NAME"`` blocks right after the example (or use-instead block) they belong to;
the harness writes them beside the config before linting::

    ```json file="model.safetensors"
    {"model.embed_tokens.weight": {"dtype": "BF16", "shape": [49152, 576]}}
    ```

A ``.safetensors`` block is the file's JSON header; ``data_offsets`` may be left out (the
tensors are then laid out in order) and the data is written as zeros (a sparse file), since
the rules read headers only. Other files are written as given. A file block of an ``example``
may carry marker lines for findings reported in that file (DL503 points into the index).

``dimlint rule CODE`` prints a file (:func:`print_rule`), ``dimlint rules`` lists every rule
(:func:`print_rules`); ``python -m dimlint.tools.readme_rules`` renders the README's table.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TextIO

from dimlint.records import Record

if TYPE_CHECKING:
    from dimlint.deploy.targets import Deployment

#: The sections every rule file has, in this order (a file may add others between them).
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix")
FRONT_MATTER_KEYS = ("code", "name", "severity", "fix", "since", "default")
SEVERITIES = ("error", "warning", "info")
FIX_KINDS = ("always", "sometimes", "never")

ExampleKind = Literal["example", "use-instead", "fixed"]
EXAMPLE_KINDS: tuple[ExampleKind, ...] = ("example", "use-instead", "fixed")
_KINDS: dict[str, ExampleKind] = {kind: kind for kind in EXAMPLE_KINDS}

_FILE_NAME = re.compile(r"^(DL\d{3})-([a-z0-9]+(?:-[a-z0-9]+)*)\.md$")
#: Example languages: the marker prefix of each, and the file name their text is linted as.
LANGUAGES = {"json": ("//", "config.json"), "python": ("#", "example.py")}
_MARKERS = {
    language: re.compile(rf"^{prefix}(?P<pad> *)(?P<carets>\^+) (?P<code>DL\d{{3}})\s*$")
    for language, (prefix, _) in LANGUAGES.items()
}
_NOQA_CODES = re.compile(r"#\s*(?i:noqa):\s*(?P<codes>[A-Z0-9, ]+)")
_FENCE = re.compile(r"^(?P<fence>`{3,})(?P<info>.*)$")
_ATTRIBUTE = re.compile(r'^(?P<key>[a-z][a-z-]*)="(?P<value>[^"]*)"$')
_FILE_ATTRIBUTE = re.compile(r'^file="(?P<name>[A-Za-z0-9_.-]+)"$')
#: Deployment attributes an example's info string may carry (the ``check`` options).
OPTION_KEYS = ("target", "budget", "context", "batch", "dtype", "kv-dtype")


class CatalogueError(ValueError):
    """A rule file that does not follow the format above (the message names file and line)."""


class Marker(Record):
    """An expected finding: 1-based line and columns in the example with markers removed.

    ``end_column`` is exclusive, like :class:`dimlint.diagnostics.Span`'s ``end_pos``.
    """

    code: str
    line: int
    column: int
    end_column: int


class Beside(Record):
    """A file written beside an example's ``config.json`` (a ``json file="NAME"`` block)."""

    name: str
    #: The text with marker lines removed (for ``.safetensors``: the header JSON).
    text: str
    markers: tuple[Marker, ...]


class Example(Record):
    """One fenced example of a rule file."""

    code: str
    kind: ExampleKind
    #: 1-based among the blocks of the same kind in the file (``DL101-example-1``).
    number: int
    #: The JSON with marker lines removed, ending with a newline.
    text: str
    markers: tuple[Marker, ...]
    #: 1-based line of the opening fence in the rule file.
    line: int
    #: Deployment attributes of the info string, in order: (``target``, ``vllm:tp=8``)…
    options: tuple[tuple[str, str], ...] = ()
    #: ``json`` or ``python``: how the text is linted.
    language: str = "json"
    #: Files beside the config (checkpoint headers, index, tokenizer), in order.
    files: tuple[Beside, ...] = ()

    @property
    def id(self) -> str:
        return f"{self.code}-{self.kind}-{self.number}"

    @property
    def path(self) -> str:
        """The file name the text is linted as (``config.json``, ``example.py``)."""
        return LANGUAGES[self.language][1]

    def select(self) -> tuple[str, ...]:
        """The rules to run: the example's own, and for Python those its noqa comments name."""
        if self.language != "python":
            return (self.code,)
        named = re.findall(r"DL\d{3}", " ".join(_NOQA_CODES.findall(self.text)))
        return tuple(dict.fromkeys((self.code, *named)))

    def deployment(self) -> Deployment | None:
        """The deployment the attributes describe (None without attributes)."""
        from dimlint.deploy.targets import deployment

        values = dict(self.options)
        number = {k: int(values[k]) if k in values else None for k in ("context", "batch")}
        return deployment(
            {},
            targets=[v for k, v in self.options if k == "target"] or None,
            budget=values.get("budget"),
            context=number["context"],
            batch=number["batch"],
            dtype=values.get("dtype"),
            kv_dtype=values.get("kv-dtype"),
        )


class RuleDoc(Record):
    """A parsed rule file."""

    code: str
    name: str
    severity: str
    fix: str
    since: str
    default: bool
    path: Path
    #: The whole file.
    text: str
    #: The Markdown after the front matter.
    body: str
    #: The ``## `` section titles, in order.
    sections: tuple[str, ...]


def catalogue_dir() -> Path:
    """Where the rule files are: inside an installed wheel, else the repository's ``rules/``."""
    packaged = Path(__file__).parent.parent / "_rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).parent.parent.parent / "rules"


def rule_files(directory: Path | None = None) -> dict[str, Path]:
    """Every rule file by code, sorted by code; a code with two files is an error."""
    root = directory or catalogue_dir()
    found: dict[str, Path] = {}
    if not root.is_dir():
        return found
    for path in sorted(root.glob("DL*.md")):
        match = _FILE_NAME.match(path.name)
        if match is None:
            raise CatalogueError(f"{path}: rule files are named DLxxx-<name>.md")
        code = match.group(1)
        if code in found:
            raise CatalogueError(f"{path}: {code} already has {found[code].name}")
        found[code] = path
    return dict(sorted(found.items()))


def read_rule(code: str, directory: Path | None = None) -> RuleDoc:
    """Parse the file of ``code`` (``KeyError`` when the catalogue has none)."""
    files = rule_files(directory)
    if code not in files:
        raise KeyError(code)
    return parse_rule(files[code])


def parse_rule(path: Path) -> RuleDoc:
    """Parse one rule file: front matter, body and section titles."""
    text = path.read_text(encoding="utf-8")
    values, body = parse_front_matter(text, str(path))
    missing = [key for key in FRONT_MATTER_KEYS if key not in values]
    if missing:
        raise CatalogueError(f"{path}: front matter lacks {', '.join(missing)}")
    unknown = sorted(set(values) - set(FRONT_MATTER_KEYS))
    if unknown:
        raise CatalogueError(f"{path}: unknown front matter keys {', '.join(unknown)}")
    if values["severity"] not in SEVERITIES:
        raise CatalogueError(f"{path}: severity must be one of {', '.join(SEVERITIES)}")
    if values["fix"] not in FIX_KINDS:
        raise CatalogueError(f"{path}: fix must be one of {', '.join(FIX_KINDS)}")
    if values["default"] not in ("true", "false"):
        raise CatalogueError(f"{path}: default must be true or false")
    return RuleDoc(
        code=values["code"],
        name=values["name"],
        severity=values["severity"],
        fix=values["fix"],
        since=values["since"],
        default=values["default"] == "true",
        path=path,
        text=text,
        body=body,
        sections=_sections(body),
    )


def parse_front_matter(text: str, where: str = "<text>") -> tuple[dict[str, str], str]:
    """Split ``---`` front matter of ``key: value`` lines from the body that follows it."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != "---":
        raise CatalogueError(f"{where}:1: expected front matter starting with ---")
    values: dict[str, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        content = line.rstrip("\r\n")
        if content == "---":
            return values, "".join(lines[number:]).lstrip("\n")
        stripped = _strip_comment(content).strip()
        if not stripped:
            continue
        key, colon, value = stripped.partition(":")
        key, value = key.strip(), value.strip()
        if not colon or not key:
            raise CatalogueError(f"{where}:{number}: expected 'key: value', got {content!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        if key in values:
            raise CatalogueError(f"{where}:{number}: {key} is set twice")
        values[key] = value
    raise CatalogueError(f"{where}: front matter is not closed by ---")


def _strip_comment(line: str) -> str:
    """Drop a ``#`` comment outside quotes."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index]
    return line


def _in_code(lines: list[str]) -> list[bool]:
    """For each line: whether it is a fence or inside a fenced code block."""
    flags: list[bool] = []
    fence = ""
    for line in lines:
        match = _FENCE.match(line)
        if fence:
            flags.append(True)
            if line.strip() == fence:
                fence = ""
        elif match is not None:
            flags.append(True)
            fence = match.group("fence")
        else:
            flags.append(False)
    return flags


def _sections(body: str) -> tuple[str, ...]:
    lines = body.splitlines()
    return tuple(
        line[3:].strip()
        for line, code in zip(lines, _in_code(lines), strict=True)
        if not code and line.startswith("## ")
    )


def section(doc: RuleDoc, title: str) -> str:
    """The text of one ``## `` section (without its heading); empty when absent."""
    lines = doc.body.splitlines(keepends=True)
    collected: list[str] = []
    inside = False
    for line, code in zip(lines, _in_code(lines), strict=True):
        if not code and line.startswith("## "):
            if inside:
                break
            inside = line[3:].strip() == title
            continue
        if inside:
            collected.append(line)
    return "".join(collected).strip("\n")


def examples(doc: RuleDoc) -> list[Example]:
    """The ``json example`` / ``json use-instead`` / ``json fixed`` blocks of a rule file."""
    found: list[Example] = []
    counts: dict[ExampleKind, int] = dict.fromkeys(EXAMPLE_KINDS, 0)
    lines = doc.text.splitlines()
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        opening = index
        words = fence.group("info").split()
        closing = index + 1
        while closing < len(lines) and lines[closing].strip() != fence.group("fence"):
            closing += 1
        if closing == len(lines):
            raise CatalogueError(f"{doc.path}:{opening + 1}: code block is not closed")
        index = closing + 1
        language = words[0] if words and words[0] in LANGUAGES else None
        beside = _FILE_ATTRIBUTE.match(words[1]) if len(words) == 2 and language else None
        if beside is not None:
            _attach(found, beside.group("name"), lines[opening + 1 : closing], doc, opening)
            continue
        kind = _KINDS.get(words[1]) if len(words) >= 2 and language else None
        if kind is None or language is None:
            continue
        counts[kind] += 1
        where = f"{doc.path}:{opening + 1}"
        text, markers = parse_block(lines[opening + 1 : closing], where, language)
        if markers and kind != "example":
            raise CatalogueError(f"{where}: only '{language} example' blocks may carry markers")
        options = parse_options(words[2:], where)
        found.append(
            Example(doc.code, kind, counts[kind], text, markers, opening + 1, options, language)
        )
    return found


def _attach(found: list[Example], name: str, lines: list[str], doc: RuleDoc, opening: int) -> None:
    """Add a ``json file="NAME"`` block to the example block before it."""
    where = f"{doc.path}:{opening + 1}"
    if not found:
        raise CatalogueError(f"{where}: a file block must follow the example it belongs to")
    text, markers = parse_block(lines, where, "json")
    example = found[-1]
    if markers and example.kind != "example":
        raise CatalogueError(f"{where}: only the files of a 'json example' may carry markers")
    found[-1] = example._replace(files=(*example.files, Beside(name, text, markers)))


def write_example(example: Example, folder: Path) -> Path:
    """Write an example as the files a user has: its config and the files beside it.

    Returns the path of the config. ``.safetensors`` blocks become real safetensors files
    (header as given, offsets filled in, zero data written sparsely).
    """
    config = folder / example.path
    config.write_text(example.text, encoding="utf-8")
    for beside in example.files:
        target = folder / beside.name
        if beside.name.endswith(".safetensors"):
            _write_safetensors(target, beside.text)
        else:
            target.write_text(beside.text, encoding="utf-8")
    return config


def _write_safetensors(path: Path, header_text: str) -> None:
    import json

    from dimlint.sources.safetensors import DTYPE_BITS

    header = json.loads(header_text)
    offset = 0
    for name, entry in header.items():
        if name == "__metadata__" or "data_offsets" in entry:
            continue
        count = 1
        for size in entry["shape"]:
            count *= size
        length = count * DTYPE_BITS[entry["dtype"]] // 8
        entry["data_offsets"] = [offset, offset + length]
        offset += length
    data_size = max(
        (e["data_offsets"][1] for n, e in header.items() if n != "__metadata__"), default=0
    )
    encoded = json.dumps(header, separators=(",", ":")).encode("utf-8")
    with path.open("wb") as handle:
        handle.write(len(encoded).to_bytes(8, "little") + encoded)
        handle.truncate(8 + len(encoded) + data_size)


def parse_options(words: list[str], where: str = "<block>") -> tuple[tuple[str, str], ...]:
    """The ``key="value"`` attributes after an example's kind."""
    options: list[tuple[str, str]] = []
    for word in words:
        match = _ATTRIBUTE.match(word)
        if match is None or match.group("key") not in OPTION_KEYS:
            raise CatalogueError(
                f'{where}: expected key="value" with a key among {", ".join(OPTION_KEYS)},'
                f" got {word!r}"
            )
        key = match.group("key")
        if key != "target" and any(k == key for k, _ in options):
            raise CatalogueError(f"{where}: {key} is given twice")
        options.append((key, match.group("value")))
    return tuple(options)


def parse_block(
    lines: list[str], where: str = "<block>", language: str = "json"
) -> tuple[str, tuple[Marker, ...]]:
    """Remove marker lines from a block; return the text and the markers, in order."""
    prefix = LANGUAGES[language][0]
    pattern = _MARKERS[language]
    kept: list[str] = []
    markers: list[Marker] = []
    for offset, line in enumerate(lines, start=1):
        match = pattern.match(line)
        if match is None:
            if language == "json" and line.startswith("//"):
                raise CatalogueError(
                    f"{where}+{offset}: a marker line is '//', spaces, carets, a space and a"
                    f" rule code, got {line!r}"
                )
            kept.append(line)
            continue
        if not kept:
            raise CatalogueError(f"{where}+{offset}: a marker line needs a line above it")
        column = len(prefix) + 1 + len(match.group("pad"))
        end = column + len(match.group("carets"))
        target = kept[-1]
        if end - 1 > len(target):
            raise CatalogueError(
                f"{where}+{offset}: the carets reach column {end - 1}, past the end of the"
                f" line above ({len(target)} characters)"
            )
        markers.append(Marker(match.group("code"), len(kept), column, end))
    return "\n".join(kept) + "\n", tuple(markers)


def fixed_pairs(doc: RuleDoc) -> list[tuple[Example, Example]]:
    """(example, fixed) pairs: the n-th ``fixed`` block belongs to the n-th ``example``."""
    blocks = examples(doc)
    originals = [e for e in blocks if e.kind == "example"]
    fixed = [e for e in blocks if e.kind == "fixed"]
    if len(fixed) > len(originals):
        raise CatalogueError(f"{doc.path}: more 'json fixed' blocks than 'json example' blocks")
    return [(originals[e.number - 1], e) for e in fixed]


# --- command line -----------------------------------------------------------------------------


def resolve(query: str) -> str | None:
    """The code named by ``query``: a code in any case (``dl101``) or a rule name."""
    from dimlint.checks import all_rules

    rules = all_rules()
    wanted = query.strip()
    if wanted.upper() in rules:
        return wanted.upper()
    by_name = {rule.name: code for code, rule in rules.items()}
    return by_name.get(wanted.lower())


def nearest(query: str, limit: int = 3) -> list[str]:
    """Codes whose code or name is closest to ``query`` (for the unknown-rule message)."""
    from dimlint.checks import all_rules

    rules = all_rules()
    wanted = query.strip()
    by_name = {rule.name: code for code, rule in rules.items()}
    names = difflib.get_close_matches(wanted.lower(), list(by_name), n=limit, cutoff=0.5)
    codes = [by_name[name] for name in names]
    codes += difflib.get_close_matches(wanted.upper(), list(rules), n=limit, cutoff=0.6)
    if not codes and wanted.upper().startswith("DL"):
        codes = [code for code in rules if code[:3] == wanted.upper()[:3]]
    return list(dict.fromkeys(codes))[:limit]


def render(doc: RuleDoc) -> str:
    """The Markdown ``dimlint rule`` prints: the body, with the front matter as one line."""
    default = "enabled by default" if doc.default else "off by default (opt-in)"
    fix = {"always": "always available", "sometimes": "sometimes available", "never": "none"}
    facts = f"Severity: {doc.severity} · Fix: {fix[doc.fix]} · {default} · since {doc.since}"
    lines = doc.body.splitlines()
    if lines and lines[0].startswith("# "):
        return "\n".join([lines[0], "", facts, *lines[1:]]).rstrip("\n") + "\n"
    return f"{facts}\n\n{doc.body.rstrip()}\n"


def print_rule(code: str, out: TextIO, err: TextIO) -> int:
    """``dimlint rule CODE``: print the rule's documentation; 2 for an unknown code."""
    found = resolve(code)
    if found is None:
        close = nearest(code)
        hint = f"; nearest: {', '.join(close)}" if close else ""
        err.write(f"dimlint: error: unknown rule {code!r}{hint} (`dimlint rules` lists them all)\n")
        return 2
    try:
        doc = read_rule(found)
    except KeyError:
        from dimlint.checks import all_rules

        rule = all_rules()[found]
        out.write(f"# {rule.name} ({rule.code})\n\n{rule.summary}\n")
        err.write(f"dimlint: {found} has no catalogue entry in {catalogue_dir()}\n")
        return 0
    out.write(render(doc))
    return 0


def print_rules(out: TextIO) -> int:
    """``dimlint rules``: one line per rule: code, name, severity, fix, default, summary."""
    from dimlint.checks import all_rules

    header = ("code", "name", "severity", "fix", "default", "summary")
    rows = [
        (
            rule.code,
            rule.name,
            rule.severity.label,
            rule.fix,
            "on" if rule.enabled_by_default else "off",
            rule.summary,
        )
        for rule in all_rules().values()
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        out.write("  ".join([*cells, row[-1]]).rstrip() + "\n")
    return 0
