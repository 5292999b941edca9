"""The judge end to end: simulator threads → signed webhooks → a judge seat (a real process, or
an OpenAI/Anthropic server on loopback) → only grounded verdicts recorded, each revision asked once."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.replies import classify_reply, read_deferral
from continual.tables import JudgeVerdictRow, Receipt
from ghapp.db import reading
from ghapp.tables import Job, JobState
from tests.ghapp.test_evidence_e2e import ELSEWHERE as OTHER_LINES
from tests.ghapp.test_evidence_e2e import FIX, claim, merge, push
from tests.support.app_harness import Harness, running_app
from tests.support.judge_seat import API_KEY, KEY_ENV, JudgeSeat, command_judge, http_judge
from tests.support.simulator import REPO

TIMEOUT_S = 3.0

ACCEPTED = "I went with the approach from the other module in the end, same effect here."
DISMISSED = "The loader already validates this upstream, so this check would be dead code here."
UNGROUNDED = "Parsing is handled by the schema library in this code base."
ELSEWHERE = "Let me look at the tracing output first."
MALFORMED = "The staging config covers this path with its own guard."
SLOW = "We kept quiet on this one, it only fires on the dev profile."
OTHER_REPLY = "Thanks for the pointer on parse_config here."
UNKNOWN_REASON = "this is a fair catch on the parser"
CONTRIBUTOR = "Good point, fixing it now"
OLD_CONTRACT = "Right, we can use the other helper for parse_config here."

ANSWERS = {
    ACCEPTED: {"category": "accepted", "reason": "", "quote": "went with the approach"},
    DISMISSED: {
        "category": "dismissed",
        "reason": "false-positive",
        "quote": "this check would be dead code here",
    },
    UNGROUNDED: {"category": "accepted", "reason": "", "quote": "now carries this check"},
    ELSEWHERE: {"category": "accepted", "reason": "", "quote": "fixing it now"},
    MALFORMED: {"raw": '{"category": "accepted", "quote": '},
    SLOW: {"category": "accepted", "reason": "", "quote": "kept quiet", "sleep": 3 * TIMEOUT_S},
    OTHER_REPLY: {"category": "accepted", "reason": "", "quote": "Thanks", "reply_id": "other"},
    UNKNOWN_REASON: {"category": "dismissed", "reason": "too noisy", "quote": "fair catch"},
    CONTRIBUTOR: {"category": "accepted", "reason": "", "quote": "fixing it now"},
    OLD_CONTRACT: {"raw": '{"reply_id": null, "decision": "accepted", "quote": "Right"}'},
    "accept": {"category": "accepted", "reason": "", "quote": "accept"},
    "Done, fixed": {"category": "accepted", "reason": "", "quote": "Done"},
}


@pytest.fixture(params=["command", "openai", "anthropic"])
def judged(
    request: pytest.FixtureRequest,
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[Harness, JudgeSeat]]:
    with ExitStack() as stack:
        if request.param == "command":
            judge = command_judge(tmp_path / "judge", timeout_s=TIMEOUT_S)
        else:
            monkeypatch.setenv(KEY_ENV, API_KEY)
            judge = stack.enter_context(
                http_judge(tmp_path / "judge", request.param, timeout_s=TIMEOUT_S)
            )
        (tmp_path / "hindsight.toml").write_text(judge.config())
        judge.answer(ANSWERS)
        yield stack.enter_context(running_app(engine, database_url, tmp_path)), judge


def open_pull(app: Harness) -> int:
    files = {"src/app.py": "@@ -1,2 +1,3 @@\n import os\n+config = parse_config()\n print(config)"}
    pull = app.sim.open_pull(REPO, files=files)
    app.settle()
    return int(pull["number"])


def reply(app: Harness, number: int, comment: int, body: str, **who: str) -> int:
    options = {"author": "octocat", "author_association": "OWNER", **who}
    made = app.sim.reply(REPO, number, comment, body, **options)  # type: ignore[arg-type]
    app.settle()
    return int(made["id"])


def evidence(app: Harness, sid: str) -> tuple[str | None, str | None]:
    """The evidence that bound the suggestion's current receipt, and its commit."""
    with reading(app.engine) as conn:
        row = conn.execute(
            select(Receipt.evidence, Receipt.evidence_commit).where(
                Receipt.suggestion_id == sid, Receipt.superseded.is_(False)
            )
        ).one()
    return row.evidence, row.evidence_commit


