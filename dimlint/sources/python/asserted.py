"""Width and head-count names whose divisibility a module's own code requires.

A class that is not provably a ``torch.nn.Module`` (its base is another library's or another
file's: Wan2.1's ``class WanModel(ModelMixin, ConfigMixin)`` with ``@register_to_config``) may
still state its model in its ``__init__`` defaults (``dim=2048, num_heads=16``). Whether an
odd width is a defect there depends on the code, which dimlint does not run; it is certain
only where the file says so itself:

* ``assert dim % num_heads == 0`` (also parenthesised, ``self.``-qualified, with a message or
  joined with ``and``: Wan2.1's ``assert (dim % num_heads) == 0 and (dim // num_heads) % 2 ==
  0``);
* ``if dim % num_heads != 0: raise …`` (or ``if dim % num_heads: raise …``);
* ``nn.MultiheadAttention(dim, num_heads)``, whose constructor asserts ``embed_dim`` divisible
  by ``num_heads``.

The names are the file's: the pairs found anywhere in it (the same names in another class of
the file are read as the same quantity, as a person reading the file would).
"""

from __future__ import annotations

import re

_NAME = r"(?:self\.)?(?P<{}>[A-Za-z_]\w*)"
_PAIR = rf"\(?\s*{_NAME.format('w')}\s*%\s*{_NAME.format('h')}\s*\)?"
_PATTERNS = (
    re.compile(rf"(?<![\w.])assert\s*\(?\s*{_PAIR}\s*==\s*0\b"),
    re.compile(rf"(?<![\w.])if\s*\(?\s*{_PAIR}\s*(?:!=\s*0\s*)?\)?\s*:\s*raise\b"),
    re.compile(rf"\bMultiheadAttention\(\s*{_NAME.format('w')}\s*,\s*{_NAME.format('h')}\s*[,)]"),
)


def divisibility_asserted(text: str) -> frozenset[tuple[str, str]]:
    """(width name, heads name) pairs whose divisibility the module's code requires."""
    if "%" not in text and "MultiheadAttention" not in text:
        return frozenset()
    return frozenset(
        (match["w"], match["h"]) for pattern in _PATTERNS for match in pattern.finditer(text)
    )
