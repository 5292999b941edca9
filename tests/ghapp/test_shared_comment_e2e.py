"""One comment per finding: the same finding under two lenses is posted once, and a maintainer's
reply to that comment decides for each lens's mechanism (through the simulator and the worker)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, Row, select

from continual.markers import parse_suggestion_marker
from continual.tables import Entry, Receipt, Suggestion
from tests.support.review import (
    REVIEW_POSTS,
    bug_files,
    harness,
    lenses_toml,
    seat_toml,
)
from tests.support.simulator import REPO


def _rows(engine: Engine, table: Any) -> list[Row[Any]]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())


def _current(engine: Engine) -> dict[str, str]:
    """Each suggestion's current decision (its only current receipt)."""
    return {r.suggestion_id: r.decision for r in _rows(engine, Receipt) if not r.superseded}


def test_one_comment_for_two_lenses_and_one_reply_decides_both(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness", "performance")
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, title="Parse the config", files=bug_files(1))
        h.run()
        (post,) = h.sim.requests("POST", REVIEW_POSTS)
        (comment,) = post.body["comments"]
        assert "(correctness, performance)" in comment["body"]
        assert "alpha (correctness), alpha (performance)" in comment["body"]
        marker = parse_suggestion_marker(comment["body"])
        assert marker is not None

        suggestions = _rows(engine, Suggestion)
        assert sorted(s.lens for s in suggestions) == ["correctness", "performance"]
        assert len({s.entry_key for s in suggestions}) == 2, "each lens keeps its mechanism"
        (posted,) = [c for c in h.sim.review_comments(REPO, 1)]
        assert {s.comment_id for s in suggestions} == {posted["id"]}

        reply = h.sim.reply(
            REPO, 1, posted["id"], "accept", author="octocat", author_association="OWNER"
        )
        h.run()
        assert _current(engine) == {s.id: "accepted" for s in suggestions}
        entries = _rows(engine, Entry)
        assert sorted(e.lens for e in entries) == ["correctness", "performance"]

        # The maintainer changes their mind: the same one reply now dismisses both.
        h.sim.edit_comment(REPO, reply["id"], "dismiss wont-fix")
        h.run()
        assert _current(engine) == {s.id: "dismissed" for s in suggestions}

        # … and deleting the reply takes the decision back from both.
        h.sim.delete_comment(REPO, reply["id"])
        h.run()
        assert _current(engine) == {}

        # One status block on the one comment, not one per lens.
        edits = h.sim.requests("PATCH", f"/repos/{REPO}/pulls/comments/{posted['id']}")
        assert len(edits) == 3


def test_different_titles_at_one_line_stay_two_comments(engine: Engine, tmp_path: Path) -> None:
    slow = {
        "path": "src/mod0.py",
        "line": 3,
        "title": "parse_config runs on every call",
        "body": "Hoist it.",
    }
    behaviour = {"lenses": ["correctness"], "extra_lens": "performance", "findings": [slow]}
    toml = seat_toml(tmp_path, "alpha", **behaviour) + lenses_toml("correctness", "performance")
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, files=bug_files(1))
        h.run()
        (post,) = h.sim.requests("POST", REVIEW_POSTS)
        assert len(post.body["comments"]) == 2
    assert all(s.comment_of is None for s in _rows(engine, Suggestion))
