"""Hostile seat text posted through a real review on the simulator and rendered with GitHub's own
markdown (cmark-gfm): no mention left live, no HTML, image or link from the seat, no fence of the
seat's that swallows the app's marker, and a 70,000-character finding cut while every finding
stays inline."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from sqlalchemy import Engine, select

from continual.entry_keys import entry_key
from continual.markers import parse_suggestion_marker
from continual.tables import Receipt, Suggestion
from ghsim import addition_patch
from review import compose as composing
from review.compose import MAX_BODY_CHARS, MAX_COMMENT_CHARS, MAX_REVIEW_CHARS, compose
from review.contract import Finding
from review.runs import PostedFinding
from review.safe_text import render_text
from review.shards import PullFile
from tests.support.review import REVIEW_POSTS, Harness, harness, lenses_toml, seat_toml
from tests.support.simulator import REPO

PATH = "src/app.py"
FILES = {PATH: addition_patch([f"line_{n} = compute({n})" for n in range(1, 11)])}
LESSON = "Check the result of `parse_config` in src/app.py before using it."
MENTIONS = "cc @octocat, @octo-org/security-team and @everyone"
HTML = (
    '<img src="https://evil.example/p.png" onerror="alert(1)"> '
    "<details><summary>more</summary>hidden</details> "
    '<a href="https://evil.example">docs</a> <script>alert(1)</script> &#64;admin'
)
IMAGES = "![pixel](https://evil.example/p.png) [click](javascript:alert(1)) [ref]: javascript:x"
SUGGESTED = "line_3 = compute(3) or 0  # ``` and @keep stay exactly as written"
LONG = 70_000
# A mention as GitHub (or a mail client quoting the comment) would see it: `@` then a login.
LIVE_MENTION = re.compile(r"(?<![A-Za-z0-9])@[A-Za-z0-9]")


def finding(line: int, body: str, title: str, **extra: Any) -> dict[str, Any]:
    return {"path": PATH, "line": line, "title": title, "body": body, "lesson": LESSON, **extra}


HOSTILE = [
    finding(1, f"{MENTIONS}: look.", "Ping @everyone and @octo-org/admins"),
    finding(2, HTML, "Raw <b>HTML</b> <img src=x>"),
    finding(
        3,
        "Before:\n```python\nvalue = read()  # <b>@octocat</b>\n",
        "Unclosed fence",
        suggestion=SUGGESTED,
    ),
    finding(4, f"{IMAGES}\n~~~\nnever closed, @everyone", "Images, links, a tilde fence"),
    finding(5, "x < y && " + "A" * LONG, "A very long finding"),
    finding(90, f"{MENTIONS} {HTML} {IMAGES}", "Off the diff: @everyone <img src=x>"),
]


def html_of(body: str) -> str:
    """The body as GitHub's markdown renders it, raw HTML allowed (the worst case)."""
    return str(cmarkgfm.github_flavored_markdown_to_html(body, options=Options.CMARK_OPT_UNSAFE))


def without_suggestion(body: str) -> str:
    return re.sub(r"(`{3,})suggestion\n.*?\n\1(?!`)", "", body, flags=re.DOTALL)


def assert_inert(body: str) -> None:
    """No mention, tag, image or link of the seat's survives in ``body`` or its rendering."""
    assert not LIVE_MENTION.findall(without_suggestion(body)), body
    html = html_of(body)
    for tag in ("<img", "<details", "<script", "<table", "javascript:alert(1)</a>"):
        assert tag not in html, (tag, html)
    for href, text in re.findall(r'<a href="([^"]*)">(.*?)</a>', html):
        assert href.startswith("http") and text.startswith("http"), "a bare address, shown"
    assert "&#64;admin" not in html.replace("&amp;#64;admin", ""), "an entity stays text"


def _rows(engine: Engine, table: Any) -> list[Any]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())


def _post(h: Harness) -> tuple[int, dict[str, Any]]:
    ((status, body),) = [(r.status, r.body) for r in h.sim.requests("POST", REVIEW_POSTS)]
    return status, body


