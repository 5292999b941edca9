"""The GitHub client over real HTTP against the simulator: tokens, pagination, reviews, errors."""

from __future__ import annotations

import asyncio
import logging
import math
import ssl
import time
from collections.abc import Coroutine, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import pytest

from ghapp.github.client import GitHubClient, Rejected
from ghapp.github.errors import Forbidden, Gone, RetryAt, Transient, retry_time
from ghapp.github.installation import numbered_pages
from ghapp.github.values import DraftComment
from ghapp.settings import Settings
from ghsim import GitHubSimulator, addition_patch
from tests.support.simulator import (
    APP_ID,
    ORG,
    REPO,
    FakeClock,
    app_key,
    make_client,
    other_key,
)

T = TypeVar("T")
INSTALLATION = 77
PATCH = addition_patch([f"line_{n} = {n}" for n in range(1, 6)], start=20, context_before=1)
MINT = r"^/app/installations/\d+/access_tokens$"


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as simulator:
        simulator.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION)
        yield simulator


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(sim: GitHubSimulator, clock: FakeClock) -> GitHubClient:
    return make_client(sim, clock=clock)


@pytest.fixture
def pull(sim: GitHubSimulator) -> dict[str, Any]:
    return sim.open_pull(REPO, title="Add lines", files={"src/lines.py": PATCH})


# --- authentication and tokens ----------------------------------------------------------------


def test_get_app_authenticates_with_the_apps_jwt(
    client: GitHubClient, sim: GitHubSimulator
) -> None:
    app = run(client.get_app())
    assert (app.id, app.slug, app.bot_login) == (APP_ID, "hindsight", "hindsight[bot]")
    assert [entry.auth for entry in sim.requests("GET", "^/app$")] == ["jwt"]


def test_a_wrong_private_key_is_refused(sim: GitHubSimulator) -> None:
    client = make_client(sim, other_key())
    with pytest.raises(Forbidden, match="JWT"):
        run(client.get_app())
    with pytest.raises(Forbidden):
        run(client.installation(INSTALLATION).get_repository(REPO))
    assert [entry.status for entry in sim.requests()] == [401, 401]
    assert sim.token_mints() == 0


def test_one_token_mint_serves_many_calls(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]
) -> None:
    gh = client.installation(INSTALLATION)

    async def many() -> None:
        for _ in range(5):
            await gh.get_pull(REPO, pull["number"])
        await gh.list_pull_files(REPO, pull["number"])
        await client.installation(INSTALLATION).get_repository(REPO)

    run(many())
    assert sim.token_mints(INSTALLATION) == 1
    assert client.mints == 1
    assert {entry.auth for entry in sim.requests(path="^/repos/")} == {"token"}


