"""The GitHub simulator answers like GitHub: auth, shapes, pagination, diffs, faults, webhooks."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ghsim import ApiError, GitHubSimulator, addition_patch, delivery_headers, sign
from tests.support.simulator import (
    APP_ID,
    ORG,
    REPO,
    WebhookReceiver,
    app_jwt,
    app_key,
    other_key,
    wait_until,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "webhooks"
SECRET = "webhook-secret-for-tests"
PATCH = addition_patch(["def f():", "    return 1", "", "x = f()"], start=10, context_before=2)


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as simulator:
        simulator.add_installation(ORG, repositories=[REPO], installation_id=77)
        yield simulator


@pytest.fixture
def http(sim: GitHubSimulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sim.base_url, trust_env=False, timeout=5) as client:
        yield client


def jwt_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {app_jwt(app_key())}"}


def token_headers(http: httpx.Client, installation_id: int = 77) -> dict[str, str]:
    answer = http.post(f"/app/installations/{installation_id}/access_tokens", headers=jwt_headers())
    assert answer.status_code == 201, answer.text
    return {"Authorization": f"token {answer.json()['token']}"}


# --- app authentication ---------------------------------------------------------------------


def test_app_answers_to_a_jwt_signed_with_the_app_key(http: httpx.Client) -> None:
    answer = http.get("/app", headers=jwt_headers())
    assert answer.status_code == 200
    assert answer.json()["id"] == APP_ID
    assert answer.json()["slug"] == "hindsight"
    assert answer.json()["owner"]["login"]


@pytest.mark.parametrize(
    "token",
    [
        pytest.param(lambda: app_jwt(other_key()), id="wrong-key"),
        pytest.param(lambda: app_jwt(app_key(), iss="999"), id="wrong-issuer"),
        pytest.param(lambda: app_jwt(app_key(), lifetime_s=3600), id="expiry-too-far"),
        pytest.param(lambda: app_jwt(app_key(), lifetime_s=-120), id="expired"),
        pytest.param(lambda: "not-a-jwt", id="garbage"),
    ],
)
def test_bad_jwts_are_rejected(http: httpx.Client, token: Any) -> None:
    answer = http.get("/app", headers={"Authorization": f"Bearer {token()}"})
    assert answer.status_code == 401
    assert answer.json()["message"]
    mint = http.post(
        "/app/installations/77/access_tokens", headers={"Authorization": f"Bearer {token()}"}
    )
    assert mint.status_code == 401


def test_access_token_is_minted_with_an_hour_of_life(
    http: httpx.Client, sim: GitHubSimulator
) -> None:
    answer = http.post("/app/installations/77/access_tokens", headers=jwt_headers())
    assert answer.status_code == 201
    body = answer.json()
    assert body["token"].startswith("ghs_")
    expires = time.mktime(time.strptime(body["expires_at"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    assert 3500 < expires - time.time() <= 3601
    assert body["permissions"]["pull_requests"] == "write"
    assert sim.token_mints(77) == 1


def test_installation_endpoints_need_the_owning_installations_token(
    http: httpx.Client, sim: GitHubSimulator
) -> None:
    sim.add_installation("other-org", repositories=["other-org/secret"], installation_id=88)
    headers = token_headers(http)
    assert http.get(f"/repos/{REPO}").status_code == 401
    assert (
        http.get(f"/repos/{REPO}", headers={"Authorization": "token ghs_madeup"}).status_code == 401
    )
    assert http.get(f"/repos/{REPO}", headers=jwt_headers()).status_code == 401
    assert http.get(f"/repos/{REPO}", headers=headers).status_code == 200
    assert http.get("/repos/other-org/secret", headers=headers).status_code == 404
    bearer = {"Authorization": headers["Authorization"].replace("token", "Bearer")}
    assert http.get(f"/repos/{REPO}", headers=bearer).status_code == 200


def test_tokens_expire_on_the_simulator_clock(http: httpx.Client, sim: GitHubSimulator) -> None:
    headers = token_headers(http)
    assert http.get(f"/repos/{REPO}", headers=headers).status_code == 200
    sim.advance_clock(3601)
    answer = http.get(f"/repos/{REPO}", headers=headers)
    assert answer.status_code == 401
    assert answer.json()["message"] == "Bad credentials"


def test_installation_listing_and_repo_installation(
    http: httpx.Client, sim: GitHubSimulator
) -> None:
    sim.add_installation("someone", account_type="User", repositories=["someone/tool"])
    installations = http.get("/app/installations", headers=jwt_headers()).json()
    assert {i["account"]["login"] for i in installations} == {ORG, "someone"}
    assert http.get(f"/repos/{REPO}/installation", headers=jwt_headers()).json()["id"] == 77
    repos = http.get("/installation/repositories", headers=token_headers(http)).json()
    assert repos["total_count"] == 1
    assert repos["repositories"][0]["full_name"] == REPO


def test_suspended_and_deleted_installations(http: httpx.Client, sim: GitHubSimulator) -> None:
    headers = token_headers(http)
    sim.suspend_installation(77)
    assert (
        http.post("/app/installations/77/access_tokens", headers=jwt_headers()).status_code == 403
    )
    assert http.get(f"/repos/{REPO}", headers=headers).status_code == 403
    sim.unsuspend_installation(77)
    assert http.get(f"/repos/{REPO}", headers=headers).status_code == 200
    sim.delete_installation(77)
    assert (
        http.post("/app/installations/77/access_tokens", headers=jwt_headers()).status_code == 404
    )
    assert http.get(f"/repos/{REPO}", headers=headers).status_code == 401


# --- pull requests, comments, reviews -------------------------------------------------------


def test_pull_and_files_have_githubs_shape(http: httpx.Client, sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO, title="Add f", body="Adds f", files={"src/f.py": PATCH})
    headers = token_headers(http)
    answer = http.get(f"/repos/{REPO}/pulls/{pull['number']}", headers=headers).json()
    fixture = json.loads((FIXTURES / "pull_request" / "opened.payload.json").read_text())
    assert set(fixture["pull_request"]) <= set(answer)
    assert answer["head"]["sha"] == pull["head"]["sha"]
    assert answer["additions"] == 4
    files = http.get(f"/repos/{REPO}/pulls/{pull['number']}/files", headers=headers).json()
    assert files[0]["filename"] == "src/f.py"
    assert (files[0]["additions"], files[0]["deletions"], files[0]["changes"]) == (4, 0, 4)
    assert files[0]["patch"] == PATCH


def test_review_comments_paginate_with_link_headers(
    http: httpx.Client, sim: GitHubSimulator
) -> None:
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    for index in range(250):
        sim.add_review_comment(REPO, pull["number"], body=f"c{index}", path="src/f.py", line=10)
    headers = token_headers(http)
    url = f"/repos/{REPO}/pulls/{pull['number']}/comments"
    first = http.get(url, headers=headers, params={"per_page": 100})
    assert len(first.json()) == 100
    assert first.links["next"]["url"].endswith("per_page=100&page=2")
    assert first.links["last"]["url"].endswith("page=3")
    last = http.get(first.links["last"]["url"], headers=headers)
    assert [c["body"] for c in last.json()] == [f"c{i}" for i in range(200, 250)]
    assert "next" not in last.links
    capped = http.get(url, headers=headers, params={"per_page": 500})
    assert len(capped.json()) == 100
    default = http.get(url, headers=headers)
    assert len(default.json()) == 30
    ids = [c["id"] for c in first.json()]
    assert ids == sorted(ids)


def test_review_posts_all_comments_atomically(http: httpx.Client, sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    headers = token_headers(http)
    url = f"/repos/{REPO}/pulls/{pull['number']}/reviews"
    good = {"path": "src/f.py", "line": 11, "body": "on an added line"}
    context = {"path": "src/f.py", "line": 8, "body": "on a context line"}
    outside = {"path": "src/f.py", "line": 40, "body": "outside the diff"}
    rejected = http.post(
        url, headers=headers, json={"body": "x", "event": "COMMENT", "comments": [good, outside]}
    )
    assert rejected.status_code == 422
    assert rejected.json()["errors"] == ["Line could not be resolved"]
    assert sim.review_comments(REPO, pull["number"]) == []
    assert sim.reviews(REPO, pull["number"]) == []
    unknown_path = {"path": "nope.py", "line": 11, "body": "?"}
    answer = http.post(url, headers=headers, json={"event": "COMMENT", "comments": [unknown_path]})
    assert answer.json()["errors"] == ["Path could not be resolved"]
    posted = http.post(
        url,
        headers=headers,
        json={"body": "summary", "event": "COMMENT", "comments": [good, context]},
    )
    assert posted.status_code == 200
    review = posted.json()
    assert review["state"] == "COMMENTED"
    assert review["user"] == {**review["user"], "login": "hindsight[bot]", "type": "Bot"}
    comments = sim.review_comments(REPO, pull["number"])
    assert [(c["line"], c["pull_request_review_id"]) for c in comments] == [
        (11, review["id"]),
        (8, review["id"]),
    ]
    assert comments[0]["performed_via_github_app"]["slug"] == "hindsight"
    assert comments[0]["commit_id"] == pull["head"]["sha"]
    assert comments[0]["diff_hunk"].startswith("@@ ")


def test_single_comment_outside_the_diff_is_422(http: httpx.Client, sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    headers = token_headers(http)
    url = f"/repos/{REPO}/pulls/{pull['number']}/comments"
    body = {"body": "b", "path": "src/f.py", "line": 3, "commit_id": pull["head"]["sha"]}
    answer = http.post(url, headers=headers, json=body)
    assert answer.status_code == 422
    assert answer.json()["message"] == "Validation Failed"
    assert http.post(url, headers=headers, json={**body, "line": 12}).status_code == 201
    with pytest.raises(ApiError) as caught:
        sim.add_review_comment(REPO, pull["number"], body="b", path="src/f.py", line=99)
    assert caught.value.status == 422


def test_replies_join_the_thread_of_the_first_comment(
    http: httpx.Client, sim: GitHubSimulator
) -> None:
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    number = pull["number"]
    root = sim.add_review_comment(
        REPO,
        number,
        body="root",
        path="src/f.py",
        line=10,
        author="hindsight[bot]",
        user_type="Bot",
        via_app=True,
        author_association="NONE",
    )
    human = sim.reply(
        REPO, number, root["id"], "accept", author="alice", author_association="OWNER"
    )
    assert human["in_reply_to_id"] == root["id"]
    assert human["author_association"] == "OWNER"
    assert human["performed_via_github_app"] is None
    headers = token_headers(http)
    via_api = http.post(
        f"/repos/{REPO}/pulls/{number}/comments/{human['id']}/replies",
        headers=headers,
        json={"body": "thanks"},
    )
    assert via_api.status_code == 201
    assert via_api.json()["in_reply_to_id"] == root["id"]
    legacy = http.post(
        f"/repos/{REPO}/pulls/{number}/comments",
        headers=headers,
        json={"body": "again", "in_reply_to": root["id"]},
    )
    assert legacy.json()["in_reply_to_id"] == root["id"]
    missing = http.post(
        f"/repos/{REPO}/pulls/{number}/comments/1/replies", headers=headers, json={"body": "x"}
    )
    assert missing.status_code == 404


def test_edit_and_delete_comments(http: httpx.Client, sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    comment = sim.add_review_comment(REPO, pull["number"], body="a", path="src/f.py", line=10)
    headers = token_headers(http)
    url = f"/repos/{REPO}/pulls/comments/{comment['id']}"
    assert http.patch(url, headers=headers, json={"body": "b"}).json()["body"] == "b"
    sim.edit_comment(REPO, comment["id"], "c")
    assert http.get(url, headers=headers).json()["body"] == "c"
    assert http.delete(url, headers=headers).status_code == 204
    assert http.get(url, headers=headers).status_code == 404
    other = sim.add_review_comment(REPO, pull["number"], body="d", path="src/f.py", line=10)
    sim.delete_comment(REPO, other["id"])
    assert sim.review_comments(REPO, pull["number"]) == []


def test_issue_comments_and_reactions(http: httpx.Client, sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    headers = token_headers(http)
    url = f"/repos/{REPO}/issues/{pull['number']}/comments"
    posted = http.post(url, headers=headers, json={"body": "hello"})
    assert posted.status_code == 201
    assert posted.json()["user"]["login"] == "hindsight[bot]"
    sim.add_issue_comment(REPO, pull["number"], "hi", author="bob")
    assert [c["body"] for c in http.get(url, headers=headers).json()] == ["hello", "hi"]
    comment = sim.add_review_comment(REPO, pull["number"], body="a", path="src/f.py", line=10)
    react = f"/repos/{REPO}/pulls/comments/{comment['id']}/reactions"
    assert http.post(react, headers=headers, json={"content": "eyes"}).status_code == 201
    assert http.post(react, headers=headers, json={"content": "eyes"}).status_code == 200
    assert http.post(react, headers=headers, json={"content": "party"}).status_code == 422
    assert [r["content"] for r in sim.reactions(REPO, comment["id"])] == ["eyes"]
    shaped = http.get(f"/repos/{REPO}/pulls/comments/{comment['id']}", headers=headers).json()
    assert shaped["reactions"]["eyes"] == 1
    issue_react = f"/repos/{REPO}/issues/comments/{posted.json()['id']}/reactions"
    assert http.post(issue_react, headers=headers, json={"content": "+1"}).status_code == 201


def test_compare_lists_commits_and_files(http: httpx.Client, sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO, author="carol", files={"src/f.py": PATCH})
    new_head = sim.synchronize(REPO, pull["number"], files={"src/f.py": PATCH, "README.md": PATCH})
    headers = token_headers(http)
    base = pull["base"]["sha"]
    answer = http.get(f"/repos/{REPO}/compare/{base}...{new_head}", headers=headers).json()
    assert answer["status"] == "ahead"
    assert answer["ahead_by"] == 2
    assert [c["sha"] for c in answer["commits"]][-1] == new_head
    assert answer["commits"][0]["author"]["login"] == "carol"
    assert {f["filename"] for f in answer["files"]} == {"src/f.py", "README.md"}
    by_branch = http.get(f"/repos/{REPO}/compare/main...{pull['head']['ref']}", headers=headers)
    assert by_branch.json()["ahead_by"] == 2
    assert http.get(f"/repos/{REPO}/compare/main...nope", headers=headers).status_code == 404


def test_closed_merged_and_reopened(sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO)
    merged = sim.close(REPO, pull["number"], merged=True, by="alice")
    assert (merged["state"], merged["merged"], merged["merged_by"]["login"]) == (
        "closed",
        True,
        "alice",
    )
    other = sim.open_pull(REPO)
    sim.close(REPO, other["number"])
    assert sim.reopen(REPO, other["number"])["state"] == "open"
    with pytest.raises(ApiError):
        sim.reopen(REPO, pull["number"])


def test_unknown_paths_and_methods_answer_json_404(http: httpx.Client) -> None:
    for method, path in [("GET", "/nowhere"), ("PUT", f"/repos/{REPO}/pulls/1"), ("POST", "/app")]:
        answer = http.request(method, path, headers=jwt_headers())
        assert answer.status_code == 404, (method, path)
        assert answer.json()["message"] == "Not Found"
    assert http.get("/app", headers=jwt_headers()).headers["x-ratelimit-remaining"] != "0"


# --- request log and faults -----------------------------------------------------------------


def test_every_request_is_logged_without_credentials(
    http: httpx.Client, sim: GitHubSimulator
) -> None:
    headers = token_headers(http)
    sim.open_pull(REPO)
    http.post(
        f"/repos/{REPO}/issues/1/comments", headers=headers, json={"body": "hi"}, params={"x": "1"}
    )
    entries = sim.requests("POST", r"/issues/\d+/comments$")
    assert len(entries) == 1
    entry = entries[0]
    assert (entry.status, entry.body, dict(entry.query), entry.auth) == (
        201,
        {"body": "hi"},
        {"x": "1"},
        "token",
    )
    token = headers["Authorization"].split()[1]
    assert token not in repr(sim.requests())
    assert sim.count() == 2
    sim.reset_log()
    assert sim.count() == 0


def test_faults_answer_a_bounded_number_of_times(http: httpx.Client, sim: GitHubSimulator) -> None:
    headers = token_headers(http)
    fault = sim.inject(
        "GET", rf"^/repos/{REPO}$", status=502, times=2, body="<html>bad gateway</html>"
    )
    statuses = [http.get(f"/repos/{REPO}", headers=headers).status_code for _ in range(3)]
    assert statuses == [502, 502, 200]
    assert fault.hits == 2
    sim.inject("*", "/pulls/", status=403, headers={"retry-after": "30"}, times=None)
    for _ in range(2):
        answer = http.get(f"/repos/{REPO}/pulls/1", headers=headers)
        assert (answer.status_code, answer.headers["retry-after"]) == (403, "30")
    sim.clear_faults()
    assert http.get(f"/repos/{REPO}/pulls/1", headers=headers).status_code == 404
    assert [e.status for e in sim.requests("GET", "/pulls/")] == [403, 403, 404]


def test_latency_is_injected(http: httpx.Client, sim: GitHubSimulator) -> None:
    headers = token_headers(http)
    sim.inject("GET", rf"^/repos/{REPO}$", latency_s=0.3)
    started = time.monotonic()
    assert http.get(f"/repos/{REPO}", headers=headers).status_code == 200
    assert time.monotonic() - started >= 0.3
    started = time.monotonic()
    http.get(f"/repos/{REPO}", headers=headers)
    assert time.monotonic() - started < 0.3


def test_a_request_whose_client_went_away_is_logged_once_answered(
    http: httpx.Client, sim: GitHubSimulator
) -> None:
    headers = token_headers(http)
    sim.reset_log()
    sim.inject("GET", rf"^/repos/{REPO}$", latency_s=2.0)
    with pytest.raises(httpx.TimeoutException):
        http.get(f"/repos/{REPO}", headers=headers, timeout=0.2)
    assert not sim.wait_quiet(timeout_s=0.05)  # still being answered: not logged yet
    assert sim.count() == 0
    assert sim.wait_quiet(timeout_s=10)
    assert [entry.path for entry in sim.requests()] == [f"/repos/{REPO}"]


# --- webhooks -------------------------------------------------------------------------------


def test_signature_is_hmac_sha256_of_the_body() -> None:
    body = b'{"zen":"Keep it logically awesome."}'
    expected = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert sign(SECRET, body) == f"sha256={expected}"
    headers = delivery_headers("ping", body, SECRET, app_id=APP_ID)
    assert headers["X-Hub-Signature-256"] == f"sha256={expected}"
    assert headers["X-GitHub-Hook-Installation-Target-ID"] == str(APP_ID)


def test_deliveries_are_signed_and_carry_githubs_headers(sim: GitHubSimulator) -> None:
    with WebhookReceiver() as receiver:
        sim.configure_webhooks(receiver.url, SECRET, emit=False)
        pull = sim.open_pull(REPO)
        delivery = sim.deliver(
            "pull_request", sim.payloads.pull_request("opened", REPO, pull["number"])
        )
        assert delivery.status == 202
        assert wait_until(lambda: len(receiver.received) == 1)
    received = receiver.received[0]
    digest = hmac.new(SECRET.encode(), received.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(received.headers["x-hub-signature-256"], f"sha256={digest}")
    assert received.headers["x-github-event"] == "pull_request"
    assert received.headers["x-github-delivery"] == delivery.id
    assert received.headers["x-github-hook-installation-target-id"] == str(APP_ID)
    assert received.headers["user-agent"].startswith("GitHub-Hookshot/")
    payload = json.loads(received.body)
    assert (payload["action"], payload["installation"]["id"]) == ("opened", 77)


def test_state_changes_emit_webhooks_when_configured(sim: GitHubSimulator) -> None:
    with WebhookReceiver() as receiver:
        sim.configure_webhooks(receiver.url, SECRET)
        pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
        root = sim.add_review_comment(REPO, pull["number"], body="r", path="src/f.py", line=10)
        sim.reply(REPO, pull["number"], root["id"], "fixed", author="alice")
        sim.edit_comment(REPO, root["id"], "r2")
        sim.synchronize(REPO, pull["number"])
        sim.close(REPO, pull["number"], merged=True)
        events = [(d.event, json.loads(d.body).get("action")) for d in sim.deliveries]
    assert events == [
        ("pull_request", "opened"),
        ("pull_request_review_comment", "created"),
        ("pull_request_review_comment", "created"),
        ("pull_request_review_comment", "edited"),
        ("pull_request", "synchronize"),
        ("pull_request", "closed"),
    ]
    edited = json.loads(sim.deliveries[3].body)
    assert edited["changes"] == {"body": {"from": "r"}}
    synchronize = json.loads(sim.deliveries[4].body)
    assert synchronize["before"] == pull["head"]["sha"] != synchronize["after"]
    closed = json.loads(sim.deliveries[5].body)
    assert closed["pull_request"]["merged"] is True
    assert all(d.status == 202 for d in sim.deliveries)


def _fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return loaded


def _missing(real: Any, ours: Any, where: str = "") -> list[str]:
    """Fields of a real payload our payload lacks, two levels deep (hypermedia *_url aside)."""
    if not isinstance(real, dict) or not isinstance(ours, dict) or where.count(".") > 2:
        return []
    if where.endswith(".permissions"):  # what was granted, not a shape
        return []
    found = [f"{where}.{key}" for key in real if key not in ours and not key.endswith("_url")]
    for key in set(real) & set(ours):
        found += _missing(real[key], ours[key], f"{where}.{key}")
    return found


def test_payloads_have_the_fields_of_real_payloads(sim: GitHubSimulator) -> None:
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    number = pull["number"]
    created = sim.add_review_comment(REPO, number, body="r", path="src/f.py", line=10)
    comment = sim.world.review_comments[created["id"]]
    issue_comment = sim.world.issue_comments[sim.add_issue_comment(REPO, number, "hi")["id"]]
    installation = sim.world.installation(77)
    payloads = sim.payloads
    built = [
        ("pull_request/opened.with-organization", payloads.pull_request("opened", REPO, number)),
        (
            "pull_request_review_comment/created.with-organization",
            payloads.review_comment("created", comment),
        ),
        (
            "issue_comment/created.with-organization",
            payloads.issue_comment("created", issue_comment),
        ),
        ("installation/created", payloads.installation("created", installation)),
        (
            "installation_repositories/added",
            payloads.installation_repositories("added", installation, added=[REPO]),
        ),
    ]
    for name, payload in built:
        real = _fixture(f"{name}.payload.json")
        assert _missing(real, payload) == [], name
    installation_json = built[3][1]["installation"]
    assert isinstance(installation_json["created_at"], int)
    assert built[2][1]["issue"]["pull_request"]["url"].endswith(f"/pulls/{number}")
