"""Provenance, admission against real context, the pure maintenance rules and their publication."""

from __future__ import annotations

import pytest
from sqlalchemy import Connection, Engine, event, select

from continual import store
from continual.maintenance import (
    Action,
    AnchoredEntry,
    Anchors,
    ChangeStatus,
    Evidence,
    PathChange,
    Ruling,
    decide,
    publish,
    verify_anchors,
)
from continual.maintenance.anchors import head_side, rewrite
from continual.maintenance.plan import Decider, make_plan
from continual.tables import Entry, EntryChange, LessonEvent, LessonProvenance, TombstonedSource
from continual.writeback.apply import apply_decisions, new_entry_for
from ghsim.patches import addition_patch
from tests.support.store import (
    REPO_ID,
    add_suggestion,
    decision,
    seed_tenant,
    stored_suggestion,
)

PATCH = addition_patch(["config = parse_config(path)", "return config"], context_before=1)
CONTEXT = {"src/app.py": head_side(PATCH)}
HEAD = "b" * 40
BASIS = "a" * 40


def anchored(lesson: str, title: str = "Unchecked result") -> str:
    return verify_anchors(path="src/app.py", title=title, lesson=lesson, files=CONTEXT).to_json()


# --- provenance and admission -------------------------------------------------------------


def test_a_made_up_identifier_is_refused_and_a_real_one_admitted() -> None:
    made_up = "Check `totally_made_up_fn` before use."
    refused = new_entry_for(stored_suggestion("s1", lesson=made_up, anchors=anchored(made_up)))
    assert refused.admission == "no-anchor"
    # Recorded before anchors were: still only the file it was posted on anchors it.
    legacy = new_entry_for(stored_suggestion("s2", lesson=made_up, anchors=None))
    assert legacy.admission == "no-anchor"
    real = "Check the result of `parse_config` before using it."
    assert (
        new_entry_for(stored_suggestion("s3", lesson=real, anchors=anchored(real))).admission
        is None
    )
    by_path = "Check what src/app.py reads before using it."
    assert new_entry_for(stored_suggestion("s4", lesson=by_path, anchors=None)).admission is None


def test_anchors_hold_only_what_the_diff_holds() -> None:
    anchors = Anchors.from_json(
        anchored("Check `parse_config` and `totally_made_up_fn` in src/app.py and src/other.py.")
    )
    assert anchors == Anchors(("src/app.py",), (("parse_config", "src/app.py"),))
    assert Anchors.from_json("not json") is None and Anchors.from_json(None) is None


def test_an_accepted_lesson_records_its_provenance(engine: Engine) -> None:
    seed_tenant(engine)
    sid = add_suggestion(engine, anchors=anchored("Check the result of `parse_config` first."))
    apply_decisions(engine, [decision(sid)], now=1)
    with engine.connect() as conn:
        row = conn.execute(select(LessonProvenance)).one()
    assert (row.head_sha, row.basis_sha, row.merge_sha, row.pr) == ("a" * 40, "a" * 40, None, 7)
    assert Anchors.from_json(row.anchors) == Anchors(
        ("src/app.py",), (("parse_config", "src/app.py"),)
    )


# --- the rules ------------------------------------------------------------------------------


def lesson(text: str = "Check the result of `parse_config` in src/app.py first.") -> AnchoredEntry:
    anchors = Anchors(("src/app.py",), (("parse_config", "src/app.py"),))
    return AnchoredEntry(
        "e1", 3, "k", "correctness", "Unchecked parse_config", text, anchors, BASIS
    )


def proven(*changes: PathChange, contents: dict[str, str | None] | None = None) -> Evidence:
    by_path = {c.previous or c.path: c for c in changes}
    return Evidence(HEAD, True, changes=by_path, contents=contents or {})


