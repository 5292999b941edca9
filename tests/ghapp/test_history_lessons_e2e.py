"""Lessons through a discovery seat and bots' refused suggestions, end to end over the simulator
with a real command seat: install → back-fill → the seat's lessons checked and published in one
transaction with a receipt → handed through memory → the ledger showing where each came from,
a person deleting a lesson and confirming a suppression candidate; and the seat's bad answers."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, select

from continual.history.runs import RunState
from continual.tables import Entry, HistoryLesson, HistoryPublication, HistoryRefusal, MemoryItemRow
from ghapp.db import reading
from ghsim.history import seed_history
from tests.support.discover_seat import DiscoverySeat, discovery_seat
from tests.support.history import app_with_history, ask_backfill, wait_for_run
from tests.support.ledger_page import csrf_of, sign_in
from tests.support.openapi_check import check
from tests.support.recall import token
from tests.support.review import enable_memory
from tests.support.simulator import ORG, REPO

DOCS = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def rows(engine: Engine, table: type) -> list:  # type: ignore[type-arg]
    with reading(engine) as conn:
        return list(conn.execute(select(*table.__table__.c)).all())  # type: ignore[attr-defined]


def brief(url: str, secret: str, session: str) -> str:
    answer = httpx.get(
        f"{url}/v1/brief",
        params={"repo": REPO, "session": session},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert answer.status_code == 200, answer.text
    return str(answer.json()["text"])


@pytest.fixture
def seat(tmp_path: Path) -> DiscoverySeat:
    found = discovery_seat(tmp_path / "finder")
    (tmp_path / "hindsight.toml").write_text(found.toml())
    return found


def test_lessons_from_two_pull_requests_are_active_and_the_ledger_shows_their_sources(
    engine: Engine, database_url: str, tmp_path: Path, seat: DiscoverySeat
) -> None:
    seed = {"refuse_bots": True}
    with app_with_history(engine, database_url, tmp_path, pulls=3, comments=8, seed=seed) as (
        app,
        history,
    ):
        run = wait_for_run(engine)
        assert run.state is RunState.DONE and run.last_error is None
        (call,) = seat.calls()
        assert call["schema"] == "hindsight.discover/1"
        given = {c["id"] for m in call["mechanisms"] for c in m["comments"]}
        assert given == {i for p in history.pulls for i in p.addressed}  # addressed ones only

        lessons = rows(engine, HistoryLesson)
        states = sorted(lesson.state for lesson in lessons)
        assert states == ["active", "candidate", "candidate", "candidate"]
        active = next(lesson for lesson in lessons if lesson.state == "active")
        assert len(json.loads(active.prs)) == 2
        (receipt,) = rows(engine, HistoryPublication)
        assert (receipt.lessons_active, receipt.lessons_candidate, receipt.seat) == (1, 3, "finder")
        assert receipt.facts == history.addressed and receipt.seat_failure is None
        refused = rows(engine, HistoryRefusal)
        assert {r.id for r in refused} == {i for p in history.pulls for i in p.refused}
        assert all(r.state == "candidate" and r.reason == "wont-fix" for r in refused)
        assert all(
            r.maintainer != "ci-helper[bot]" and not r.maintainer.startswith("dev") for r in refused
        )
        assert receipt.refusals == len(refused)

        # Handed as a lesson (with memory on, too, only once), never a candidate nor an
        # unconfirmed refusal.
        secret = token(engine, ORG, "octocat")
        enable_memory(engine)
        text = brief(app.url, secret, "s1")
        assert text.count("Use `pool.acquire` instead of `connect` when opening") == 1
        assert f"(history lesson {active.id}; asked in #" in text
        assert "refused ci-helper" not in text

        with httpx.Client(base_url=app.url) as web:
            csrf = sign_in(web, secret)
            page = web.get("/ledger", params={"repo": REPO}).text
            assert 'id="history"' in page and "Back-fill done: 3 of at most 300" in page
            assert f'id="history-lesson-{active.id}"' in page
            cited = json.loads(active.comment_ids)
            for comment_id in cited:
                assert f"comment {comment_id}</a> by @" in page
            assert "(member then)" in page and "addressed in <code>" in page
            assert "Won&#39;t fix" in page and "Confirm suppression" in page

            def post(kind: str, item: int, action: str) -> httpx.Response:
                form = {"csrf": csrf, "repo": REPO, "action": action}
                return web.post(f"/ledger/history/{kind}/{item}", data=form)

            assert post("refusals", refused[0].id, "confirm").status_code == 303
            assert post("refusals", refused[0].id, "confirm").status_code == 404  # decided
            assert post("refusals", refused[1].id, "delete").status_code == 422
            assert post("lessons", 10**30, "delete").status_code == 404
            assert post("elsewhere", 1, "delete").status_code == 404
            assert post("lessons", active.id, "delete").status_code == 303
            assert post("lessons", active.id, "delete").status_code == 404
            wrong = web.post(
                f"/ledger/history/lessons/{active.id}", data={"repo": REPO, "action": "delete"}
            )
            assert wrong.status_code in (400, 403)  # no CSRF token
            assert csrf_of(web.get("/ledger").text)

        text = brief(app.url, secret, "s2")
        assert "when opening" not in text  # the deleted lesson is no longer handed
        assert "refused ci-helper" not in text  # a confirmed refusal is a suppression instead
        with reading(engine) as conn:
            subjects = set(conn.execute(select(MemoryItemRow.subject)).scalars())
        assert not any(subject.startswith("history-refusal:") for subject in subjects)

        # A later back-fill with new pull requests: only what is new, and the deleted lesson's
        # comments never make a lesson again, even when the seat cites them.
        more = seed_history(app.sim.world, REPO, pulls_count=2, comments_per_pull=4)
        seat.mode("cite", cited)
        ask_backfill(engine)
        app.settle()
        run = wait_for_run(engine)
        assert run.state is RunState.DONE and run.prs_read == 2
        assert len(seat.calls()) == 2
        second = seat.calls()[1]
        sent = {c["id"] for m in second["mechanisms"] for c in m["comments"]}
        assert not sent & set(cited)  # held comments are not even put to the seat
        assert sent & {i for p in more.pulls for i in p.addressed}
        after = rows(engine, HistoryLesson)
        assert len(after) == len(lessons)  # nothing re-created, nothing duplicated
        last = max(rows(engine, HistoryPublication), key=lambda p: p.id)
        assert json.loads(last.rejected) == {"unknown-comment": 1}

        # `GET /v1/history` lists what was published, where from, and who decided what.
        answer = httpx.get(
            f"{app.url}/v1/history",
            params={"repo": REPO},
            headers={"Authorization": f"Bearer {secret}"},
        )
        assert answer.status_code == 200, answer.text
        shown = answer.json()
        check(json.loads(DOCS.read_text()), "/v1/history", "get", 200, shown)
        listed = {lesson["id"]: lesson for lesson in shown["lessons"]}
        assert active.id not in listed  # deleted: its words are gone
        assert {lesson["state"] for lesson in listed.values()} == {"candidate"}
        for lesson in listed.values():
            assert lesson["seat"] == "finder" and lesson["comments"]
            assert all(c["quote"] and c["author"] and c["commit"] for c in lesson["comments"])
        decided = {c["id"]: c for c in shown["suppression_candidates"]}
        assert set(decided) == {r.id for r in refused}
        first = decided[refused[0].id]
        assert (first["state"], first["decided_by"]) == ("confirmed", "octocat")
        assert first["bot"] == "ci-helper[bot]" and first["reason"] == "wont-fix"
        assert decided[refused[1].id]["state"] == "candidate"
        assert decided[refused[1].id]["suppression"] is None
        with reading(engine) as conn:  # the confirmed one names the entry that suppresses
            demoted = conn.execute(
                select(Entry.demoted_by).where(Entry.id == first["suppression"])
            ).scalar_one()
        assert demoted == "octocat"
        assert [p["generation"] for p in shown["publications"]] == [2, 1]
        assert shown["publications"][0]["rejected"] == {"unknown-comment": 1}
        assert shown["publications"][1]["lessons_active"] == 1


@pytest.mark.parametrize(
    ("mode", "failure", "rejected"),
    [
        ("forged", None, {"unquoted": 4}),
        ("unknown", None, {"unknown-comment": 4}),
        ("lecture", None, {"admission": 4}),
        ("not-json", "not valid JSON", {}),
        ("oversized", "more than", {}),
        ("crash", "exit", {}),
        ("sleep", "did not answer within 2 s", {}),
    ],
)
def test_a_bad_seat_answer_publishes_no_lesson_and_the_facts_still(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    seat: DiscoverySeat,
    mode: str,
    failure: str | None,
    rejected: dict[str, int],
) -> None:
    seat.mode(mode)
    (tmp_path / "hindsight.toml").write_text(seat.toml(timeout_s=2))
    with app_with_history(engine, database_url, tmp_path, pulls=3, comments=8) as (_, history):
        run = wait_for_run(engine, timeout=40)
        assert run.state is RunState.DONE
        assert rows(engine, HistoryLesson) == []
        (receipt,) = rows(engine, HistoryPublication)
        assert receipt.facts == history.addressed > 0
        assert json.loads(receipt.rejected) == rejected
        if failure is None:
            assert receipt.seat_failure is None and receipt.proposals == 4
        else:
            assert failure in (receipt.seat_failure or ""), receipt.seat_failure
            assert run.last_error is not None and "discovery seat" in run.last_error
