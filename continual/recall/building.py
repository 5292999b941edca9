"""A recall index made card by card, as a snapshot reads its entries."""

from __future__ import annotations

from collections.abc import Sequence

from continual.recall.cards import Card
from continual.recall.index import RecallIndex
from continual.recall.numbering import StoredNames
from continual.recall.postings_builder import PostingsBuilder


class IndexBuilder:
    """An index made card by card, in any order but each card once (``add`` refuses a second):
    each card's links are numbered as it comes, so a build from the store can let go of them
    at once."""

    def __init__(self, stored: StoredNames | None = None) -> None:
        """``stored``: the account's numbered names, for cards that come with their numbers."""
        self._cards: list[Card] = []
        self._ids: set[str] = set()
        self._postings = PostingsBuilder(stored)

    def add(self, card: Card) -> None:
        self.extend((card,))

    def extend(self, cards: Sequence[Card], numbers: Sequence[bytes | None] | None = None) -> None:
        """Index ``cards`` next, in their order; ``numbers``: each card's links' numbers as
        stored (``continual.recall.numbering``), None for a card that has none."""
        batch = [card.id for card in cards]
        fresh = set(batch)
        if len(fresh) != len(batch) or not self._ids.isdisjoint(fresh):
            twice = next(i for i in batch if i in self._ids or batch.count(i) > 1)
            raise ValueError(f"card {twice} is already in the index")
        self._ids |= fresh
        self._cards.extend(cards)
        if numbers is not None:
            self._postings.add_numbered(cards, numbers)
            return
        add = self._postings.add
        for card in cards:
            add(card)

    def finish(self) -> RecallIndex:
        cards, self._cards, self._ids = self._cards, [], set()
        return RecallIndex.of_cards(cards, self._postings.finish())
