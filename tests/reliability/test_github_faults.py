"""GitHub faults from the simulator during the review and the write-back: 502 bursts are retried
with backoff, a secondary rate limit reschedules, a 404 is "gone", slow answers are waited for or
time out and are retried; afterwards `/v1/review-ledger` tells the truth."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, select

from continual.tables import ReviewRow
from ghapp.db import reading
from ghsim import GitHubSimulator
from tests.support.reliability import (
    COMMENTS_OF_PULL,
    COMMENTS_OF_REVIEW,
    api_token,
    in_process,
    job_of,
    ledger_of,
    maintainer_says,
    receipts,
    run_until_done,
    suggestions_match_comments,
)
from tests.support.review import REVIEW_POSTS, Harness, bug_files, lenses_toml, seat_toml
from tests.support.simulator import REPO
from tests.support.web import wait_for

TIMEOUT_S = 0.5
TOO_SLOW_S = 1.0
RETRY_AFTER_S = 90
SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
PULL_FILES = r"^/repos/[^/]+/[^/]+/pulls/\d+/files$"
REVIEW = "pull_request.review"
WRITEBACK = "pull_request.writeback"
CASES = ["502-burst", "rate-limit", "gone", "latency"]


@pytest.fixture
def app(engine: Engine, tmp_path: Path) -> Iterator[Harness]:
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    with in_process(engine, tmp_path, toml, timeout_s=TIMEOUT_S) as harness:
        yield harness


def burst(sim: GitHubSimulator, method: str, path: str) -> None:
    sim.inject(method, path, status=502, times=3)


def rate_limit(sim: GitHubSimulator, method: str, path: str) -> None:
    headers = {"retry-after": str(RETRY_AFTER_S)}
    sim.inject(method, path, status=403, headers=headers, body=SECONDARY, times=1)


def gone(sim: GitHubSimulator, method: str, path: str) -> None:
    sim.inject(method, path, status=404, times=1)


def too_slow(sim: GitHubSimulator, method: str, path: str) -> None:
    """One answer slower than the client waits; GitHub still carries the request out."""
    sim.inject(method, path, latency_s=TOO_SLOW_S, times=1)


def posts(h: Harness, status: int) -> int:
    return sum(1 for r in h.sim.requests("POST", REVIEW_POSTS) if r.status == status)


def suggestions_of(h: Harness, number: int) -> dict[str, tuple[int, int]]:
    return suggestions_match_comments(h.sim, h.engine, [number])


def retried(
    seen: list[tuple[int, str]], job_attempts: int, case: str, started: int, h: Harness
) -> None:
    """What the job went through, by fault."""
    if case == "502-burst":
        assert [attempts for attempts, _ in seen] == [1, 2, 3] and job_attempts == 4
        assert all("transient" in error for _, error in seen)
    elif case == "rate-limit":
        ((attempts, error),) = seen
        assert attempts == 0 and "rate limit" in error, "rescheduled without spending an attempt"
        assert job_attempts == 1
        assert h.clock() - started >= RETRY_AFTER_S * 1000, "not run again before retry-after"
    elif case == "gone":
        assert seen == [] and job_attempts == 1, "a 404 is an answer, not a reason to retry"
    else:
        ((attempts, error),) = seen
        assert attempts == 1 and "timed out" in error and job_attempts == 2


@pytest.mark.parametrize("case", CASES)
def test_review_under_github_faults(app: Harness, case: str) -> None:
    sim = app.sim
    if case == "502-burst":
        burst(sim, "POST", REVIEW_POSTS)
    elif case == "rate-limit":
        rate_limit(sim, "GET", PULL_FILES)
    elif case == "gone":  # the posted comments vanish before they are read back
        gone(sim, "GET", COMMENTS_OF_REVIEW)
    else:  # one slow answer within the timeout, then a POST GitHub finishes after the client left
        sim.inject("GET", PULL_FILES, latency_s=TIMEOUT_S / 2, times=1)
        too_slow(sim, "POST", REVIEW_POSTS)
    number = int(sim.open_pull(REPO, files=bug_files(2))["number"])
    started = app.clock()

    def settle_slow_post() -> None:
        if case == "latency":
            wait_for(lambda: posts(app, 200) == 1, what="GitHub to finish the slow POST")

    seen = run_until_done(app, REVIEW, between=settle_slow_post)

    job = job_of(app.engine, REVIEW)
    assert job.state == "done"
    retried(seen, job.attempts, case, started, app)
    if case == "gone":  # the review still counts as posted; its comments simply stay unlinked
        assert job.attempts == 1 and job.last_error is None
    assert posts(app, 200) == 1, "one review POST went through"
    (review,) = sim.reviews(REPO, number, include_implicit=False)
    with reading(app.engine) as conn:
        (record,) = conn.execute(select(ReviewRow)).all()
    assert (record.state, record.github_review_id) == ("posted", review["id"])
    assert len(suggestions_of(app, number)) == 2
    ledger = ledger_of(app, api_token(app.engine))
    assert ledger["reviews"] == 1 and ledger["calls"]["failed"] == 0
    assert (ledger["suggestions"]["total"], ledger["suggestions"]["pending"]) == (2, 2)


@pytest.mark.parametrize("case", [*CASES, "deleted-reply"])
def test_writeback_under_github_faults(app: Harness, case: str) -> None:
    sim = app.sim
    number = int(sim.open_pull(REPO, files=bug_files(2))["number"])
    app.run()
    (accepted, first), (dismissed, second) = sorted(suggestions_of(app, number).items())
    maintainer_says(sim, number, first[1], "accept")
    maintainer_says(sim, number, second[1], "dismiss false-positive")
    app.run()
    expected = {accepted: "accepted", dismissed: "dismissed"}
    if case == "502-burst":
        burst(sim, "GET", COMMENTS_OF_PULL)
    elif case == "rate-limit":
        rate_limit(sim, "GET", COMMENTS_OF_PULL)
    elif case == "gone":  # the comments answer 404 at the close: what the replies decided stays
        gone(sim, "GET", COMMENTS_OF_PULL)
    elif case == "deleted-reply":  # the acceptance is deleted: its decision goes with it
        (reply,) = [c for c in sim.review_comments(REPO, number) if c["body"] == "accept"]
        sim.delete_comment(REPO, int(reply["id"]))
        del expected[accepted]
    else:
        too_slow(sim, "GET", COMMENTS_OF_PULL)
    sim.close(REPO, number)
    started = app.clock()
    seen = run_until_done(app, WRITEBACK)

    job = job_of(app.engine, WRITEBACK)
    assert job.state == "done"
    if case == "deleted-reply":
        assert seen == [] and job.attempts == 1
    else:
        retried(seen, job.attempts, case, started, app)
    current = [r for r in receipts(app.engine) if not r.superseded]
    assert sorted((r.suggestion_id, r.decision) for r in current) == sorted(expected.items())
    counts = ledger_of(app, api_token(app.engine))["suggestions"]
    decided = list(expected.values())
    assert (counts["total"], counts["accepted"], counts["dismissed"], counts["pending"]) == (
        2,
        decided.count("accepted"),
        decided.count("dismissed"),
        2 - len(decided),
    )
    assert posts(app, 200) == 1
