"""GitHub ids past 2^53 (beyond a float's exact range) and up to 2^63 - 1 are read exactly from a
webhook's JSON; past 64 bits they are refused; a thread's resolution reaches its route."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ghapp.envelopes import BadPayload, ReviewThreadEvent, check_values, parse
from ghapp.handlers.pulls import routes

PAST_FLOAT = 2**53 + 1  # a float would read 2^53
LARGEST = 2**63 - 1


def thread_payload(*, ids: int, sender: str = "octocat", kind: str = "User") -> dict[str, Any]:
    comment = {"id": ids, "body": "Finding", "user": {"login": "hindsight[bot]", "type": "Bot"}}
    return {
        "action": "resolved",
        "thread": {"node_id": "PRRT_x", "comments": [comment]},
        "pull_request": {"number": 7, "head": {"sha": "a" * 40}},
        "repository": {"id": ids, "full_name": "acme/widgets"},
        "installation": {"id": ids},
        "sender": {"login": sender, "type": kind, "id": ids},
    }


@pytest.mark.parametrize("ids", [PAST_FLOAT, LARGEST, 5_000_000_001])
def test_wide_ids_are_read_exactly(ids: int) -> None:
    body = json.dumps(thread_payload(ids=ids)).encode()
    payload = json.loads(body)
    check_values("pull_request_review_thread", payload, body)
    event = parse("pull_request_review_thread", ReviewThreadEvent, payload)
    assert event.installation is not None and event.installation.id == ids
    assert event.repository.id == ids
    assert event.thread.comments is not None and event.thread.comments[0].id == ids


@pytest.mark.parametrize("ids", [2**63, 2**64 + 1])
def test_ids_past_64_bits_are_refused(ids: int) -> None:
    body = json.dumps(thread_payload(ids=ids)).encode()
    with pytest.raises(BadPayload, match=r"installation\.id|repository\.id"):
        payload = json.loads(body)
        check_values("pull_request_review_thread", payload, body)
        parse("pull_request_review_thread", ReviewThreadEvent, payload)


def test_a_thread_without_its_thread_is_refused() -> None:
    payload = thread_payload(ids=PAST_FLOAT)
    del payload["thread"]
    with pytest.raises(BadPayload, match="thread"):
        parse("pull_request_review_thread", ReviewThreadEvent, payload)


@pytest.mark.parametrize(
    ("action", "sender", "kind", "routed"),
    [("resolved", "octocat", "User", True), ("unresolved", "octocat", "User", True),
     ("resolved", "tidy-up[bot]", "Bot", False), ("resolved", "tidy", "Bot", False),
     ("locked", "octocat", "User", False)],
)  # fmt: skip
def test_a_resolution_by_a_person_runs_the_write_back(
    action: str, sender: str, kind: str, routed: bool
) -> None:
    [route] = [r for r in routes() if r.event == "pull_request_review_thread"]
    payload = {**thread_payload(ids=PAST_FLOAT, sender=sender, kind=kind), "action": action}
    event = parse("pull_request_review_thread", ReviewThreadEvent, payload)
    taken = action in route.actions and (route.when is None or route.when(event))
    assert taken is routed and route.kind == "review_thread.writeback"


# Columns that hold an id the project makes itself (an autoincrement key, a reference to one).
OWN_IDS = {"receipt_id", "person_id", "publication_id"}
# The tables whose own `id` is GitHub's.
GITHUB_KEYED = {"accounts", "installations", "repositories"}


def test_every_github_id_column_is_64_bit() -> None:
    from sqlalchemy import BigInteger, Integer

    from ghapp.tables import METADATA

    narrow = []
    for table in METADATA.tables.values():
        for column in table.columns:
            is_id = column.name.endswith("_id") or (
                column.name == "id" and table.name in GITHUB_KEYED
            )
            narrow_int = isinstance(column.type, Integer) and not isinstance(
                column.type, BigInteger
            )
            if is_id and narrow_int and column.name not in OWN_IDS:
                narrow.append(f"{table.name}.{column.name}")
    assert narrow == []
    github_ids = {
        ("accounts", "id"), ("installations", "id"), ("repositories", "id"),
        ("suggestions", "comment_id"), ("judge_verdicts", "reply_id"),
        ("reviews", "github_review_id"), ("installations", "account_id"),
        ("repositories", "account_id"), ("jobs", "installation_id"),
    }  # fmt: skip
    for table, name in github_ids:
        assert isinstance(METADATA.tables[table].columns[name].type, BigInteger), (table, name)
