"""The review end to end: signed webhooks from the simulator into the app, one review posted back."""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, Row, select

from continual import persons
from continual.markers import parse_suggestion_marker
from continual.memory import find_session_file
from continual.tables import (
    MemoryHitRow,
    MemoryItemRow,
    MemorySummaryRow,
    Receipt,
    ReviewAgreement,
    ReviewCallRow,
    ReviewRow,
    Suggestion,
)
from continual.writeback.apply import apply_decisions
from ghapp.cli import ledger as cli_ledger
from ghapp.cli import memory as cli_memory
from ghapp.cli.ledger import ledgers
from ghsim import addition_patch
from review import records
from review.prompt import HEADER_END
from tests.conftest import WEBHOOK_SECRET
from tests.support.review import (
    REVIEW_POSTS,
    bug_files,
    harness,
    lenses_toml,
    requests_of,
    review_toml,
    seat_toml,
)
from tests.support.seat_servers import (
    API_KEY,
    MODEL,
    Provider,
    anthropic_app,
    openai_app,
    user_text,
)
from tests.support.seat_servers import serve as serve_provider
from tests.support.simulator import ORG, REPO
from tests.support.store import decision
from tests.support.web import deliver

TOOL_LINE = "Tool path: `PYTHONPATH=src pytest -q` passed where `pytest -q` failed."


def _rows(engine: Engine, table: Any) -> list[Row[Any]]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())


def test_opened_pull_gets_one_review_from_two_seats_two_lenses_and_several_shards(
    engine: Engine, tmp_path: Path
) -> None:
    logs = tmp_path / "requests"
    logs.mkdir()
    toml = (
        seat_toml(tmp_path, "alpha", log_dir=str(logs), tool_path=True)
        + seat_toml(tmp_path, "beta", lab="other-lab", log_dir=str(logs))
        + lenses_toml("correctness", "tests")
        + review_toml(shard_chars=1500, parallel_calls=2)
    )
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, title="Parse the config", files=bug_files(4))
        h.run()

        assert h.review_posts() == 1
        (post,) = h.sim.requests("POST", REVIEW_POSTS)
        comments = post.body["comments"]
        # 4 files × 2 lenses = 8 mechanisms-on-a-line, but one finding per line: each comment
        # names both lenses and both seats (beta's identical findings are agreements).
        assert len(comments) == 4
        markers = [parse_suggestion_marker(c["body"]) for c in comments]
        assert all(marker is not None for marker in markers)
        assert all(
            "```suggestion\nconfig = parse_config(raw) or {}\n```" in c["body"] for c in comments
        )
        assert all("(correctness, tests)" in c["body"] for c in comments)
        assert all(
            "Raised under 2 lenses: alpha (correctness), beta (correctness), alpha (tests), "
            "beta (tests)." in c["body"]
            for c in comments
        )

        requests = requests_of(logs)
        assert len(requests) == 16
        assert {r["shard"]["count"] for r in requests} == {4}
        headers = {r["header"] for r in requests}
        assert len(headers) == 1
        (header,) = headers
        assert header.endswith(HEADER_END)
        assert all(r["prompt"].startswith(header) for r in requests)

        later = [r for r in requests if r["shard"]["index"] > 0 or r["seat"]["name"] == "beta"]
        assert later and all(TOOL_LINE in r["memory"] for r in later)

    suggestions = _rows(engine, Suggestion)
    assert len(suggestions) == 8
    assert {s.seat for s in suggestions} == {"alpha"}
    assert all(s.comment_id is not None and s.set_sha256 for s in suggestions)
    carrying = {m.suggestion_id for m in markers if m}
    assert carrying == {s.id for s in suggestions if s.comment_of is None}
    assert {s.comment_of for s in suggestions if s.comment_of is not None} == carrying
    assert len({s.comment_id for s in suggestions}) == 4, "each lens's row links to one comment"
    assert {s.lens for s in suggestions} == {"correctness", "tests"}
    assert len(_rows(engine, ReviewAgreement)) == 8
    calls = _rows(engine, ReviewCallRow)
    assert len(calls) == 16 and {c.status for c in calls} == {"ok"}
    (review,) = _rows(engine, ReviewRow)
    (posted,) = h.sim.reviews(REPO, 1, include_implicit=False)
    assert review.state == "posted" and review.github_review_id == posted["id"]
    assert f"<!-- hindsight:review id={review.id} -->" in posted["body"]
    ledger = ledgers(engine, now=0)
    assert [(x.repository, x.calls.ok, x.posted) for x in ledger] == [(REPO, 16, 1)]


