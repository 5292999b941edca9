"""Migration 0019: the entries already stored get their links numbered, and a build reads them."""

from __future__ import annotations

from sqlalchemy import Engine, insert, select

from continual.recall.lessons import read_lessons
from continual.recall.numbering import NUMBER
from continual.recall.scan import scan
from continual.recall.snapshot import build_snapshot
from continual.tables import Account, Entry, LinkName, Receipt, Repository, Suggestion
from continual.values import EntryState
from ghapp.db import reading
from tests.support.migrations import NOW, entry, receipt, suggestion, upgrade

REVISION = "0019_link_numbers"


def test_stored_entries_are_numbered_and_built_from(engine_before: Engine) -> None:
    engine = engine_before
    links = [
        '{"files": ["src/calc.py"], "identifiers": ["add"], "keyword_groups": [["add", "sum"]]}',
        '{"files": ["./src/calc.py", "lib/x.py"], "keyword_groups": [["Sum", "add"], ["x"]]}',
        "{}",
    ]
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="octo", created_ms=NOW))
        conn.execute(insert(Repository).values(id=10, account_id=1, full_name="octo/app"))
        conn.execute(insert(Suggestion), [suggestion(f"s{n}", f"lesson/k-{n}") for n in range(3)])
        conn.execute(
            insert(Entry),
            [
                {
                    **entry(f"e{n}", f"lesson/k-{n}", confirmed=NOW),
                    "associations": held,
                    "accepted_count": 1,  # the receipt below, as a refresh counts it
                    "labelled_count": 1,
                }
                for n, held in enumerate(links)
            ],
        )
        conn.execute(
            insert(Receipt), [receipt(f"e{n}", f"s{n}", "reply", NOW, "mona") for n in range(3)]
        )
    upgrade(engine, REVISION)
    upgrade(engine, "head")

    with engine.connect() as conn:
        held = {row.id: row.link_numbers for row in conn.execute(select(Entry))}
        names = conn.execute(select(LinkName.number, LinkName.kind, LinkName.name)).all()
    assert all(numbers is not None for numbers in held.values()), "every entry is numbered"
    counts = {eid: len(numbers or b"") // NUMBER.itemsize for eid, numbers in held.items()}
    # e0: file, folder, identifier, group; e1: two files, their two folders, one group (the
    # same as e0's in normal form; a one-term group names nothing); e2: nothing
    assert counts == {"e0": 4, "e1": 5, "e2": 0}
    assert len(names) == 6, "src/calc.py, src, add, add+sum, lib/x.py, lib"
    with reading(engine) as conn:
        snapshot = build_snapshot(conn, 1, now=NOW + 1)
        fresh = read_lessons(conn, 1, now=NOW + 1)  # cards that keep their links, for the scan
    cards = [x.card for x in fresh if x.state is EntryState.ACTIVE]
    assert len(cards) == 3
    for query in ({"paths": ["src/calc.py"]}, {"words": ["sum", "add"]}, {"paths": ["lib/y.py"]}):
        assert [(h.card.id, h.score) for h in snapshot.search(**query).hits] == scan(cards, **query)  # type: ignore[arg-type]
