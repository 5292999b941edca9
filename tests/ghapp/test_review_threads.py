"""Reactions and resolutions of review threads, read with GraphQL from the simulator over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from ghapp.github.client import GitHubClient, Rejected
from ghapp.github.errors import Gone
from ghapp.github.threads import (
    REVIEW_THREADS_QUERY,
    full_database_id,
    graphql_url,
    parse_page,
)
from ghsim import GitHubSimulator, addition_patch
from tests.support.simulator import APP_ID, ORG, REPO, FakeClock, app_key, make_client

INSTALLATION = 7_700_000_077  # beyond 32 bits, as GitHub's installation ids can be
_NOW = datetime(2026, 1, 1, tzinfo=UTC)
PATCH = addition_patch([f"value_{n} = {n}" for n in range(1, 201)], start=1)


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as simulator:
        simulator.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION)
        simulator.add_installation("elsewhere", repositories=["elsewhere/app"], installation_id=78)
        yield simulator


@pytest.fixture
def client(sim: GitHubSimulator) -> GitHubClient:
    return make_client(sim, clock=FakeClock())


def suggestion(sim: GitHubSimulator, number: int, line: int) -> int:
    found = sim.add_review_comment(
        REPO, number, body="Finding", path="src/values.py", line=line,
        author=sim.bot_login, author_association="NONE", user_type="Bot", via_app=True,
    )  # fmt: skip
    comment_id: int = found["id"]
    return comment_id


def threads_of(client: GitHubClient, number: int) -> dict[int, Any]:
    found = asyncio.run(client.installation(INSTALLATION).review_threads(REPO, number))
    return {thread.comment_id: thread for thread in found}


def test_reactions_and_resolution_of_each_thread(
    sim: GitHubSimulator, client: GitHubClient
) -> None:
    number = sim.open_pull(REPO, files={"src/values.py": PATCH})["number"]
    first, second = suggestion(sim, number, 3), suggestion(sim, number, 5)
    sim.reply(REPO, number, first, "I'd rather keep it")  # a reply is not a thread of its own
    sim.react(REPO, first, "+1", by="maintainer")
    sim.react(REPO, first, "eyes", by="renovate[bot]", user_type="Bot")
    sim.react(REPO, second, "-1", by="drive-by")
    sim.resolve_thread(REPO, second, by="maintainer")
    threads = threads_of(client, number)
    assert sorted(threads) == [first, second]
    assert min(threads) > 2**32  # ids as GitHub's are now: beyond 32 bits
    # A reaction's `user` is a `User` in GitHub's schema: a bot's reaction shows no one.
    assert [(r.login, r.is_bot, r.content) for r in threads[first].reactions] == [
        ("maintainer", False, "THUMBS_UP"),
    ]
    assert threads[first].resolved_by is None
    assert threads[second].resolved_by == "maintainer"
    assert [(r.login, r.content) for r in threads[second].reactions] == [
        ("drive-by", "THUMBS_DOWN")
    ]
    sim.resolve_thread(REPO, second, by="maintainer", resolved=False)
    assert threads_of(client, number)[second].resolved_by is None


def test_one_graphql_request_per_hundred_threads(
    sim: GitHubSimulator, client: GitHubClient
) -> None:
    number = sim.open_pull(REPO, files={"src/values.py": PATCH})["number"]
    made = [suggestion(sim, number, line) for line in range(1, 151)]
    sim.reset_log()
    threads = threads_of(client, number)
    assert sorted(threads) == made
    posts = sim.requests("POST", "^/graphql$")
    assert len(posts) == 2 and all(entry.auth == "token" for entry in posts)
    assert sim.count() == 3  # and one token mint


def test_a_pull_request_of_another_installation_is_refused(
    sim: GitHubSimulator, client: GitHubClient
) -> None:
    number = sim.open_pull("elsewhere/app", files={"src/values.py": PATCH})["number"]
    installation = client.installation(INSTALLATION)
    with pytest.raises(Rejected, match="GraphQL errors"):
        asyncio.run(installation.review_threads("elsewhere/app", number))
    with pytest.raises(Rejected):
        asyncio.run(installation.review_threads(REPO, 999))


def test_the_graphql_endpoint_beside_the_rest_base() -> None:
    assert graphql_url("https://api.github.com") == "https://api.github.com/graphql"
    assert graphql_url("https://ghe.example.com/api/v3/") == "https://ghe.example.com/api/graphql"
    assert graphql_url("http://127.0.0.1:8123") == "http://127.0.0.1:8123/graphql"


def test_the_pull_requests_head_author_and_merge(
    sim: GitHubSimulator, client: GitHubClient
) -> None:
    opened = sim.open_pull(REPO, files={"src/values.py": PATCH}, author="newcomer")
    number = opened["number"]
    suggestion(sim, number, 3)
    installation = client.installation(INSTALLATION)
    read = asyncio.run(installation.pull_threads(REPO, number))
    assert read.head_sha == opened["head"]["sha"] and read.merged_by is None
    assert read.author is not None and (read.author.login, read.author.is_bot) == (
        "newcomer",
        False,
    )
    assert read.author_association == "CONTRIBUTOR"
    sim.close(REPO, number, merged=True, by="merge-queue[bot]")
    merged = asyncio.run(installation.pull_threads(REPO, number))
    assert merged.merged_by is not None and merged.merged_by.is_bot and merged.merged_at is not None


@pytest.mark.parametrize(
    ("login", "set_to", "expected"),
    [("keeper", "maintain", "write"), ("helper", "write", "write"), ("reader", None, "read"),
     (ORG, None, "admin")],
)  # fmt: skip
def test_a_persons_permission(
    sim: GitHubSimulator, client: GitHubClient, login: str, set_to: str | None, expected: str
) -> None:
    if set_to is not None:
        sim.set_permission(REPO, login, set_to)
    found = asyncio.run(client.installation(INSTALLATION).collaborator_permission(REPO, login))
    assert found == expected


def test_the_app_edits_its_own_comment(sim: GitHubSimulator, client: GitHubClient) -> None:
    number = sim.open_pull(REPO, files={"src/values.py": PATCH})["number"]
    comment = suggestion(sim, number, 3)
    installation = client.installation(INSTALLATION)
    edited = asyncio.run(installation.edit_review_comment(REPO, comment, "Finding, now decided"))
    assert edited.body == "Finding, now decided" and edited.id == comment
    sim.inject("PATCH", rf"/pulls/comments/{comment}$", status=404)
    with pytest.raises(Gone):
        asyncio.run(installation.edit_review_comment(REPO, comment, "again"))


def test_the_graphql_answer_names_comments_by_full_database_id(sim: GitHubSimulator) -> None:
    number = sim.open_pull(REPO, files={"src/values.py": PATCH})["number"]
    comment = suggestion(sim, number, 3)
    sim.react(REPO, comment, "eyes", by="renovate[bot]", user_type="Bot")
    sim.resolve_thread(REPO, comment, by="helper[bot]")
    answer = asyncio.run(_raw_threads(sim, number))
    thread = answer["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"][0]
    first = thread["comments"]["nodes"][0]
    assert first["fullDatabaseId"] == str(comment) and first["databaseId"] is None
    # `Reaction.user` and `resolvedBy` are `User`: a bot there is null, never a `Bot`.
    assert first["reactions"]["nodes"][0]["user"] is None
    assert thread["isResolved"] is True and thread["resolvedBy"] is None


def test_a_query_the_simulator_cannot_run_answers_errors_with_data(sim: GitHubSimulator) -> None:
    answer = asyncio.run(_raw_threads(sim, 1, query="query { viewer { login } }"))
    assert answer["data"] is None and answer["errors"][0]["message"]


async def _raw_threads(sim: GitHubSimulator, number: int, query: str | None = None) -> Any:
    """The simulator's own GraphQL answer, as the app's client receives it."""
    installation = make_client(sim, clock=FakeClock()).installation(INSTALLATION)
    variables = {"owner": ORG, "name": REPO.split("/")[1], "number": number, "first": 100}
    body = {"query": query or REVIEW_THREADS_QUERY, "variables": variables}
    return await installation._json("POST", graphql_url(sim.base_url), "threads", body)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("5000000001", 5_000_000_001), (str(2**63 - 1), 2**63 - 1), (str(2**63), None),
     ("0", None), ("-5", None), ("+5", None), (" 5", None), ("5.0", None), ("1e9", None),
     ("", None), (5, None), (None, None), (True, None), ("0x10", None), ("٣", None)],
)  # fmt: skip
def test_a_full_database_id_is_read_strictly(value: object, expected: int | None) -> None:
    assert full_database_id(value) == expected


def test_a_thread_without_a_readable_id_is_counted_and_the_others_kept() -> None:
    def node(full: object) -> dict[str, Any]:
        comment = {"fullDatabaseId": full, "reactions": {"nodes": []}}
        return {"isResolved": False, "resolvedBy": None, "comments": {"nodes": [comment]}}

    nodes = [node("9007199254740993"), node(12), node(None), node(str(2**64)), node("7")]
    pull = {"headRefOid": "abc", "reviewThreads": {"pageInfo": {}, "nodes": nodes}}
    page, cursor = parse_page({"data": {"repository": {"pullRequest": pull}}}, "x", _NOW)
    assert [t.comment_id for t in page.threads] == [2**53 + 1, 7]
    assert page.unreadable == 3 and cursor is None


def test_graphql_errors_beside_partial_data_are_refused() -> None:
    answer = {"data": {"repository": None}, "errors": [{"type": "NOT_FOUND", "message": "gone"}]}
    with pytest.raises(Rejected, match="GraphQL errors"):
        parse_page(answer, "x", _NOW)
