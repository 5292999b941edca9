"""Links numbered when an entry is written: the names, each entry's numbers, and a build from them."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import Engine, select, update

from continual.recall.cards import FILE, FOLDER, GROUP, NAME, Normal
from continual.recall.index import RecallIndex
from continual.recall.lessons import read_lessons
from continual.recall.numbering import NUMBER, number_account, number_many, read_link_names
from continual.recall.scan import scan
from continual.recall.snapshot import build_snapshot
from continual.tables import Entry, LinkName
from continual.values import EntryState
from ghapp.db import reading
from tests.support.recall import NOW, Tenant, accept, seed

REPO = "acme/app"
NAMES = ("parse_config", "load_rows", "read_token", "write_cache")
PATHS = ("src/app.py", "src/db/rows.py", "lib/auth/token.py", "src/db/cache.py")
QUERIES = [
    {"paths": ["src/db/rows.py"]},
    {"paths": ["src/db/other.py"], "identifiers": ["read_token"]},
    {"identifiers": ["parse_config", "write_cache"], "words": ["unchecked", "result"]},
    {"words": ["cache", "write", "result"], "repository": REPO},
    {"paths": ["lib/auth/token.py", "src/app.py"], "repository": "acme/lib"},
]


@pytest.fixture
def tenant(engine: Engine) -> Tenant:
    tenant = seed(engine, 1, "acme", "app", "lib")
    for n, (name, path) in enumerate(zip(NAMES, PATHS, strict=True)):
        accept(engine, tenant, REPO if n % 2 else "acme/lib", name=name, path=path)
    return tenant


def numbers_of(engine: Engine) -> dict[str, bytes | None]:
    with engine.connect() as conn:
        return {row.id: row.link_numbers for row in conn.execute(select(Entry))}


def assert_answers_as_the_scan(engine: Engine) -> None:
    """A cold build (from the stored numbers, as far as they fit) ranks as the scan and as an
    index built from the links themselves."""
    with reading(engine) as conn:
        snapshot = build_snapshot(conn, 1, now=NOW)
        cards = [x.card for x in read_lessons(conn, 1, now=NOW) if x.state is EntryState.ACTIVE]
    assert cards, "the store holds active lessons"
    from_links = RecallIndex.build(cards)
    for query in QUERIES:
        expected = scan(cards, **query)  # type: ignore[arg-type]
        found = snapshot.search(**query)
        assert [(h.card.id, h.score) for h in found.hits] == expected
        assert [(h.card.id, h.why) for h in found.hits] == [
            (h.card.id, h.why)
            for h in from_links.search(**query).hits  # type: ignore[arg-type]
        ]
    for card in cards:
        mine, theirs = snapshot.index.links(card.id), Normal.of(card)
        assert mine is not None
        assert {*mine.files, *mine.folders, *mine.identifiers, *mine.groups} == {
            *theirs.files,
            *theirs.folders,
            *theirs.identifiers,
            *theirs.groups,
        }


def test_every_written_entry_holds_its_links_numbers(engine: Engine, tenant: Tenant) -> None:
    held = numbers_of(engine)
    assert held and all(numbers for numbers in held.values())
    with engine.connect() as conn:
        names = read_link_names(conn, 1)
    kinds = dict(zip(names.numbers.tolist(), names.kinds.tolist(), strict=True))
    by_number = dict(zip(names.numbers.tolist(), names.names, strict=True))
    for numbers in held.values():
        assert numbers is not None
        numbered = np.frombuffer(numbers, dtype=NUMBER).tolist()
        assert {kinds[n] for n in numbered} == {FILE, FOLDER, NAME, GROUP}
        assert all(isinstance(by_number[n], tuple) for n in numbered if kinds[n] == GROUP)
    assert_answers_as_the_scan(engine)


def test_a_name_has_one_number_however_it_is_written(engine: Engine) -> None:
    seed(engine, 2, "other", "app")
    links = {"files": ["src/db/rows.py"], "identifiers": ["load_rows"], "keyword_groups": []}
    long_path = "src/" + "deep/" * 2_000 + "x.py"  # far longer than any index allows a key
    with engine.begin() as conn:
        first, again = number_many(conn, 2, [links, {**links, "files": [" ./src/db/rows.py "]}])
        longer = number_many(conn, 2, [{"files": [long_path]}])[0]
    with engine.begin() as conn:
        later = number_many(conn, 2, [links])[0]
    assert first == again, "the same names in normal form, the same numbers"
    assert later == first, "a name keeps its number"
    assert len(np.frombuffer(longer, dtype=NUMBER)) == 2, "the file and its folder"
    with engine.connect() as conn:
        stored = conn.execute(select(LinkName.name).where(LinkName.account_id == 2)).scalars()
        assert long_path in set(stored)


def test_numbers_in_two_accounts_are_independent(engine: Engine) -> None:
    seed(engine, 2, "one", "app")
    seed(engine, 3, "two", "app")
    with engine.begin() as conn:
        (a,) = number_many(conn, 2, [{"identifiers": ["only_here", "shared"]}])
        (b,) = number_many(conn, 3, [{"identifiers": ["shared"]}])
    assert np.frombuffer(a, dtype=NUMBER).tolist() == [0, 1]
    assert np.frombuffer(b, dtype=NUMBER).tolist() == [0]


@pytest.mark.parametrize(
    "spoil",
    [
        None,  # not numbered (written before numbering, or by hand)
        b"\x01\x02\x03",  # not whole numbers
        np.array([10_000], dtype=NUMBER).tobytes(),  # a number no name has
        np.array([-1], dtype=NUMBER).tobytes(),
    ],
)
def test_numbers_that_do_not_fit_are_numbered_from_the_links(
    engine: Engine, tenant: Tenant, spoil: bytes | None
) -> None:
    held = sorted(numbers_of(engine))
    with engine.begin() as conn:
        conn.execute(update(Entry).where(Entry.id == held[0]).values(link_numbers=spoil))
    assert_answers_as_the_scan(engine)


def test_names_no_active_entry_links_to_are_not_kept(engine: Engine, tenant: Tenant) -> None:
    with engine.begin() as conn:
        gone = conn.execute(select(Entry.id).where(Entry.key.like("%write-cache%"))).scalar_one()
        conn.execute(update(Entry).where(Entry.id == gone).values(demoted_ms=NOW))
    with reading(engine) as conn:
        postings = build_snapshot(conn, 1, now=NOW).index.postings
    assert "src/db/cache.py" not in postings.files
    assert "write_cache" not in postings.names
    assert "src/db/rows.py" in postings.files
    assert_answers_as_the_scan(engine)


def test_an_account_written_without_numbers_is_numbered_once(
    engine: Engine, tenant: Tenant
) -> None:
    before = numbers_of(engine)
    with engine.begin() as conn:
        conn.execute(update(Entry).values(link_numbers=None))
        assert number_account(conn, 1) == len(before)
        assert number_account(conn, 1) == 0, "nothing left to number"
    assert numbers_of(engine) == before, "the names kept their numbers"
    assert_answers_as_the_scan(engine)
