"""`hindsight setup`: GitHub's manifest flow from app.yml, driven in headless Chromium against the
simulator, and every way it refuses to go on."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from ghapp.github.client import GitHubClient
from ghapp.registration import GitHubSite, Registration, RegistrationError, load_manifest
from ghapp.registration.files import Credentials, env_text
from ghapp.settings import Settings
from ghapp.web.github import CALLBACK
from ghsim import GitHubSimulator, generate_app_key
from tests.support.browser import click_and_load
from tests.support.setup import Setup, register_in_browser
from tests.support.simulator import APP_ID, ORG, REPO, app_key
from tests.support.web import serve

ROOT = Path(__file__).resolve().parents[2]
APP_YML = ROOT / "ghapp" / "registration" / "app.yml"
WEBHOOK_URL = "https://hindsight.test.invalid/webhooks"


@pytest.fixture
def sim() -> Iterator[GitHubSimulator]:
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as simulator:
        yield simulator


def _simulated(sim: GitHubSimulator) -> list[str]:
    return ["--github-url", sim.base_url, "--api-url", sim.base_url, "--manifest", str(APP_YML)]


def _env(path: Path) -> dict[str, str]:
    lines = [x for x in path.read_text().splitlines() if x and not x.startswith("#")]
    return dict(x.split("=", 1) for x in lines)


def test_setup_registers_the_app_in_a_browser_and_the_app_then_works(
    browser: Any, sim: GitHubSimulator, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    setup = Setup(
        [*_simulated(sim), "--webhook-url", WEBHOOK_URL, "--name", "Hindsight Test"], tmp_path
    )
    try:
        page = setup.page_url()
        browser.get(page)
        click_and_load(browser, browser.find_element(By.ID, "register"))
        # On GitHub's (the simulator's) new-app page: the manifest as app.yml has it.
        assert browser.current_url.startswith(f"{sim.base_url}/settings/apps/new?state=")
        shown = json.loads(browser.find_element(By.ID, "manifest").text)
        declared = yaml.safe_load(APP_YML.read_text())
        assert shown["name"] == "Hindsight Test"
        assert shown["default_permissions"] == declared["default_permissions"]
        assert shown["default_events"] == declared["default_events"]
        assert shown["hook_attributes"] == {"url": WEBHOOK_URL, "active": True}
        # The homepage and the OAuth callback follow --name, --github-url and --webhook-url.
        assert shown["url"] == f"{sim.base_url}/apps/hindsight-test"
        assert shown["callback_urls"] == ["https://hindsight.test.invalid" + CALLBACK]
        assert shown["redirect_url"] == page.rstrip("/") + "/callback"
        click_and_load(browser, browser.find_element(By.ID, "create"))
        assert browser.current_url.startswith(page.rstrip("/") + "/callback?code=")
        assert "is registered" in browser.find_element(By.ID, "done").text
        code, output = setup.finish()
    finally:
        setup.kill()
    assert code == 0, output
    assert f"registered: Hindsight Test (app {sim.world.app_id}, slug hindsight-test)" in output
    assert "hindsight init" in output and "hindsight serve" in output

    env_file, key_file = tmp_path / ".env", tmp_path / "hindsight.private-key.pem"
    for path in (env_file, key_file):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    values = _env(env_file)
    assert values["HINDSIGHT_GITHUB_APP_ID"] == str(sim.world.app_id) != str(APP_ID)
    assert values["HINDSIGHT_APP_SLUG"] == "hindsight-test"
    assert values["HINDSIGHT_GITHUB_PRIVATE_KEY_FILE"] == str(key_file.resolve())
    assert values["HINDSIGHT_GITHUB_API_URL"] == sim.base_url
    # The app's OAuth client, for Sign in with GitHub; the header names the app as registered.
    assert values["HINDSIGHT_GITHUB_CLIENT_ID"] == sim.context.shapes.app()["client_id"]
    assert values["HINDSIGHT_GITHUB_CLIENT_SECRET"] == sim.world.sign_ins.client_secret
    header = env_file.read_text().splitlines()[0]
    assert header.endswith(f"Hindsight Test ({sim.base_url}/apps/hindsight-test).")
    assert "github.com/apps/hindsight" not in env_file.read_text()
    assert len(values["HINDSIGHT_WEBHOOK_SECRET"]) >= 32
    assert key_file.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    (conversion,) = [r for r in sim.log.entries() if r.path.startswith("/app-manifests/")]
    assert (conversion.method, conversion.status, conversion.auth) == ("POST", 201, "none")

    # The process starts from exactly these files: its JWTs, signed with the new key, are
    # accepted, and it mints an installation token.
    settings = Settings(_env_file=env_file)  # type: ignore[call-arg]
    settings.require_github()
    installation = sim.add_installation(ORG, repositories=[REPO])
    client = GitHubClient.from_settings(settings)

    async def mint() -> tuple[str, str]:
        return (await client.get_app()).slug, await client.installation_token(installation)

    slug, token = asyncio.run(mint())
    assert slug == "hindsight-test" and token.startswith("ghs_")
    assert settings.github_oauth() == (
        values["HINDSIGHT_GITHUB_CLIENT_ID"],
        values["HINDSIGHT_GITHUB_CLIENT_SECRET"],
    )


def test_setup_help_shows_the_webhook_url_as_required(tmp_path: Path) -> None:
    import subprocess
    import sys

    shown = subprocess.run(
        [sys.executable, "-m", "ghapp.cli", "setup", "--help"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=True,
    ).stdout
    usage = shown.split("options:", 1)[0]
    assert "(--webhook-url WEBHOOK_URL | --local)" in usage and "[--webhook-url" not in usage
    assert "[--name NAME]" in usage  # optional flags stay bracketed


def test_the_manifest_names_the_app_as_registered() -> None:
    plain = load_manifest(APP_YML, webhook_url=WEBHOOK_URL, redirect_url="http://x/cb", name=None)
    assert plain["url"] == "https://github.com/apps/hindsight"
    named = load_manifest(
        APP_YML,
        webhook_url="http://127.0.0.1:3000/webhooks",
        redirect_url="http://x/cb",
        name="Team Review",
        web_url="https://ghe.example.com",
    )
    assert named["name"] == "Team Review"
    assert named["url"] == "https://ghe.example.com/apps/team-review"
    assert named["callback_urls"] == ["http://127.0.0.1:3000" + CALLBACK]


def _registration(sim: GitHubSimulator, tmp_path: Path, **options: Any) -> Registration:
    return Registration(
        site=GitHubSite.of(sim.base_url, sim.base_url, None),
        manifest_file=APP_YML,
        webhook_url=WEBHOOK_URL,
        name=None,
        env_file=tmp_path / ".env",
        key_file=tmp_path / "app.pem",
        force=options.get("force", False),
    )


def _code(sim: GitHubSimulator, registration: Registration) -> str:
    """Post the registration's manifest to the simulator and press Create: the one-time code."""
    with httpx.Client(base_url=sim.base_url) as client:
        form = client.post(
            f"/settings/apps/new?state={registration.state}",
            data={"manifest": json.dumps(registration.manifest())},
        )
        token = form.text.split('name="token" value="', 1)[1].split('"', 1)[0]
        back = client.post("/settings/apps/new/create", data={"token": token})
    assert back.status_code == 302
    return httpx.URL(back.headers["location"]).params["code"]


