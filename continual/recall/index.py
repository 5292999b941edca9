"""A frozen in-memory recall snapshot: inverted indexes over cards, scored by strongest match."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from continual.associations import folders_of, normalise_path, parent_folder, split_terms
from continual.values import Scope

SCORE_FILE = 1000
SCORE_FOLDER = 800
SCORE_IDENTIFIER = 700
SCORE_KEYWORDS = 500


@dataclass(frozen=True, slots=True)
class Card:
    """One entry as recall sees it: what is handed (title, text) and what retrieves it.

    ``folders`` are extra folder associations; the folder directly holding each file is always
    associated as well.
    """

    id: str
    key: str
    revision: int
    repository: str
    scope: str
    lens: str
    title: str
    text: str
    files: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    keyword_groups: tuple[tuple[str, ...], ...] = ()
    folders: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Scored:
    """A recalled card, its score and what matched (e.g. ``folder src/a``)."""

    card: Card
    score: int
    why: str


@dataclass(frozen=True, slots=True)
class Query:
    """A query in normal form: root-relative paths, whole identifiers and lower-case terms."""

    paths: tuple[str, ...]
    identifiers: tuple[str, ...]
    terms: frozenset[str]

    @classmethod
    def of(
        cls,
        *,
        paths: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        words: Iterable[str] = (),
    ) -> Query:
        norm_paths = tuple(sorted({p for p in map(normalise_path, paths) if p}))
        names = tuple(sorted({i.strip() for i in identifiers if i.strip()}))
        terms: set[str] = set()
        for text in (*norm_paths, *names, *words):
            terms.update(split_terms(text))
        return cls(norm_paths, names, frozenset(terms))


def card_folders(card: Card) -> tuple[str, ...]:
    """The folders a card is associated with: its explicit ones and each file's folder."""
    found = [normalise_path(f) for f in card.folders]
    found.extend(parent_folder(normalise_path(f)) for f in card.files)
    return tuple(dict.fromkeys(f for f in found if f))


def group_key(group: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted({t.lower() for t in group}))


def visibility_rank(card: Card, repository: str | None) -> int:
    """Which of several entries with one key a repository sees: its own first (2), then an
    account-scoped entry born in it (1), then other account-scoped entries (0); -1 = not visible."""
    if repository is None:
        return 1 if card.scope == Scope.REPOSITORY else 0
    if card.scope == Scope.ACCOUNT:
        return 1 if card.repository == repository else 0
    return 2 if card.repository == repository else -1


@dataclass(frozen=True, slots=True)
class Recall:
    """The head of a ranking and how many entries the whole ranking holds."""

    hits: tuple[Scored, ...]
    total: int


@dataclass(frozen=True, slots=True)
class _Normal:
    """A card's associations in the form the index compares."""

    files: tuple[str, ...]
    folders: tuple[str, ...]
    identifiers: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, card: Card) -> _Normal:
        return cls(
            files=tuple(dict.fromkeys(f for f in map(normalise_path, card.files) if f)),
            folders=card_folders(card),
            identifiers=tuple(dict.fromkeys(i for i in map(str.strip, card.identifiers) if i)),
            groups=tuple(
                dict.fromkeys(g for g in map(group_key, card.keyword_groups) if len(g) >= 2)
            ),
        )

    def why(self, score: int, q: Query, changed_folders: frozenset[str]) -> str:
        """What gave ``score``: the smallest matching file, deepest folder, smallest name."""
        if score == SCORE_FILE:
            return "file " + min(f for f in self.files if f in q.paths)
        if score == SCORE_FOLDER:
            folder = min(
                (f for f in self.folders if f in changed_folders),
                key=lambda f: (-f.count("/"), f),
            )
            return "folder " + folder
        if score == SCORE_IDENTIFIER:
            return "identifier " + min(i for i in self.identifiers if i in q.identifiers)
        group = min(g for g in self.groups if q.terms.issuperset(g))
        return "keywords " + "+".join(group)


def _frozen(index: Mapping[str, list[int]]) -> Mapping[str, tuple[int, ...]]:
    return MappingProxyType({k: tuple(v) for k, v in index.items()})


