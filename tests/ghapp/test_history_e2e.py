"""The history back-fill end to end over the simulator: install → back-fill → cited facts handed
to agents and reviews → `/v1/history` showing where each came from; and the bad input."""

from __future__ import annotations

from pathlib import Path

import httpx
from sqlalchemy import Engine, func, select

from continual.history.runs import RunState
from continual.tables import HistoryPull
from ghapp.db import reading
from tests.support.history import (
    app_with_history,
    comments_of,
    facts_of,
    run_of,
    wait_for_run,
)
from tests.support.openapi_check import check
from tests.support.recall import token
from tests.support.review import enable_memory
from tests.support.simulator import ORG, REPO, wait_until

DOCS = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"


def test_an_install_back_fills_and_publishes_cited_facts(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=6, comments=8) as (app, history):
        run = wait_for_run(engine)
        assert run.state is RunState.DONE and run.prs_read == 6
        kept = comments_of(engine)
        assert {c.id for c in kept if c.outcome == "addressed"} == {
            i for p in history.pulls for i in p.addressed
        }
        assert {c.id for c in kept if c.outcome == "unchanged"} == {
            i for p in history.pulls for i in p.unaddressed
        }
        others = {i for p in history.pulls for i in p.others}
        assert not others & {c.id for c in kept}  # bots, the author's own, replies: never
        assert all(c.author_reply == "Done, thanks." for c in kept if c.outcome == "addressed")
        facts = facts_of(engine)
        assert len(facts) == history.addressed == run.facts == run.addressed
        assert all(f.source == "history" and f.state == "active" for f in facts)
        # One list page, then per pull request its comments, who merged it, one comparison.
        assert run.requests == 1 + 3 * 6

        secret = token(engine, ORG, "octocat")
        headers = {"Authorization": f"Bearer {secret}"}
        answer = httpx.get(f"{app.url}/v1/history", params={"repo": REPO}, headers=headers)
        assert answer.status_code == 200
        check(__import__("json").loads(DOCS.read_text()), "/v1/history", "get", 200, answer.json())
        shown = answer.json()
        assert (shown["state"], shown["prs_read"], shown["facts"]) == ("done", 6, len(facts))
        first = shown["receipts"][0]
        assert first["source"] == "history" and first["outcome"] == "addressed"
        assert first["merged_by"] in {p.merged_by for p in history.pulls}

        # The facts are memory: handed once a person turns the repository's memory on.
        text = httpx.get(
            f"{app.url}/v1/brief", params={"repo": REPO, "session": "s0"}, headers=headers
        ).json()["text"]
        assert "asked in #" not in text
        enable_memory(engine)
        brief = httpx.get(
            f"{app.url}/v1/brief", params={"repo": REPO, "session": "s1"}, headers=headers
        )
        assert brief.status_code == 200
        text = brief.json()["text"]
        line = next(row for row in text.splitlines() if "asked in #" in row)
        assert "(from the repository's review history; session history-" in line
        assert "Unverified claim" not in line

        summary = httpx.get(f"{app.url}/v1/memory/summary", params={"repo": REPO}, headers=headers)
        assert "asked in #" not in summary.json()["text"]  # handed beside it, not in it

        missing = httpx.get(f"{app.url}/v1/history", params={"repo": "x/y"}, headers=headers)
        assert missing.status_code == 404


def test_zero_pull_requests_and_pull_requests_without_reviews(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=0, comments=0):
        run = wait_for_run(engine)
        assert (run.state, run.prs_read, run.facts, run.requests) == (RunState.DONE, 0, 0, 1)
    with app_with_history(
        engine, database_url, tmp_path / "b", pulls=5, comments=4, seed={"silent_every": 1}
    ):
        run = wait_for_run(engine)
        assert (run.state, run.prs_read, run.comments_kept, run.facts) == (RunState.DONE, 5, 0, 0)
        assert run.requests == 1 + 5  # one comment list each: nothing to compare, no merger read