def test_rules_keep_adapt_retire_and_defer() -> None:
    removed = decide(lesson(), proven(PathChange(ChangeStatus.REMOVED, "src/app.py")))
    assert (removed.action, removed.reason, removed.commit) == (
        Action.RETIRE,
        "src/app.py was deleted",
        HEAD,
    )
    moved = PathChange(ChangeStatus.RENAMED, "lib/app.py", previous="src/app.py", changes=0)
    adapted = decide(lesson(), proven(moved))
    assert adapted.action is Action.ADAPT and adapted.revision == 3
    assert adapted.text == "Check the result of `parse_config` in lib/app.py first."
    assert adapted.anchors == Anchors(("lib/app.py",), (("parse_config", "lib/app.py"),))
    untouched = "@@ -1,1 +1,2 @@\n import os\n+x = 1"
    kept = decide(
        lesson(), proven(PathChange(ChangeStatus.MODIFIED, "src/app.py", patch=untouched))
    )
    assert kept.action is Action.KEEP and kept.settled
    gone = "@@ -1,2 +1,1 @@\n import os\n-y = parse_config(p)"
    unread = decide(lesson(), proven(PathChange(ChangeStatus.MODIFIED, "src/app.py", patch=gone)))
    assert unread.action is Action.DEFER and "could not be read" in unread.reason
    edited = PathChange(ChangeStatus.MODIFIED, "src/app.py", patch=gone)
    retired = decide(lesson(), proven(edited, contents={"src/app.py": "import os\n"}))
    assert retired.action is Action.RETIRE and not retired.settled
    shaken = decide(lesson(), proven(edited, contents={"src/app.py": "parse_config = 1\n"}))
    assert shaken.action is Action.KEEP and not shaken.settled
    unproven = decide(lesson(), Evidence(HEAD, False, "diverged"))
    assert (unproven.action, unproven.reason) == (Action.DEFER, "diverged")


def test_adapted_text_that_fails_admission_defers() -> None:
    long_text = "Check the result of `parse_config` in src/app.py first. " + "x" * 570
    assert len(long_text.encode()) <= 640
    moved = PathChange(
        ChangeStatus.RENAMED, "src/" + "deep/" * 10 + "app.py", previous="src/app.py", changes=0
    )
    verdict = decide(lesson(long_text), proven(moved))
    assert verdict.action is Action.DEFER
    assert verdict.reason == "the adapted text fails admission (too-long)"


def test_rewrite_touches_whole_paths_only() -> None:
    text = "Keep src/app.py and src/app.pyc apart; app.py is the entry point."
    assert rewrite(text, {"src/app.py": "lib/main.py"}) == (
        "Keep lib/main.py and src/app.pyc apart; main.py is the entry point."
    )


def test_untouched_lessons_move_to_the_head_and_legacy_ones_defer() -> None:
    legacy = AnchoredEntry(
        "e2", 1, "k2", "x", "t", "Check src/app.py.", None, None, ("src/app.py",)
    )
    other = Evidence(
        HEAD, True, changes={"README.md": PathChange(ChangeStatus.MODIFIED, "README.md")}
    )
    plan = make_plan([lesson(), legacy], {BASIS: other}, legacy=other)
    assert plan.verdicts == () and plan.proven == {"e1": HEAD}
    touching = proven(PathChange(ChangeStatus.MODIFIED, "src/app.py", patch="@@ -1 +1 @@\n+z"))
    plan = make_plan([lesson(), legacy], {BASIS: touching}, legacy=touching)
    assert {v.entry_id: v.action for v in plan.verdicts} == {"e1": Action.KEEP, "e2": Action.DEFER}


# --- publication ------------------------------------------------------------------------------


@pytest.fixture
def learned(engine: Engine) -> str:
    seed_tenant(engine)
    sid = add_suggestion(engine, anchors=anchored("Check the result of `parse_config` first."))
    apply_decisions(engine, [decision(sid)], now=1)
    with engine.connect() as conn:
        return str(conn.execute(select(Entry.id)).scalar_one())


def removed_file() -> dict[str, Evidence]:
    return {"a" * 40: proven(PathChange(ChangeStatus.REMOVED, "src/app.py"))}