def test_requests_share_the_clients_tls_context(
    client: GitHubClient,
    sim: GitHubSimulator,
    pull: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every request opens an HTTP client; none reads the CA bundle into a context of its own."""
    gh = client.installation(INSTALLATION)
    run(client.installation_token(INSTALLATION))
    built: list[object] = []
    create = ssl.create_default_context

    def counted(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        built.append(kwargs.get("cafile"))
        return create(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counted)

    async def reads() -> None:
        for _ in range(3):
            await gh.get_pull(REPO, pull["number"])
        await gh.list_pull_files(REPO, pull["number"])

    run(reads())
    assert sim.count("GET", "^/repos/") == 4
    assert built == []


def test_the_shared_tls_context_verifies_github() -> None:
    config = GitHubClient.build_config("https://api.github.com", 5, "ua", trust_env=False)
    context = config.ssl_verify
    assert isinstance(context, ssl.SSLContext)
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert context.cert_store_stats()["x509_ca"] > 0, "the CA bundle is loaded"


def test_concurrent_first_calls_mint_one_token(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]
) -> None:
    sim.inject("POST", MINT, latency_s=0.2)  # every caller arrives while the mint is in flight
    gh = client.installation(INSTALLATION)

    async def together() -> list[Any]:
        return await asyncio.gather(*(gh.get_pull(REPO, pull["number"]) for _ in range(20)))

    pulls = run(together())
    assert {p.head_sha for p in pulls} == {pull["head"]["sha"]}
    assert sim.count("POST", MINT) == 1


def test_one_mint_per_installation(client: GitHubClient, sim: GitHubSimulator) -> None:
    sim.add_installation("other-org", repositories=["other-org/tool"], installation_id=88)

    async def both() -> None:
        for _ in range(3):
            await client.installation(INSTALLATION).get_repository(REPO)
            await client.installation(88).get_repository("other-org/tool")

    run(both())
    assert (sim.token_mints(INSTALLATION), sim.token_mints(88)) == (1, 1)


def test_token_is_reused_for_55_minutes_then_reminted(
    client: GitHubClient, sim: GitHubSimulator, clock: FakeClock
) -> None:
    gh = client.installation(INSTALLATION)
    run(gh.get_repository(REPO))
    clock.advance(54 * 60)
    run(gh.get_repository(REPO))
    assert sim.token_mints() == 1
    clock.advance(2 * 60)
    run(gh.get_repository(REPO))
    assert sim.token_mints() == 2


def test_a_token_github_no_longer_accepts_is_dropped(
    client: GitHubClient, sim: GitHubSimulator
) -> None:
    gh = client.installation(INSTALLATION)
    run(gh.get_repository(REPO))
    sim.advance_clock(3601)  # GitHub considers the token expired; our clock does not
    with pytest.raises(Transient):
        run(gh.get_repository(REPO))
    assert run(gh.get_repository(REPO)).full_name == REPO
    assert sim.token_mints() == 2


def test_secrets_stay_out_of_reprs_and_logs(
    client: GitHubClient, sim: GitHubSimulator, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    gh = client.installation(INSTALLATION)
    run(gh.get_repository(REPO))
    token = run(client.installation_token(INSTALLATION))
    sim.inject("GET", "/pulls/", status=404)
    with pytest.raises(Gone):
        run(gh.get_pull(REPO, 1))
    key_body = app_key().private_pem.splitlines()[1]
    text = repr(client) + repr(gh) + caplog.text
    text += " ".join(repr(r.__dict__) for r in caplog.records)
    assert token not in text
    assert key_body not in text
    assert any(r.getMessage() == "github installation token minted" for r in caplog.records)


def test_client_from_settings_uses_the_configured_api_url(sim: GitHubSimulator) -> None:
    settings = Settings(
        github_app_id=APP_ID,
        github_private_key=app_key().private_pem,
        github_api_url=sim.base_url,
    )
    client = GitHubClient.from_settings(settings, trust_env=False)
    assert run(client.get_app()).id == APP_ID
    assert "PRIVATE" not in repr(client)


# --- reading ----------------------------------------------------------------------------------


@pytest.mark.parametrize("count", [0, 1, 100, 101, 250])
def test_review_comments_are_read_in_pages_of_100(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any], count: int
) -> None:
    for index in range(count):
        sim.add_review_comment(REPO, pull["number"], body=f"c{index}", path="src/lines.py", line=21)
    gh = client.installation(INSTALLATION)
    run(client.installation_token(INSTALLATION))
    sim.reset_log()
    comments = run(gh.list_review_comments(REPO, pull["number"]))
    assert [c.body for c in comments] == [f"c{index}" for index in range(count)]
    pages = sim.requests("GET", r"/pulls/\d+/comments$")
    assert len(pages) == max(math.ceil(count / 100), 1)
    assert [p.query.get("per_page") for p in pages] == ["100"] * len(pages)
    # page 1 first; the others, numbered by its links, are read at once
    assert pages[0].query.get("page", "1") == "1"
    read = sorted(int(p.query.get("page", "1")) for p in pages)
    assert read == list(range(1, len(pages) + 1))
    assert sim.count() == len(pages)


def test_pages_are_numbered_only_from_links_of_one_list() -> None:
    base = "https://api.github.com/repos/o/r/pulls/1/files"
    pages = numbered_pages(f"{base}?per_page=100&page=2", f"{base}?per_page=100&page=4")
    assert pages == [f"{base}?per_page=100&page={n}" for n in (2, 3, 4)]
    # cursor pagination, another list, a next that is not page 2, too many pages, no last
    assert numbered_pages(f"{base}?after=Y3Vyc29y", f"{base}?before=eA") == []
    assert numbered_pages(f"{base}?page=2", f"{base}/other?page=4") == []
    assert numbered_pages(f"{base}?page=3", f"{base}?page=4") == []
    assert numbered_pages(f"{base}?page=2", f"{base}?page=31") == []
    assert numbered_pages(f"{base}?page=2", None) == []
    assert numbered_pages(f"{base}?page=x", f"{base}?page=4") == []


def test_threads_authors_and_bots_are_read_back(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]
) -> None:
    number = pull["number"]
    gh = client.installation(INSTALLATION)
    run(
        gh.create_review(
            REPO,
            number,
            commit_id=pull["head"]["sha"],
            body="",
            comments=[DraftComment("src/lines.py", 22, "use a loop")],
        )
    )
    root = sim.review_comments(REPO, number)[0]
    sim.reply(REPO, number, root["id"], "accept", author="alice", author_association="OWNER")
    sim.reply(
        REPO,
        number,
        root["id"],
        "dismiss",
        author="ci",
        user_type="Bot",
        via_app=True,
        author_association="NONE",
    )
    first, human, bot = run(gh.list_review_comments(REPO, number))
    assert (first.by_bot, first.via_app, first.user.login) == (True, "hindsight", "hindsight[bot]")
    assert (first.path, first.line, first.side) == ("src/lines.py", 22, "RIGHT")
    assert (human.in_reply_to_id, human.author_association, human.by_bot) == (
        first.id,
        "OWNER",
        False,
    )
    assert (bot.in_reply_to_id, bot.by_bot, bot.user.is_bot) == (first.id, True, True)
    assert human.created_at is not None and human.created_at.tzinfo is not None


def test_pull_files_repositories_and_installations(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]
) -> None:
    gh = client.installation(INSTALLATION)
    got = run(gh.get_pull(REPO, pull["number"]))
    assert (got.repository, got.title, got.state, got.merged) == (REPO, "Add lines", "open", False)
    assert (got.head_sha, got.base_ref) == (pull["head"]["sha"], "main")
    (changed,) = run(gh.list_pull_files(REPO, pull["number"]))
    assert (changed.filename, changed.additions, changed.patch) == ("src/lines.py", 5, PATCH)
    assert [r.full_name for r in run(gh.list_repositories())] == [REPO]
    (installation,) = run(client.list_installations())
    assert (installation.id, installation.account.login, installation.suspended) == (
        INSTALLATION,
        ORG,
        False,
    )
    assert run(client.get_repo_installation(REPO)).id == INSTALLATION


def test_compare_issue_comments_replies_and_reactions(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]
) -> None:
    number = pull["number"]
    head = sim.synchronize(REPO, number, files={"src/lines.py": PATCH, "docs/x.md": PATCH})
    gh = client.installation(INSTALLATION)
    comparison = run(gh.compare(REPO, pull["head"]["sha"], head))
    assert (comparison.status, comparison.ahead_by, comparison.commits[-1].sha) == (
        "ahead",
        1,
        head,
    )
    posted = run(gh.create_issue_comment(REPO, number, "summary"))
    assert (posted.body, posted.by_bot) == ("summary", True)
    assert [c.body for c in run(gh.list_issue_comments(REPO, number))] == ["summary"]
    root = sim.add_review_comment(REPO, number, body="q", path="src/lines.py", line=20)
    reply = run(gh.reply_to_review_comment(REPO, number, root["id"], "answer"))
    assert reply.in_reply_to_id == root["id"]
    reaction = run(gh.add_reaction(REPO, root["id"], "eyes"))
    assert (reaction.content, reaction.user.login) == ("eyes", "hindsight[bot]")
    run(gh.add_reaction(REPO, posted.id, "rocket", on="issue_comment"))
    assert [r["content"] for r in sim.reactions(REPO, posted.id, kind="issues")] == ["rocket"]


# --- writing a review -------------------------------------------------------------------------


def test_create_review_is_one_request_with_every_comment(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]
) -> None:
    gh = client.installation(INSTALLATION)
    run(client.installation_token(INSTALLATION))
    sim.reset_log()
    drafts = [DraftComment("src/lines.py", line, f"finding {line}") for line in range(19, 25)]
    drafts.append(DraftComment("src/lines.py", 23, "a range", start_line=21))
    review = run(
        gh.create_review(
            REPO,
            pull["number"],
            commit_id=pull["head"]["sha"],
            body="Hindsight review",
            comments=drafts,
        )
    )
    assert [(e.method, e.status) for e in sim.requests()] == [("POST", 200)]
    assert (review.state, review.body, review.user.login) == (
        "COMMENTED",
        "Hindsight review",
        "hindsight[bot]",
    )
    posted = sim.review_comments(REPO, pull["number"])
    assert [(c["line"], c["body"]) for c in posted] == [(d.line, d.body) for d in drafts]
    assert {c["pull_request_review_id"] for c in posted} == {review.id}
    assert posted[-1]["start_line"] == 21
    of_review = run(gh.list_review_comments_of_review(REPO, pull["number"], review.id))
    assert len(of_review) == len(drafts)


def test_a_comment_outside_the_diff_rejects_the_whole_review(
    client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]
) -> None:
    gh = client.installation(INSTALLATION)
    drafts = [DraftComment("src/lines.py", 21, "fine"), DraftComment("src/lines.py", 90, "off")]
    with pytest.raises(Rejected) as caught:
        run(
            gh.create_review(
                REPO, pull["number"], commit_id=pull["head"]["sha"], body="x", comments=drafts
            )
        )
    assert caught.value.status == 422
    assert "Line could not be resolved" in str(caught.value)
    assert sim.review_comments(REPO, pull["number"]) == []
    assert sim.count("POST", "/reviews$") == 1


# --- errors -----------------------------------------------------------------------------------


def test_404_is_gone(client: GitHubClient, sim: GitHubSimulator, pull: dict[str, Any]) -> None:
    gh = client.installation(INSTALLATION)
    with pytest.raises(Gone):
        run(gh.get_pull(REPO, 999))
    comment = sim.add_review_comment(REPO, pull["number"], body="b", path="src/lines.py", line=21)
    sim.delete_comment(REPO, comment["id"])
    with pytest.raises(Gone, match=str(comment["id"])):
        run(gh.get_review_comment(REPO, comment["id"]))
    sim.inject("GET", "/pulls/", status=410)
    with pytest.raises(Gone):
        run(gh.get_pull(REPO, pull["number"]))


def test_403_with_retry_after_is_retry_at(
    client: GitHubClient, sim: GitHubSimulator, clock: FakeClock
) -> None:
    sim.inject(
        "GET",
        f"^/repos/{REPO}$",
        status=403,
        headers={"retry-after": "120"},
        body={"message": "You have exceeded a secondary rate limit."},
    )
    with pytest.raises(RetryAt) as caught:
        run(client.installation(INSTALLATION).get_repository(REPO))
    assert caught.value.at == clock.now + timedelta(seconds=120)


def test_403_with_exhausted_budget_waits_for_the_reset(
    client: GitHubClient, sim: GitHubSimulator, clock: FakeClock
) -> None:
    reset = int(clock.now.timestamp()) + 900
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
    sim.inject("GET", f"^/repos/{REPO}$", status=403, headers=headers)
    with pytest.raises(RetryAt) as caught:
        run(client.installation(INSTALLATION).get_repository(REPO))
    assert caught.value.at == datetime.fromtimestamp(reset, UTC)


def test_429_with_reset_is_retry_at(
    client: GitHubClient, sim: GitHubSimulator, clock: FakeClock
) -> None:
    reset = int(clock.now.timestamp()) + 300
    sim.inject("GET", "/pulls/", status=429, headers={"x-ratelimit-reset": str(reset)})
    with pytest.raises(RetryAt) as caught:
        run(client.installation(INSTALLATION).get_pull(REPO, 1))
    assert caught.value.at == datetime.fromtimestamp(reset, UTC)


def test_plain_403_is_forbidden(client: GitHubClient, sim: GitHubSimulator) -> None:
    sim.inject(
        "POST", "/reviews$", status=403, body={"message": "Resource not accessible by integration"}
    )
    with pytest.raises(Forbidden, match="not accessible"):
        run(client.installation(INSTALLATION).create_review(REPO, 1, commit_id="a", body="b"))


def test_502_is_transient_and_not_retried(client: GitHubClient, sim: GitHubSimulator) -> None:
    gh = client.installation(INSTALLATION)
    run(client.installation_token(INSTALLATION))
    sim.reset_log()
    sim.inject("GET", "/repos/", status=502, times=3, body="<html>Bad Gateway</html>")
    started = time.monotonic()
    for _ in range(3):
        with pytest.raises(Transient):
            run(gh.get_repository(REPO))
    assert time.monotonic() - started < 2
    assert [e.status for e in sim.requests()] == [502, 502, 502]
    assert run(gh.get_repository(REPO)).full_name == REPO


def test_slow_answers_time_out_as_transient(sim: GitHubSimulator) -> None:
    client = make_client(sim, timeout_s=0.2)
    gh = client.installation(INSTALLATION)
    run(client.installation_token(INSTALLATION))
    sim.inject("GET", f"^/repos/{REPO}$", latency_s=0.6)
    with pytest.raises(Transient, match="timed out"):
        run(gh.get_repository(REPO))
    sim.inject("GET", f"^/repos/{REPO}$", latency_s=0.1)
    started = time.monotonic()
    assert run(gh.get_repository(REPO)).full_name == REPO
    assert time.monotonic() - started >= 0.1


def test_unreachable_github_is_transient(sim: GitHubSimulator) -> None:
    client = make_client(sim)
    sim.stop()
    with pytest.raises(Transient, match="could not reach"):
        run(client.get_app())


def test_retry_time_rules() -> None:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    http_date = {"retry-after": "Wed, 01 Jan 2025 00:10:00 GMT"}
    assert retry_time(403, http_date, "", now) == now + timedelta(minutes=10)
    past = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(now.timestamp()) - 5)}
    assert retry_time(403, past, "", now) == now
    ordinary = {"x-ratelimit-remaining": "4999", "x-ratelimit-reset": "1735689600"}
    assert retry_time(403, ordinary, "Resource not accessible by integration", now) is None
    assert retry_time(
        403, ordinary, "You have exceeded a secondary rate limit", now
    ) == now + timedelta(seconds=60)
    assert retry_time(429, {}, "", now) == now + timedelta(seconds=60)
