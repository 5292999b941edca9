"""The README's "Run it on GitHub", followed to the letter in an empty folder against the
simulator: `hindsight setup` in a browser, `hindsight init` (as written, no edit),
`hindsight serve`; then the app is installed, a pull request opens, and its review is posted."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ghsim import GitHubSimulator
from tests.support.processes import free_port, ready, start, stop
from tests.support.setup import ROOT, Setup, register_in_browser
from tests.support.simulator import APP_ID, ORG, REPO, app_key
from tests.support.web import wait_for

README = ROOT / "README.md"


def _readme_commands() -> list[list[str]]:
    """The three commands of the README's "Run it on GitHub" block, without their comments."""
    text = README.read_text()
    section = text.split("## Run it on GitHub", 1)[1]
    block = section.split("```sh", 1)[1].split("```", 1)[0]
    return [line.split("#", 1)[0].split() for line in block.strip().splitlines()]


def _environment() -> dict[str, str]:
    """The person's shell: nothing of Hindsight's set, so `.env` is all the process reads."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HINDSIGHT_")}
    return {**env, "PYTHONPATH": str(ROOT)}


def test_the_readme_takes_an_empty_folder_to_a_reviewed_pull_request(
    browser: Any, tmp_path: Path
) -> None:
    setup_args, init_args, serve_args = _readme_commands()
    assert setup_args[:2] == ["hindsight", "setup"] and "--webhook-url" in setup_args
    assert init_args == ["hindsight", "init"] and serve_args == ["hindsight", "serve"]
    folder = tmp_path / "hindsight"
    folder.mkdir()
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = _environment()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=app_key().public_pem) as sim:
        # 1. Register the app: the README's command, with this machine's webhook URL and the
        # simulator standing in for github.com.
        webhook_args = [*setup_args[2:]]
        webhook_args[webhook_args.index("--webhook-url") + 1] = f"{url}/webhooks"
        setup = Setup(
            [*webhook_args, "--github-url", sim.base_url, "--api-url", sim.base_url], folder
        )
        try:
            register_in_browser(browser, setup.page_url())
            code, output = setup.finish()
        finally:
            setup.kill()
        assert code == 0, output
        assert "hindsight init" in output

        # 2. Configure the reviewers, then the person's edit the template asks for.
        init = subprocess.run(
            [sys.executable, "-m", "ghapp.cli", *init_args[1:]],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert init.returncode == 0, init.stderr
        config = folder / "hindsight.toml"
        assert 'kind = "command"' in config.read_text(), "the template starts as written"

        # 3. Run it.
        server = start([*serve_args[1:], "--port", str(port)], env, folder)
        try:
            wait_for(
                lambda: ready(url) or server.poll() is not None,
                timeout=120,
                what="serve to be ready",
            )
            assert server.poll() is None, "serve stopped at start"
            # 5. Install the app and open a pull request: GitHub sends both to the webhook URL
            # setup registered, signed with the secret setup wrote.
            sim.add_installation(ORG, repositories=[REPO])
            pull = sim.open_pull(REPO, title="Add a greeting")

            def reviewed() -> bool:
                return any(r["user"]["type"] == "Bot" for r in sim.reviews(REPO, pull["number"]))

            wait_for(reviewed, timeout=120, what="the pull request's review")
        finally:
            output = stop(server)
        assert "Traceback" not in output, output
        comments = sim.review_comments(REPO, pull["number"])
        assert any("Debugging print left in the change" in c["body"] for c in comments), comments
        assert all(d.status == 202 for d in sim.deliveries), [d.status for d in sim.deliveries]
    assert (folder / "hindsight.db").is_file(), "the SQLite default lives in the folder"
