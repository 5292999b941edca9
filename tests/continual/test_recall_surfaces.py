"""The surfaces: budgets and omitted counts, per-session dedupe, receipts, expiry, preferences."""

from __future__ import annotations

import hashlib
import json
import logging
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual import store
from continual.memory import RECALLED_HEADER, ItemKind, MemoryItem, Reporter, Source, save_items
from continual.packing import approx_tokens
from continual.persons import Preference, Recording
from continual.recall.snapshot import build_snapshot
from continual.summary import is_summary_id
from continual.surfaces import (
    PUSH_MAX_TOKENS,
    Handed,
    Target,
    hand_brief,
    hand_context,
    hand_review_lessons,
    injections_path,
    target_named,
)
from continual.tables import Injection
from continual.values import EntryState
from tests.support.recall import (
    DAY,
    NOW,
    Tenant,
    accept,
    decide,
    entry_of,
    live_entries,
    seed,
    suggest,
)
from tests.support.review import enable_memory

NAMES = ("parse_config", "load_rows", "open_socket", "read_token", "write_cache", "drop_index")


@pytest.fixture
def org(engine: Engine) -> Tenant:
    return seed(engine, 1, "octo", "app", "lib")


def target(engine: Engine, tenant: Tenant, repo: str = "octo/app") -> Target:
    with engine.connect() as conn:
        found = target_named(conn, tenant.account_id, repo)
    assert found is not None
    return found


def lessons_in(handed: Handed) -> tuple[tuple[str, int], ...]:
    """The lesson entries a hand-out recorded (the memory summary is recorded beside them)."""
    return tuple(e for e in handed.entries if not is_summary_id(e[0]))


def review(engine: Engine, store_dir: Path, tenant: Tenant, session: str, **kw: object) -> Handed:
    options: dict[str, object] = {"paths": ["src/app.py"], "now": NOW + 1000, **kw}
    return hand_review_lessons(
        engine,
        store_dir,
        account_id=tenant.account_id,
        repository_id=tenant.repos["octo/app"],
        session_id=session,
        **options,  # type: ignore[arg-type]
    )


def brief(
    engine: Engine, store_dir: Path, tenant: Tenant, session: str, card: Preference, now: int
) -> Handed:
    return hand_brief(
        engine,
        store_dir,
        target(engine, tenant),
        session_id=session,
        preference=card,
        person_id=None,
        now=now,
    )


