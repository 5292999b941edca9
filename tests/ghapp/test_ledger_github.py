"""`/ledger` sign-in with GitHub: the app's OAuth user flow against the simulator over loopback,
the person and maintainer check it ends in, and every way it refuses."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine, func, select

from continual.tables import Person
from ghapp.tables import LedgerSession
from ghsim import GitHubSimulator
from tests.support.browser import click_and_load
from tests.support.recall import NOW, Clock, api, seed
from tests.support.simulator import APP_ID, app_key

CALLBACK = "/ledger/github/callback"


@dataclass
class Flow:
    sim: GitHubSimulator
    url: str
    engine: Engine


@contextmanager
def _serve(
    engine: Engine, tmp_path: Path, sim: GitHubSimulator, secret: str | None = None
) -> Iterator[str]:
    options = {
        "github_api_url": sim.base_url,
        "github_client_id": sim.context.shapes.app()["client_id"],
        "github_client_secret": secret or sim.world.sign_ins.client_secret,
    }
    with api(engine, tmp_path, Clock(NOW), **options) as url:
        sim.world.sign_ins.callback_urls = [f"{url}{CALLBACK}"]
        yield url


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as simulator:
        simulator.add_installation("octo", repositories=["octo/app", "octo/lib"])
        simulator.set_permission("octo/app", "mona", "write")
        simulator.set_permission("octo/app", "eve", "read")
        simulator.set_permission("octo/lib", "ci-bot[bot]", "admin")
        yield simulator


@pytest.fixture
def flow(engine: Engine, tmp_path: Path, sim: GitHubSimulator) -> Iterator[Flow]:
    seed(engine, 1, "octo", "app", "lib")
    with _serve(engine, tmp_path, sim) as url:
        yield Flow(sim, url, engine)


def _to_github(client: httpx.Client) -> httpx.URL:
    """Press "Sign in with GitHub": where the app sends the browser."""
    answer = client.get("/ledger/github")
    assert answer.status_code == 302, answer.text
    return httpx.URL(answer.headers["location"])


def _authorize(sim: GitHubSimulator, target: httpx.URL, login: str, decision: str) -> str:
    """On GitHub's authorize page, as ``login``: where GitHub sends the browser back."""
    page = httpx.get(str(target))
    assert page.status_code == 200 and 'id="authorize"' in page.text
    fields = {**dict(target.params), "login": login, "decision": decision}
    back = httpx.post(f"{sim.base_url}/login/oauth/authorize", data=fields)
    assert back.status_code == 302, back.text
    return back.headers["location"]


def _sign_in(
    client: httpx.Client, sim: GitHubSimulator, login: str, decision: str = "authorize"
) -> httpx.Response:
    return client.get(_authorize(sim, _to_github(client), login, decision))


def _id(flow: Flow) -> int:
    (installation,) = flow.sim.world.installations.values()
    return installation.id


def _people(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return sorted(conn.execute(select(Person.login)).scalars())


def test_a_maintainer_signs_in_with_github_and_reads_the_ledger(flow: Flow) -> None:
    with httpx.Client(base_url=flow.url) as client:
        page = client.get("/ledger/sign-in")
        assert 'id="github-sign-in"' in page.text and 'name="token"' in page.text  # both stay
        target = _to_github(client)
        assert target.path == "/login/oauth/authorize"
        assert target.params["redirect_uri"] == f"{flow.url}{CALLBACK}"
        assert target.params["client_id"] == flow.sim.context.shapes.app()["client_id"]
        cookie = client.cookies.jar
        bound = [c for c in cookie if c.name == "hindsight_github"]
        assert bound and bound[0].path == "/ledger/github"
        back = client.get(_authorize(flow.sim, target, "mona", "authorize"))
        assert back.status_code == 200 and "Signed in with GitHub as" in back.text
        assert 'http-equiv="refresh"' in back.text
        ledger = client.get("/ledger")
        assert ledger.status_code == 200 and "signed in as mona" in ledger.text
    assert _people(flow.engine) == ["mona"]
    (exchange,) = flow.sim.requests("POST", "/login/oauth/access_token")
    assert exchange.headers.get("accept") == "application/json" and exchange.status == 200
    assert "client_secret" not in (exchange.body or {})  # the log keeps no secret
    read = [r.path for r in flow.sim.requests("GET") if r.path.startswith("/user")]
    assert read == ["/user", "/user/installations", f"/user/installations/{_id(flow)}/repositories"]


def test_the_session_ends_at_sign_out(flow: Flow) -> None:
    with httpx.Client(base_url=flow.url) as client:
        _sign_in(client, flow.sim, "mona")
        page = client.get("/ledger")
        csrf = page.text.split('name="csrf" value="', 1)[1].split('"', 1)[0]
        assert client.post("/ledger/sign-out", data={"csrf": csrf}).status_code == 303
        assert client.get("/ledger").status_code == 303
    with flow.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(LedgerSession)).scalar() == 0