def test_a_redirect_with_another_state_writes_nothing(sim: GitHubSimulator, tmp_path: Path) -> None:
    registration = _registration(sim, tmp_path)
    with serve(registration.app()) as url:
        registration.base_url = url
        code = _code(sim, registration)
        wrong = httpx.get(f"{url}/callback", params={"code": code, "state": "forged"})
        missing = httpx.get(f"{url}/callback", params={"state": registration.state})
    assert wrong.status_code == 400 and "did not come from the registration" in wrong.text
    assert missing.status_code == 400 and "no code" in missing.text
    assert not registration.finished.is_set()
    assert not (tmp_path / ".env").exists() and not (tmp_path / "app.pem").exists()


def test_a_code_converts_once(sim: GitHubSimulator, tmp_path: Path) -> None:
    registration = _registration(sim, tmp_path)
    with serve(registration.app()) as url:
        registration.base_url = url
        code = _code(sim, registration)
        again = httpx.post(f"{sim.base_url}/app-manifests/{code}/conversions")
        assert again.status_code == 201  # someone else used the code first
        answer = httpx.get(f"{url}/callback", params={"code": code, "state": registration.state})
    assert answer.status_code == 502 and "refused the code (404)" in answer.text
    assert not (tmp_path / ".env").exists()


def test_existing_files_are_kept_unless_forced(sim: GitHubSimulator, tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("HINDSIGHT_DATABASE_URL=sqlite:///x.db\n")
    setup = Setup([*_simulated(sim), "--webhook-url", WEBHOOK_URL], tmp_path)
    code, output = setup.finish()
    assert code == 2 and ".env already exist(s): pass --force" in output
    assert (tmp_path / ".env").read_text() == "HINDSIGHT_DATABASE_URL=sqlite:///x.db\n"
    assert not (tmp_path / "hindsight.private-key.pem").exists()


def test_force_keeps_the_other_settings(tmp_path: Path) -> None:
    key = generate_app_key()
    credentials = Credentials(
        app_id=9,
        slug="hs",
        name="Hs",
        html_url="https://github.com/apps/hs",
        api_url="https://api.github.com",
        webhook_secret="s" * 40,
        pem=key.private_pem,
    )
    first = env_text(credentials, tmp_path / "k.pem", "HINDSIGHT_PORT=4000\n")
    second = env_text(credentials, tmp_path / "k.pem", first)
    assert second == first
    assert first.startswith("HINDSIGHT_PORT=4000\n")
    assert "HINDSIGHT_GITHUB_API_URL" not in first  # github.com is the default
    assert "s" * 40 not in repr(credentials) and "PRIVATE" not in repr(credentials)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "one of the arguments --webhook-url --local is required"),
        (["--local", "--webhook-url", WEBHOOK_URL], "not allowed with argument"),
        (["--webhook-url", "ftp://x/webhooks"], "must be an http(s) URL"),
        (["--webhook-url", WEBHOOK_URL, "--github-url", "github.com"], "--github-url must be"),
        (["--webhook-url", WEBHOOK_URL, "--manifest", "absent.yml"], "no manifest at absent.yml"),
    ],
)
def test_bad_options_stop_before_anything_starts(
    args: list[str], message: str, tmp_path: Path
) -> None:
    setup = Setup(["--manifest", str(APP_YML), *args], tmp_path)
    code, output = setup.finish()
    assert code == 2 and message in output and "Traceback" not in output
    assert list(tmp_path.iterdir()) == []


