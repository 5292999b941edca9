"""What recall ranks: cards, queries in normal form, the scores, visibility and why a card matched."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import orjson

from continual.associations import normalise_path, parent_folder, split_terms
from continual.values import Scope

SCORE_FILE = 1000
SCORE_FOLDER = 800
SCORE_IDENTIFIER = 700
SCORE_KEYWORDS = 500
FILE, FOLDER, NAME, GROUP = range(4)  # what a posting number names


CARD_FIELDS = (
    "id",
    "key",
    "revision",
    "repository",
    "scope",
    "lens",
    "title",
    "text",
    "files",
    "identifiers",
    "keyword_groups",
    "folders",
)


class Links(NamedTuple):
    """What retrieves a card: its files, identifiers, keyword groups and extra folders."""

    files: tuple[str, ...] = ()
    identifiers: tuple[str, ...] = ()
    keyword_groups: tuple[tuple[str, ...], ...] = ()
    folders: tuple[str, ...] = ()

    @classmethod
    def parse(cls, stored: str | None) -> Links:
        """The links of an entry's ``associations`` column (JSON)."""
        return cls.of(orjson.loads(stored or "{}"))

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Links:
        """The links of associations as parsed (lists under their names)."""
        return cls(
            tuple(data.get("files", ())),
            tuple(data.get("identifiers", ())),
            tuple(map(tuple, data.get("keyword_groups", ()))),
            tuple(data.get("folders", ())),
        )


RELEASED = object()  # a card's links once its index holds them


class Card:
    """One entry as recall sees it: what is handed (title, text) and what retrieves it.

    ``folders`` are extra folder associations; the folder directly holding each file is always
    associated as well. A card read from the store keeps its links as the stored JSON, parsed
    when first asked for; a snapshot's index numbers them as it reads the card, and the card then
    lets go of them (``release_links``): from there on the index answers for them
    (``RecallIndex.links``). Immutable by convention: nothing else assigns to a card.
    """

    __slots__ = ("_links", "id", "key", "lens", "repository", "revision", "scope", "text", "title")

    def __init__(
        self,
        id: str,
        key: str,
        revision: int,
        repository: str,
        scope: str,
        lens: str,
        title: str,
        text: str,
        files: Iterable[str] = (),
        identifiers: Iterable[str] = (),
        keyword_groups: Iterable[Iterable[str]] = (),
        folders: Iterable[str] = (),
    ) -> None:
        self.id = id
        self.key = key
        self.revision = revision
        self.repository = repository
        self.scope = scope
        self.lens = lens
        self.title = title
        self.text = text
        self._links: Links | str | object | None = Links(
            tuple(files), tuple(identifiers), tuple(map(tuple, keyword_groups)), tuple(folders)
        )

    @classmethod
    def stored(
        cls,
        id: str,
        key: str,
        revision: int,
        repository: str,
        scope: str,
        lens: str,
        title: str,
        text: str,
        associations: str | None,
    ) -> Card:
        """A card whose links are an entry's stored ``associations`` JSON, parsed on demand."""
        card = cls.__new__(cls)
        card.id, card.key, card.revision = id, key, revision
        card.repository, card.scope, card.lens = repository, scope, lens
        card.title, card.text = title, text
        card._links = associations
        return card

    def links(self) -> Links:
        """The links, parsed (and kept) on first use."""
        held = self._links
        if isinstance(held, Links):
            return held
        parsed = self._links = Links.parse(self._stored())
        return parsed

    def release_links(self) -> None:
        """Forget stored links that an index now holds (``RecallIndex.links``); a card made
        with its links in hand keeps them."""
        if not isinstance(self._links, Links):
            self._links = RELEASED

    @property
    def released(self) -> bool:
        return self._links is RELEASED

    def _stored(self) -> str | None:
        held = self._links
        if held is RELEASED:
            raise LookupError(f"card {self.id}: its links are held by its index, ask it")
        return held  # type: ignore[return-value]

    def link_lists(self) -> tuple[Sequence[str], Sequence[str], Sequence[Any], Sequence[str]]:
        """Files, identifiers, keyword groups and folders as stored (lists) or kept (tuples),
        without keeping a parse: for one pass over every card."""
        held = self._links
        if isinstance(held, Links):
            return held
        data = orjson.loads(self._stored() or "{}")
        return (
            data.get("files", ()),
            data.get("identifiers", ()),
            data.get("keyword_groups", ()),
            data.get("folders", ()),
        )

    def peek_links(self) -> Links:
        """The links, parsed if need be without keeping them (for one pass over every card)."""
        held = self._links
        return held if isinstance(held, Links) else Links.parse(self._stored())

    @property
    def files(self) -> tuple[str, ...]:
        return self.links().files

    @property
    def identifiers(self) -> tuple[str, ...]:
        return self.links().identifiers

    @property
    def keyword_groups(self) -> tuple[tuple[str, ...], ...]:
        return self.links().keyword_groups

    @property
    def folders(self) -> tuple[str, ...]:
        return self.links().folders

    def replaced(self, **changes: Any) -> Card:
        """A copy with ``changes`` (any of the constructor's arguments)."""
        fields = {name: getattr(self, name) for name in CARD_FIELDS}
        return Card(**{**fields, **changes})

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.id,
            self.key,
            self.revision,
            self.repository,
            self.scope,
            self.lens,
            self.title,
            self.text,
        )

    def same_fields(self, other: Card) -> bool:
        """Equal in everything but the links."""
        return self._fields() == other._fields()

    def __eq__(self, other: object) -> bool:
        """Equal fields and links; a card whose index holds its links compares by its fields
        (its revision changes whenever its links do)."""
        if not isinstance(other, Card):
            return NotImplemented
        if self is other:
            return True
        if not self.same_fields(other):
            return False
        return self.released or other.released or self.peek_links() == other.peek_links()

    def __hash__(self) -> int:
        return hash((self.id, self.key, self.revision, self.text))

    def __repr__(self) -> str:
        return f"Card(id={self.id!r}, key={self.key!r}, revision={self.revision})"


