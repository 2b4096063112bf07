"""Read the model bindings of a gin file (t5x, flaxformer: ``network.T5Config.emb_dim = 4096``).

T5X configures its models with gin: a configurable's parameters are bound one per line
(``network.T5Config.emb_dim = 4096``) or in a block under the configurable's name
(``network.T5Config:`` then indented ``emb_dim = 4096`` lines); a name without a dot is a macro
(``EMB_DIM = 1024``) that a value names as ``%EMB_DIM``. This reader turns the bindings into the
same document the YAML reader gives — one mapping per configurable, each value located where it
is written — so the YAML front end judges them (:func:`dimlint.lint.yaml_front.lint_document`).

What is read, and with which meaning (T5X's ``T5Config`` and ``TransformerConfig``,
``t5x/examples/*/network.py``):

* ``emb_dim`` is the model width, ``num_heads`` its heads, ``head_dim`` the width of each head,
  ``mlp_dim`` the MLP width, ``num_layers`` / ``num_encoder_layers`` / ``num_decoder_layers`` the
  depth, ``vocab_size`` the vocabulary; ``mlp_activations`` with two entries
  (``('gelu', 'linear')``) is a gated MLP.
* T5X's attention is ``num_heads × head_dim`` wide whatever ``emb_dim`` is (``DenseGeneral``
  projections to ``(num_heads, head_dim)``): the heads never split the width, so no
  divisibility is asked of it. A configurable that binds ``num_heads`` without ``head_dim``
  takes the head width from an included file or the class default (64): its heads are not
  read (only findings that need no defaults).
* Trax's models (``trax/models/*.py``, configured by gin the same way:
  ``TransformerLM.d_model = 512``, ``TransformerLM.n_heads = 8``) name their sizes ``d_model``
  (the width), ``n_heads``, ``d_ff``, ``n_layers`` / ``n_encoder_layers`` /
  ``n_decoder_layers``. Trax's attention splits ``d_model`` into the heads and raises
  ``ValueError`` when they do not divide it (``trax/layers/attention.py``:
  ``d_feature % n_heads != 0``), unless the configurable binds ``d_attention_key`` (the
  Reformer's and Terraformer's efficient attention: ``n_heads × d_attention_key`` wide), read as
  the head width. A configurable binding two of these is a Trax model (:func:`trax_only`).
* A ``%MACRO`` defined in the same file by a literal (or by another such macro) is read at that
  literal, where a fix edits it. One defined elsewhere (an ``include``d file, ``--gin_bindings``)
  is left out with a ``--verbose`` note, as is any value that is not a literal
  (``@network.T5Config()``, ``%gin.REQUIRED``). ``include`` lines are not followed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from dimlint.config.pointers import escape_pointer_token
from dimlint.config.values import Unresolved
from dimlint.sources.yamlfile import YamlDocument

#: ``name = value`` (a binding, or a macro when the name has no dot), at any indentation.
_BINDING = re.compile(r"([ \t]*)([A-Za-z_][\w./]*)[ \t]*=[ \t]*(.*)")
#: ``scope/package.Configurable:`` opening a block of bindings.
_BLOCK = re.compile(r"([A-Za-z_][\w./]*)[ \t]*:[ \t]*")
_INTEGER = re.compile(r"[0-9][0-9_]*")
_MACRO = re.compile(r"%([A-Za-z_][\w.]*)")
_STRING = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")
#: How many macros a value may go through (``%A`` → ``%B`` → 1024) before it is not read.
MAX_MACRO_DEPTH = 8
#: T5X's parameter names → the common names, as the normalizer reads them.
T5X_RENAMES = {
    "emb_dim": "hidden_size",
    "num_heads": "num_attention_heads",
    "mlp_dim": "intermediate_size",
}
#: Trax's parameter names → the common names (see the module docstring).
TRAX_RENAMES = {
    "d_model": "hidden_size",
    "n_heads": "num_attention_heads",
    "d_ff": "intermediate_size",
    "d_attention_key": "head_dim",
}
#: Trax's depth parameters (the first bound is read as the depth, as T5X's).
TRAX_LAYERS = ("n_layers", "n_encoder_layers", "n_decoder_layers")
#: Parameters that make a configurable a Trax model's (two of them must be bound).
TRAX_PARAMETERS = frozenset({"d_model", "n_heads", "d_ff", "d_attention_key", *TRAX_LAYERS})
#: T5X's depth parameters, the first bound one is the model's depth (decoder-only:
#: ``num_layers``; encoder-decoder: the encoder's, as transformers' T5 reads ``num_layers``).
T5X_LAYERS = ("num_layers", "num_encoder_layers", "num_decoder_layers")
#: flaxformer's size macros (``EMBED_DIM = 768``, ``NUM_HEADS = 12``, ``HEAD_DIM = 64``…), which
#: its architecture files require every model file to define and wire into the configurables
#: themselves (``dense_attention.MultiHeadDotProductAttention.num_heads = %NUM_HEADS``) → the
#: common names. Read as the model of a file that binds no model configurable of its own.
MACRO_RENAMES = {
    "EMBED_DIM": "hidden_size",
    "EMB_DIM": "hidden_size",
    "NUM_HEADS": "num_attention_heads",
    "HEAD_DIM": "head_dim",
    "MLP_DIM": "intermediate_size",
    "NUM_LAYERS": "num_hidden_layers",
    "NUM_ENCODER_LAYERS": "num_hidden_layers",
    "NUM_DECODER_LAYERS": "num_hidden_layers",
    "NUM_EMBEDDINGS": "vocab_size",
    "NUM_EXPERTS": "num_experts",
    "NUM_SELECTED_EXPERTS": "num_experts_per_tok",
}
#: Of those, the ones that make the macros a model (two of them must be literals).
MODEL_MACROS = frozenset(
    {"EMBED_DIM", "EMB_DIM", "NUM_HEADS", "HEAD_DIM", "MLP_DIM", "NUM_LAYERS", "NUM_ENCODER_LAYERS"}
    | {"NUM_DECODER_LAYERS"}
)
#: Parameters that make a configurable a model's (two of them must be bound).
MODEL_PARAMETERS = frozenset({"emb_dim", "num_heads", "head_dim", "mlp_dim", *T5X_LAYERS})


_MODEL_WORDS = re.compile(
    rb"\b(?:emb_dim|num_heads|head_dim|mlp_dim|num_(?:encoder_|decoder_)?layers"
    rb"|EMBED_DIM|EMB_DIM|NUM_HEADS|HEAD_DIM|MLP_DIM|NUM_(?:ENCODER_|DECODER_)?LAYERS"
    rb"|d_model|n_heads|d_ff|n_(?:encoder_|decoder_)?layers)\b"
)


def may_have_model(data: bytes) -> bool:
    """Whether the file names two of T5X's or Trax's model parameters or flaxformer's size
    macros."""
    return len({match.group(0) for match in _MODEL_WORDS.finditer(data)}) >= 2


class _Written:
    """A value as written: its text and where it starts and ends in the file."""

    __slots__ = ("end", "start", "text")

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text, self.start, self.end = text, start, end


def load(path: str, text: str) -> YamlDocument:
    """The bindings of the gin file as a document of one mapping per configurable."""
    macros: dict[str, _Written] = {}
    macro_names: dict[str, tuple[int, int]] = {}
    bindings: dict[str, dict[str, tuple[_Written, int, int]]] = {}
    notes: list[str] = []
    scope: str | None = None
    offset = 0
    depth = 0  # brackets left open by a value spanning lines
    for line in text.splitlines(keepends=True):
        start = offset
        offset += len(line)
        body = _without_comment(line.rstrip("\r\n"))
        if depth:
            depth = max(depth + _balance(body), 0)
            continue
        if not body.strip():
            continue
        if body.startswith(("include ", "import ", "from ")):
            if body.startswith("include "):
                notes.append(f"{body.strip()}: not followed (the included bindings are not read)")
            scope = None
            continue
        block = _BLOCK.fullmatch(body)
        if block is not None:
            scope = block.group(1)
            continue
        binding = _BINDING.fullmatch(body)
        if binding is None:
            scope = None
            continue
        indent, name, raw = binding.groups()
        value_start = start + binding.start(3)
        written = _Written(raw.rstrip(), value_start, value_start + len(raw.rstrip()))
        depth = max(_balance(raw), 0)
        key_at = (start + binding.start(2), start + binding.end(2))
        if indent and scope is not None:
            owner, parameter = scope, name
        elif not indent and "." not in name and "/" not in name:
            macros[name] = written
            macro_names[name] = key_at
            scope = None
            continue
        elif "." in name:
            scope = None
            owner, parameter = name.rsplit(".", 1)
        else:
            continue
        if parameter in _READ_PARAMETERS:
            bindings.setdefault(owner, {})[parameter] = (written, *key_at)
    macro_keys = {name: at for name, at in macro_names.items() if name in MACRO_RENAMES}
    value: dict[str, dict[str, Any]] = {}
    values: dict[str, tuple[int, int]] = {}
    keys: dict[str, tuple[int, int]] = {}
    trax: set[str] = set()
    for owner, parameters in bindings.items():
        if sum(1 for name in parameters if name in TRAX_PARAMETERS) >= 2:
            trax.add(owner)
        elif sum(1 for name in parameters if name in MODEL_PARAMETERS) < 2:
            continue
        section: dict[str, Any] = {}
        base = f"/{escape_pointer_token(owner)}"
        for name, (written, key_start, key_end) in parameters.items():
            pointer = f"{base}/{escape_pointer_token(name)}"
            item, place = _resolve(written, macros, 0)
            if isinstance(item, Unresolved):
                notes.append(f"{pointer}: {written.text} not read ({item.reason})")
            section[name] = item
            values[pointer] = place
            keys[pointer] = (key_start, key_end)
        value[owner] = section
    top: dict[str, Any] = {}
    known = [
        n for n in macro_keys if n in MODEL_MACROS and _is_int(_resolve(macros[n], macros, 0)[0])
    ]
    if not value and len(known) >= 2:
        for name, (key_start, key_end) in macro_keys.items():
            pointer = f"/{escape_pointer_token(name)}"
            item, place = _resolve(macros[name], macros, 0)
            if isinstance(item, Unresolved):
                notes.append(f"{pointer}: {macros[name].text} not read ({item.reason})")
            top[name] = item
            values[pointer] = place
            keys[pointer] = (key_start, key_end)
    document = YamlDocument(path, text, top or value, values, keys)
    for owner, section in value.items():
        if owner in trax:
            # Trax's names (see the module docstring)
            pointer = f"/{escape_pointer_token(owner)}"
            _add_common_names(document, pointer, section, TRAX_RENAMES, TRAX_LAYERS)
        else:
            _translate(document, f"/{escape_pointer_token(owner)}", section, notes)
    if top:
        _translate_macros(document, top, notes)
    document.notes = notes
    return document


def trax_only(document: YamlDocument) -> bool:
    """Whether every model the gin file binds is a Trax model (none binds T5X's parameters):
    Trax's attention splits the width into heads, so T5X's semantics do not apply."""
    sections = [v for v in document.value.values() if isinstance(v, dict)]
    return bool(sections) and all(
        any(name in section for name in TRAX_PARAMETERS)
        and not any(name in section for name in MODEL_PARAMETERS)
        for section in sections
    )


def _add_common_names(
    document: YamlDocument,
    pointer: str,
    section: dict[str, Any],
    renames: Mapping[str, str],
    layer_names: Sequence[str],
) -> None:
    """State each parameter of ``section`` named in ``renames`` under its common name too
    (and the first of ``layer_names`` as ``num_hidden_layers``), each an alias of the
    written key, so findings point at the line the value is written on."""
    added = {common: name for name, common in renames.items() if name in section}
    layers = next((name for name in layer_names if name in section), None)
    if layers is not None:
        added["num_hidden_layers"] = layers
    for common, written in added.items():
        section[common] = section[written]
        document.alias(f"{pointer}/{common}", f"{pointer}/{escape_pointer_token(written)}")


def _translate_macros(document: YamlDocument, macros: dict[str, Any], notes: list[str]) -> None:
    """Add the common names of flaxformer's size macros (:data:`MACRO_RENAMES`): heads only
    beside ``HEAD_DIM`` (flaxformer's attention is ``NUM_HEADS × HEAD_DIM`` wide, as T5X's)."""
    if "NUM_HEADS" in macros and not isinstance(macros.get("HEAD_DIM"), int):
        del macros["NUM_HEADS"]
        notes.append(
            "/NUM_HEADS: not read (no HEAD_DIM in this file: the attention is NUM_HEADS ×"
            " HEAD_DIM wide, and HEAD_DIM comes from an included file)"
        )
    for name, common in MACRO_RENAMES.items():
        if name in macros and common not in macros:
            macros[common] = macros[name]
            document.alias(f"/{common}", f"/{escape_pointer_token(name)}")


def _translate(
    document: YamlDocument, pointer: str, section: dict[str, Any], notes: list[str]
) -> None:
    """Add the common names of T5X's parameters (see the module docstring)."""
    if "num_heads" in section and not isinstance(section.get("head_dim"), int):
        del section["num_heads"]
        notes.append(
            f"{pointer}/num_heads: not read (no head_dim in this file: T5X's attention is"
            " num_heads × head_dim wide, and head_dim comes from an included file or the"
            " class default)"
        )
    _add_common_names(document, pointer, section, T5X_RENAMES, T5X_LAYERS)
    activations = section.get("mlp_activations")
    if isinstance(activations, list) and len(activations) >= 2:
        section["gated_linear_unit"] = True


#: Every parameter a binding is kept for.
_READ_PARAMETERS = MODEL_PARAMETERS | TRAX_PARAMETERS | {"vocab_size", "mlp_activations"}


def _resolve(
    written: _Written, macros: dict[str, _Written], depth: int
) -> tuple[Any, tuple[int, int]]:
    """The literal a written value stands for, and where that literal is written."""
    raw = written.text
    place = (written.start, written.end)
    if _INTEGER.fullmatch(raw):
        return int(raw.replace("_", "")), place
    macro = _MACRO.fullmatch(raw)
    if macro is not None:
        name = macro.group(1)
        if name == "gin.REQUIRED":
            return Unresolved(raw, "required: a file that includes this one gives it"), place
        if name not in macros:
            return Unresolved(raw, f"%{name} is defined outside this file"), place
        if depth >= MAX_MACRO_DEPTH:
            return Unresolved(raw, "too many macros deep"), place
        return _resolve(macros[name], macros, depth + 1)
    if raw in ("True", "False"):
        return raw == "True", place
    if raw.startswith(("(", "[")) and raw.endswith((")", "]")):
        items = [item.strip() for item in raw[1:-1].split(",") if item.strip()]
        if all(_STRING.fullmatch(item) for item in items):
            return [item[1:-1] for item in items], place
    if _STRING.fullmatch(raw):
        return raw[1:-1], place
    return Unresolved(raw, "not a literal: gin computes it when the config is parsed"), place


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _without_comment(line: str) -> str:
    """The line without its ``#`` comment (a ``#`` inside quotes is kept)."""
    quote = ""
    for index, character in enumerate(line):
        if quote:
            if character == quote:
                quote = ""
        elif character in "'\"":
            quote = character
        elif character == "#":
            return line[:index].rstrip()
    return line.rstrip()


def _balance(text: str) -> int:
    """Brackets opened minus closed (a value continued on the next lines when positive)."""
    stripped = _STRING.sub("", text)
    return sum(stripped.count(c) for c in "([{") - sum(stripped.count(c) for c in ")]}")
