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


class Malformed:
    """A value written with an explicit YAML tag or form that does not construct (``!!bool 1``,
    ``!!timestamp x``, ``!!int ""``): the file states *something* for the key, and no loader
    reads it as a number, so DL003 reports it (by its text) rather than the run failing."""

    __slots__ = ("reason", "text")

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason

    def __repr__(self) -> str:
        return f"Malformed({self.text!r}, {self.reason!r})"


class Unresolved:
    """A value dimlint cannot know from the file alone: an OmegaConf/Hydra interpolation it
    could not resolve (``${oc.env:WIDTH}``), a tag whose meaning belongs to a framework
    (``!ENV``), a missing include. Readers treat it as absent and say so under ``--verbose``:
    a finding on a guessed value would be noise."""

    __slots__ = ("reason", "text")

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason

    def __repr__(self) -> str:
        return f"Unresolved({self.text!r}, {self.reason!r})"
