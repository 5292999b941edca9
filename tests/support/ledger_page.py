"""A ledger worth looking at: six weeks of suggestions and decisions, the later ones guided by
lessons, for the `/ledger` page's tests and its screenshot; and the page's sign-in."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, insert

from continual import store
from continual.entry_keys import entry_key
from continual.stored import StoredEntry
from continual.tables import Injection
from continual.values import Decision, Source, Surface
from tests.support.recall import DAY, NOW, Clock, Tenant, api, decide, seed, token

WEEK = 7 * DAY
START = NOW - 6 * WEEK
SEATS = ("claude-review", "gpt-review")
LENSES = ("correctness", "security", "tests")
# Per week: how many suggestions, how many accepted, and whether their reviews were handed lessons.
WEEKS = ((5, 2, False), (6, 2, False), (6, 3, False), (6, 4, True), (5, 4, True), (6, 5, True))
NAMES = (
    "parse_config",
    "load_rows",
    "read_token",
    "open_socket",
    "retry_fetch",
    "close_pool",
)


@dataclass(frozen=True)
class SeededLedger:
    tenant: Tenant
    repo: str
    token: str
    accepted: int
    dismissed: int


def _guide(engine: Engine, tenant: Tenant, repo: str, review_id: str, at: int) -> str:
    """An injection row: the review was handed one lesson; answers its guidance set."""
    set_sha256 = hashlib.sha256(review_id.encode()).hexdigest()
    with engine.begin() as conn:
        conn.execute(
            insert(Injection).values(
                account_id=tenant.account_id,
                repository_id=tenant.repos[repo],
                person_id=None,
                session_id=review_id,
                surface=Surface.REVIEW.value,
                set_sha256=set_sha256,
                entries=json.dumps([["e_seeded", 1]]),
                chars=240,
                at_ms=at,
            )
        )
    return set_sha256


def seed_ledger(engine: Engine) -> SeededLedger:
    """Account `octo` with `octo/app` (the story above) and `octo/lib` (quiet); mona's token."""
    tenant = seed(engine, 1, "octo", "app", "lib")
    repo = "octo/app"
    accepted = dismissed = 0
    n = 0
    for week, (count, accepts, guided) in enumerate(WEEKS):
        at = START + week * WEEK + DAY
        review_id = f"r_week{week}"
        set_sha256 = _guide(engine, tenant, repo, review_id, at) if guided else "0" * 64
        for i in range(count):
            n += 1
            name = NAMES[(week + i) % len(NAMES)]
            lens = LENSES[i % len(LENSES)]
            title = f"Unchecked {name} result"
            suggestion = store.NewSuggestion(
                id=f"sg{n}",
                account_id=tenant.account_id,
                repository_id=tenant.repos[repo],
                pr=100 + week,
                head_sha="a" * 40,
                path="src/app.py",
                line=10 + i,
                seat=SEATS[i % len(SEATS)],
                lab=None,
                lens=lens,
                title=title,
                entry_key=entry_key(lens, title),
                lesson=f"Check the result of `{name}` in src/app.py before using it.",
                set_sha256=set_sha256,
                review_id=review_id,
            )
            with engine.begin() as conn:
                store.record_suggestion(conn, suggestion, now=at)
            kind = Decision.ACCEPTED if i < accepts else Decision.DISMISSED
            source = Source.REACTION if i == count - 1 else Source.REPLY
            decide(engine, suggestion.id, at=at + DAY, kind=kind, source=source)
            accepted += kind is Decision.ACCEPTED
            dismissed += kind is Decision.DISMISSED
    return SeededLedger(tenant, repo, token(engine, "octo", "mona"), accepted, dismissed)


CSRF_INPUT = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(html: str) -> str:
    """The CSRF token of the first form on a page."""
    found = CSRF_INPUT.search(html)
    assert found is not None, "the page has no CSRF field"
    return found.group(1)


def sign_in(client: httpx.Client, secret: str) -> str:
    """Sign ``client`` in on `/ledger` with an API token; answers the session's CSRF token."""
    page = client.get("/ledger/sign-in")
    answer = client.post("/ledger/sign-in", data={"csrf": csrf_of(page.text), "token": secret})
    assert answer.status_code == 303, answer.text
    ledger = client.get("/ledger")
    assert ledger.status_code == 200
    return csrf_of(ledger.text)


@pytest.fixture
def seeded_ledger(engine: Engine) -> SeededLedger:
    """The seeded ledger, in the test's database."""
    return seed_ledger(engine)


@pytest.fixture
def ledger_url(engine: Engine, seeded_ledger: SeededLedger, tmp_path: Path) -> Iterator[str]:
    """The app serving the seeded ledger on loopback, with the test clock at NOW."""
    with api(engine, tmp_path, Clock(NOW)) as served:
        yield served


def stored(engine: Engine, entry_id: str) -> StoredEntry:
    """The entry as the store holds it now."""
    with engine.connect() as conn:
        row = store.entry(conn, entry_id)
    assert row is not None
    return row