def current(app: Harness) -> dict[str, tuple[str, str | None, str, str, str]]:
    with reading(app.engine) as conn:
        rows = conn.execute(select(Receipt).where(Receipt.superseded.is_(False))).all()
    return {r.suggestion_id: (r.decision, r.reason, r.rule, r.span, r.actor) for r in rows}


TYPED = "accept"
NATURAL = "Done, fixed in 3f2a1c."
UNDECIDED = (
    ACCEPTED,
    DISMISSED,
    UNGROUNDED,
    ELSEWHERE,
    MALFORMED,
    SLOW,
    OTHER_REPLY,
    UNKNOWN_REASON,
    OLD_CONTRACT,
)


def test_only_grounded_verdicts_about_the_reply_asked_count(
    judged: tuple[Harness, JudgeSeat],
) -> None:
    app, judge = judged
    assert all(classify_reply(body, app_slug="hindsight") is None for body in UNDECIDED)
    number = open_pull(app)
    planted = {}
    asked: dict[int, str] = {}
    for index, body in enumerate((*UNDECIDED, CONTRIBUTOR, TYPED, NATURAL)):
        sid, comment = app.plant_suggestion(number, title=f"Finding number {index}")
        planted[body] = sid
        if body == ELSEWHERE:  # a contributor's words, which the judge quotes instead
            reply(
                app,
                number,
                comment,
                CONTRIBUTOR,
                author="drive-by",
                author_association="CONTRIBUTOR",
            )
        if body == CONTRIBUTOR:
            reply(app, number, comment, body, author="drive-by", author_association="CONTRIBUTOR")
            continue
        asked[reply(app, number, comment, body)] = body

    # Nothing the judge says binds yet: the lines are as they were and the PR is open.
    assert current(app) == {
        planted[TYPED]: ("accepted", None, "grammar.accept", "accept", "octocat"),
    }
    assert {body: claim(app, planted[body]) for body in (ACCEPTED, DISMISSED, UNKNOWN_REASON)} == {
        ACCEPTED: "claimed",
        DISMISSED: "argued",
        UNKNOWN_REASON: "argued",
    }
    assert claim(app, planted[NATURAL]) == "claimed"  # the rules' acceptance waits the same way
    assert all(claim(app, planted[body]) is None for body in UNDECIDED[2:-2])
    # Merged with the lines untouched: the dismissals bind, the claimed acceptances do not.
    merge(app, number)
    assert current(app) == {
        planted[DISMISSED]: (
            "dismissed",
            "false-positive",
            "judge:judge",
            "this check would be dead code here",
            "octocat",
        ),
        planted[UNKNOWN_REASON]: (
            "dismissed",
            "unspecified",
            "judge:judge",
            "fair catch",
            "octocat",
        ),
        planted[TYPED]: ("accepted", None, "grammar.accept", "accept", "octocat"),
    }
    assert claim(app, planted[ACCEPTED]) == claim(app, planted[NATURAL]) == "dropped"
    # Every undecided maintainer reply once; never a contributor's, never one the rules decided.
    calls = judge.calls()
    assert sorted(call["id"] for call in calls) == sorted(
        reply_id for reply_id, body in asked.items() if body in UNDECIDED
    )
    assert {call["body"] for call in calls} == set(UNDECIDED)
    with reading(app.engine) as conn:
        kept = {
            asked[row.reply_id]: (row.outcome, (row.detail or "").split(":")[0])
            for row in conn.execute(select(JudgeVerdictRow))
        }
        states = set(conn.execute(select(Job.state)).scalars())
    assert kept == {
        ACCEPTED: ("accepted", ""),
        DISMISSED: ("dismissed", ""),
        UNGROUNDED: ("ungrounded", ""),
        ELSEWHERE: ("ungrounded", ""),
        MALFORMED: ("failed", "invalid-json"),
        SLOW: ("failed", "timeout"),
        OTHER_REPLY: ("other-reply", ""),
        UNKNOWN_REASON: ("dismissed", ""),
        OLD_CONTRACT: ("failed", "bad-shape"),
    }
    assert states == {JobState.DONE.value}  # a failing judge fails no write-back