def test_budgets_hold_and_say_what_they_omitted(engine: Engine, tmp_path: Path) -> None:
    logs = tmp_path / "requests"
    logs.mkdir()
    toml = (
        seat_toml(tmp_path, "alpha", log_dir=str(logs), tool_path=True, facts=True)
        + seat_toml(tmp_path, "beta", lab="other-lab", log_dir=str(logs), facts=True)
        + lenses_toml("correctness", "tests")
        + review_toml(shard_chars=1500, parallel_calls=1, memory_chars=400, max_calls=10)
    )
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, files=bug_files(4))
        h.run()
        assert h.review_posts() == 1

    requests = requests_of(logs)
    assert len(requests) == 10
    assert all(len(r["memory"]) <= 400 for r in requests)
    assert any(re.search(r"\n\d+ more omitted$", r["memory"]) for r in requests)
    calls = _rows(engine, ReviewCallRow)
    assert sum(1 for c in calls if c.status == "skipped") == 16 - 10
    assert max(c.memory_omitted for c in calls) > 0
    (ledger,) = ledgers(engine, now=0)
    assert (ledger.calls.ok, ledger.calls.skipped) == (10, 6)


def test_failing_hanging_and_garbage_seats_do_not_stop_the_review(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    toml = (
        seat_toml(tmp_path, "good")
        + seat_toml(tmp_path, "broken", mode="fail")
        + seat_toml(tmp_path, "stuck", mode="hang", timeout_s=1)
        + seat_toml(tmp_path, "chatty", mode="garbage")
        + lenses_toml("correctness")
        + review_toml(parallel_calls=4)
    )
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, files=bug_files(1))
        started = time.monotonic()
        h.run()
        assert time.monotonic() - started < 15
        assert h.review_posts() == 1
        (post,) = h.sim.requests("POST", REVIEW_POSTS)
        assert len(post.body["comments"]) == 1
        assert "3 of 4 calls failed" in post.body["body"]

    (ledger,) = ledgers(engine, now=0)
    assert (ledger.calls.ok, ledger.calls.failed) == (1, 3)
    assert {(f.seat, f.reason) for f in ledger.calls.failures} == {
        ("broken", "exit"),
        ("stuck", "timeout"),
        ("chatty", "invalid-json"),
    }
    (row,) = ledger.by_seat_and_lens
    assert (row.seat, row.counts.total, row.counts.pending) == ("good", 1, 1)
    code = cli_ledger.cmd_ledger(argparse.Namespace(repo=REPO, json=False), h.settings)
    printed = capsys.readouterr().out
    assert code == 0 and "calls: 1 ok, 3 failed, 0 skipped" in printed
    assert "failed: seat stuck, timeout: 1" in printed