def test_a_write_back_between_read_and_publish_is_retried_once(
    engine: Engine, learned: str
) -> None:
    decider = Decider(REPO_ID, removed_file())
    calls: list[int] = []

    def racing(conn: Connection) -> tuple[list[Ruling], dict[str, str]]:
        verdicts, moved = decider(conn)
        if not calls:  # a write-back of the same entry lands after maintenance read it
            current = store.entry(conn, learned)
            assert current is not None
            store.cas_update(conn, learned, current.revision, last_confirmed_ms=5)
        calls.append(1)
        return verdicts, moved

    result = publish(engine, racing, now=10)
    assert (result.retired, result.conflicts, len(calls)) == (1, 1, 2)
    with engine.connect() as conn:
        assert conn.execute(select(LessonEvent.action)).scalars().all() == ["retired"]


def test_a_second_conflict_defers_and_writes_nothing(engine: Engine, learned: str) -> None:
    decider = Decider(REPO_ID, removed_file())
    with engine.connect() as conn:
        before = conn.execute(select(Entry.revision)).scalar_one()

    def always_racing(conn: Connection) -> tuple[list[Ruling], dict[str, str]]:
        verdicts, moved = decider(conn)
        current = store.entry(conn, learned)
        assert current is not None
        store.cas_update(conn, learned, current.revision, last_confirmed_ms=5)
        return verdicts, moved

    result = publish(engine, always_racing, now=10)
    assert result.retired == 0 and result.conflicts == 2
    assert [v.action for v in result.deferred] == [Action.DEFER]
    with engine.connect() as conn:
        row = conn.execute(select(Entry)).one()
        assert row.deleted_ms is None and row.revision == before
        assert conn.execute(select(LessonEvent)).all() == []


def test_a_seat_answer_for_an_older_revision_is_never_applied(engine: Engine, learned: str) -> None:
    edited = PathChange(ChangeStatus.MODIFIED, "src/app.py", patch="@@ -1 +1 @@\n-parse_config(1)")
    evidence = {"a" * 40: proven(edited, contents={"src/app.py": "import os\n"})}
    stale = Ruling(learned, 0, Action.RETIRE, "the seat says so", HEAD, actor="seat:m")
    result = publish(engine, Decider(REPO_ID, evidence, answers=[stale]), now=10)
    assert result.retired == 0
    with engine.connect() as conn:
        assert conn.execute(select(Entry.deleted_ms)).scalar_one() is None


# Fourteen mechanisms no paraphrase check would merge: (title, the lesson's subject).
MECHANISMS = (
    ("Unchecked parse result", "the result of `parse_config`"),
    ("Leaked file handle", "the handle `open_report` returns"),
    ("Missing request timeout", "a timeout on `fetch_page`"),
    ("Unbounded retry loop", "the retries of `send_mail`"),
    ("Mutable default argument", "the default list of `add_tags`"),
    ("Swallowed exception", "the error `load_cache` raises"),
    ("Naive datetime", "the timezone of `stamp_event`"),
    ("Quadratic string building", "the joins in `render_rows`"),
    ("Unvalidated redirect", "the target of `follow_link`"),
    ("Shell injection", "the arguments of `run_hook`"),
    ("Float money", "the decimals of `charge_card`"),
    ("Unsorted glob", "the order of `list_plugins`"),
    ("Shared cursor", "the cursor of `export_table`"),
    ("Missing lock", "the counter `bump_visits` writes"),
)


def learned_many(engine: Engine, count: int) -> list[str]:
    """``count`` accepted lessons of src/app.py, each of its own mechanism."""
    seed_tenant(engine)
    for title, subject in MECHANISMS[:count]:
        lesson_text = f"Check {subject} first."
        sid = add_suggestion(engine, title=title, lesson=lesson_text, anchors=anchored(lesson_text))
        apply_decisions(engine, [decision(sid)], now=1)
    with engine.connect() as conn:
        ids = [str(x) for x in conn.execute(select(Entry.id).order_by(Entry.id)).scalars()]
    assert len(ids) == count
    return ids