def test_each_reply_revision_is_asked_once(judged: tuple[Harness, JudgeSeat]) -> None:
    app, judge = judged
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    first = reply(app, number, comment, UNGROUNDED)
    assert [call["id"] for call in judge.calls()] == [first] and current(app) == {}

    # More runs over the same revision (another reply, a push) ask nothing again.
    reply(
        app,
        number,
        comment,
        "What does the schema library do with None?",
        author="drive-by",
        author_association="CONTRIBUTOR",
    )
    push(app, number, OTHER_LINES)
    assert len(judge.calls()) == 1

    # An edit is a new revision: asked again, and now the quote is the reply's own words. Its
    # acceptance is claimed until the commented lines change, then binds with that commit.
    app.sim.advance_clock(5)
    app.sim.edit_comment(
        REPO, first, UNGROUNDED + " The schema library now carries this check for us."
    )
    app.settle()
    assert [call["id"] for call in judge.calls()] == [first, first]
    assert current(app) == {} and claim(app, sid) == "claimed"
    head = push(app, number, FIX)
    assert current(app) == {
        sid: ("accepted", None, "judge:judge", "now carries this check", "octocat")
    }
    assert evidence(app, sid) == ("lines-changed", head) and len(judge.calls()) == 2

    # A later decision by the rules still wins over the judged one, and is never sent.
    reply(app, number, comment, "dismiss wont-fix")
    assert current(app)[sid][:3] == ("dismissed", "wont-fix", "grammar.dismiss")
    assert len(judge.calls()) == 2


# A deferral the rules do not read as one: only the judge is asked about it.
DEFERS = "Worth doing; we will pick this up together with the config rework next month."
OVER_DECIDING = {DEFERS: {"category": "accepted", "reason": "", "quote": "Worth doing"}}


def test_a_judge_that_over_decides_is_stopped_by_the_evidence(
    judged: tuple[Harness, JudgeSeat],
) -> None:
    """The seat answers "accepted" to a deferral: no acceptance while the commented lines did not
    change — a push to other lines, then the merge — and the same answer binds only when they do."""
    app, judge = judged
    judge.answer({**ANSWERS, **OVER_DECIDING})
    assert classify_reply(DEFERS, app_slug="hindsight") is None and read_deferral(DEFERS) is None
    number = open_pull(app)
    sid, comment = app.plant_suggestion(number)
    asked = reply(app, number, comment, DEFERS)
    assert [call["id"] for call in judge.calls()] == [asked]
    assert current(app) == {} and claim(app, sid) == "claimed"
    push(app, number, OTHER_LINES)
    assert current(app) == {} and claim(app, sid) == "claimed"
    merge(app, number)
    assert current(app) == {} and claim(app, sid) == "dropped"
    assert len(judge.calls()) == 1  # every run after the first reused the kept answer

    # Where the code agrees, the same over-deciding answer is an acceptance with its commit.
    other = open_pull(app)
    agreed, thread = app.plant_suggestion(other)
    reply(app, other, thread, DEFERS)
    head = push(app, other, FIX)
    assert current(app)[agreed] == ("accepted", None, "judge:judge", "Worth doing", "octocat")
    assert evidence(app, agreed) == ("lines-changed", head)
