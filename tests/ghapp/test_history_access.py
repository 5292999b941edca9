"""A maintainer who has since lost access: the back-fill counts each comment by the association
GitHub reports on it (what was true when it was written), never by asking who has access now,
and says so where it shows the comment."""

from __future__ import annotations

from pathlib import Path

import httpx
from sqlalchemy import Engine

from continual.history.runs import RunState
from tests.support.history import app_with_history, comments_of, wait_for_run
from tests.support.ledger_page import sign_in
from tests.support.recall import token
from tests.support.simulator import ORG, REPO


def test_comments_count_by_the_association_they_were_written_with(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=3, comments=8, install=False) as (
        app,
        history,
    ):
        # mona was a member for the first two pull requests and had lost access by the third:
        # GitHub reports her comments there as a contributor's.
        last = history.pulls[-1].number
        with app.sim.world.lock:
            for comment in app.sim.world.review_comments.values():
                if comment.user.login == "mona" and comment.pull_number == last:
                    comment.author_association = "CONTRIBUTOR"
        then = {
            c.id
            for c in app.sim.world.review_comments.values()
            if c.user.login == "mona" and c.pull_number != last and c.in_reply_to_id is None
        }
        app.sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        app.settle()
        run = wait_for_run(engine)
        assert run.state is RunState.DONE
        kept = comments_of(engine)
        mona = {c.id for c in kept if c.author == "mona"}
        assert mona == then and then  # counted as they were then; none after access was lost
        assert all(c.association == "MEMBER" for c in kept if c.author == "mona")
        assert not any(c.pr == last and c.author == "mona" for c in kept)
        asked = [r.path for r in app.sim.requests()]
        assert not [p for p in asked if "/collaborators" in p or "/members" in p]

        with httpx.Client(base_url=app.url) as web:
            sign_in(web, token(engine, ORG, "octocat"))
            page = web.get("/ledger", params={"repo": REPO}).text
        assert "by their association as GitHub reported it on each comment" in " ".join(
            page.split()
        )
        assert "by @mona (member then)" in page
