"""The "disable this finding" actions: a ``# noqa`` comment, or a per-file ignore in the settings.

Python and YAML files take ``# noqa: DLxxx`` on the line a finding starts on (the syntax
:mod:`dimlint.lint.noqa` reads); a line that already has a directive with codes gets the code
added to it. In Python the comment is only offered where it is a comment: not after a line
continuation and not on a line that ends inside a multi-line string (tokenize decides).

JSON has no comments, so a JSON finding is ignored for its file in the settings ``check`` reads:
``per-file-ignores`` of the nearest ``dimlint.toml`` or ``pyproject.toml`` (``[tool.dimlint]``),
the pattern being the file's path relative to that settings file, as
:mod:`dimlint.lint.patterns` reads it. The edited settings are parsed again before the action is
offered, and must switch the code off for that file. No pygls here.
"""

from __future__ import annotations

import io
import json
import os
import re
import tokenize
from typing import NamedTuple

_DIRECTIVE = re.compile(
    r"#\s*(?i:noqa)(?::\s*(?P<codes>[A-Z]+[0-9]+(?:(?:\s*,\s*|\s+)[A-Z]+[0-9]+)*))?"
)


class TextChange(NamedTuple):
    """Replace ``text[start:end]`` with ``new`` (character offsets)."""

    start: int
    end: int
    new: str


def noqa_change(text: str, line: int, code: str, yaml: bool = False) -> TextChange | None:
    """The change adding ``code`` to a ``# noqa`` on 1-based ``line`` of Python (or, with
    ``yaml``, YAML) text; None when not possible there, or the line is already suppressed."""
    lines = text.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        return None
    start = sum(len(part) for part in lines[: line - 1])
    body = lines[line - 1].rstrip("\r\n")
    if yaml:
        from dimlint.lint.noqa import yaml_comments

        comments = [c for c in yaml_comments(lines[line - 1]) if c[0] < len(body)]
        facts: int | None = comments[0][0] if comments else -1
    else:
        facts = _line_facts(text, line)
        if body.rstrip().endswith("\\"):
            return None
    if facts is None:
        return None
    directive = _DIRECTIVE.search(body, facts) if facts >= 0 else None
    if directive is not None:
        codes = directive.group("codes")
        if codes is None or code in re.findall(r"[A-Z]+[0-9]+", codes):
            return None  # a bare noqa suppresses everything; the code is listed already
        at = start + directive.end("codes")
        return TextChange(at, at, f", {code}")
    end = start + len(body)
    return TextChange(end, end, f"  # noqa: {code}")


def _line_facts(text: str, line: int) -> int | None:
    """Where the comment on ``line`` starts (-1: none); None when a comment cannot be added
    there: the file does not tokenize, or a string token spans the end of that line."""
    comment = -1
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] > line:
                break
            if token.type == tokenize.STRING and token.start[0] <= line < token.end[0]:
                return None
            if token.type == tokenize.COMMENT and token.start[0] == line:
                comment = token.start[1]
    except (tokenize.TokenError, SyntaxError):
        return None
    return comment


class SettingsChange(NamedTuple):
    """The new text of a settings file (``old`` None: the file is created)."""

    path: str
    old: str | None
    new: str


def per_file_ignore(
    settings_path: str | None, fallback_folder: str, file_path: str, code: str
) -> SettingsChange | None:
    """The settings change ignoring ``code`` for ``file_path`` (None when it cannot be made
    safely: an unreadable settings file, an inline ``per-file-ignores`` table…)."""
    if settings_path is None:
        settings_path = os.path.join(fallback_folder, "dimlint.toml")
        old: str | None = None
    else:
        try:
            with open(settings_path, encoding="utf-8") as handle:
                old = handle.read()
        except (OSError, UnicodeDecodeError, ValueError):
            return None
    folder = os.path.dirname(os.path.abspath(settings_path))
    relative = os.path.relpath(os.path.abspath(file_path), folder).replace(os.sep, "/")
    if relative.startswith("../"):
        return None  # the settings file is not above the file
    pyproject = os.path.basename(settings_path) == "pyproject.toml"
    header = "[tool.dimlint.per-file-ignores]" if pyproject else "[per-file-ignores]"
    new = _with_ignore(old or "", header, relative, code)
    if new is None or not _ignores(settings_path, new, file_path, code):
        return None
    return SettingsChange(settings_path, old, new)


def _with_ignore(text: str, header: str, pattern: str, code: str) -> str | None:
    name = re.escape(header[1:-1]).replace(r"\.", r"\s*\.\s*")
    table = re.search(rf"(?m)^[ \t]*\[[ \t]*{name}[ \t]*\][ \t]*(#.*)?$", text)
    key = json.dumps(pattern)
    if table is None:
        if "per-file-ignores" in text:
            return None  # written some other way (an inline table): left to the user
        prefix = text if not text or text.endswith("\n") else text + "\n"
        gap = "\n" if prefix else ""
        return f"{prefix}{gap}{header}\n{key} = [{json.dumps(code)}]\n"
    after = table.end()
    following = re.search(r"(?m)^[ \t]*\[", text[after:])
    stop = after + following.start() if following else len(text)
    quoted = "|".join(re.escape(form) for form in (key, f"'{pattern}'", pattern) if form)
    entry = re.search(
        rf"(?m)^[ \t]*(?:{quoted})[ \t]*=[ \t]*\[(?P<codes>[^\]\n]*)\][ \t]*$", text[after:stop]
    )
    if entry is None:
        line_end = text.find("\n", after)
        at = len(text) if line_end == -1 else line_end + 1
        lead = "" if line_end != -1 else "\n"
        return f"{text[:at]}{lead}{key} = [{json.dumps(code)}]\n{text[at:]}"
    codes_start = after + entry.start("codes")
    codes_end = after + entry.end("codes")
    listed = text[codes_start:codes_end].strip().rstrip(",")
    joined = f"{listed}, {json.dumps(code)}" if listed else json.dumps(code)
    return text[:codes_start] + joined + text[codes_end:]


def _ignores(settings_path: str, text: str, file_path: str, code: str) -> bool:
    """Whether settings ``text`` at ``settings_path`` switch ``code`` off for ``file_path``."""
    import tomllib

    from dimlint.lint.settings import SettingsError, parse

    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return False
    if os.path.basename(settings_path) == "pyproject.toml":
        tool = document.get("tool", {})
        table = tool.get("dimlint", {}) if isinstance(tool, dict) else {}
    else:
        table = document
    if not isinstance(table, dict):
        return False
    try:
        settings = parse(table, settings_path)
    except SettingsError:
        return False
    selection = settings.selection(None, (), ())
    return code not in selection.enabled_codes(file_path)
