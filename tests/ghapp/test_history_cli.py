"""`hindsight backfill`: asks for the back-fill, follows it with its bar, prints what it kept;
refuses a period out of bounds and a repository the app is not installed on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine

from continual.history.runs import RunState
from ghapp.cli import main
from tests.support.app_harness import Harness
from tests.support.history import app_with_history, run_of
from tests.support.simulator import APP_ID, REPO, WEBHOOK_SECRET, app_key


def environment(monkeypatch: pytest.MonkeyPatch, app: Harness, database_url: str) -> None:
    for name, value in {
        "HINDSIGHT_DATABASE_URL": database_url,
        "HINDSIGHT_GITHUB_APP_ID": str(APP_ID),
        "HINDSIGHT_GITHUB_PRIVATE_KEY": app_key().private_pem,
        "HINDSIGHT_GITHUB_API_URL": app.sim.base_url,
        "HINDSIGHT_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "HINDSIGHT_CONFIG": str(Path(database_url).parent / "absent.toml"),
    }.items():
        monkeypatch.setenv(name, value)


def test_backfill_follows_the_run_to_its_end_and_prints_it(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with app_with_history(
        engine, database_url, tmp_path, pulls=4, comments=4, history_on_install=False
    ) as (app, history):
        assert run_of(engine) is None  # the install asked for none here
        environment(monkeypatch, app, database_url)
        assert main(["backfill", "--repo", REPO, "--days", "30", "--max-prs", "3"]) == 0
        out, err = capsys.readouterr()
        assert "3/3 PRs read" in err and "left" in err
        assert out.startswith(f"{REPO}: done; 3 merged PR(s) read")
        run = run_of(engine)
        assert run is not None and run.state is RunState.DONE and run.days == 30

        assert main(["backfill", "--repo", REPO, "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
        assert shown["generation"] == 2 and shown["prs_read"] == 1  # the one left
        assert shown["facts"] == history.addressed
        # The shape of `GET /v1/history`: no seat here, so no lesson; one receipt per run.
        assert shown["lessons"] == [] and shown["suppression_candidates"] == []
        assert [p["generation"] for p in shown["publications"]] == [2, 1]
        assert shown["publications"][0]["seat"] is None


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (["--days", "400"], 2, "--days must be between 1 and 365"),
        (["--max-prs", "0"], 2, "--max-prs must be between 1 and 10000"),
        (["--repo", "octo-org/unknown"], 1, "the app is not installed on octo-org/unknown"),
    ],
)
def test_backfill_refuses_bad_input_with_a_message(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    code: int,
    message: str,
) -> None:
    with app_with_history(
        engine, database_url, tmp_path, pulls=1, comments=2, history_on_install=False
    ) as (app, _):
        environment(monkeypatch, app, database_url)
        repo = [] if "--repo" in argv else ["--repo", REPO]
        assert main(["backfill", *repo, *argv]) == code
        assert message in capsys.readouterr().err
        assert run_of(engine) is None