def test_a_force_pushed_pull_request_has_no_evidence(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    seed = {"force_push_every": 2}
    with app_with_history(engine, database_url, tmp_path, pulls=4, comments=4, seed=seed) as (
        _,
        history,
    ):
        run = wait_for_run(engine)
        assert run.state is RunState.DONE
        gone = {p.number for p in history.pulls if p.force_pushed}
        kept = comments_of(engine)
        assert {c.outcome for c in kept if c.pr in gone} == {"no-evidence"}
        assert {f.commit for f in facts_of(engine)} and len(facts_of(engine)) == history.addressed
        with reading(engine) as conn:
            missing = conn.execute(
                select(HistoryPull.number).where(HistoryPull.evidence_missing == "force-pushed")
            ).scalars()
            assert set(missing) == gone


def test_deleted_comments_and_deleted_users_count_for_nothing(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=2, comments=4, install=False) as (
        app,
        history,
    ):
        first = history.pulls[0]
        with app.sim.world.lock:
            app.sim.world.review_comments.pop(first.addressed[0])
            ghost = app.sim.world.review_comments[history.pulls[1].addressed[0]]
            ghost.author_association = "NONE"  # GitHub shows a deleted account as ghost, NONE
            ghost.user = app.sim.world.account("ghost")
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        run = wait_for_run(engine)
        ids = {c.id for c in comments_of(engine)}
        assert first.addressed[0] not in ids and history.pulls[1].addressed[0] not in ids
        assert run.facts == history.addressed - 2


def test_a_secondary_rate_limit_pauses_and_resumes(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=3, comments=4, install=False) as (
        app,
        history,
    ):
        app.sim.inject(
            "GET",
            r"/compare/",
            status=403,
            headers={"retry-after": "1"},
            body={"message": "You have exceeded a secondary rate limit."},
        )
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        run = wait_for_run(engine, timeout=30)
        assert (run.state, run.pauses, run.prs_read) == (RunState.DONE, 1, 3)
        assert run.facts == history.addressed


def test_the_budget_share_pauses_until_the_window_resets(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=4, comments=4, install=False) as (
        app,
        history,
    ):
        # A quarter of 20 is 5 requests per 2 s window: one pull request (3 requests) per window.
        app.sim.limit_rate(20, 2.0)
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        run = wait_for_run(engine, timeout=60)
        assert run.state is RunState.DONE and run.prs_read == 4
        # It paused before the window was spent: GitHub never had to refuse it.
        assert [r.path for r in app.sim.requests() if r.status == 403] == []
        assert run.pauses >= 3
        assert run.facts == history.addressed


def test_a_server_error_mid_run_is_retried_where_it_stopped(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=4, comments=4, install=False) as (
        app,
        history,
    ):
        app.sim.inject("GET", r"/pulls/3/comments$", status=502, times=1)
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        run = wait_for_run(engine, timeout=30)
        assert run.state is RunState.DONE and run.prs_read == 4
        assert run.facts == history.addressed
        with reading(engine) as conn:
            assert conn.execute(select(func.count()).select_from(HistoryPull)).scalar_one() == 4


def test_a_repository_gone_mid_run_stops_and_publishes_nothing(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=3, comments=4, install=False) as (
        app,
        _,
    ):
        app.sim.inject("GET", rf"/repos/{REPO}/pulls$", status=404, times=None)
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        run = wait_for_run(engine, timeout=30)
        assert run.state is RunState.STOPPED and "cannot be read" in (run.last_error or "")
        assert facts_of(engine) == [] and comments_of(engine) == []


def test_an_uninstall_while_paused_stops_the_run_and_a_reinstall_starts_anew(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=3, comments=4, install=False) as (
        app,
        history,
    ):
        app.sim.limit_rate(20, 60.0)  # one pull request, then a pause of a minute
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        assert wait_until(lambda: getattr(run_of(engine), "state", None) is RunState.PAUSED)
        assert len(comments_of(engine)) > 0  # read, not published
        app.sim.delete_installation(77)
        stopped = wait_for_run(engine)
        assert (stopped.state, stopped.last_error) == (
            RunState.STOPPED,
            "the installation was removed",
        )
        assert comments_of(engine) == [] and facts_of(engine) == []

        app.sim.limit_rate(15_000, 3600.0)
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=78)
        assert wait_until(lambda: getattr(run_of(engine), "generation", 0) == 2)
        again = wait_for_run(engine, timeout=30)
        assert (again.state, again.generation, again.prs_read) == (RunState.DONE, 2, 3)
        assert len(facts_of(engine)) == history.addressed
