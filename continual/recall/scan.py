"""The naive reference ranking: a plain loop over every card, for tests and benchmarks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from continual.associations import folders_of, normalise_path
from continual.recall.cards import (
    SCORE_FILE,
    SCORE_FOLDER,
    SCORE_IDENTIFIER,
    SCORE_KEYWORDS,
    Card,
    Query,
    card_folders,
    group_key,
    visibility_rank,
)


def scan(
    cards: Sequence[Card],
    *,
    paths: Iterable[str] = (),
    identifiers: Iterable[str] = (),
    words: Iterable[str] = (),
    repository: str | None = None,
) -> list[tuple[str, int]]:
    """Reference ranking by a plain loop over every card: ``(id, score)`` pairs in recall order.

    Same rules as :meth:`RecallIndex.query`, without indexes; for tests and benchmarks.
    """
    q = Query.of(paths=paths, identifiers=identifiers, words=words)
    changed_folders = {f for p in q.paths for f in (p, *folders_of(p))}
    unique: dict[str, Card] = {}
    for card in cards:
        unique.setdefault(card.id, card)
    best_rank: dict[str, int] = {}
    for card in unique.values():
        rank = visibility_rank(card, repository)
        best_rank[card.key] = max(best_rank.get(card.key, -1), rank)
    scored: list[tuple[int, str, str]] = []
    for card in unique.values():
        rank = visibility_rank(card, repository)
        if rank < 0 or rank < best_rank[card.key]:
            continue
        score = 0
        if any(normalise_path(f) in q.paths for f in card.files):
            score = SCORE_FILE
        elif any(f in changed_folders for f in card_folders(card)):
            score = SCORE_FOLDER
        elif any(i.strip() in q.identifiers for i in card.identifiers):
            score = SCORE_IDENTIFIER
        elif any(
            len(group_key(g)) >= 2 and set(group_key(g)) <= q.terms for g in card.keyword_groups
        ):
            score = SCORE_KEYWORDS
        if score:
            scored.append((-score, card.id, card.key))
    scored.sort()
    ranking: list[tuple[str, int]] = []
    keys: set[str] = set()
    for negative, card_id, key in scored:
        if key not in keys:
            keys.add(key)
            ranking.append((card_id, -negative))
    return ranking
