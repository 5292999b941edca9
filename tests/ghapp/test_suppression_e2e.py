"""A dismissal is remembered, end to end: signed webhooks, the write-back, the next review."""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, Row, select

from continual import persons
from continual.lifecycle import DAY_MS
from continual.suppression import DISMISSED_HEADER
from continual.tables import (
    Entry,
    Injection,
    MemoryItemRow,
    Receipt,
    ReviewRow,
    Suggestion,
    SuppressedFinding,
)
from ghapp.cli.ledger import ledgers
from ghapp.cli.lessons import cmd_entry
from ghapp.cli.recall import cmd_recall
from ghsim import addition_patch
from tests.support.review import Harness, harness, lenses_toml, requests_of, seat_toml
from tests.support.simulator import ORG, REPO

TITLE = "Unchecked parse_config result"
HERE = "src/app.py"
THERE = "lib/app.py"
MAINTAINER = "olivia"


def files_at(path: str) -> dict[str, str]:
    return {path: addition_patch(["raw = read()", "config = parse_config(raw)  # BUG"])}


def rows(engine: Engine, table: Any) -> list[Row[Any]]:
    with engine.connect() as conn:
        return list(conn.execute(select(table)).all())


def review_at(h: Harness, path: str) -> int:
    """Open a pull request touching `path` and run its review; its number."""
    for logged in Path(h.settings.config.parent / "requests").glob("*.json"):
        logged.unlink()
    number = int(h.sim.open_pull(REPO, files=files_at(path))["number"])
    h.run()
    return number


def suggestion_comments(h: Harness, number: int) -> list[dict[str, Any]]:
    return [
        c
        for c in h.sim.review_comments(REPO, number)
        if c["user"]["login"] == h.sim.bot_login and "hindsight:suggestion" in c["body"]
    ]


def answer(
    h: Harness, number: int, body: str, *, who: str = MAINTAINER, association: str = "OWNER"
) -> None:
    """Reply `body` on the pull request's one suggestion and run the write-back."""
    (comment,) = suggestion_comments(h, number)
    h.sim.advance_clock(2)  # a later signal is later by the second GitHub keeps
    h.sim.reply(REPO, number, comment["id"], body, author=who, author_association=association)
    h.run()


def withheld(engine: Engine, number: int) -> list[Row[Any]]:
    (review,) = [r for r in rows(engine, ReviewRow) if r.pr == number]
    return [r for r in rows(engine, SuppressedFinding) if r.review_id == review.id]


def last_request(logs: Path) -> dict[str, Any]:
    found = requests_of(logs)
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    folder = tmp_path / "requests"
    folder.mkdir()
    return folder


def toml(tmp_path: Path, logs: Path, extra: str = "") -> str:
    return seat_toml(tmp_path, "alpha", log_dir=str(logs)) + lenses_toml("correctness") + extra


def test_a_wont_fix_is_not_posted_again_anywhere_and_the_header_lists_it(
    engine: Engine, tmp_path: Path, logs: Path
) -> None:
    with harness(engine, tmp_path, toml(tmp_path, logs), memory=True) as h:
        first = review_at(h, HERE)
        assert DISMISSED_HEADER not in last_request(logs)["header"]
        # A contributor's refusal decides nothing, so nothing is suppressed by it.
        answer(h, first, "dismiss wont-fix", who="drive-by", association="CONTRIBUTOR")
        assert review_at(h, THERE) and h.review_posts() == 2
        last_request(logs)
        answer(h, first, "dismiss wont-fix")
        (dismissal,) = [r for r in rows(engine, Receipt) if r.decision == "dismissed"]
        posts = h.review_posts()

        second = review_at(h, THERE)
        request = last_request(logs)

    assert h.review_posts() == posts, "the dismissed mechanism was posted again"
    assert suggestion_comments(h, second) == []
    (row,) = withheld(engine, second)
    assert (row.receipt_id, row.path, row.title, row.reason, row.repository_wide, row.actor) == (
        dismissal.id,
        THERE,
        TITLE,
        "wont-fix",
        True,
        MAINTAINER,
    )
    assert [s.pr for s in rows(engine, Suggestion)] == [1, 2]
    header = request["header"]
    assert DISMISSED_HEADER in header
    assert (
        f"- {TITLE} (lens correctness; anywhere in the repository (first at {HERE}); "
        f"reason wont-fix; dismissed by {MAINTAINER})"
    ) in header
    # The finding remembered from the first review is not handed as a candidate any more.
    assert any(TITLE in item.text for item in rows(engine, MemoryItemRow))
    assert TITLE not in request["cross_session"]
    # Handed like lessons: the entry and its set are recorded with the review.
    (entry,) = rows(engine, Entry)
    (review,) = [r for r in rows(engine, ReviewRow) if r.pr == second]
    (injection,) = [i for i in rows(engine, Injection) if i.session_id == review.id]
    assert [e[0] for e in json.loads(injection.entries)] == [entry.id]
    assert injection.set_sha256 == review.set_sha256
    journal = (h.store_dir / ORG / "widgets" / "injections.jsonl").read_text()
    assert review.set_sha256 in journal
    (ledger,) = ledgers(engine, now=h.clock())
    assert ledger.suppressed == 1