def mixed_verdicts(engine: Engine, ids: list[str]) -> list[Ruling]:
    """The first half retired, the rest adapted to lib/app.py."""
    with engine.connect() as conn:
        entries = store.live_entries(conn, ids)
    verdicts = []
    for n, entry_id in enumerate(ids):
        revision = entries[entry_id].revision
        if n < len(ids) // 2:
            verdicts.append(
                Ruling(entry_id, revision, Action.RETIRE, "src/app.py was deleted", HEAD)
            )
        else:
            text = f"Check {entries[entry_id].text[6:-7]} in lib/app.py first."
            anchors = Anchors(("lib/app.py",))
            verdicts.append(
                Ruling(
                    entry_id,
                    revision,
                    Action.ADAPT,
                    "src/app.py moved to lib/app.py",
                    HEAD,
                    title=entries[entry_id].title,
                    text=text,
                    anchors=anchors,
                )
            )
    return verdicts


def statements_of_publishing(engine: Engine, verdicts: list[Ruling]) -> int:
    seen: list[str] = []

    def count(_conn: object, _cursor: object, sql: str, *_rest: object) -> None:
        seen.append(sql)

    event.listen(engine, "before_cursor_execute", count)
    try:
        result = publish(engine, lambda _conn: (verdicts, {}), now=10)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert (result.retired, result.adapted, result.conflicts) == (
        sum(v.action is Action.RETIRE for v in verdicts),
        sum(v.action is Action.ADAPT for v in verdicts),
        0,
    )
    return len(seen)


def test_publishing_twelve_verdicts_costs_the_statements_of_two(engine: Engine) -> None:
    """Retiring and adapting lessons takes a few statements for all of them: the lessons are
    read, changed, logged and their events written together, however many there are."""
    ids = learned_many(engine, 14)
    few, many = ids[:2], ids[2:]
    first, second = mixed_verdicts(engine, few), mixed_verdicts(engine, many)
    two = statements_of_publishing(engine, first)
    # The twelve's link names were numbered by the two: two statements fewer.
    assert statements_of_publishing(engine, second) <= two
    with engine.connect() as conn:
        rows = conn.execute(select(Entry.id, Entry.revision, Entry.deleted_ms)).all()
        events = conn.execute(select(LessonEvent.entry_id, LessonEvent.action)).all()
        changes = conn.execute(
            select(EntryChange.generation, EntryChange.entry_id).order_by(EntryChange.generation)
        ).all()
        held = conn.execute(select(TombstonedSource.entry_id)).scalars().all()
        provenance = select(LessonProvenance.entry_id, LessonProvenance.basis_sha)
        bases = {row.entry_id: row.basis_sha for row in conn.execute(provenance)}
    retired = {*few[:1], *many[:6]}
    assert {r.id for r in rows if r.deleted_ms is not None} == retired
    assert {r.id: r.revision for r in rows} == {v.entry_id: v.revision + 1 for v in first + second}
    assert sorted(events) == sorted(
        (entry_id, "retired" if entry_id in retired else "adapted") for entry_id in ids
    )
    # One change-log row per changed lesson, in contiguous generations, the twelve after the two.
    logged = changes[-14:]
    assert [g for g, _ in logged] == list(range(logged[0][0], logged[0][0] + 14))
    assert [entry_id for _, entry_id in logged] == few + many
    assert sorted(held) == sorted(retired)
    assert {e for e, basis in bases.items() if basis == HEAD} == set(ids) - retired


def test_a_lesson_that_moved_on_fails_the_whole_batch(engine: Engine) -> None:
    """One stale revision among many: nothing of the batch is written, the run decides again."""
    ids = learned_many(engine, 6)
    verdicts = mixed_verdicts(engine, ids)
    with engine.begin() as conn:
        store.cas_update(conn, ids[4], verdicts[4].revision, last_confirmed_ms=5)
    result = publish(engine, lambda _conn: (verdicts, {}), now=10)
    assert (result.retired, result.adapted, result.conflicts) == (0, 0, 2)
    assert {v.entry_id for v in result.deferred} == set(ids)
    with engine.connect() as conn:
        assert conn.execute(select(Entry.id).where(Entry.deleted_ms.is_not(None))).all() == []
        assert conn.execute(select(LessonEvent)).all() == []
        assert conn.execute(select(TombstonedSource)).all() == []
        texts = conn.execute(select(Entry.text)).scalars().all()
        assert len(texts) == 6 and not any("lib/app.py" in text for text in texts)
