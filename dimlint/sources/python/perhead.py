"""Widths a module multiplies by its head count: per-head widths, not the model's width.

Some models take a width keyword that is each head's, and scale it in the constructor: timm's
ConViT (``ConVit.__init__``: ``embed_dim *= num_heads``, so ``convit_small``'s
``dict(embed_dim=48, num_heads=9)`` is a 432-wide model of nine 48-wide heads). Where the file
that states the sizes also multiplies one of its width names by one of its head-count names
(``w *= h``, ``w = w * h`` or ``w = h * w``), that width name means a head's width in this
module, and no divisibility by the heads is asked of it.
"""

from __future__ import annotations

import functools
import re

from dimlint.config.normalize import field_keys


@functools.cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    width = "|".join(sorted(field_keys("hidden"), key=len, reverse=True))
    heads = "|".join(sorted(field_keys("heads"), key=len, reverse=True))
    return (
        re.compile(rf"(?<![\w.])(?P<w>{width})\s*\*=\s*(?:self\.)?(?P<h>{heads})\b"),
        re.compile(
            rf"(?<![\w.])(?P<w>{width})\s*=\s*(?:self\.)?(?P=w)\s*\*\s*(?:self\.)?(?P<h>{heads})\b"
        ),
        re.compile(
            rf"(?<![\w.])(?P<w>{width})\s*=\s*(?:self\.)?(?P<h>{heads})\s*\*\s*(?:self\.)?(?P=w)\b"
        ),
    )


def per_head_widths(text: str) -> frozenset[tuple[str, str]]:
    """(width name, heads name) pairs the module scales: ``embed_dim *= num_heads``."""
    if "*" not in text:
        return frozenset()
    return frozenset(
        (match["w"], match["h"]) for pattern in _patterns() for match in pattern.finditer(text)
    )