def test_next_review_of_the_repository_recalls_memory_and_counts_a_hit(
    engine: Engine, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "requests"
    logs.mkdir()
    toml = seat_toml(tmp_path, "alpha", log_dir=str(logs), tool_path=True) + lenses_toml("tests")
    with harness(engine, tmp_path, toml, memory=True) as h:
        h.sim.open_pull(REPO, files=bug_files(1))
        h.run()
        first = requests_of(logs)
        assert all("Recalled from earlier sessions:" not in r["cross_session"] for r in first)
        for path in logs.iterdir():
            path.unlink()
        h.sim.open_pull(REPO, files=bug_files(1, prefix="lib/other"))
        h.run()
        second = requests_of(logs)
        assert h.review_posts() == 2

    reviews = sorted(_rows(engine, ReviewRow), key=lambda r: r.pr)
    old, new = reviews[0].id, reviews[1].id
    (request,) = second
    assert request["cross_session"].startswith("Recalled from earlier sessions:\n")
    claim = f"Unverified claim: {TOOL_LINE} (reported by seat alpha; session {old}, commit "
    assert claim in request["cross_session"]
    assert TOOL_LINE not in request["memory"]

    items = _rows(engine, MemoryItemRow)
    tool = next(i for i in items if i.kind == "tool_path" and i.review_id == old)
    # One seat's word: a candidate for 30 days (docs/security.md, "What a seat reports").
    assert tool.state == "candidate" and tool.expires_ms - tool.created_ms == 30 * 86_400_000
    assert {i.state for i in items if i.kind != "tool_path"} <= {"candidate"}
    (hit,) = _rows(engine, MemoryHitRow)
    assert (hit.review_id, hit.recalled_review_id) == (new, old)
    (ledger,) = ledgers(engine, now=0)
    assert ledger.hits == 1

    settings = h.settings
    code = cli_memory.cmd_memory(
        argparse.Namespace(memory_command="show", review=new, json=True), settings
    )
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 0
    assert {line["type"] for line in lines} >= {"session", "learned", "recalled", "hit"}
    code = cli_memory.cmd_memory(
        argparse.Namespace(memory_command="clear", review=new, json=False), settings
    )
    assert code == 0 and "1 hits" in capsys.readouterr().out
    assert find_session_file(settings.store_dir, new) is None
    assert _rows(engine, MemoryHitRow) == []


def test_deleting_a_review_session_through_the_api_removes_its_memory_file(
    engine: Engine, tmp_path: Path
) -> None:
    toml = seat_toml(tmp_path, "alpha", tool_path=True, facts=True) + lenses_toml("tests")
    with harness(engine, tmp_path, toml, memory=True) as h:
        h.sim.open_pull(REPO, files=bug_files(1))
        h.run()
        (review,) = _rows(engine, ReviewRow)
        path = find_session_file(h.settings.store_dir, review.id)
        assert path is not None and path.is_file()
        items = [i for i in _rows(engine, MemoryItemRow) if i.review_id == review.id]
        assert items, "the review kept what it learned"
        with engine.begin() as conn:
            secret = persons.create_token(conn, ORG, "mona", now=h.clock()).secret
        url = f"{h.url}/v1/sessions/{review.id}"
        headers = {"authorization": f"Bearer {secret}"}
        first = httpx.delete(url, headers=headers, timeout=30)
        second = httpx.delete(url, headers=headers, timeout=30)

    assert first.status_code == 200, first.text
    deleted = first.json()["deleted"]
    assert (deleted["memory_items"], deleted["memory_files"]) == (len(items), 1)
    assert not path.exists() and not path.parent.exists()
    assert find_session_file(h.settings.store_dir, review.id) is None
    assert _rows(engine, MemoryItemRow) == []
    # the review's suggestions are still known: deleting again answers zeros, not an error
    assert second.status_code == 200, second.text
    assert set(second.json()["deleted"].values()) == {0}


def test_lessons_activated_by_the_writeback_reach_the_next_review_header(
    engine: Engine, tmp_path: Path
) -> None:
    logs = tmp_path / "requests"
    logs.mkdir()
    toml = seat_toml(tmp_path, "alpha", log_dir=str(logs)) + lenses_toml("correctness")
    lesson = "Check the result of `parse_config` in src/app.py before using it."
    files = {"src/app.py": addition_patch(["raw = read()", "config = parse_config(raw)  # BUG"])}
    with harness(engine, tmp_path, toml, memory=True) as h:
        h.sim.open_pull(REPO, files=files)
        h.run()
        (first,) = _rows(engine, Suggestion)
        assert lesson not in requests_of(logs)[0]["header"]
        apply_decisions(engine, [decision(first.id, at=h.clock() // 1000)], now=h.clock())
        for path in logs.iterdir():
            path.unlink()

        h.sim.open_pull(REPO, files=files)
        h.run()
        (request,) = requests_of(logs)

    assert f"- {lesson}" in request["header"]
    assert [lesson["text"] for lesson in request["lessons"]] == [lesson]
    # The repository's memory summary sits in the shared header, under its heuristic framing.
    (summary,) = _rows(engine, MemorySummaryRow)
    assert summary.text.startswith("Memory summary for octo-org/widgets. Memory is a heuristic")
    assert "Unchecked parse_config result (correctness; lesson " in summary.text
    assert summary.text in request["header"] and request["prompt"].startswith(request["header"])
    reviews = sorted(_rows(engine, ReviewRow), key=lambda r: r.pr)
    assert reviews[1].lessons == 1 and reviews[1].set_sha256 != reviews[0].set_sha256
    (second,) = [s for s in _rows(engine, Suggestion) if s.pr == 2]
    assert second.set_sha256 == reviews[1].set_sha256
    apply_decisions(engine, [decision(second.id, at=h.clock() // 1000)], now=h.clock())
    with engine.connect() as conn:
        receipt = conn.execute(select(Receipt).where(Receipt.suggestion_id == second.id)).one()
    assert receipt.set_sha256 == reviews[1].set_sha256
    injections = (h.store_dir / "octo-org" / "widgets" / "injections.jsonl").read_text()
    assert reviews[1].set_sha256 in injections
    (ledger,) = ledgers(engine, now=h.clock())
    acceptance = ledger.acceptance
    assert (acceptance.with_lessons.accepted, acceptance.without_lessons.accepted) == (1, 1)


def test_the_same_opened_delivered_twice_posts_one_review(engine: Engine, tmp_path: Path) -> None:
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, files=bug_files(1))
        opened = h.sim.deliveries[-1]
        with httpx.Client(trust_env=False) as client:
            again = deliver(client, h.url, WEBHOOK_SECRET, "pull_request", opened.body, opened.id)
            assert again.status_code == 200 and again.json()["duplicate"] is True
            variant = json.loads(opened.body)
            variant["redelivered"] = True
            assert (
                deliver(client, h.url, WEBHOOK_SECRET, "pull_request", variant).status_code == 202
            )
        assert h.run() == 3  # installation, opened, the variant
        assert h.review_posts() == 1
    assert len(_rows(engine, ReviewRow)) == 1


def test_a_retry_after_a_crash_between_posting_and_recording_does_not_post_twice(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    real = records.mark_posted
    crashes: list[str] = []

    def crash_once(*args: Any, **kwargs: Any) -> None:
        if not crashes:
            crashes.append("crashed")
            raise RuntimeError("the process died right after GitHub answered")
        real(*args, **kwargs)

    monkeypatch.setattr(records, "mark_posted", crash_once)
    with harness(engine, tmp_path, toml) as h:
        h.sim.open_pull(REPO, files=bug_files(2))
        h.run()
        assert crashes and h.review_posts() == 1
        (review,) = _rows(engine, ReviewRow)
        assert review.state == "posting"
        h.clock.advance(600)
        assert h.run() == 1
        assert h.review_posts() == 1

    (review,) = _rows(engine, ReviewRow)
    assert review.state == "posted" and review.github_review_id is not None
    assert all(s.comment_id is not None for s in _rows(engine, Suggestion))


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_loopback_provider_serves_a_review(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    monkeypatch.setenv("LOOPBACK_SEAT_KEY", API_KEY)
    provider = Provider()
    app = openai_app(provider) if kind == "openai" else anthropic_app(provider)

    async def scenario() -> None:
        async with serve_provider(app, provider) as url:
            base_url = f"{url}/v1" if kind == "openai" else url
            toml = (
                f'[[seats]]\nname = "remote"\nlab = "{kind}"\nkind = "{kind}"\n'
                f'model = "{MODEL}"\nbase_url = "{base_url}"\n'
                'api_key_env = "LOOPBACK_SEAT_KEY"\ntimeout_s = 20\n'
            ) + lenses_toml("correctness")
            with harness(engine, tmp_path, toml) as h:
                h.sim.open_pull(REPO)  # src/app.py gains three lines
                await h.worker.run_until_idle()
                assert h.review_posts() == 1
                (post,) = h.sim.requests("POST", REVIEW_POSTS)
                (comment,) = post.body["comments"]
                assert (comment["path"], comment["line"]) == ("src/app.py", 3)

    asyncio.run(scenario())
    (sent,) = provider.requests
    prompt = user_text(sent)
    assert prompt.startswith("You are one reviewer of a GitHub pull request.")
    if kind == "anthropic":
        header_block = sent["json"]["messages"][0]["content"][0]
        assert header_block["cache_control"] == {"type": "ephemeral"}
        assert header_block["text"].endswith(HEADER_END)
    (suggestion,) = _rows(engine, Suggestion)
    assert (suggestion.seat, suggestion.lab) == ("remote", kind)