@pytest.mark.parametrize(
    ("login", "status", "message"),
    [
        ("eve", 403, "has no admin, maintain or write permission"),  # read only
        ("stranger", 403, "has no admin, maintain or write permission"),  # no access at all
        ("ci-bot[bot]", 403, "is a bot account"),
    ],
)
def test_who_may_not_sign_in_is_refused(flow: Flow, login: str, status: int, message: str) -> None:
    with httpx.Client(base_url=flow.url) as client:
        back = _sign_in(client, flow.sim, login)
        assert back.status_code == status and message in back.text
        assert client.get("/ledger").status_code == 303
    assert _people(flow.engine) == []


def test_denying_access_on_github_signs_no_one_in(flow: Flow) -> None:
    with httpx.Client(base_url=flow.url) as client:
        back = _sign_in(client, flow.sim, "mona", decision="cancel")
        assert back.status_code == 400 and "did not authorize" in back.text
        assert client.get("/ledger").status_code == 303


def test_a_forged_missing_or_foreign_state_is_refused(flow: Flow) -> None:
    with httpx.Client(base_url=flow.url) as client, httpx.Client(base_url=flow.url) as other:
        location = httpx.URL(_authorize(flow.sim, _to_github(client), "mona", "authorize"))
        code, state = location.params["code"], location.params["state"]
        forged = client.get(CALLBACK, params={"code": code, "state": state[:-2] + "xx"})
        missing = client.get(CALLBACK, params={"code": code})
        # Another browser, which never started this sign-in, brings the same redirect back.
        foreign = other.get(str(location))
        for answer in (forged, missing, foreign):
            assert answer.status_code == 403 and "did not start in this browser" in answer.text
        assert other.get("/ledger").status_code == 303
    assert flow.sim.count("POST", "/login/oauth/access_token") == 0  # refused before GitHub


def test_a_state_is_used_once(flow: Flow) -> None:
    with httpx.Client(base_url=flow.url) as client:
        location = _authorize(flow.sim, _to_github(client), "mona", "authorize")
        kept = dict(client.cookies.items())
        assert client.get(location).status_code == 200
        for name, value in kept.items():  # the browser's cookies as they were, replayed
            client.cookies.set(name, value, path="/ledger/github")
        again = client.get(location)
    assert again.status_code == 403 and "was used already" in again.text


def test_a_wrong_or_expired_code_is_refused(flow: Flow) -> None:
    with httpx.Client(base_url=flow.url) as client:
        location = httpx.URL(_authorize(flow.sim, _to_github(client), "mona", "authorize"))
        wrong = client.get(CALLBACK, params={"code": "nope", "state": location.params["state"]})
        assert wrong.status_code == 400 and "wrong or expired" in wrong.text
        location = httpx.URL(_authorize(flow.sim, _to_github(client), "mona", "authorize"))
        flow.sim.advance_clock(11 * 60)  # GitHub's codes last ten minutes
        expired = client.get(str(location))
        assert expired.status_code == 400 and "wrong or expired" in expired.text
        assert client.get("/ledger").status_code == 303


