"""An accumulator for parameter counts that keeps the totals a report needs apart."""

from __future__ import annotations


class Tally:
    """Running totals while a family recipe walks a model.

    ``embedding`` collects input embeddings, an untied output head and learned positions;
    ``inactive`` the routed experts a token does *not* select (``active = total - inactive``);
    ``notes`` what the count had to assume; ``parts`` an optional breakdown of ``total``
    (encoder, decoder and shared embeddings of an encoder-decoder model); ``exact`` is false
    when the recipe had to guess the layout (a model type dimlint does not know).
    """

    __slots__ = ("embedding", "exact", "inactive", "notes", "parts", "total")

    def __init__(self) -> None:
        self.total = 0
        self.embedding = 0
        self.inactive = 0
        self.notes: list[str] = []
        self.parts: list[tuple[str, int]] = []
        self.exact = True

    def add(self, count: int) -> None:
        self.total += count

    def embed(self, count: int) -> None:
        """Embedding-like weights: counted in the total and in ``embedding``."""
        self.total += count
        self.embedding += count

    def routed(self, per_expert: int, experts: int, active: int) -> None:
        """``experts`` routed experts of ``per_expert`` parameters, ``active`` used per token."""
        self.total += per_expert * experts
        self.inactive += per_expert * max(0, experts - active)

    def merge(self, other: Tally, times: int = 1) -> None:
        """Add ``times`` copies of ``other`` (one layer counted once for a group of layers)."""
        self.total += other.total * times
        self.embedding += other.embedding * times
        self.inactive += other.inactive * times
        for text in other.notes:
            self.note(text)
        self.parts += other.parts

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)
