"""An embedding width stated apart from the hidden width (DL607).

Most configs have one width: the embedding's rows are as wide as the residual stream. A few
dialects state the embedding's width as a key of its own, and then what joins the two matters.
TencentPretrain (UER-py's successor) states ``emb_size`` beside ``hidden_size``: its embeddings
output ``emb_size``-wide vectors, and its ``TransformerEncoder`` puts a ``Linear(emb_size,
hidden_size)`` between them only under ``factorized_embedding_parameterization`` (ALBERT's);
otherwise the first layer's LayerNorm and projections, ``hidden_size`` wide, receive the
embedding as it is. Transformers' ALBERT and ELECTRA always project their ``embedding_size``,
and recurrent or convolutional encoders take ``emb_size`` as their input width, so neither is
judged.
"""

from __future__ import annotations

from collections.abc import Iterator

from dimlint.checks.registry import Finding, rule
from dimlint.config.pointers import escape_pointer_token
from dimlint.config.spec import ModelSpec
from dimlint.config.trainingkeys import TENCENT_KEYS
from dimlint.diagnostics import Severity

#: TencentPretrain's encoders that take the embedding as their first layer's input.
_TRANSFORMER_ENCODERS = frozenset({"transformer"})


def _width(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


@rule(
    "DL607",
    "embedding-width",
    Severity.ERROR,
    "The embedding width differs from the hidden width with no projection between them.",
)
def check_embedding_width(spec: ModelSpec) -> Iterator[Finding]:
    raw = spec.raw
    if not raw.keys() >= TENCENT_KEYS or raw.get("encoder", "transformer") not in (
        _TRANSFORMER_ENCODERS
    ):
        return
    emb, hidden = _width(raw.get("emb_size")), _width(raw.get("hidden_size"))
    if emb is None or hidden is None or emb == hidden:
        return
    if raw.get("factorized_embedding_parameterization") is True:
        return
    yield Finding(
        "DL607",
        f"emb_size {emb} ≠ hidden_size {hidden}: TencentPretrain's embedding outputs"
        f" {emb}-wide vectors and its transformer encoder takes them as they are (a"
        " Linear(emb_size, hidden_size) comes only with factorized_embedding_parameterization),"
        f" so the first layer's {hidden}-wide LayerNorm and projections fail on them. Set"
        f" emb_size to {hidden}, or factorized_embedding_parameterization to true.",
        f"{spec.pointer}/{escape_pointer_token('emb_size')}",
    )