@dataclass(frozen=True, slots=True)
class Scored:
    """A recalled card, its score and what matched (e.g. ``folder src/a``)."""

    card: Card
    score: int
    why: str


@dataclass(frozen=True, slots=True)
class Recall:
    """The head of a ranking and how many entries the whole ranking holds."""

    hits: tuple[Scored, ...]
    total: int


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


def card_folders(card: Card | Links) -> tuple[str, ...]:
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
class Normal:
    """A card's associations in the form the index compares."""

    files: tuple[str, ...]
    folders: tuple[str, ...]
    identifiers: tuple[str, ...]
    groups: tuple[tuple[str, ...], ...]

    @classmethod
    def of(cls, card: Card) -> Normal:
        return cls.of_links(card.links())

    @classmethod
    def of_links(cls, links: Links) -> Normal:
        return cls(
            files=tuple(dict.fromkeys(f for f in map(normalise_path, links.files) if f)),
            folders=card_folders(links),
            identifiers=tuple(dict.fromkeys(i for i in map(str.strip, links.identifiers) if i)),
            groups=tuple(
                dict.fromkeys(g for g in map(group_key, links.keyword_groups) if len(g) >= 2)
            ),
        )


def why_matched(links: Normal, score: int, q: Query, changed_folders: frozenset[str]) -> str:
    """What gave ``score``: the smallest matching file, deepest folder, smallest name or group."""
    if score == SCORE_FILE:
        return "file " + min(f for f in links.files if f in q.paths)
    if score == SCORE_FOLDER:
        folder = min(
            (f for f in links.folders if f in changed_folders),
            key=lambda f: (-f.count("/"), f),
        )
        return "folder " + folder
    if score == SCORE_IDENTIFIER:
        return "identifier " + min(i for i in links.identifiers if i in q.identifiers)
    group = min(g for g in links.groups if q.terms.issuperset(g))
    return "keywords " + "+".join(group)
