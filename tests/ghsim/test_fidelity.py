"""The simulator answers as GitHub's own published descriptions say GitHub does.

Every webhook the simulator delivers validates against its event's schema in
``@octokit/webhooks-schemas``, and every REST answer of an endpoint the app calls validates against
that operation's response schema in ``@octokit/openapi`` (GitHub's REST description). Both npm
packages are test dependencies pinned in ``tests/schemas/package.json``; ``.ci/run`` installs them.
"""

from __future__ import annotations

import copy
import functools
import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest

from ghsim import GitHubSimulator, addition_patch
from tests.support.simulator import (
    APP_ID,
    ORG,
    REPO,
    WebhookReceiver,
    app_jwt,
    app_key,
    wait_until,
)

MODULES = Path(__file__).resolve().parents[1] / "schemas" / "node_modules" / "@octokit"
OPENAPI = MODULES / "openapi" / "generated" / "api.github.com.json"
WEBHOOKS = MODULES / "webhooks-schemas" / "schema.json"
MISSING = (
    "GitHub's published schemas are not installed: run `npm ci --no-audit --no-fund` in "
    "tests/schemas (npm needed; .ci/run does it)"
)
pytestmark = pytest.mark.skipif(not (OPENAPI.is_file() and WEBHOOKS.is_file()), reason=MISSING)

SECRET = "fidelity-secret"
PATCH = addition_patch(["def f():", "    return 1", "", "x = f()"], start=10, context_before=2)
Json = dict[str, Any]


# --- the published schemas -------------------------------------------------------------------


@functools.cache
def webhook_definitions() -> Json:
    document: Json = json.loads(WEBHOOKS.read_text())
    return document["definitions"]  # type: ignore[no-any-return]


def webhook_schema(event: str, action: str | None) -> Json:
    """The JSON Schema of one event and action (``push`` has no action)."""
    name = f"{event}${action or 'event'}"
    definitions = webhook_definitions()
    assert name in definitions, f"no published schema for {name}"
    return {"$ref": f"#/definitions/{name}", "definitions": definitions}


