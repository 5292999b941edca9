"""`/ledger`'s "open a fix PR": a signed-in maintainer opens the fix PR of a suggestion still open
after its pull request merged, through the same path as `/fix`; everyone else is refused, and the
page says what came of it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine

from continual.markers import parse_fix_marker
from tests.support.app_harness import INSTALLATION_ID, Harness
from tests.support.browser import click_and_load
from tests.support.fix_prs import (
    FIXED,
    SEAT,
    SOURCE,
    answers,
    body_of,
    fix_pulls,
    planted,
    row,
    start,
)
from tests.support.ledger_page import csrf_of, sign_in
from tests.support.recall import token
from tests.support.simulator import REPO

ACCOUNT = REPO.partition("/")[0]


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    for harness in start(engine, database_url, tmp_path, f"{SEAT}[fixes]\nenabled = true\n"):
        harness.sim.grant(INSTALLATION_ID, "contents", "write")
        harness.sim.set_permission(REPO, "octocat", "write")
        yield harness


def merged(app: Harness, replacement: str | None = FIXED) -> tuple[int, str, int]:
    number, sid, comment = planted(app, replacement)
    app.sim.close(REPO, number, merged=True, by="octocat")
    app.settle()
    return number, sid, comment


@contextmanager
def signed_in(app: Harness, person: str = "octocat") -> Iterator[tuple[httpx.Client, str]]:
    with httpx.Client(base_url=app.url, timeout=30) as client:
        yield client, sign_in(client, token(app.engine, ACCOUNT, person))


def ask(client: httpx.Client, csrf: str, sid: str, repo: str = REPO) -> httpx.Response:
    return client.post(f"/ledger/suggestions/{sid}/fix", data={"csrf": csrf, "repo": repo})


def test_a_maintainer_opens_the_fix_pr_from_the_ledger_and_asking_again_links_it(
    app: Harness,
) -> None:
    _number, sid, comment = merged(app)
    with signed_in(app) as (client, csrf):
        page = client.get("/ledger", params={"repo": REPO})
        assert f'id="suggestion-{sid}"' in page.text
        assert f'action="/ledger/suggestions/{sid}/fix"' in page.text
        answer = ask(client, csrf, sid)
        (fix,) = fix_pulls(app)
        assert answer.status_code == 200
        assert f"Fix PR #{fix['number']} opened for suggestion {sid}" in answer.text
        assert f'/pull/{fix["number"]}" class="fix-pr"' in answer.text  # the button became a link
        again = ask(client, csrf_of(answer.text), sid)
    assert again.status_code == 200
    assert f"The fix PR for suggestion {sid} is #{fix['number']}." in again.text
    assert len(fix_pulls(app)) == 1
    assert fix["base"]["ref"] == "main" and parse_fix_marker(fix["body"]) == sid
    assert "@octocat asked from the Hindsight ledger" in fix["body"]
    changed = app.sim.files_at(REPO, f"hindsight/fix-{sid}")["src/app.py"]
    assert changed == SOURCE.replace("config = parse_config()", FIXED)
    assert f"**Hindsight fix PR:** #{fix['number']} (open)." in body_of(app, comment)
    assert answers(app, comment) == []  # the page said it; the thread is not written to


# GitHub's `permission` field says `read` for triage (its `role_name` says `triage`).
@pytest.mark.parametrize(
    ("permission", "shown"), [("read", "read"), ("triage", "read"), ("none", "none")]
)
def test_only_a_maintainer_of_the_repository_may_ask(
    app: Harness, permission: str, shown: str
) -> None:
    _number, sid, comment = merged(app)
    app.sim.set_permission(REPO, "mona", permission)
    app.sim.reset_log()
    with signed_in(app, "mona") as (client, csrf):
        answer = ask(client, csrf, sid)
    assert answer.status_code == 403
    assert "only a maintainer of" in answer.text and f"has {shown} there" in answer.text
    assert fix_pulls(app) == [] and answers(app, comment) == [] and row(app, sid) is None
    assert not [r for r in app.sim.requests() if "/git/" in r.path]


def test_an_open_pull_request_is_sent_to_fix_in_its_thread(app: Harness) -> None:
    _number, sid, _comment = planted(app)
    with signed_in(app) as (client, csrf):
        answer = ask(client, csrf, sid)
    assert answer.status_code == 409
    assert "is not merged (it is open)" in answer.text and "ask with `/fix`" in answer.text
    assert fix_pulls(app) == [] and row(app, sid) is None


def test_refusals_of_the_form_and_of_other_accounts(app: Harness) -> None:
    _number, sid, _comment = merged(app)
    with signed_in(app) as (client, csrf):
        forged = ask(client, "not-the-session's", sid)
        unknown = ask(client, csrf, "no-such-suggestion")
        elsewhere = ask(client, csrf, sid, repo="someone/else")
        malformed = ask(client, csrf, sid, repo="../../etc")
    assert forged.status_code == 403 and "not from your current session" in forged.text
    assert unknown.status_code == 404 and elsewhere.status_code == 404
    assert malformed.status_code == 422
    assert fix_pulls(app) == []
    with httpx.Client(base_url=app.url) as stranger:  # not signed in: sent to sign in
        answer = stranger.post(f"/ledger/suggestions/{sid}/fix", data={"repo": REPO})
    assert answer.status_code == 303 and answer.headers["location"] == "/ledger/sign-in"


def test_nothing_to_apply_and_githubs_errors_are_shown_on_the_page(app: Harness) -> None:
    _number, bare, bare_comment = merged(app, replacement=None)
    _number, sid, _comment = merged(app)
    with signed_in(app) as (client, csrf):
        nothing = ask(client, csrf, bare)
        app.sim.inject("POST", r"/git/trees$", status=502, times=1)
        failed = ask(client, csrf, sid)
        stored = row(app, sid)
        retried = ask(client, csrf, sid)  # the failed ask let go of its claim: this one opens
        app.sim.inject("GET", r"/pulls/\d+$", status=404, times=1)
        gone = ask(client, csrf, bare)
    assert nothing.status_code == 422 and "nothing to apply" in nothing.text
    assert "nothing to apply" in answers(app, bare_comment)[0]  # the thread is told too
    assert failed.status_code == 503 and "try again" in failed.text
    assert stored is not None and stored.state == "refused"
    (fix,) = fix_pulls(app)
    assert retried.status_code == 200 and f"Fix PR #{fix['number']} opened" in retried.text
    assert gone.status_code == 502 and "GitHub refused" in gone.text


def test_the_button_in_headless_chromium(app: Harness, browser: Any) -> None:
    from selenium.webdriver.common.by import By

    _number, sid, _comment = merged(app)
    browser.get(f"{app.url}/ledger/sign-in")
    browser.find_element(By.ID, "token").send_keys(token(app.engine, ACCOUNT, "octocat"))
    click_and_load(browser, browser.find_element(By.ID, "sign-in"))
    browser.get(f"{app.url}/ledger?repo={REPO}")
    row = browser.find_element(By.ID, f"suggestion-{sid}")
    click_and_load(browser, row.find_element(By.CSS_SELECTOR, "button[data-action=fix]"))
    (fix,) = fix_pulls(app)
    notice = browser.find_element(By.CSS_SELECTOR, "p.notice").text
    assert f"Fix PR #{fix['number']} opened for suggestion {sid}" in notice
    link = browser.find_element(By.ID, f"suggestion-{sid}").find_element(By.CLASS_NAME, "fix-pr")
    assert link.text == f"#{fix['number']}"