@pytest.mark.parametrize("path", ["/login/oauth/access_token", "/user", "/user/installations"])
def test_github_failing_is_a_clear_page(flow: Flow, path: str) -> None:
    flow.sim.inject(None, f"^{path}$", status=502)
    with httpx.Client(base_url=flow.url) as client:
        back = _sign_in(client, flow.sim, "mona")
        assert back.status_code == 502 and "try again" in back.text
        assert "Traceback" not in back.text
        assert client.get("/ledger").status_code == 303


def test_a_wrong_client_secret_names_the_settings(
    engine: Engine, tmp_path: Path, sim: GitHubSimulator
) -> None:
    seed(engine, 1, "octo", "app", "lib")
    with (
        _serve(engine, tmp_path, sim, secret="not-the-secret") as url,
        httpx.Client(base_url=url) as client,
    ):
        back = _sign_in(client, sim, "mona")
    assert back.status_code == 502 and "HINDSIGHT_GITHUB_CLIENT_SECRET" in back.text


def test_several_accounts_ask_which_one(flow: Flow) -> None:
    seed(flow.engine, 2, "acme", "site")
    flow.sim.add_installation("acme", repositories=["acme/site"])
    flow.sim.set_permission("acme/site", "mona", "maintain")
    with httpx.Client(base_url=flow.url) as client:
        choose = _sign_in(client, flow.sim, "mona")
        assert choose.status_code == 200 and 'href="/ledger/github?account=acme"' in choose.text
        assert client.get("/ledger").status_code == 303
        chosen = client.get("/ledger/github", params={"account": "acme"})
        target = httpx.URL(chosen.headers["location"])
        assert client.get(_authorize(flow.sim, target, "mona", "authorize")).status_code == 200
        assert "acme" in client.get("/ledger").text


def test_without_an_oauth_client_only_tokens_sign_in(ledger_url: str) -> None:
    page = httpx.get(f"{ledger_url}/ledger/sign-in")
    assert 'name="token"' in page.text and "github-sign-in" not in page.text
    assert httpx.get(f"{ledger_url}/ledger/github").status_code == 404


def test_the_simulator_answers_the_exchange_as_github_does(flow: Flow) -> None:
    token_url = f"{flow.sim.base_url}/login/oauth/access_token"
    client_id = flow.sim.context.shapes.app()["client_id"]
    good = {"client_id": client_id, "client_secret": flow.sim.world.sign_ins.client_secret}
    json_accept = {"accept": "application/json"}
    bad_code = httpx.post(token_url, data={**good, "code": "x"}, headers=json_accept)
    assert bad_code.status_code == 200 and bad_code.json()["error"] == "bad_verification_code"
    wrong = httpx.post(
        token_url, data={**good, "client_secret": "no", "code": "x"}, headers=json_accept
    )
    assert wrong.json()["error"] == "incorrect_client_credentials"
    code = flow.sim.world.sign_ins.issue("mona", client_id, None)
    form = httpx.post(token_url, data={**good, "code": code})  # no Accept: form-encoded
    assert form.headers["content-type"].startswith("application/x-www-form-urlencoded")
    assert "access_token=ghu_" in form.text
    user = httpx.get(f"{flow.sim.base_url}/user", headers={"authorization": "token nope"})
    assert user.status_code == 401


def test_sign_in_with_github_in_headless_chromium(browser: Any, flow: Flow) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    flow.sim.world.sign_ins.web_user = "mona"  # signed in on GitHub's side already
    browser.get(f"{flow.url}/ledger")
    click_and_load(browser, browser.find_element(By.ID, "github-sign-in"))
    assert browser.current_url.startswith(f"{flow.sim.base_url}/login/oauth/authorize?")
    click_and_load(browser, browser.find_element(By.ID, "authorize"))
    # The callback's page moves on to the ledger by itself, carrying the new session cookie.
    WebDriverWait(browser, 10).until(lambda d: d.current_url == f"{flow.url}/ledger")
    header = browser.find_element(By.TAG_NAME, "header").text
    assert "signed in as mona" in header
