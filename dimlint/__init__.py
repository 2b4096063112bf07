"""dimlint: find the transformer shapes that crash, run slowly or fail to shard, before launch."""

from __future__ import annotations

__version__ = "0.1.0"