@dataclass(frozen=True, slots=True)
class RecallIndex:
    """An immutable snapshot of cards with inverted indexes; queries do no I/O.

    Build one per account (nothing crosses accounts) and per review or agent session. Cards are
    numbered in id order, so a sorted set of numbers is a ranking by id.
    """

    cards: tuple[Card, ...]
    _normal: tuple[_Normal, ...]
    _by_id: Mapping[str, int]
    _by_file: Mapping[str, tuple[int, ...]]
    _by_folder: Mapping[str, tuple[int, ...]]
    _by_identifier: Mapping[str, tuple[int, ...]]
    _group_terms: tuple[tuple[str, ...], ...]
    _group_entries: tuple[tuple[int, ...], ...]
    _pairs: Mapping[str, Mapping[str, tuple[int, ...]]]
    _key_members: Mapping[str, tuple[int, ...]]
    _shared_key: frozenset[int]
    _key_first: tuple[int, ...]  # per card, the first card number holding its key
    _repository_scoped: frozenset[int]
    _own: Mapping[str, frozenset[int]]
    _hidden: dict[str | None, frozenset[int]]  # a cache filled on first use per repository

    @classmethod
    def build(cls, cards: Iterable[Card]) -> RecallIndex:
        """Index ``cards``; a card id must be unique in a snapshot (a later duplicate is dropped)."""
        unique: dict[str, Card] = {}
        for card in cards:
            unique.setdefault(card.id, card)
        ordered = tuple(sorted(unique.values(), key=lambda c: c.id))
        normal = tuple(_Normal.of(card) for card in ordered)
        by_file: defaultdict[str, list[int]] = defaultdict(list)
        by_folder: defaultdict[str, list[int]] = defaultdict(list)
        by_identifier: defaultdict[str, list[int]] = defaultdict(list)
        groups: dict[tuple[str, ...], list[int]] = {}
        by_key: defaultdict[str, list[int]] = defaultdict(list)
        own: defaultdict[str, set[int]] = defaultdict(set)
        for n, (card, norm) in enumerate(zip(ordered, normal, strict=True)):
            by_key[card.key].append(n)
            if card.scope != Scope.ACCOUNT:
                own[card.repository].add(n)
            for file in norm.files:
                by_file[file].append(n)
            for folder in norm.folders:
                by_folder[folder].append(n)
            for name in norm.identifiers:
                by_identifier[name].append(n)
            for group in norm.groups:
                groups.setdefault(group, []).append(n)
        group_terms = tuple(groups)
        term_count: defaultdict[str, int] = defaultdict(int)
        for group in group_terms:
            for term in group:
                term_count[term] += 1
        # Each group is filed under its two rarest terms: a query can complete a group only if
        # it holds both, and rare pairs keep the groups left to verify few.
        pairs: defaultdict[str, defaultdict[str, list[int]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for gid, group in enumerate(group_terms):
            first, second = sorted(group, key=lambda t: (term_count[t], t))[:2]
            pairs[first][second].append(gid)
        key_members = {k: tuple(v) for k, v in by_key.items() if len(v) > 1}
        index = cls(
            cards=ordered,
            _normal=normal,
            _by_id=MappingProxyType({card.id: n for n, card in enumerate(ordered)}),
            _by_file=_frozen(by_file),
            _by_folder=_frozen(by_folder),
            _by_identifier=_frozen(by_identifier),
            _group_terms=group_terms,
            _group_entries=tuple(tuple(groups[g]) for g in group_terms),
            _pairs=MappingProxyType(
                {
                    a: MappingProxyType({b: tuple(g) for b, g in sub.items()})
                    for a, sub in pairs.items()
                }
            ),
            _key_members=MappingProxyType(key_members),
            _shared_key=frozenset(n for members in key_members.values() for n in members),
            _key_first=tuple(by_key[card.key][0] for card in ordered),
            _repository_scoped=frozenset(n for ns in own.values() for n in ns),
            _own=MappingProxyType({r: frozenset(ns) for r, ns in own.items()}),
            _hidden={},
        )
        for repository in (None, *sorted({c.repository for c in ordered})):
            index._hidden_for(repository)
        return index

    def __len__(self) -> int:
        return len(self.cards)

    def _hidden_for(self, repository: str | None) -> frozenset[int]:
        """Cards a query from ``repository`` never sees: another repository's own entries, and
        entries shadowed by a better-placed entry with the same key (see ``visibility_rank``)."""
        cached = self._hidden.get(repository)
        if cached is not None:
            return cached
        hidden: set[int] = set()
        if repository is not None:
            hidden.update(self._repository_scoped - self._own.get(repository, frozenset()))
        for members in self._key_members.values():
            ranks = [visibility_rank(self.cards[m], repository) for m in members]
            best = max(ranks)
            hidden.update(m for m, r in zip(members, ranks, strict=True) if r < best)
        frozen = frozenset(hidden)
        self._hidden[repository] = frozen
        return frozen

    def _matched_groups(self, terms: frozenset[str]) -> list[int]:
        """Groups whose every term is in ``terms``, found through their two rarest terms."""
        pairs = self._pairs
        group_terms = self._group_terms
        matched: list[int] = []
        for first in terms:
            seconds = pairs.get(first)
            if seconds is None:
                continue
            if len(seconds) <= len(terms):
                found = [gs for s, gs in seconds.items() if s in terms]
            else:
                found = [gs for gs in map(seconds.get, terms) if gs is not None]
            for gids in found:
                matched.extend(g for g in gids if terms.issuperset(group_terms[g]))
        return matched

    def _wins_key(self, n: int, tiers: list[tuple[int, set[int]]]) -> bool:
        """True when matched card ``n`` is the first of its key in ranking order."""
        members = self._key_members.get(self.cards[n].key)
        if members is None:
            return True

        def place(m: int) -> tuple[int, int] | None:
            for position, (_, tier) in enumerate(tiers):
                if m in tier:
                    return (position, m)
            return None

        mine = place(n)
        others = [p for p in map(place, members) if p is not None]
        return mine is not None and mine == min(others)

    def _seen_numbers(self, seen: Iterable[tuple[str, int]]) -> set[int]:
        numbers: set[int] = set()
        for card_id, revision in seen:
            n = self._by_id.get(card_id)
            if n is not None and self.cards[n].revision == revision:
                numbers.add(n)
        return numbers

    def search(
        self,
        *,
        paths: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        words: Iterable[str] = (),
        repository: str | None = None,
        limit: int | None = None,
        seen: Iterable[tuple[str, int]] = (),
    ) -> Recall:
        """The first ``limit`` hits of the ranking (all with None) and the ranking's size.

        Matching sets come from the inverted indexes with set operations, so only the hits
        returned are materialised; the head is exactly the head of the full ranking. Entries
        whose ``(id, revision)`` is in ``seen`` (already handed in this session) are ranked as
        usual, so they still take their key, but are left out of both hits and total.
        """
        q = Query.of(paths=paths, identifiers=identifiers, words=words)
        changed_folders = frozenset(f for p in q.paths for f in (p, *folders_of(p)))
        no_match: tuple[int, ...] = ()
        files = set(no_match).union(*(self._by_file.get(p, no_match) for p in q.paths))
        folders = set(no_match).union(*(self._by_folder.get(f, no_match) for f in changed_folders))
        names = set(no_match).union(*(self._by_identifier.get(i, no_match) for i in q.identifiers))
        keywords: set[int] = set()
        if len(q.terms) >= 2:
            keywords = keywords.union(
                *(self._group_entries[g] for g in self._matched_groups(q.terms))
            )
        hidden = self._hidden_for(repository)
        tiers: list[tuple[int, set[int]]] = []
        taken: set[int] = set()
        for score, matched in (
            (SCORE_FILE, files),
            (SCORE_FOLDER, folders),
            (SCORE_IDENTIFIER, names),
            (SCORE_KEYWORDS, keywords),
        ):
            tier = matched - taken - hidden if matched else matched
            taken |= matched
            tiers.append((score, tier))
        matched_all = set(no_match).union(*(tier for _, tier in tiers))
        shared = self._shared_key
        ambiguous = matched_all & shared
        total = (
            len(matched_all)
            - len(ambiguous)
            + len(set(map(self._key_first.__getitem__, ambiguous)))
        )
        # Entries the session already holds keep their place (and their key) in the ranking,
        # but are neither handed nor counted.
        skipped = self._seen_numbers(seen) & matched_all
        total -= sum(1 for n in skipped if self._wins_key(n, tiers))

        hits: list[Scored] = []
        keys: set[str] = set()
        for score, tier in tiers:
            if limit is not None and len(hits) >= limit:
                break
            for n in sorted(tier):
                card = self.cards[n]
                if n in shared:
                    if card.key in keys:
                        continue
                    keys.add(card.key)
                if n in skipped:
                    continue
                hits.append(Scored(card, score, self._normal[n].why(score, q, changed_folders)))
                if limit is not None and len(hits) >= limit:
                    break
        return Recall(tuple(hits), total)

    def query(
        self,
        *,
        paths: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        words: Iterable[str] = (),
        repository: str | None = None,
        limit: int | None = None,
    ) -> list[Scored]:
        """Cards matching the query, by score descending then id ascending.

        A card scores its strongest match only: a changed path equal to one of its files (1000),
        a changed path inside one of its folders, component-aware (800), one of its identifiers
        given whole (700), all terms of one of its keyword groups among the query's terms (500;
        terms come from the paths, the identifiers split, and the words).

        With ``repository``, only that repository's own entries and account-scoped entries are
        visible, and one key yields one card: the repository's own entry shadows account-scoped
        ones (whether or not it matches); among equals the better-ranked wins. ``limit`` returns
        the head of the ranking only.
        """
        found = self.search(
            paths=paths,
            identifiers=identifiers,
            words=words,
            repository=repository,
            limit=limit,
        )
        return list(found.hits)
