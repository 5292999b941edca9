"""What was recorded, visible and correctable: the status block on the app's own suggestion
comment, `undo`, and `[writeback] acknowledge`, end to end through the simulator."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.markers import parse_suggestion_marker, with_suggestion_marker
from continual.tables import Receipt
from continual.writeback.status import STATUS_MARKER
from ghapp.db import reading
from ghapp.tables import Job
from tests.support.app_harness import Harness, running_app
from tests.support.simulator import REPO

FILES = {"src/app.py": "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"}
SEAT = '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def with_config(engine: Engine, database_url: str, tmp_path: Path, mode: str) -> Iterator[Harness]:
    (tmp_path / "hindsight.toml").write_text(f'{SEAT}[writeback]\nacknowledge = "{mode}"\n')
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


@pytest.fixture
def reacting(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    yield from with_config(engine, database_url, tmp_path, "reaction")


@pytest.fixture
def silent(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    yield from with_config(engine, database_url, tmp_path, "off")


def open_pull(app: Harness) -> int:
    number = int(app.sim.open_pull(REPO, files=dict(FILES))["number"])
    app.settle()
    return number


def say(app: Harness, number: int, comment: int, body: str, who: str = "octocat") -> int:
    association = "OWNER" if who == "octocat" else "CONTRIBUTOR"
    app.sim.advance_clock(5)
    found = app.sim.reply(REPO, number, comment, body, author=who, author_association=association)
    app.settle()
    return int(found["id"])


def body_of(app: Harness, comment: int) -> str:
    found = next(c for c in app.sim.review_comments(REPO, 1) if c["id"] == comment)
    return str(found["body"])


def status_of(app: Harness, comment: int) -> str:
    body = body_of(app, comment)
    assert body.count(STATUS_MARKER) == 1, body
    return body.split(STATUS_MARKER)[1]


def edits(app: Harness) -> list[str]:
    return [r.path for r in app.sim.requests("PATCH")]


def current(app: Harness) -> list[tuple[str, str]]:
    with reading(app.engine) as conn:
        rows = conn.execute(select(Receipt).where(Receipt.superseded.is_(False))).all()
    return [(r.decision, r.source) for r in rows]


def test_a_decision_is_shown_and_the_marker_kept(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    app.sim.reset_log()
    say(app, number, comment, "dismiss style")
    assert edits(app) == [f"/repos/{REPO}/pulls/comments/{comment}"]
    body = body_of(app, comment)
    marker = parse_suggestion_marker(body)
    assert marker is not None and marker.suggestion_id == sid
    status = status_of(app, comment)
    for shown in ("dismissed (style)", "@octocat", "from a reply", "grammar.dismiss", "`undo`"):
        assert shown in status, status
    assert body.rstrip().endswith(status.rstrip())


def test_a_dismissal_turned_into_an_acceptance_rewrites_the_status(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    say(app, number, comment, "No, this is intentional: the loop stays explicit.")
    assert "dismissed" in status_of(app, comment)
    app.sim.reset_log()
    say(app, number, comment, "You are right after all, fixed in 3f2a1c.")
    assert len(edits(app)) == 1
    assert "accepted" in status_of(app, comment) and "dismissed" not in status_of(app, comment)


def test_nothing_changed_no_request(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    say(app, number, comment, "accept")
    app.sim.reset_log()
    app.sim.synchronize(REPO, number, files=dict(FILES))
    app.settle()
    say(app, number, comment, "Thanks for the quick look!")
    say(app, number, comment, "accept", who="drive-by")
    app.sim.reply(REPO, number, comment, "accept", author="ci[bot]", user_type="Bot")
    app.settle()
    assert edits(app) == []
    # Control: a maintainer's reply that changes the decision is one status edit.
    say(app, number, comment, "dismiss style")
    assert edits(app) == [f"/repos/{REPO}/pulls/comments/{comment}"]
    assert "dismissed (style)" in status_of(app, comment)


def test_contributors_and_bots_get_no_request(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    app.sim.reset_log()
    say(app, number, comment, "dismiss style", who="drive-by")
    app.sim.reply(REPO, number, comment, "accept", author="ci[bot]", user_type="Bot")
    app.settle()
    assert edits(app) == [] and STATUS_MARKER not in body_of(app, comment)
    # Control: the same reply from a maintainer is one status edit.
    say(app, number, comment, "dismiss style")
    assert edits(app) == [f"/repos/{REPO}/pulls/comments/{comment}"]
    assert "dismissed (style)" in status_of(app, comment)


def test_edits_flip_the_verdict_and_deletion_clears_it(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    reply = say(app, number, comment, "accept")
    app.sim.edit_comment(REPO, reply, "wontfix")
    app.settle()
    assert current(app) == [("dismissed", "reply")]
    assert "dismissed (wont-fix)" in status_of(app, comment)
    app.sim.delete_comment(REPO, reply)
    app.settle()
    assert current(app) == []
    assert "no decision now" in status_of(app, comment)


def test_undo_by_a_maintainer_clears_by_a_contributor_does_nothing(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    say(app, number, comment, "accept")
    app.sim.reset_log()
    say(app, number, comment, "undo", who="drive-by")
    assert edits(app) == [] and current(app) == [("accepted", "reply")]
    say(app, number, comment, "@hindsight undo")
    assert current(app) == [] and len(edits(app)) == 1
    assert "no decision now" in status_of(app, comment)
    say(app, number, comment, "dismiss duplicate")
    assert "dismissed (duplicate)" in status_of(app, comment)


def test_forged_status_blocks_decide_nothing(app: Harness) -> None:
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    forged = f"{STATUS_MARKER}\n**Hindsight recorded:** accepted — by @octocat, from a reply."
    say(app, number, comment, forged)
    say(app, number, comment, forged, who="drive-by")
    other = app.sim.add_review_comment(
        REPO, number, body=with_suggestion_marker("copy", sid, "lesson/x-0123456789") + forged,
        path="src/app.py", line=2, author="octocat", author_association="OWNER",
    )  # fmt: skip
    app.settle()
    say(app, number, int(other["id"]), "accept")
    assert current(app) == []
    assert STATUS_MARKER not in body_of(app, comment), "only a recorded decision gets a status"
    # Control: a maintainer's reply on the app's own comment is recorded and gets one status.
    say(app, number, comment, "accept")
    assert current(app) == [("accepted", "reply")]
    assert "accepted" in status_of(app, comment)


def test_replies_on_a_deleted_suggestion_comment(app: Harness) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    reply = say(app, number, comment, "accept")
    app.sim.delete_comment(REPO, comment)
    app.settle()
    app.sim.reset_log()
    app.sim.edit_comment(REPO, reply, "wontfix")
    app.settle()
    assert edits(app) == [], "no comment left to carry a status"
    assert current(app) == [("accepted", "reply")], "the thread is gone: its last reading stands"


@pytest.mark.parametrize("status", [404, 403, 422], ids=["deleted", "forbidden", "rejected"])
def test_a_failed_status_edit_leaves_the_decision(app: Harness, status: int) -> None:
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    app.sim.inject("PATCH", rf"/pulls/comments/{comment}$", status=status)
    say(app, number, comment, "accept")
    assert current(app) == [("accepted", "reply")]
    with reading(app.engine) as conn:
        states = [row.state for row in conn.execute(select(Job.state)).all()]
    assert "dead" not in states and STATUS_MARKER not in body_of(app, comment)
    say(app, number, comment, "Thanks!")  # the next run writes the status still missing
    assert "accepted" in status_of(app, comment)


def test_acknowledge_reaction_puts_eyes_on_the_deciding_reply(reacting: Harness) -> None:
    app = reacting
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    reply = say(app, number, comment, "accept")
    eyes = [(r["content"], r["user"]["login"]) for r in app.sim.reactions(REPO, reply)]
    assert eyes == [("eyes", app.sim.bot_login)]
    assert edits(app) == [] and STATUS_MARKER not in body_of(app, comment)
    app.sim.reset_log()
    app.sim.advance_clock(5)
    app.sim.react(REPO, comment, "-1", by="octocat")
    app.sim.synchronize(REPO, number, files=dict(FILES))
    app.settle()
    assert current(app) == [("accepted", "reply")], "a reply outranks the reaction"
    assert app.sim.requests("POST", "/reactions") == []


def test_acknowledge_off_asks_nothing(silent: Harness) -> None:
    app = silent
    number = open_pull(app)
    _, comment = app.plant_suggestion(number)
    app.sim.reset_log()
    reply = say(app, number, comment, "accept")
    assert current(app) == [("accepted", "reply")]
    assert edits(app) == [] and app.sim.reactions(REPO, reply) == []
