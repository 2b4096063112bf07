"""The Python reader: libcst scans for config constructors, config classes, dict tables of
configs and ``torch.nn`` layer calls, with statically resolved values and their positions."""

from __future__ import annotations
