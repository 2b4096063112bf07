"""Files a directory walk meets that are not ours: tooling JSON (JSONC) and YAML that fail to parse.

A repository holds JSON files with comments (``.devcontainer/devcontainer.json``,
``tsconfig.json``, ``.vscode/*.json``) and YAML templates that are not plain YAML. Failing the
repository for them (DL001 at error level) would make ``dimlint check .`` unusable, so a file met
by a walk that does not parse is reported only when it is a model config by name
(``config.json``) or by what can be read of it (a model key such as ``"hidden_size"`` appears in
its text), and not a stream of several JSON values one after another (JSON Lines, an Ascend
tuning bank: whatever keys its records hold, no framework reads it as one config). A walked
Python file that does not parse and holds Jinja markup (``{% if … %}``, ``{{cookiecutter.name}}``:
transformers' ``add-new-model`` cookiecutter scaffolding, vendored in many repositories) is a
template, Python only once rendered. A file named on the command line keeps its DL001: the user
asked for that file.
"""

from __future__ import annotations

import json
import os
import re

from dimlint.lint.results import FileResult

#: Keys that make an unparsable file a broken model config rather than someone else's file.
_MODEL_KEY = re.compile(
    rb"[\"']?\b(?:model_type|architectures|hidden[_-]size|num[_-]attention[_-]heads|"
    rb"num_hidden_layers|n_embd|n_head|n_layer|d_model|num[_-]layers|vocab_size)\b[\"']?\s*:"
)
_DATA_FILES = (".json", ".yaml", ".yml")
#: A bare upper-case word where a JSON value belongs (DeepSpeed's ``"train_batch_size": GBSIZE``
#: in ``ds_config_*_TEMPLATE.json``, filled in by ``sed`` before a run): a template.
_PLACEHOLDER = re.compile(rb"\"\s*:\s*([A-Z][A-Z0-9_]{2,})\s*[,}\r\n]")
#: Jinja markup in a Python file: a statement tag (``{%- if cookiecutter.x == "True" %}``) or a
#: dotted placeholder (``{{cookiecutter.modelname}}``); an f-string's escaped ``{{x}}`` has no dot.
_JINJA = re.compile(
    rb"\{%-?\s*(?:if|elif|else|endif|for|endfor|set|raw|endraw|block|endblock|macro|include)\b"
    rb"|\{\{-?\s*([A-Za-z_]\w*(?:\.\w+)+)\s*-?\}\}"
)


def not_ours(path: str, result: FileResult, data: bytes | None) -> str | None:
    """Why a walked file's parse failure is not reported (None: report it)."""
    if path.endswith(".py") and data is not None:
        return _python_template(result, data)
    if not path.endswith(_DATA_FILES) or data is None:
        return None
    if result.document is not None:
        return _not_a_config(path, result)
    if not result.diagnostics or any(d.code != "DL001" for d in result.diagnostics):
        return None
    if os.path.basename(path) == "config.json":
        return None
    values = _stream_length(data) if path.endswith(".json") else 0
    if values > 1:
        return (
            f"a stream of {values} concatenated JSON values (JSON Lines, a log, a tuning bank),"
            " not a config"
        )
    placeholder = _PLACEHOLDER.search(data)
    if placeholder is not None:
        word = placeholder.group(1).decode("ascii")
        return f"a template with placeholders to fill in ({word}), not a config to check"
    if _MODEL_KEY.search(data):
        return None
    kind = "JSON" if path.endswith(".json") else "YAML"
    comment = " (JSON with comments, as tooling files such as devcontainer.json use?)"
    return (
        f"not valid {kind}{comment if kind == 'JSON' else ''} and not a model config:"
        f" {result.diagnostics[0].message}"
    )


def _python_template(result: FileResult, data: bytes) -> str | None:
    """Why a walked Python file that does not parse is a template (None: it is not one)."""
    if not result.diagnostics or any(d.code != "DL001" for d in result.diagnostics):
        return None
    markup = _JINJA.search(data)
    if markup is None:
        return None
    shown = markup.group(0).decode("utf-8", "replace")
    return f"a template (Jinja markup {shown}), Python only once rendered: not checked"


#: How many values a stream is read to (a stream is a stream after two; the cap bounds the work).
_STREAM_VALUES = 64


def _stream_length(data: bytes) -> int:
    """How many JSON values the text holds one after another (an Ascend tuning bank, a JSON
    Lines log saved as ``.json``: ``{…}{…}`` or one object a line), counted up to
    :data:`_STREAM_VALUES`; 0 when any part is not JSON (then the file is a broken config or
    someone else's syntax, which the rest of :func:`not_ours` judges)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return 0
    decoder = json.JSONDecoder()
    count, at = 0, 0
    while count < _STREAM_VALUES:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        if at == len(text):
            return count
        try:
            _, at = decoder.raw_decode(text, at)
        except ValueError:
            return 0
        count += 1
    return count


def _not_a_config(path: str, result: FileResult) -> str | None:
    """A walked JSON file that reads (UTF-16, say) but is no model config: its encoding is its
    owner's business (RWKV's UTF-16 ``enwik8-vocab.json`` is a vocabulary, not a config)."""
    from dimlint.config.normalize import looks_like_model_config

    if not path.endswith(".json") or os.path.basename(path) == "config.json":
        return None
    if not result.diagnostics or any(d.code != "DL001" for d in result.diagnostics):
        return None
    if looks_like_model_config(getattr(result.document, "value", None)):
        return None
    return f"not a model config (and {result.diagnostics[0].message})"
