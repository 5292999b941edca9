"""Helpers for recall, surface and API tests: tenants, accepted lessons, a clock, a served app."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, insert, select

from continual import persons, store
from continual.entry_keys import entry_key
from continual.lifecycle import DAY_MS
from continual.stored import StoredEntry
from continual.tables import Account, Entry, Repository
from continual.values import Decision, Reason, Source
from continual.writeback.apply import apply_decisions
from continual.writeback.threads import ThreadDecision
from ghapp.app import build_deps, create_app
from ghapp.settings import Settings
from tests.support.web import serve

NOW = 1_700_000_000_000
DAY = DAY_MS
_ids = itertools.count(1)


@dataclass
class Clock:
    """A settable clock in milliseconds, handed to the app in place of the real one."""

    now: int = NOW

    def __call__(self) -> int:
        return self.now


@dataclass(frozen=True)
class Tenant:
    account_id: int
    login: str
    repos: dict[str, int] = field(default_factory=dict)  # "owner/name" -> id


def seed(engine: Engine, account_id: int, login: str, *names: str) -> Tenant:
    """An account with repositories ``login/name`` numbered from ``account_id * 10``."""
    repos = {f"{login}/{name}": account_id * 10 + n for n, name in enumerate(names, start=1)}
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=account_id, login=login, created_ms=0))
        conn.execute(
            insert(Repository).values(
                [
                    {"id": rid, "account_id": account_id, "full_name": full}
                    for full, rid in repos.items()
                ]
            )
        )
    return Tenant(account_id, login, repos)


def lesson_for(name: str, path: str = "src/app.py") -> tuple[str, str]:
    """A title and an admissible lesson naming ``name`` and ``path``."""
    return f"Unchecked {name} result", f"Check the result of `{name}` in {path} before using it."


def suggest(
    engine: Engine,
    tenant: Tenant,
    repo: str,
    *,
    name: str = "parse_config",
    path: str = "src/app.py",
    review_id: str | None = None,
    lab: str | None = "acme-labs",
    lens: str = "correctness",
) -> str:
    title, lesson = lesson_for(name, path)
    sid = f"sg{next(_ids)}"
    suggestion = store.NewSuggestion(
        id=sid,
        account_id=tenant.account_id,
        repository_id=tenant.repos[repo],
        pr=7,
        head_sha="a" * 40,
        path=path,
        line=12,
        seat="alpha",
        lab=lab,
        lens=lens,
        title=title,
        entry_key=entry_key(lens, title),
        lesson=lesson,
        set_sha256="f" * 64,
        review_id=review_id,
    )
    with engine.begin() as conn:
        store.record_suggestion(conn, suggestion, now=0)
    return sid


def decide(
    engine: Engine,
    sid: str,
    *,
    at: int = NOW,
    kind: Decision = Decision.ACCEPTED,
    source: Source = Source.REPLY,
) -> None:
    reason = None if kind is Decision.ACCEPTED else Reason.FALSE_POSITIVE
    thread = ThreadDecision(
        suggestion_id=sid,
        decision=kind,
        reason=reason,
        source=source,
        rule=f"grammar.{kind.value}",
        span=kind.value,
        actor="maintainer",
        at=datetime.fromtimestamp(at / 1000, UTC),
        reply_id=None,
    )
    apply_decisions(engine, [thread], source=source, now=at)


def accept(engine: Engine, tenant: Tenant, repo: str, **fields: object) -> str:
    """A suggestion accepted by a maintainer's reply at ``at`` (default NOW); its suggestion id."""
    at = int(fields.pop("at", NOW))  # type: ignore[call-overload]
    source = fields.pop("source", Source.REPLY)
    assert isinstance(source, Source)
    sid = suggest(engine, tenant, repo, **fields)  # type: ignore[arg-type]
    decide(engine, sid, at=at, source=source)
    return sid


def live_entries(engine: Engine) -> list[Entry]:
    with engine.connect() as conn:
        rows = conn.execute(select(Entry).where(Entry.deleted_ms.is_(None)).order_by(Entry.id))
        return list(rows.all())  # type: ignore[arg-type]


def entry_of(engine: Engine, repository_id: int, name: str) -> StoredEntry:
    key = entry_key("correctness", lesson_for(name)[0])
    with engine.connect() as conn:
        row = store.live_entry(conn, repository_id, key)
    assert row is not None, f"no live entry for {name}"
    return row


def token(engine: Engine, login: str, person: str, *, now: int = NOW) -> str:
    with engine.begin() as conn:
        return persons.create_token(conn, login, person, now=now).secret


@contextmanager
def api(engine: Engine, store_dir: Path, clock: Clock, **options: Any) -> Iterator[str]:
    """The app served over real HTTP on loopback, with the test clock; yields its base URL.
    ``options`` are further settings."""
    settings = Settings(
        database_url=engine.url.render_as_string(hide_password=False),
        store_dir=store_dir,
        webhook_secret="test-webhook-secret",  # type: ignore[arg-type]
        config=store_dir / "absent.toml",
        **options,
    )
    deps = build_deps(settings, engine=engine, clock=clock)
    with serve(create_app(settings, deps=deps, run_worker=False)) as url:
        yield url
