"""The door's bot checks are the core's one rule: a `[bot]` login in any case, type Bot, or a
comment made via an app is a bot's, in REST values, GraphQL actors and the webhook routes alike."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

import pytest

from ghapp.github.threads import parse_page
from ghapp.github.values import GitHubUser
from ghapp.handlers import build_router
from tests.conftest import FIXTURES

COMMENTED = json.loads(
    (FIXTURES / "pull_request_review_comment" / "created.payload.json").read_text()
)
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def comment_by(login: str, kind: str = "User", *, via_app: bool = False) -> dict[str, Any]:
    payload: dict[str, Any] = copy.deepcopy(COMMENTED)
    payload["comment"]["user"] = {"login": login, "id": 7, "type": kind}
    payload["comment"]["performed_via_github_app"] = {"id": 1, "slug": "ci"} if via_app else None
    return payload


def test_a_rest_user_is_a_bot_by_type_or_by_its_suffix_in_any_case() -> None:
    assert GitHubUser.from_json({"login": "Helper[BOT]", "id": 1, "type": "User"}).is_bot
    assert GitHubUser.from_json({"login": "helper", "id": 1, "type": "Bot"}).is_bot
    assert not GitHubUser.from_json({"login": "octocat", "id": 1, "type": "User"}).is_bot


def test_a_graphql_actor_is_a_bot_by_typename_or_by_its_suffix_in_any_case() -> None:
    pull = {
        "merged": True,
        "mergedAt": "2026-01-01T00:00:00Z",
        "author": {"__typename": "User", "login": "Renovate[BOT]"},
        "mergedBy": {"__typename": "Bot", "login": "queue"},
        "reviewThreads": {"nodes": []},
    }
    page, _ = parse_page({"data": {"repository": {"pullRequest": pull}}}, "threads", NOW)
    assert page.author is not None and page.author.is_bot
    assert page.merged_by is not None and page.merged_by.is_bot


@pytest.mark.parametrize(
    ("login", "kind", "via_app"),
    [("Helper[BOT]", "User", False), ("helper", "Bot", False), ("octocat", "User", True)],
    ids=["suffix-case", "type", "via-app"],
)
def test_a_bots_comment_runs_no_write_back(login: str, kind: str, via_app: bool) -> None:
    router = build_router()
    event = "pull_request_review_comment"
    assert [j.kind for j in router.jobs_for(event, comment_by("octocat"))] == [
        "review_comment.writeback"
    ], "a person's comment runs the write-back"
    assert router.jobs_for(event, comment_by(login, kind, via_app=via_app)) == []
