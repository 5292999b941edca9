"""Posting a review when GitHub objects: comments it will not place are folded into the body, a
failed POST is retried with the stored draft byte for byte, and nothing else is folded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from continual.tables import ReviewRow, Suggestion
from ghsim import addition_patch
from review.compose import FOLDED_HEADER, OUTSIDE_HEADER, Draft
from tests.support.reliability import job_of, run_until_done
from tests.support.review import REVIEW_POSTS, Harness, bug_files, harness, lenses_toml, seat_toml
from tests.support.simulator import REPO

REVIEW = "pull_request.review"
UNPLACEABLE = {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}


def _rows(engine: Engine, table: Any) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())


def _posts(h: Harness) -> list[tuple[int, Any]]:
    return [(r.status, r.body) for r in h.sim.requests("POST", REVIEW_POSTS)]


def test_comments_github_will_not_place_are_posted_in_the_body(
    engine: Engine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        h.sim.inject("POST", REVIEW_POSTS, status=422, body=UNPLACEABLE, times=1)
        h.sim.open_pull(REPO, files=bug_files(2))
        with caplog.at_level("WARNING"):
            run_until_done(h, REVIEW)
        (refused, folded) = _posts(h)
        (posted,) = h.sim.reviews(REPO, 1, include_implicit=False)
        assert job_of(engine, REVIEW).state == "done"

    assert refused[0] == 422 and len(refused[1]["comments"]) == 2
    assert folded[0] == 200 and folded[1]["comments"] == []
    assert folded[1]["commit_id"] == refused[1]["commit_id"]
    (review,) = _rows(engine, ReviewRow)
    assert review.state == "posted" and review.github_review_id == posted["id"]
    body = posted["body"]
    assert FOLDED_HEADER in body and body.endswith(f"<!-- hindsight:review id={review.id} -->")
    assert "`src/mod0.py` line 3" in body and "`src/mod1.py` line 3" in body
    assert body.count("`src/mod0.py` line 3: **Unchecked parse_config result** — ") == 1, (
        "each folded comment is one line: its title and an excerpt, written safe at compose time"
    )
    assert "hindsight:suggestion" not in body, "markers are not copied into the body"
    suggestions = _rows(engine, Suggestion)
    assert len(suggestions) == 2 and all(s.comment_id is None for s in suggestions)
    assert "review comments refused; posting them in the body" in caplog.messages


def test_a_post_that_failed_is_retried_with_the_stored_draft_byte_for_byte(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        h.sim.inject("POST", REVIEW_POSTS, status=502, times=1)
        h.sim.open_pull(REPO, files=bug_files(2))
        seen = run_until_done(h, REVIEW)
        (failed, posted) = _posts(h)
        (review,) = h.sim.reviews(REPO, 1, include_implicit=False)

    assert len(seen) == 1 and "transient" in seen[0][1], "the first attempt failed on the POST"
    assert (failed[0], posted[0]) == (502, 200)
    assert posted[1] == failed[1]
    (record,) = _rows(engine, ReviewRow)
    draft = Draft.from_json(record.draft)
    assert posted[1]["body"] == draft.body == review["body"]
    assert [c["body"] for c in posted[1]["comments"]] == [c.body for c in draft.comments]
    assert record.state == "posted" and record.github_review_id == review["id"]
    assert all(s.comment_id is not None for s in _rows(engine, Suggestion))


def test_a_refused_review_without_comments_is_not_folded_or_posted_again(
    engine: Engine, tmp_path: Path
) -> None:
    outside = {"path": "src/plain.py", "line": 500, "title": "Far away", "body": "Off the diff."}
    toml = seat_toml(tmp_path, "alpha", findings=[outside]) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        h.sim.inject("POST", REVIEW_POSTS, status=422, body=UNPLACEABLE, times=1)
        h.sim.open_pull(REPO, files={"src/plain.py": addition_patch(["x = 1", "y = 2"])})
        h.run()
        ((status, body),) = _posts(h)
        job = job_of(engine, REVIEW)

    assert status == 422 and body["comments"] == [] and OUTSIDE_HEADER in body["body"]
    assert job.state == "queued" and "Rejected" in (job.last_error or "")
    (record,) = _rows(engine, ReviewRow)
    assert record.state == "posting" and record.github_review_id is None
