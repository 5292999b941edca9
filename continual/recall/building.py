"""A recall index made card by card, as a snapshot reads its entries."""

from __future__ import annotations

from continual.recall.cards import Card
from continual.recall.index import RecallIndex
from continual.recall.postings import PostingsBuilder


class IndexBuilder:
    """An index made card by card, in any order but each card once (``add`` refuses a second):
    each card's links are numbered as it comes, so a build from the store can let go of them
    at once."""

    def __init__(self) -> None:
        self._cards: list[Card] = []
        self._ids: set[str] = set()
        self._postings = PostingsBuilder()

    def add(self, card: Card) -> None:
        if card.id in self._ids:
            raise ValueError(f"card {card.id} is already in the index")
        self._ids.add(card.id)
        self._cards.append(card)
        self._postings.add(card)

    def finish(self) -> RecallIndex:
        cards, self._cards, self._ids = self._cards, [], set()
        return RecallIndex.of_cards(cards, self._postings.finish())
