"""The ``torch.nn`` layers dimlint reads as tiny configs: their positional parameters and widths.

A layer call such as ``nn.MultiheadAttention(1000, 16)`` is a config of its own. The Python
reader (:mod:`dimlint.sources.python.layers`) resolves a call's arguments with this table and the
rules (:mod:`dimlint.checks.layers`) judge them; both read it from here, so the reader knows no
rule.
"""

from __future__ import annotations

from dimlint.records import Record


class LayerKind(Record):
    """The positional parameters of a torch.nn layer and which of them DL101/DL201 read."""

    params: tuple[str, ...]
    defaults: dict[str, int]
    width: str | None = None
    heads: str | None = None
    widths: tuple[str, ...] = ()


_TRANSFORMER_LAYER = LayerKind(
    ("d_model", "nhead", "dim_feedforward"),
    {"dim_feedforward": 2048},
    "d_model",
    "nhead",
    ("d_model", "dim_feedforward"),
)
LAYERS: dict[str, LayerKind] = {
    "MultiheadAttention": LayerKind(
        ("embed_dim", "num_heads"), {}, "embed_dim", "num_heads", ("embed_dim",)
    ),
    "TransformerEncoderLayer": _TRANSFORMER_LAYER,
    "TransformerDecoderLayer": _TRANSFORMER_LAYER,
    "Transformer": LayerKind(
        ("d_model", "nhead", "num_encoder_layers", "num_decoder_layers", "dim_feedforward"),
        {"d_model": 512, "nhead": 8, "dim_feedforward": 2048},
        "d_model",
        "nhead",
        ("d_model", "dim_feedforward"),
    ),
    "Linear": LayerKind(
        ("in_features", "out_features"), {}, widths=("in_features", "out_features")
    ),
    "Embedding": LayerKind(("num_embeddings", "embedding_dim"), {}, widths=("embedding_dim",)),
}


class Layer(Record):
    """One layer call: its kind and the integer arguments known statically."""

    kind: str
    #: Stated arguments whose value is a known positive integer (pointer ``/<name>``).
    stated: dict[str, int]
    #: Names of the stated arguments a fix may rewrite (literals, or constants).
    editable: frozenset[str]
