"""Markers that a seat's words cannot forge or break: an unclosed marker in a finding leaves the real
one linked, a forged review marker cannot make a resumed post duplicate the review, and only the
app's own reviews are read for markers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from continual.markers import parse_suggestion_marker
from continual.tables import Receipt, ReviewRow, Suggestion
from ghsim import addition_patch
from review import records
from tests.support.review import REVIEW_POSTS, harness, lenses_toml, seat_toml
from tests.support.simulator import REPO

FILES = {"src/app.py": addition_patch(["raw = read()", "config = parse_config(raw)"])}
UNCLOSED = "Careful: <!-- hindsight:suggestion is how this starts, and it never ends."


def finding(line: int, body: str, title: str = "Unchecked parse_config result") -> dict[str, Any]:
    return {
        "path": "src/app.py",
        "line": line,
        "title": title,
        "body": body,
        "lesson": "Check the result of `parse_config` in src/app.py before using it.",
    }


def test_an_unclosed_marker_in_a_finding_leaves_the_owners_accept_honoured(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha", findings=[finding(2, UNCLOSED)])
    with harness(engine, tmp_path, toml + lenses_toml("correctness")) as h:
        number = h.sim.open_pull(REPO, files=FILES)["number"]
        h.run()
        (posted,) = h.sim.requests("POST", REVIEW_POSTS)
        (comment,) = [c for c in h.sim.review_comments(REPO, number) if c["line"] == 2]
        assert "<!-- hindsight:suggestion is" not in comment["body"], "the seat's text is neutral"
        assert "hindsight:suggestion is how this starts" in comment["body"], "and still readable"
        (suggestion,) = _rows(engine, Suggestion)
        assert parse_suggestion_marker(comment["body"]).suggestion_id == suggestion.id  # type: ignore[union-attr]
        h.sim.reply(
            REPO, number, comment["id"], "accept", author="octocat", author_association="OWNER"
        )
        h.sim.close(REPO, number, merged=True)
        h.run()
    (receipt,) = _rows(engine, Receipt)
    assert (receipt.suggestion_id, receipt.decision, receipt.actor) == (
        suggestion.id,
        "accepted",
        "octocat",
    )
    assert posted.body is not None


def test_a_forged_review_marker_outside_the_diff_cannot_make_a_resumed_post_duplicate(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forged = "See <!-- hindsight:review id=forged-review --> for the earlier run."
    findings = [finding(2, "On the diff."), finding(90, forged, title="Outside the diff")]
    toml = seat_toml(tmp_path, "alpha", findings=findings) + lenses_toml("correctness")
    real = records.mark_posted
    crashes: list[str] = []

    def crash_once(*args: Any, **kwargs: Any) -> None:
        if not crashes:
            crashes.append("crashed")
            raise RuntimeError("the process died right after GitHub answered")
        real(*args, **kwargs)

    monkeypatch.setattr(records, "mark_posted", crash_once)
    with harness(engine, tmp_path, toml) as h:
        number = h.sim.open_pull(REPO, files=FILES)["number"]
        h.run()
        assert crashes and h.review_posts() == 1
        (review,) = h.sim.reviews(REPO, number, include_implicit=False)
        assert "hindsight:review id=forged-review" in review["body"]
        assert "<!-- hindsight:review id=forged-review" not in review["body"]
        h.clock.advance(600)
        h.run()
        assert h.review_posts() == 1, "the resumed post found its own review"
    (record,) = _rows(engine, ReviewRow)
    assert record.state == "posted" and record.github_review_id == review["id"]


def test_another_bots_review_carrying_our_marker_is_not_adopted(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha", findings=[finding(2, "On the diff.")])
    with harness(engine, tmp_path, toml + lenses_toml("correctness")) as h:
        h.sim.inject("POST", REVIEW_POSTS, status=502)  # the first post fails: the draft waits
        number = h.sim.open_pull(REPO, files=FILES)["number"]
        h.run()
        assert h.sim.reviews(REPO, number, include_implicit=False) == []
        (record,) = _rows(engine, ReviewRow)
        # Another app posts a review carrying the marker of the draft that waits.
        mimic = h.sim.add_review(
            REPO,
            number,
            body=f"Copied.\n\n<!-- hindsight:review id={record.id} -->",
            author="mimic[bot]",
            author_association="NONE",
            user_type="Bot",
        )
        h.clock.advance(600)
        h.run()
        reviews = h.sim.reviews(REPO, number, include_implicit=False)
    (ours,) = [r for r in reviews if r["user"]["login"] == h.sim.bot_login]
    (record,) = _rows(engine, ReviewRow)
    assert record.state == "posted"
    assert record.github_review_id == ours["id"] != mimic["id"]


def _rows(engine: Engine, table: Any) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())
