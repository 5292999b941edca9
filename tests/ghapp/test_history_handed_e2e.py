"""Install → back-fill with a discovery seat → a review handed the lesson the history taught, with
memory off → the handing receipts naming it (kind ``history``) → a person deleting it on
`/ledger` → the next review and the next agent session not handed it. Over the simulator, with
real command seats, on the suite's database."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from sqlalchemy import Engine, select

from continual.history.runs import RunState
from continual.memory import memory_enabled
from continual.tables import HistoryLesson, Injection, MemoryItemRow
from ghapp.db import reading
from ghsim import addition_patch
from tests.support.discover_seat import discovery_seat
from tests.support.history import app_with_history, wait_for_run
from tests.support.ledger_page import sign_in
from tests.support.recall import token
from tests.support.review import lenses_toml, requests_of, seat_toml
from tests.support.simulator import ORG, REPO

LESSON = "Use `pool.acquire` instead of `connect` when opening"


def brief(url: str, secret: str, session: str) -> dict:  # type: ignore[type-arg]
    answer = httpx.get(
        f"{url}/v1/brief",
        params={"repo": REPO, "session": session},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def review_sets(engine: Engine) -> list[list[list[object]]]:
    """The entries each review's handing receipt recorded, oldest first."""
    with reading(engine) as conn:
        rows = conn.execute(
            select(Injection.entries).where(Injection.surface == "review").order_by(Injection.id)
        ).scalars()
        return [json.loads(row) for row in rows]


def test_a_review_is_handed_the_history_lesson_with_memory_off_until_a_person_deletes_it(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    logs = tmp_path / "requests"
    logs.mkdir()
    toml = seat_toml(tmp_path, "alpha", log_dir=str(logs)) + lenses_toml("correctness")
    (tmp_path / "hindsight.toml").write_text(toml + discovery_seat(tmp_path / "finder").toml())
    with app_with_history(engine, database_url, tmp_path, pulls=3, comments=8) as (app, history):
        run = wait_for_run(engine)  # the install asked for the back-fill
        assert run.state is RunState.DONE and run.last_error is None
        with reading(engine) as conn:
            assert not memory_enabled(conn, run.repository_id)
            (active,) = conn.execute(
                select(HistoryLesson.id).where(HistoryLesson.state == "active")
            ).scalars()
        handed_id = f"history-lesson:{active}"

        path = history.pulls[0].path
        lines = [f"value = compute({n})" for n in range(12)]
        app.sim.open_pull(REPO, files={path: addition_patch(lines)})
        app.settle()
        (request,) = requests_of(logs)
        shown = [line for line in request["header"].splitlines() if LESSON in line]
        assert len(shown) == 1 and "(from the review history; asked in #" in shown[0]
        assert [item["id"] for item in request["lessons"]] == [handed_id]
        assert request["cross_session"] == ""  # memory is off: no history fact either
        assert review_sets(engine) == [[[handed_id, 1]]]

        # An agent's brief names it too, with where it came from.
        secret = token(engine, ORG, "octocat")
        first = brief(app.url, secret, "agent-1")
        (taught,) = first["lessons_handed"]
        assert taught["id"] == handed_id and taught["kind"] == "history"
        assert taught["seat"] == "finder" and len(taught["sessions"]) == 2

        with httpx.Client(base_url=app.url) as web:
            csrf = sign_in(web, secret)
            form = {"csrf": csrf, "repo": REPO, "action": "delete"}
            assert web.post(f"/ledger/history/lessons/{active}", data=form).status_code == 303

        app.sim.open_pull(REPO, files={path: addition_patch(lines)}, title="Again")
        app.settle()
        (second,) = [r for r in requests_of(logs) if r["pull_request"]["title"] == "Again"]
        assert LESSON not in second["header"] and second["lessons"] == []
        assert len(review_sets(engine)) == 1  # nothing handed: nothing recorded
        assert LESSON not in brief(app.url, secret, "agent-2")["text"]
        with reading(engine) as conn:
            subjects = conn.execute(select(MemoryItemRow.subject)).scalars().all()
        # The facts are kept as memory (handed once memory is on); the lesson never was.
        assert subjects and not [s for s in subjects if s.startswith("history-lesson:")]
