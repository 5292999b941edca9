"""A recall index made card by card, as a snapshot reads its entries."""

from __future__ import annotations

from continual.recall.cards import Card
from continual.recall.index import RecallIndex
from continual.recall.postings import PostingsBuilder


class IndexBuilder:
    """An index made card by card, in id order (``add`` refuses any other): each card's links
    are numbered as it comes, so a build from the store can let go of them at once."""

    def __init__(self) -> None:
        self._cards: list[Card] = []
        self._postings = PostingsBuilder()

    def add(self, card: Card) -> None:
        if self._cards and card.id <= self._cards[-1].id:
            raise ValueError(
                f"cards must come in id order, once each: {card.id} after {self._cards[-1].id}"
            )
        self._cards.append(card)
        self._postings.add(card)

    def finish(self) -> RecallIndex:
        cards, self._cards = self._cards, []
        return RecallIndex.of_ordered(cards, self._postings.finish())
