"""The cheap test that keeps non-model Python files away from libcst.

Building a concrete syntax tree costs about a hundred times more than reading a file and running
one regular expression over it, and most Python files in a repository are not model code. A file
is parsed only when its bytes mention a dimension key (``hidden_size``, ``n_embd``, ``dim``,
``n_heads``…, taken from the same alias table normalization uses), a config class or factory, a
torch layer the layer checks read, or a ``# noqa: DLxxx`` comment (which DL701 must see). A file
without any of them cannot yield a finding, so skipping it changes no result.
"""

from __future__ import annotations

import functools
import re

from dimlint.normalize import INT_FIELDS


@functools.cache
def _pattern() -> re.Pattern[bytes]:
    keys = sorted(
        {
            key
            for field in ("hidden", "heads", "layers")
            for key in (INT_FIELDS[field][0], *INT_FIELDS[field][1])
        }
    )
    words = [
        *keys,
        r"\w*Config",
        "ModelArgs",
        "MultiheadAttention",
        r"Transformer\w*",
        "Linear",
        "Embedding",
        r"DL\d{3}",
    ]
    return re.compile(rb"\b(?:" + "|".join(words).encode("ascii") + rb")\b")


def may_have_configs(data: bytes) -> bool:
    """Whether a Python file can contain anything dimlint checks (false: skip it unparsed)."""
    return _pattern().search(data) is not None
