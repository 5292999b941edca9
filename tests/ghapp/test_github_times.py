"""GitHub's answers read their times as they always have: Z, offsets, naive, absent, garbage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ghapp.github.errors import Rejected
from ghapp.github.threads import parse_page
from ghapp.github.values import HookDelivery, PullRequest, ReviewComment

NOON = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def test_rest_values_read_z_offsets_and_absent_times() -> None:
    pull = PullRequest.from_json(
        "o/r", {"number": 1, "id": 2, "merged_at": "2024-05-01T12:00:00Z", "closed_at": None}
    )
    assert pull.merged_at == NOON
    assert pull.closed_at is None
    comment = ReviewComment.from_json(
        {"id": 3, "created_at": "2024-05-01T14:00:00+02:00", "updated_at": ""}
    )
    assert comment.created_at == NOON
    assert comment.created_at is not None and comment.created_at.utcoffset() == timedelta(hours=2)
    assert comment.updated_at is None
    delivery = HookDelivery.from_json({"id": 4, "delivered_at": "2024-05-01T12:00:00"})
    assert delivery.delivered_at == datetime(2024, 5, 1, 12, 0)  # naive stays naive


def test_a_rest_value_with_a_garbage_time_is_refused() -> None:
    with pytest.raises(ValueError):
        PullRequest.from_json("o/r", {"number": 1, "id": 2, "merged_at": "soon"})


def _page(created_at: object, merged_at: object) -> dict[str, Any]:
    reaction = {"content": "THUMBS_UP", "user": {"login": "octocat", "__typename": "User"}}
    if created_at is not None:
        reaction["createdAt"] = created_at
    thread = {
        "comments": {
            "nodes": [{"fullDatabaseId": "5000000010", "reactions": {"nodes": [reaction]}}]
        }
    }
    pull = {
        "merged": True,
        "mergedAt": merged_at,
        "reviewThreads": {"nodes": [thread], "pageInfo": {"hasNextPage": False}},
    }
    return {"data": {"repository": {"pullRequest": pull}}}


def test_a_graphql_page_reads_z_and_offsets() -> None:
    page, cursor = parse_page(_page("2024-05-01T14:00:00+02:00", "2024-05-01T12:00:00Z"), "t", NOON)
    assert cursor is None
    assert page.merged_at == NOON
    assert page.threads[0].reactions[0].created_at == NOON


def test_a_graphql_page_with_a_missing_or_garbage_time_is_a_malformed_answer() -> None:
    with pytest.raises(Rejected, match="malformed"):
        parse_page(_page(None, "2024-05-01T12:00:00Z"), "t", NOON)
    with pytest.raises(Rejected, match="malformed"):
        parse_page(_page("2024-05-01T12:00:00Z", "later"), "t", NOON)