def lines(store_dir: Path) -> list[dict[str, object]]:
    path = injections_path(store_dir, "octo", "octo/app")
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_review_packs_within_the_cap_and_counts_omitted(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    for name in NAMES:
        accept(engine, org, "octo/app", name=name)
    handed = review(engine, tmp_path, org, "r1", cap=2)
    assert len(lessons_in(handed)) == 2
    assert handed.omitted == len(NAMES) - 2
    lessons_block = handed.text.split("\n\n")[0]
    assert lessons_block.endswith(f"{len(NAMES) - 2} more omitted")
    ids = sorted(e.id for e in live_entries(engine))
    assert [i for i, _ in lessons_in(handed)] == ids[:2], "same score: ordered by entry id"
    assert [lesson.id for lesson in handed.lessons] == ids[:2]
    for lesson in handed.lessons:
        assert lesson.text in handed.text


def test_review_char_budget_hands_only_complete_cards(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    for name in NAMES:
        accept(engine, org, "octo/app", name=name)
    full = review(engine, tmp_path, org, "wide", cap=20)
    limit = (len(full.text) - len(full.summary)) // 2
    handed = review(engine, tmp_path, org, "narrow", cap=20, max_chars=limit)
    assert handed.chars <= limit
    assert 0 < len(lessons_in(handed)) < len(NAMES)
    assert handed.omitted == len(NAMES) - len(lessons_in(handed))
    assert all(lesson.text in handed.text for lesson in handed.lessons)


def test_brief_respects_lesson_cap_and_token_budget(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    for name in NAMES:
        accept(engine, org, "octo/app", name=name)
    handed = brief(engine, tmp_path, org, "s1", Preference(lesson_cap=4), NOW)
    assert len(lessons_in(handed)) == 4
    assert handed.omitted == 2
    assert approx_tokens(handed.text) <= PUSH_MAX_TOKENS


TWO_LABS = "reported by seats alpha (acme-labs) and beta (other-lab), of different labs"


def recalled_memory(count: int, *, session: str, text: str) -> list[MemoryItem]:
    """Facts seats of two labs reported: memory the summary may state."""
    at = datetime.fromtimestamp(NOW / 1000, UTC)
    return [
        MemoryItem(
            kind=ItemKind.FACT,
            subject=f"fact:{n}",
            text=f"{text} {n}",
            seat="alpha",
            session=session,
            commit="c" * 40,
            state=EntryState.ACTIVE,
            expires_at=at + timedelta(days=90),
            recorded_at=at,
            source=Source.CORROBORATED,
            reporters=(Reporter("alpha", "acme-labs"), Reporter("beta", "other-lab")),
        )
        for n in range(count)
    ]


def test_brief_hands_recalled_memory_as_cited_facts_within_the_token_budget(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    enable_memory(engine)
    accept(engine, org, "octo/app")
    wide = "Le répertoire partagé était déjà vérifié — " + "é" * 300
    with engine.begin() as conn:
        for session, count, now in (("r_old", 2, NOW - 10), ("r_new", 200, NOW - 5)):
            save_items(
                conn,
                account_id=org.account_id,
                repository_id=org.repos["octo/app"],
                items=recalled_memory(count, session=session, text=wide),
                now_ms=now,
            )
    lessons_only = brief(engine, tmp_path, org, "s1", Preference(surfacing=1), NOW)
    assert RECALLED_HEADER not in lessons_only.text

    handed = brief(engine, tmp_path, org, "s2", Preference(surfacing=2), NOW)
    lessons, summary, memory = handed.text.split("\n\n")
    assert lessons == lessons_only.text
    assert summary == handed.summary and summary.startswith("Memory summary for octo/app.")
    assert len(summary) <= 2_000
    in_summary = [line for line in summary.splitlines() if line.startswith(f"- {wide}")]
    assert in_summary[0] == f"- {wide} 199 ({TWO_LABS}; session r_new, commit ccccccc)"
    lines = memory.splitlines()
    assert lines[0] == RECALLED_HEADER
    assert not set(lines) & set(in_summary), "what the summary says is not repeated"
    assert (
        lines[1] == f"- {wide} {199 - len(in_summary)} ({TWO_LABS}; session r_new, commit ccccccc)"
    )
    assert "r_old" not in memory, "one line per subject: the newest session's"
    assert re.fullmatch(r"\d+ more omitted", lines[-1])
    assert len(in_summary) + len(lines) - 2 + int(lines[-1].split()[0]) == 200
    assert approx_tokens(handed.text) <= PUSH_MAX_TOKENS
    # counted in UTF-8 bytes: in characters the same budget would have held many more lines
    assert len(handed.text) < PUSH_MAX_TOKENS * 4 - 4 * len(lines[1])


def test_a_second_brief_hands_only_the_memory_lines_that_are_new(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    enable_memory(engine)

    def remember(session: str, count: int, now: int) -> None:
        with engine.begin() as conn:
            save_items(
                conn,
                account_id=org.account_id,
                repository_id=org.repos["octo/app"],
                items=recalled_memory(count, session=session, text="The cache is warmed"),
                now_ms=now,
            )

    remember("r_one", 2, NOW - 10)
    card = Preference(surfacing=2)
    first = brief(engine, tmp_path, org, "s1", card, NOW)
    assert first.text.count("; session r_one") == 2
    assert brief(engine, tmp_path, org, "s1", card, NOW).text == "", "nothing new: nothing handed"

    remember("r_two", 1, NOW - 5)
    second = brief(engine, tmp_path, org, "s1", card, NOW)
    # New memory makes a new summary revision, which the session may be handed again; the
    # memory block repeats nothing, in the summary or handed before.
    assert f"- The cache is warmed 0 ({TWO_LABS}; session r_two, commit ccccccc)" in second.summary
    assert RECALLED_HEADER not in second.text
    assert lessons_in(second) == (), "memory lines are not lesson entries"
    other = brief(engine, tmp_path, org, "s2", card, NOW)
    memory = [line for line in other.text.splitlines() if "The cache is warmed" in line]
    assert memory == [
        f"- The cache is warmed 0 ({TWO_LABS}; session r_two, commit ccccccc)",
        f"- The cache is warmed 1 ({TWO_LABS}; session r_one, commit ccccccc)",
    ], "another session is handed every subject, each once, newest first"


def test_a_session_is_handed_an_entry_revision_once(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/app")
    card = Preference()
    first = brief(engine, tmp_path, org, "s1", card, NOW)
    assert len(lessons_in(first)) == 1
    assert lessons_in(brief(engine, tmp_path, org, "s1", card, NOW)) == ()
    ctx = hand_context(
        engine,
        tmp_path,
        target(engine, org),
        session_id="s1",
        paths=["src/app.py"],
        preference=card,
        person_id=None,
        now=NOW,
    )
    assert lessons_in(ctx) == (), "the context surface shares the session's dedupe"
    assert lessons_in(brief(engine, tmp_path, org, "s2", card, NOW)) == lessons_in(first)

    # A new revision of the entry may be handed again to the same session.
    entry = entry_of(engine, org.repos["octo/app"], "parse_config")
    with engine.begin() as conn:
        revision = store.person_edit(
            conn, entry.id, expected=entry.revision, demote=True, actor="p", now=NOW
        )
        store.person_edit(conn, entry.id, expected=revision, demote=False, actor="p", now=NOW)
    again = brief(engine, tmp_path, org, "s1", card, NOW)
    assert lessons_in(again) == ((entry.id, entry.revision + 2),)


def test_injection_lines_match_the_handed_text(
    engine: Engine, org: Tenant, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    enable_memory(engine)
    accept(engine, org, "octo/app")
    accept(engine, org, "octo/app", name="load_rows")
    caplog.set_level(logging.INFO, logger="continual.injections")
    handed = review(engine, tmp_path, org, "rev-1")
    got = brief(engine, tmp_path, org, "agent-1", Preference(), NOW)
    recorded = lines(tmp_path)
    assert [line["surface"] for line in recorded] == ["review", "brief"]
    for line, hand in zip(recorded, (handed, got), strict=True):
        assert line["set_sha256"] == hashlib.sha256(hand.text.encode()).hexdigest()
        assert line["set_sha256"] == hand.set_sha256
        assert line["entries"] == [list(e) for e in hand.entries]
        assert line["chars"] == len(hand.text)
        assert set(line) == {"at_ms", "session_id", "surface", "set_sha256", "entries", "chars"}
    assert (
        f"[hindsight continual] rev-1 -> review 3 entries set {handed.set_sha256[:12]} "
        f"{handed.chars} chars"
    ) in caplog.messages
    with engine.connect() as conn:
        rows = conn.execute(select(Injection).order_by(Injection.id)).all()
    assert [r.set_sha256 for r in rows] == [handed.set_sha256, got.set_sha256]


def test_a_retried_review_gets_the_same_set_recorded_once(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/app")
    first = review(engine, tmp_path, org, "rev-1")
    second = review(engine, tmp_path, org, "rev-1")
    assert second.text == first.text and lessons_in(second) == lessons_in(first)
    assert len(lines(tmp_path)) == 1


def test_expiry_and_confirmation_follow_the_clock(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/app", at=NOW)
    card = Preference()
    assert len(lessons_in(brief(engine, tmp_path, org, "a", card, NOW + 29 * DAY))) == 1
    assert lessons_in(brief(engine, tmp_path, org, "b", card, NOW + 31 * DAY)) == ()
    with engine.connect() as conn:
        (lesson,) = build_snapshot(conn, org.account_id, now=NOW + 31 * DAY).lessons
    assert lesson.state is EntryState.EXPIRED

    # A later acceptance of the same mechanism confirms the entry instead of duplicating it.
    accept(engine, org, "octo/app", at=NOW + 31 * DAY)
    (entry,) = live_entries(engine)
    assert entry.expires_ms == NOW + 61 * DAY
    confirmed = brief(engine, tmp_path, org, "c", card, NOW + 32 * DAY)
    assert [i for i, _ in lessons_in(confirmed)] == [entry.id]
    with engine.connect() as conn:
        (lesson,) = build_snapshot(conn, org.account_id, now=NOW + 32 * DAY).lessons
    assert (lesson.state, lesson.confirmations) == (EntryState.ACTIVE, 2)


def test_surfacing_levels(engine: Engine, org: Tenant, tmp_path: Path) -> None:
    accept(engine, org, "octo/app")
    assert brief(engine, tmp_path, org, "s0", Preference(surfacing=0), NOW).text == ""
    assert len(brief(engine, tmp_path, org, "s1", Preference(surfacing=1), NOW).entries) == 1
    for level, expected in ((2, 0), (3, 1)):
        pushed = hand_context(
            engine,
            tmp_path,
            target(engine, org),
            session_id=f"ctx{level}",
            paths=["src/app.py"],
            preference=Preference(surfacing=level),
            person_id=None,
            now=NOW,
        )
        assert len(lessons_in(pushed)) == expected


def test_recording_off_and_incognito(engine: Engine, org: Tenant, tmp_path: Path) -> None:
    accept(engine, org, "octo/app")
    off = Preference(recording=Recording.OFF)
    assert len(lessons_in(brief(engine, tmp_path, org, "s", off, NOW))) == 1
    assert len(lessons_in(brief(engine, tmp_path, org, "s", off, NOW))) == 1, "nothing kept"
    incognito = Preference(recording=Recording.INCOGNITO)
    first = brief(engine, tmp_path, org, "i", incognito, NOW)
    assert first.recorded and len(lessons_in(first)) == 1
    assert lessons_in(brief(engine, tmp_path, org, "i", incognito, NOW)) == (), "deduped in session"
    assert lines(tmp_path) == [], "neither leaves a line in injections.jsonl"
    with engine.connect() as conn:
        rows = conn.execute(select(Injection)).all()
    assert [r.session_id for r in rows] == ["i"] and rows[0].expires_ms is not None


def test_only_active_entries_of_the_repository_are_handed(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    accept(engine, org, "octo/lib", name="load_rows")
    candidate = suggest(engine, org, "octo/app", name="open_socket", lab=None)
    decide(engine, candidate)
    handed = review(engine, tmp_path, org, "r", paths=["src/app.py"])
    assert lessons_in(handed) == () and handed.text == ""
    assert lines(tmp_path) == [], "an empty hand is not recorded"


def test_tombstone_is_not_recreated_by_the_same_suggestion(
    engine: Engine, org: Tenant, tmp_path: Path
) -> None:
    sid = accept(engine, org, "octo/app")
    (entry,) = live_entries(engine)
    with engine.begin() as conn:
        store.tombstone(conn, entry.id, expected=entry.revision, now=NOW)
    decide(engine, sid, at=NOW + 1000)
    assert live_entries(engine) == []
    assert lessons_in(review(engine, tmp_path, org, "r")) == ()
    accept(engine, org, "octo/app", at=NOW + 2000)
    (fresh,) = live_entries(engine)
    assert fresh.id != entry.id and fresh.key == entry.key
    assert [i for i, _ in lessons_in(review(engine, tmp_path, org, "r2"))] == [fresh.id]