def _nullable(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable: true`` spelled as JSON Schema (a ``null`` type or branch)."""
    if isinstance(node, list):
        return [_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _nullable(value) for key, value in node.items()}
    if out.pop("nullable", False) is True:
        if "type" in out:
            kinds = out["type"]
            out["type"] = [*([kinds] if isinstance(kinds, str) else kinds), "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@functools.cache
def openapi() -> Json:
    document: Json = json.loads(OPENAPI.read_text())
    return {"paths": document["paths"], "components": _nullable(document["components"])}


# Where the description contradicts itself: ``GET /app/installations`` inlines the installation
# with ``account: allOf [simple-user, enterprise]`` (no account is both), while its own
# ``installation`` component, which ``GET /app/installations/{id}`` uses, says ``anyOf``.
ERRATA: dict[tuple[str, str], Json] = {
    ("GET", "/app/installations"): {
        "type": "array",
        "items": {"$ref": "#/components/schemas/installation"},
    },
}


def response_schema(method: str, path: str, status: int) -> Json:
    """The JSON schema of the ``status`` answer to ``method path`` (a path template of the
    description), with the description's components beside it for its ``$ref``s."""
    document = openapi()
    assert path in document["paths"], f"{path} is not in GitHub's REST description"
    operation = document["paths"][path][method.lower()]
    response = operation["responses"][str(status)]
    if "$ref" in response:
        response = document["components"]["responses"][response["$ref"].rsplit("/", 1)[-1]]
    schema = ERRATA.get((method, path)) or _nullable(
        response["content"]["application/json"]["schema"]
    )
    return {**schema, "components": document["components"]}


def problems(value: Any, schema: Json) -> list[str]:
    validator = jsonschema.Draft7Validator(schema)
    return sorted(
        f"{'/'.join(map(str, error.absolute_path)) or '$'}: {error.message[:300]}"
        for error in validator.iter_errors(value)
    )


# --- webhooks --------------------------------------------------------------------------------


def drive_every_event(sim: GitHubSimulator) -> None:
    """Make the simulator send each event and action it knows, through its driver API."""
    installation = sim.add_installation(ORG, repositories=[REPO], installation_id=77)
    sim.add_repository(f"{ORG}/gadgets", installation_id=installation)
    sim.remove_repositories_from_installation(installation, [f"{ORG}/gadgets"])
    pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
    number = pull["number"]
    root = sim.add_review_comment(REPO, number, body="Rename this.", path="src/f.py", line=10)
    sim.reply(REPO, number, root["id"], "fixed", author="contributor")
    sim.reply(
        REPO, number, root["id"], "Noted.", author=sim.bot_login, user_type="Bot", via_app=True
    )
    sim.edit_comment(REPO, root["id"], "Rename this, please.")
    sim.add_review(REPO, number, body="Looks fine.")
    sim.add_issue_comment(REPO, number, "Thanks!", author="contributor")
    sim.synchronize(REPO, number, files={"src/f.py": PATCH, "src/g.py": PATCH})
    sim.push(REPO, {"README.md": "# widgets\n"})
    sim.close(REPO, number)
    sim.reopen(REPO, number)
    sim.close(REPO, number, merged=True, by="maintainer")
    extra = sim.add_review_comment(REPO, number, body="Gone soon.", path="src/f.py", line=11)
    sim.delete_comment(REPO, extra["id"])
    sim.suspend_installation(installation, by="octo-admin")
    sim.unsuspend_installation(installation)
    sim.delete_installation(installation)


EXPECTED_EVENTS = {
    ("installation", "created"),
    ("installation", "suspend"),
    ("installation", "unsuspend"),
    ("installation", "deleted"),
    ("installation_repositories", "added"),
    ("installation_repositories", "removed"),
    ("pull_request", "opened"),
    ("pull_request", "synchronize"),
    ("pull_request", "closed"),
    ("pull_request", "reopened"),
    ("pull_request_review_comment", "created"),
    ("pull_request_review_comment", "edited"),
    ("pull_request_review_comment", "deleted"),
    ("pull_request_review", "submitted"),
    ("issue_comment", "created"),
    ("push", None),
}


@functools.cache
def delivered() -> list[tuple[str, str | None, Json]]:
    """Every delivery of one scenario that drives each event: (event, action, body)."""
    with (
        GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim,
        WebhookReceiver() as receiver,
    ):
        sim.configure_webhooks(receiver.url, SECRET)
        drive_every_event(sim)
        assert wait_until(lambda: len(receiver.received) == len(sim.deliveries))
        return [(d.event, d.action, json.loads(d.body)) for d in sim.deliveries]


def test_the_scenario_sends_every_event_the_simulator_knows() -> None:
    assert {(event, action) for event, action, _ in delivered()} == EXPECTED_EVENTS


@pytest.mark.parametrize(
    ("event", "action"), sorted(EXPECTED_EVENTS, key=lambda pair: (pair[0], pair[1] or ""))
)
def test_every_webhook_validates_against_githubs_published_schema(
    event: str, action: str | None
) -> None:
    bodies = [
        body for e, a, body in delivered() if (e, a) == (event, action) and not _by_the_app(body)
    ]
    assert bodies
    schema = webhook_schema(event, action)
    for body in bodies:
        assert problems(body, schema) == []


def test_a_webhook_missing_a_required_field_is_refused() -> None:
    event, action, body = next(d for d in delivered() if d[:2] == ("pull_request", "opened"))
    broken = copy.deepcopy(body)
    del broken["pull_request"]["head"]
    assert any(
        "'head' is a required property" in p
        for p in problems(broken, webhook_schema(event, action))
    )
    wrong = copy.deepcopy(body)
    wrong["number"] = str(wrong["number"])
    assert problems(wrong, webhook_schema(event, action))


def _by_the_app(body: Json) -> bool:
    return bool(body.get("comment", {}).get("performed_via_github_app"))


@pytest.mark.xfail(
    strict=True,
    reason="pull_request_review_comment's comment has no performed_via_github_app in GitHub's "
    "schema (additionalProperties: false); the simulator still marks the app's own review "
    "comments with it, and the app's handlers read it to tell its own replies",
)
def test_the_apps_own_review_comment_webhook_validates() -> None:
    bodies = [body for e, _, body in delivered() if e == "pull_request_review_comment"]
    own = [body for body in bodies if _by_the_app(body)]
    assert own
    for body in own:
        schema = webhook_schema("pull_request_review_comment", body["action"])
        assert problems(body, schema) == []


# --- REST ------------------------------------------------------------------------------------

R = f"/repos/{REPO}"
T = "/repos/{owner}/{repo}"


@functools.cache
def answers() -> dict[tuple[str, str], tuple[int, Any]]:
    """The simulator's answer to each REST call the app makes, keyed by (method, the path
    template of GitHub's REST description)."""
    got: dict[tuple[str, str], tuple[int, Any]] = {}
    with (
        GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim,
        WebhookReceiver() as receiver,
        httpx.Client(base_url=sim.base_url, trust_env=False, timeout=5) as http,
    ):
        sim.configure_webhooks(receiver.url, SECRET)
        sim.add_installation(ORG, repositories=[REPO], installation_id=77)
        pull = sim.open_pull(REPO, files={"src/f.py": PATCH})
        n = pull["number"]
        root = sim.add_review_comment(REPO, n, body="Rename this.", path="src/f.py", line=10)
        sim.reply(REPO, n, root["id"], "fixed", author="contributor")
        sim.add_review(REPO, n, body="Looks fine.")
        sim.add_issue_comment(REPO, n, "Thanks!", author="contributor")
        sim.react(REPO, root["id"], "+1", by="contributor")
        sim.set_permission(REPO, "contributor", "write")
        base = pull["base"]["sha"]
        head = sim.synchronize(REPO, n, files={"src/f.py": PATCH, "src/g.py": PATCH})
        main = sim.push(REPO, {"hindsight.toml": "[review]\n"})

        jwt_auth = {"Authorization": f"Bearer {app_jwt(app_key())}"}

        def call(
            method: str, template: str, url: str, *, app: bool = False, body: Json | None = None
        ) -> Any:
            headers = jwt_auth if app else token
            answer = http.request(method, url, headers=headers, json=body)
            assert answer.status_code < 300, (method, url, answer.text)
            value = answer.json() if answer.content else None
            got[(method, template)] = (answer.status_code, value)
            return value

        token = {}
        minted = call(
            "POST",
            "/app/installations/{installation_id}/access_tokens",
            "/app/installations/77/access_tokens",
            app=True,
        )
        token = {"Authorization": f"token {minted['token']}"}
        call("GET", "/app", "/app", app=True)
        call("GET", "/app/installations", "/app/installations", app=True)
        call("GET", "/app/installations/{installation_id}", "/app/installations/77", app=True)
        attempts = call("GET", "/app/hook/deliveries", "/app/hook/deliveries", app=True)
        call(
            "POST",
            "/app/hook/deliveries/{delivery_id}/attempts",
            f"/app/hook/deliveries/{attempts[0]['id']}/attempts",
            app=True,
        )
        call("GET", "/installation/repositories", "/installation/repositories")
        call("GET", T, R)
        call("GET", f"{T}/installation", f"{R}/installation", app=True)
        call(
            "GET",
            f"{T}/collaborators/{{username}}/permission",
            f"{R}/collaborators/contributor/permission",
        )
        call("GET", f"{T}/pulls/{{pull_number}}", f"{R}/pulls/{n}")
        call("GET", f"{T}/pulls/{{pull_number}}/files", f"{R}/pulls/{n}/files")
        call("GET", f"{T}/pulls/{{pull_number}}/comments", f"{R}/pulls/{n}/comments")
        made = call(
            "POST",
            f"{T}/pulls/{{pull_number}}/comments",
            f"{R}/pulls/{n}/comments",
            body={
                "body": "Also here.",
                "commit_id": head,
                "path": "src/g.py",
                "line": 10,
                "side": "RIGHT",
            },
        )
        call(
            "POST",
            f"{T}/pulls/{{pull_number}}/comments/{{comment_id}}/replies",
            f"{R}/pulls/{n}/comments/{root['id']}/replies",
            body={"body": "Noted."},
        )
        call("GET", f"{T}/pulls/comments/{{comment_id}}", f"{R}/pulls/comments/{root['id']}")
        call(
            "PATCH",
            f"{T}/pulls/comments/{{comment_id}}",
            f"{R}/pulls/comments/{made['id']}",
            body={"body": "Also here, please."},
        )
        call(
            "GET",
            f"{T}/pulls/comments/{{comment_id}}/reactions",
            f"{R}/pulls/comments/{root['id']}/reactions",
        )
        call(
            "POST",
            f"{T}/pulls/comments/{{comment_id}}/reactions",
            f"{R}/pulls/comments/{root['id']}/reactions",
            body={"content": "eyes"},
        )
        review = call(
            "POST",
            f"{T}/pulls/{{pull_number}}/reviews",
            f"{R}/pulls/{n}/reviews",
            body={
                "commit_id": head,
                "event": "COMMENT",
                "body": "A review.",
                "comments": [
                    {"path": "src/g.py", "line": 11, "side": "RIGHT", "body": "And here."}
                ],
            },
        )
        call("GET", f"{T}/pulls/{{pull_number}}/reviews", f"{R}/pulls/{n}/reviews")
        call(
            "GET",
            f"{T}/pulls/{{pull_number}}/reviews/{{review_id}}",
            f"{R}/pulls/{n}/reviews/{review['id']}",
        )
        call(
            "GET",
            f"{T}/pulls/{{pull_number}}/reviews/{{review_id}}/comments",
            f"{R}/pulls/{n}/reviews/{review['id']}/comments",
        )
        note = call(
            "POST",
            f"{T}/issues/{{issue_number}}/comments",
            f"{R}/issues/{n}/comments",
            body={"body": "Status."},
        )
        call("GET", f"{T}/issues/{{issue_number}}/comments", f"{R}/issues/{n}/comments")
        call("GET", f"{T}/issues/comments/{{comment_id}}", f"{R}/issues/comments/{note['id']}")
        call(
            "PATCH",
            f"{T}/issues/comments/{{comment_id}}",
            f"{R}/issues/comments/{note['id']}",
            body={"body": "Status, updated."},
        )
        call(
            "GET",
            f"{T}/issues/comments/{{comment_id}}/reactions",
            f"{R}/issues/comments/{note['id']}/reactions",
        )
        call("GET", f"{T}/compare/{{basehead}}", f"{R}/compare/{base}...{head}")
        call("GET", f"{T}/git/trees/{{tree_sha}}", f"{R}/git/trees/{main}?recursive=1")
        call("GET", f"{T}/contents/{{path}}", f"{R}/contents/hindsight.toml?ref={main}")
        # A fix PR: the branch's head and tree, then a tree, a commit, a branch, a pull request.
        sim.grant(77, "contents", "write")
        tip = call("GET", f"{T}/commits/{{ref}}", f"{R}/commits/main")
        tree = call(
            "POST",
            f"{T}/git/trees",
            f"{R}/git/trees",
            body={
                "base_tree": tip["commit"]["tree"]["sha"],
                "tree": [{"path": "src/f.py", "mode": "100644", "type": "blob", "content": "x\n"}],
            },
        )
        commit = call(
            "POST",
            f"{T}/git/commits",
            f"{R}/git/commits",
            body={"message": "Fix", "tree": tree["sha"], "parents": [main]},
        )
        ref = {"ref": "refs/heads/hindsight/fix-s1", "sha": commit["sha"]}
        call("POST", f"{T}/git/refs", f"{R}/git/refs", body=ref)
        moved = {"sha": commit["sha"], "force": True}
        call("PATCH", f"{T}/git/refs/{{ref}}", f"{R}/git/refs/heads/hindsight/fix-s1", body=moved)
        call(
            "POST",
            f"{T}/pulls",
            f"{R}/pulls",
            body={"title": "Fix", "head": "hindsight/fix-s1", "base": "main", "body": "Fixes."},
        )
        call("DELETE", f"{T}/git/refs/{{ref}}", f"{R}/git/refs/heads/hindsight/fix-s1")
    return got


CALLS = [
    ("POST", "/app/installations/{installation_id}/access_tokens"),
    ("GET", "/app"),
    ("GET", "/app/installations"),
    ("GET", "/app/installations/{installation_id}"),
    ("GET", "/app/hook/deliveries"),
    ("POST", "/app/hook/deliveries/{delivery_id}/attempts"),
    ("GET", "/installation/repositories"),
    ("GET", T),
    ("GET", f"{T}/installation"),
    ("GET", f"{T}/collaborators/{{username}}/permission"),
    ("GET", f"{T}/pulls/{{pull_number}}"),
    ("GET", f"{T}/pulls/{{pull_number}}/files"),
    ("GET", f"{T}/pulls/{{pull_number}}/comments"),
    ("POST", f"{T}/pulls/{{pull_number}}/comments"),
    ("POST", f"{T}/pulls/{{pull_number}}/comments/{{comment_id}}/replies"),
    ("GET", f"{T}/pulls/comments/{{comment_id}}"),
    ("PATCH", f"{T}/pulls/comments/{{comment_id}}"),
    ("GET", f"{T}/pulls/comments/{{comment_id}}/reactions"),
    ("POST", f"{T}/pulls/comments/{{comment_id}}/reactions"),
    ("POST", f"{T}/pulls/{{pull_number}}/reviews"),
    ("GET", f"{T}/pulls/{{pull_number}}/reviews"),
    ("GET", f"{T}/pulls/{{pull_number}}/reviews/{{review_id}}"),
    ("GET", f"{T}/pulls/{{pull_number}}/reviews/{{review_id}}/comments"),
    ("POST", f"{T}/issues/{{issue_number}}/comments"),
    ("GET", f"{T}/issues/{{issue_number}}/comments"),
    ("GET", f"{T}/issues/comments/{{comment_id}}"),
    ("PATCH", f"{T}/issues/comments/{{comment_id}}"),
    ("GET", f"{T}/issues/comments/{{comment_id}}/reactions"),
    ("GET", f"{T}/compare/{{basehead}}"),
    ("GET", f"{T}/git/trees/{{tree_sha}}"),
    ("GET", f"{T}/contents/{{path}}"),
    ("GET", f"{T}/commits/{{ref}}"),
    ("POST", f"{T}/git/trees"),
    ("POST", f"{T}/git/commits"),
    ("POST", f"{T}/git/refs"),
    ("PATCH", f"{T}/git/refs/{{ref}}"),
    ("POST", f"{T}/pulls"),
    ("DELETE", f"{T}/git/refs/{{ref}}"),
]


# Answers the simulator does not yet give as GitHub does (strict: these fail once fixed).
NOT_YET: dict[tuple[str, str], str] = {}


def test_every_call_the_app_makes_is_checked() -> None:
    assert sorted(answers()) == sorted(CALLS)


@pytest.mark.parametrize(
    ("method", "template"),
    [
        pytest.param(
            m,
            t,
            id=f"{m} {t}",
            marks=[pytest.mark.xfail(strict=True, reason=NOT_YET[(m, t)])]
            if (m, t) in NOT_YET
            else [],
        )
        for m, t in CALLS
    ],
)
def test_every_rest_answer_validates_against_githubs_rest_description(
    method: str, template: str
) -> None:
    status, value = answers()[(method, template)]
    if status == 204:  # no content: the description declares none, and none was sent
        operation = openapi()["paths"][template][method.lower()]
        assert "content" not in operation["responses"]["204"] and value is None
        return
    assert problems(value, response_schema(method, template, status)) == []


def test_a_rest_answer_missing_a_required_field_is_refused() -> None:
    template = f"{T}/pulls/{{pull_number}}"
    status, value = answers()[("GET", template)]
    schema = response_schema("GET", template, status)
    broken = copy.deepcopy(value)
    del broken["head"]["sha"]
    assert any("'sha' is a required property" in p for p in problems(broken, schema))
    nulled = copy.deepcopy(value)
    nulled["title"] = None
    assert problems(nulled, schema)
    allowed = copy.deepcopy(value)
    allowed["body"] = None  # nullable in the description: still valid
    assert problems(allowed, schema) == []


def test_each_erratum_still_corrects_the_description() -> None:
    """An erratum the description no longer needs is dropped: this fails when GitHub fixes it."""
    raw = json.loads(OPENAPI.read_text())
    schema = raw["paths"]["/app/installations"]["get"]["responses"]["200"]["content"]
    account = schema["application/json"]["schema"]["items"]["properties"]["account"]
    assert [part["title"] for part in account["allOf"]] == ["Simple User", "Enterprise"]
    status, value = answers()[("GET", "/app/installations")]
    assert problems(
        value,
        {
            **_nullable(schema["application/json"]["schema"]),
            **{"components": openapi()["components"]},
        },
    )
    assert problems(value, response_schema("GET", "/app/installations", status)) == []