def test_hostile_seat_text_is_posted_inert_inline_and_the_marker_still_links(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha", findings=HOSTILE) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        number = h.sim.open_pull(REPO, files=FILES)["number"]
        h.run()
        status, request = _post(h)
        (review,) = h.sim.reviews(REPO, number, include_implicit=False)
        comments = {c["line"]: c for c in h.sim.review_comments(REPO, number)}
        suggestions = {s.id: s for s in _rows(engine, Suggestion)}
        assert status == 200 and len(request["comments"]) == 5, "every diff finding inline"
        assert sorted(comments) == [1, 2, 3, 4, 5]
        total = len(request["body"]) + sum(len(c["body"]) for c in request["comments"])
        assert total <= MAX_REVIEW_CHARS

        for comment in comments.values():
            body = comment["body"]
            assert_inert(body)
            assert len(body) <= MAX_COMMENT_CHARS
            marker = parse_suggestion_marker(body)
            assert (
                marker is not None and suggestions[marker.suggestion_id].comment_id == comment["id"]
            )
            html = html_of(body)
            assert html.rstrip().endswith(body[body.rindex("<!--") :]), "the marker is a comment"

        assert "@\u200beveryone" in comments[1]["body"], "the mention still reads the same"
        assert "&lt;img" in html_of(comments[2]["body"]), "the tag is shown as text"
        fenced = html_of(comments[3]["body"])
        assert '<pre lang="python"><code>value = read()' in fenced, "the seat's code stays code"
        assert f'<pre lang="suggestion"><code>{SUGGESTED}\n' in fenced, "a block of its own"
        assert f"\n{SUGGESTED}\n" in comments[3]["body"], "suggested code is posted exactly"
        long = comments[5]["body"]
        assert "… cut: " in long and "characters more" in long
        assert_inert(review["body"])
        assert "Off the diff" in review["body"]

        h.sim.reply(
            REPO, number, comments[3]["id"], "accept", author="octocat", author_association="OWNER"
        )
        h.sim.close(REPO, number, merged=True)
        h.run()
    fixed = parse_suggestion_marker(comments[3]["body"])
    assert fixed is not None
    (receipt,) = _rows(engine, Receipt)
    assert (receipt.suggestion_id, receipt.decision) == (fixed.suggestion_id, "accepted")


def test_a_body_github_refuses_as_too_long_is_not_folded_into_the_review_body(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past GitHub's 65,536 characters the simulator answers 422 as GitHub does; that refusal is
    not a placement, so the comments are not moved into the body for it."""
    monkeypatch.setattr(composing, "MAX_COMMENT_CHARS", 10 * LONG)
    long = [finding(5, "A" * LONG, "A very long finding"), finding(1, "Short.", "Short")]
    toml = seat_toml(tmp_path, "alpha", findings=long) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, files=FILES)
        h.run()
        status, request = _post(h)
    assert status == 422 and len(request["comments"]) == 2, "one refused request, no fold after"


def _posted(line: int, body: str) -> tuple[str, PostedFinding]:
    item = Finding(PATH, line, f"Finding {line}", body)
    key = entry_key("correctness", f"Finding {line}")
    return f"s_{line}", PostedFinding(item, "alpha", "acme", "correctness", "c", key)


def test_the_whole_review_request_is_bounded_and_keeps_every_comment_inline() -> None:
    lines = 200
    patch = addition_patch([f"v{n} = {n}" for n in range(lines)])
    draft = compose(
        review_id="r_1",
        commit_id="a" * 40,
        findings=[_posted(n, f"Line {n} @everyone " + "B" * 30_000) for n in range(1, lines + 1)],
        files=[PullFile(PATH, "added", patch)],
        calls=[],
        seats=["alpha"],
        lenses=["correctness"],
    )
    assert len(draft.comments) == lines
    assert len(draft.body) <= MAX_BODY_CHARS
    assert len(draft.body) + sum(len(c.body) for c in draft.comments) <= MAX_REVIEW_CHARS
    for comment in draft.comments:
        assert "… cut: " in comment.body and parse_suggestion_marker(comment.body) is not None
        assert_inert(comment.body)


@pytest.mark.parametrize(
    "text",
    [
        "```\nopen",
        "````\n```\nstill inside\n",
        "~~~~\n~~~\n",
        "   ```sh\n    indented\n",
        "- item\n  ```\n<img src=x>\n  ```",
        "`` ` `` and ``` `` ```",
        "a\\`<img src=x>`",
        "| a | b |\n|---|---|\n| `x|<img src=x>` | y |",
        "```suggestion\nrm -rf /\n```",
    ],
)
def test_a_seats_fence_or_code_span_never_reaches_what_follows(text: str) -> None:
    marker = "<!-- hindsight:suggestion id=s1 entry=lesson/x-0123456789 -->"
    body = f"{render_text(text)}\n\n{marker}"
    html = html_of(body)
    assert html.rstrip().endswith(marker), html
    assert "<img" not in html and '<pre lang="suggestion"' not in html, html
