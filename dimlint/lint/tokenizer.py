"""DL605: the tokenizer beside a config produces ids the embedding does not have.

A tokenizer's ids index the embedding matrix, whose rows are ``vocab_size``. The ids come from
``tokenizer.json`` (the model's vocabulary — a token → id map for BPE/WordPiece/WordLevel, a list
for Unigram, where the id is the position — plus its ``added_tokens``), from
``tokenizer_config.json``'s ``added_tokens_decoder`` (id → token) and from the older
``added_tokens.json`` (token → id). The highest of them must be below ``vocab_size``; a larger
``vocab_size`` is normal (padding for speed). The reverse is an ``IndexError`` — on a GPU a
device-side assert — the first time such a token appears (transformers #12763), typically after
someone adds special tokens and forgets ``resize_token_embeddings``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from dimlint.checks.registry import Finding
from dimlint.config.spec import ModelSpec
from dimlint.records import Record
from dimlint.sources.filenames import TOKENIZER_FILES
from dimlint.sources.folder import Beside, LocalFiles
from dimlint.sources.jsonfile import InputProblem
from dimlint.sources.safeio import open_regular

#: Tokenizer files larger than this are not read (the largest on the Hub are ~35 MB).
MAX_TOKENIZER_BYTES = 256 * 1024 * 1024
#: The alignment the suggested vocabulary size is padded to (see DL202).
ALIGNMENT = 64


class TokenId(Record):
    """The highest id of one file, the token it belongs to, and where it was found."""

    id: int
    token: str
    file: str
    #: ``vocabulary`` or ``added token``.
    kind: str


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _highest_in(name: str, value: Any) -> TokenId | None:
    """The highest id a parsed tokenizer file holds (None when it holds none)."""
    found: list[TokenId] = []
    if not isinstance(value, dict):
        return None
    if name == "tokenizer.json":
        vocab = (
            value.get("model", {}).get("vocab") if isinstance(value.get("model"), dict) else None
        )
        if isinstance(vocab, dict):
            ids = [(i, token) for token, i in vocab.items() if _is_id(i)]
            if ids:
                top = max(ids)
                found.append(TokenId(top[0], str(top[1]), name, "vocabulary"))
        elif isinstance(vocab, list) and vocab:
            last = vocab[-1]
            token = last[0] if isinstance(last, list) and last else last
            found.append(TokenId(len(vocab) - 1, str(token), name, "vocabulary"))
        added = value.get("added_tokens")
        for entry in added if isinstance(added, list) else ():
            if isinstance(entry, dict) and _is_id(entry.get("id")):
                found.append(TokenId(entry["id"], str(entry.get("content")), name, "added token"))
    elif name == "tokenizer_config.json":
        decoder = value.get("added_tokens_decoder")
        if isinstance(decoder, dict):
            for key, entry in decoder.items():
                # ASCII digits only ("¹²" is digits to str.isdigit, not to int); an id past
                # 2**63 is no id
                if str(key).isascii() and str(key).isdigit() and len(str(key)) < 20:
                    content = entry.get("content") if isinstance(entry, dict) else entry
                    found.append(TokenId(int(key), str(content), name, "added token"))
    else:
        found.extend(
            TokenId(i, str(token), name, "added token") for token, i in value.items() if _is_id(i)
        )
    return max(found, key=lambda item: item.id) if found else None


def highest_id(
    folder: str, names: tuple[str, ...], beside: Beside | None = None
) -> tuple[TokenId | None, list[tuple[str, InputProblem]]]:
    """The highest token id over the tokenizer files present, and the files that cannot be
    read (DL001); ``beside`` reads them (default: the local folder)."""
    files = beside if beside is not None else LocalFiles(folder)
    best: TokenId | None = None
    problems: list[tuple[str, InputProblem]] = []
    for name in TOKENIZER_FILES:
        local = files.local(name) if name in names else None
        if local is None:
            continue  # absent, or (on the Hub) not fetched
        path = local
        try:
            with open_regular(path) as handle:
                if os.fstat(handle.fileno()).st_size > MAX_TOKENIZER_BYTES:
                    continue
                value = json.loads(handle.read().decode("utf-8-sig"))
        except OSError:
            continue  # vanished, unreadable, or a pipe: the config check does not depend on it
        except (UnicodeDecodeError, ValueError, RecursionError) as error:
            problems.append(
                (files.display(name), InputProblem(f"{name}: not valid JSON ({error})"))
            )
            continue
        added = value.get("added_tokens", []) if isinstance(value, dict) else []
        if name == "tokenizer.json" and not isinstance(added, list):
            kind = type(added).__name__
            message = f"{name}: added_tokens is {kind}, not a list of tokens; tokenizers refuse it"
            problems.append((files.display(name), InputProblem(message)))
            continue
        top = _highest_in(name, value)
        if top is not None and (best is None or top.id > best.id):
            best = top
    return best, problems


def language_spec(specs: list[ModelSpec]) -> ModelSpec | None:
    """The spec whose vocabulary the tokenizer feeds: the top level, else a text sub-config."""
    for spec in specs:
        if spec.vocab is not None and not any(
            marker in spec.pointer for marker in ("vision", "audio", "speech")
        ):
            return spec
    return None


def tokenizer_findings(specs: list[ModelSpec], top: TokenId | None) -> Iterator[Finding]:
    spec = language_spec(specs)
    if spec is None or spec.vocab is None or top is None or top.id < spec.vocab.value:
        return
    vocab = spec.vocab
    padded = -(-(top.id + 1) // ALIGNMENT) * ALIGNMENT
    yield Finding(
        "DL605",
        f"{top.file} has token id {top.id} ({top.kind} {top.token!r}) but {vocab.key} is"
        f" {vocab.value}: the embedding has no row {top.id}, so the first such token is an"
        " IndexError (on a GPU, a device-side assert). Raise"
        f" {vocab.key} to {padded} (the smallest multiple of {ALIGNMENT} that holds id"
        f" {top.id}) and resize the embeddings, or remove the tokens.",
        vocab.pointer if vocab.in_file else spec.pointer,
    )