def test_a_manifest_that_is_not_one_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "app.yml"
    for text, message in [
        ("- a list\n", "must be a mapping"),
        ("name: x\nurl: y\nwebhooks: z\n", "not manifest fields: webhooks"),
        ("name: x\nurl: y\n", "default_permissions must be a mapping"),
        ("name: [\n", "not valid YAML"),
    ]:
        bad.write_text(text)
        with pytest.raises(RegistrationError, match=message):
            load_manifest(bad, webhook_url=WEBHOOK_URL, redirect_url="http://x/cb", name=None)


def test_github_enterprise_and_organizations() -> None:
    enterprise = GitHubSite.of("https://ghe.example.com/", None, "platform")
    assert enterprise.api_url == "https://ghe.example.com/api/v3"
    assert enterprise.new_app_url("s 1") == (
        "https://ghe.example.com/organizations/platform/settings/apps/new?state=s+1"
    )
    public = GitHubSite.of(None, None, None)
    assert (public.web_url, public.api_url) == ("https://github.com", "https://api.github.com")
    assert public.new_app_url("abc") == "https://github.com/settings/apps/new?state=abc"
    assert public.install_url("hs") == "https://github.com/apps/hs/installations/new"


def test_the_simulator_refuses_a_manifest_without_a_redirect(sim: GitHubSimulator) -> None:
    answer = httpx.post(
        f"{sim.base_url}/settings/apps/new", data={"manifest": json.dumps({"url": "https://x"})}
    )
    assert answer.status_code == 422 and "redirect_url is required" in answer.text
    assert httpx.post(f"{sim.base_url}/app-manifests/nope/conversions").status_code == 404


def test_fixes_ask_for_contents_write_and_nothing_else() -> None:
    plain = load_manifest(APP_YML, webhook_url=WEBHOOK_URL, redirect_url="http://x/cb", name=None)
    fixes = load_manifest(
        APP_YML, webhook_url=WEBHOOK_URL, redirect_url="http://x/cb", name=None, fixes=True
    )
    assert plain["default_permissions"]["contents"] == "read"
    assert fixes["default_permissions"] == {**plain["default_permissions"], "contents": "write"}


def test_local_registers_an_inactive_webhook_on_the_local_server() -> None:
    local = load_manifest(
        APP_YML,
        webhook_url=None,
        redirect_url="http://x/cb",
        name=None,
        local_url="http://127.0.0.1:3000",
    )
    assert local["hook_attributes"] == {"url": "http://127.0.0.1:3000/webhooks", "active": False}
    assert local["callback_urls"] == ["http://127.0.0.1:3000" + CALLBACK]


def test_setup_local_registers_without_a_public_url_and_says_how_to_forward(
    browser: Any, sim: GitHubSimulator, tmp_path: Path
) -> None:
    setup = Setup([*_simulated(sim), "--local"], tmp_path)
    try:
        register_in_browser(browser, setup.page_url())
        code, output = setup.finish()
    finally:
        setup.kill()
    assert code == 0, output
    assert "gh webhook forward --repo OWNER/REPO --url http://127.0.0.1:3000/webhooks" in output
    assert "HINDSIGHT_WEBHOOK_SECRET" in output and "Traceback" not in output
    sim.add_installation(ORG, repositories=[REPO])
    assert sim.deliveries == []  # the app's own webhook is inactive: GitHub posts nothing
    values = _env(tmp_path / ".env")
    assert values["HINDSIGHT_GITHUB_CLIENT_ID"] and len(values["HINDSIGHT_WEBHOOK_SECRET"]) >= 32