def test_a_false_positive_holds_at_its_path_and_a_later_acceptance_ends_it(
    engine: Engine, tmp_path: Path, logs: Path
) -> None:
    with harness(engine, tmp_path, toml(tmp_path, logs)) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss false-positive")
        same_path = review_at(h, HERE)
        header = last_request(logs)["header"]
        other_path = review_at(h, THERE)
        answer(h, other_path, "accept")  # a typed command: it binds at once
        after = review_at(h, HERE)
        final_header = last_request(logs)["header"]

    assert suggestion_comments(h, same_path) == [] and len(withheld(engine, same_path)) == 1
    assert f"- {TITLE} (lens correctness; at {HERE}; reason false-positive" in header
    assert len(suggestion_comments(h, other_path)) == 1 and withheld(engine, other_path) == []
    decisions = sorted(r.decision for r in rows(engine, Receipt) if not r.superseded)
    assert decisions == ["accepted", "dismissed"]
    assert len(suggestion_comments(h, after)) == 1 and withheld(engine, after) == []
    assert DISMISSED_HEADER not in final_header


def test_a_dismissal_turned_into_an_acceptance_ends_it(
    engine: Engine, tmp_path: Path, logs: Path
) -> None:
    with harness(engine, tmp_path, toml(tmp_path, logs)) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss style")
        (reply,) = [
            c for c in h.sim.review_comments(REPO, first) if c["user"]["login"] == MAINTAINER
        ]
        h.sim.edit_comment(REPO, reply["id"], "accept")
        h.run()
        second = review_at(h, THERE)

    assert len(suggestion_comments(h, second)) == 1 and withheld(engine, second) == []


def restore_through_the_api(h: Harness, entry_id: str, revision: int) -> httpx.Response:
    with h.engine.begin() as conn:
        secret = persons.create_token(conn, ORG, "mona", now=h.clock()).secret
    return httpx.patch(
        f"{h.url}/v1/recall/{entry_id}",
        headers={"authorization": f"Bearer {secret}"},
        json={"demote": False, "expected_revision": revision},
        timeout=30,
    )


def test_a_person_lifts_it_through_the_api_with_compare_and_swap(
    engine: Engine, tmp_path: Path, logs: Path
) -> None:
    with harness(engine, tmp_path, toml(tmp_path, logs)) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss out-of-scope")
        second = review_at(h, HERE)
        (entry,) = rows(engine, Entry)
        stale = restore_through_the_api(h, entry.id, entry.revision - 1)
        lifted = restore_through_the_api(h, entry.id, entry.revision)
        third = review_at(h, HERE)
        # A dismissal after the lift suppresses again.
        answer(h, third, "dismiss duplicate")
        fourth = review_at(h, THERE)

    assert len(withheld(engine, second)) == 1
    assert stale.status_code == 409, stale.text
    assert lifted.status_code == 200, lifted.text
    assert lifted.json()["revision"] == entry.revision + 1
    (after,) = rows(engine, Entry)
    assert after.suppression_lifted_by == "mona" and after.suppression_lifted_ms is not None
    assert len(suggestion_comments(h, third)) == 1 and withheld(engine, third) == []
    assert suggestion_comments(h, fourth) == [] and len(withheld(engine, fourth)) == 1


