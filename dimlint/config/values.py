"""Values a reader hands to the model of a config that Python's own types cannot carry."""

from __future__ import annotations


class HugeInt(int):
    """An integer literal too long for ``int()``: kept as its digit count, flagged by DL003."""

    digits: int

    def __new__(cls, digits: int) -> HugeInt:
        obj = super().__new__(cls, 0)
        obj.digits = digits
        return obj


#: The largest count a user may give (a context, batch, tensor-parallel size...): 10**15 tokens or
#: GPUs is past any deployment, and every product of such counts still converts to a float
#: (a 320-digit ``--batch`` raised OverflowError in the memory arithmetic).
MAX_COUNT = 10**15


def shown_count(value: int) -> str:
    """An integer for a message: itself when short, else its size ("a 320-digit number"), which
    any size can print (``str()`` of an int past 4,300 digits raises ``ValueError``)."""
    if value.bit_length() <= 64:
        return str(value)
    digits = int(abs(value).bit_length() * 0.30103) + 1  # log10(2): exact to ±1 digit
    return f"a number of about {digits:,} digits"
