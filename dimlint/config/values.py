"""Values a reader hands to the model of a config that Python's own types cannot carry."""

from __future__ import annotations


class HugeInt(int):
    """An integer literal too long for ``int()``: kept as its digit count, flagged by DL003."""

    digits: int

    def __new__(cls, digits: int) -> HugeInt:
        obj = super().__new__(cls, 0)
        obj.digits = digits
        return obj