def test_hindsight_entry_restore_lifts_it(
    engine: Engine, tmp_path: Path, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with harness(engine, tmp_path, toml(tmp_path, logs)) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss wont-fix")
        (entry,) = rows(engine, Entry)
        args = argparse.Namespace(
            action="restore", entry_id=entry.id, expected_revision=entry.revision, actor="mona"
        )
        assert cmd_entry(args, h.settings) == 0
        assert cmd_entry(args, h.settings) == 1  # the revision moved on: a conflict
        second = review_at(h, THERE)

    out = capsys.readouterr()
    assert "restored" in out.out and "no longer at revision" in out.err
    assert len(suggestion_comments(h, second)) == 1 and withheld(engine, second) == []


def test_it_expires_suppress_days_after_the_dismissal(
    engine: Engine, tmp_path: Path, logs: Path
) -> None:
    config = toml(tmp_path, logs, "[writeback]\nsuppress_days = 3\n")
    with harness(engine, tmp_path, config) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss wont-fix")
        h.clock.advance(2 * DAY_MS / 1000)
        within = review_at(h, THERE)
        h.clock.advance(2 * DAY_MS / 1000)
        expired = review_at(h, HERE)

    assert suggestion_comments(h, within) == [] and len(withheld(engine, within)) == 1
    assert len(suggestion_comments(h, expired)) == 1 and withheld(engine, expired) == []


def test_the_handed_set_covers_the_dismissed_block(
    engine: Engine, tmp_path: Path, logs: Path
) -> None:
    with harness(engine, tmp_path, toml(tmp_path, logs)) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss wont-fix")
        second = review_at(h, THERE)
        request = last_request(logs)

    (review,) = [r for r in rows(engine, ReviewRow) if r.pr == second]
    lines = (h.store_dir / ORG / "widgets" / "injections.jsonl").read_text().splitlines()
    recorded = [json.loads(line) for line in lines]
    (mine,) = [r for r in recorded if r["session_id"] == review.id]
    block = request["header"].split(DISMISSED_HEADER, 1)[1].split("\n\n", 1)[0]
    handed = DISMISSED_HEADER + block
    assert mine["set_sha256"] == hashlib.sha256(handed.encode()).hexdigest() == review.set_sha256


def test_a_deleted_dismissal_suppresses_nothing(engine: Engine, tmp_path: Path, logs: Path) -> None:
    with harness(engine, tmp_path, toml(tmp_path, logs)) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss wont-fix")
        (reply,) = [
            c for c in h.sim.review_comments(REPO, first) if c["user"]["login"] == MAINTAINER
        ]
        h.sim.delete_comment(REPO, reply["id"])
        h.run()
        second = review_at(h, HERE)
        header = last_request(logs)["header"]

    assert [r.superseded for r in rows(engine, Receipt)] == [True]
    assert len(suggestion_comments(h, second)) == 1 and withheld(engine, second) == []
    assert DISMISSED_HEADER not in header


def test_a_lesson_refused_later_is_no_longer_handed_anywhere(
    engine: Engine, tmp_path: Path, logs: Path
) -> None:
    lesson = f"Check the result of `parse_config` in {HERE} before using it."
    with harness(engine, tmp_path, toml(tmp_path, logs)) as h:
        first = review_at(h, HERE)
        answer(h, first, "accept")
        second = review_at(h, HERE)
        taught = last_request(logs)["header"]
        answer(h, second, "No, we keep it unchecked here: wont-fix")
        answer(h, second, "dismiss wont-fix")
        third = review_at(h, HERE)
        refused = last_request(logs)["header"]
        with engine.begin() as conn:
            secret = persons.create_token(conn, ORG, "mona", now=h.clock()).secret
        brief = httpx.get(
            f"{h.url}/v1/brief",
            params={"repo": REPO, "session": "agent-1"},
            headers={"authorization": f"Bearer {secret}"},
            timeout=30,
        )

    assert f"- {lesson}" in taught and DISMISSED_HEADER not in taught
    assert len(suggestion_comments(h, second)) == 1
    assert f"- {lesson}" not in refused and DISMISSED_HEADER in refused
    assert suggestion_comments(h, third) == [] and len(withheld(engine, third)) == 1
    assert brief.status_code == 200, brief.text
    assert lesson not in brief.text


def test_the_listing_shows_the_dismissal_that_refuses_a_lesson_for_the_configured_days(
    engine: Engine, tmp_path: Path, logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = toml(tmp_path, logs, "[writeback]\nsuppress_days = 3\n")
    with harness(engine, tmp_path, config) as h:
        first = review_at(h, HERE)
        answer(h, first, "dismiss wont-fix")
        with engine.begin() as conn:
            secret = persons.create_token(conn, ORG, "mona", now=h.clock()).secret
        headers = {"authorization": f"Bearer {secret}"}
        listed = httpx.get(f"{h.url}/v1/recall", headers=headers, timeout=30)
        assert (
            cmd_recall(
                argparse.Namespace(repo=REPO, account=None, all=False, json=False), h.settings
            )
            == 0
        )
        printed = capsys.readouterr().out
        h.clock.advance(4 * DAY_MS / 1000)
        later = httpx.get(f"{h.url}/v1/recall", headers=headers, timeout=30)

    (receipt,) = rows(engine, Receipt)
    (lesson,) = listed.json()["lessons"]
    assert lesson["state"] == "candidate"
    refused = lesson["suppressed"]
    assert refused is not None and refused["until"] is not None
    assert {k: v for k, v in refused.items() if k != "until"} == {
        "reason": "wont-fix",
        "by": MAINTAINER,
        "receipt_id": receipt.id,
        "path": None,
    }
    assert f"suppressed repository-wide: dismissed (wont-fix) by {MAINTAINER}, until" in printed
    (expired,) = later.json()["lessons"]
    assert expired["suppressed"] is None, "three days from the dismissal, as configured"
