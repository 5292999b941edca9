"""`GET /v1/review-ledger` and `hindsight ledger --json` print the ledger through one renderer."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine

from continual.ledger import review_ledger
from ghapp.api.shapes import BRAIN_LESSON_FIELDS, ledger_json
from ghapp.cli import ledger as cli_ledger
from ghapp.settings import Settings
from tests.support.recall import NOW, Clock, accept, api, seed, suggest, token

CLOCK = Clock(NOW + 1000)


@pytest.fixture
def secret(engine: Engine) -> str:
    org = seed(engine, 1, "octo", "app", "lib")
    accept(engine, org, "octo/app", review_id="rev-1")
    accept(engine, org, "octo/app", name="load_rows", review_id="rev-2")
    suggest(engine, org, "octo/lib", name="read_file", lens="tests")
    return token(engine, "octo", "mona")


def test_api_and_cli_print_the_same_json_for_the_same_value(
    engine: Engine,
    secret: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with engine.connect() as conn:
        rendered = [ledger_json(x) for x in review_ledger(conn, 1, now=CLOCK.now, brain=False)]
    assert [x["repository"] for x in rendered] == ["octo/app", "octo/lib"]
    assert rendered[0]["by_seat_and_lens"][0]["accepted"] == 2
    with api(engine, tmp_path, CLOCK) as url:
        answer = httpx.get(f"{url}/v1/review-ledger", headers={"authorization": f"Bearer {secret}"})
    assert answer.json() == {"repositories": rendered, "brain": False}
    monkeypatch.setattr(cli_ledger, "now_ms", CLOCK)
    settings = Settings(
        database_url=engine.url.render_as_string(hide_password=False),
        store_dir=tmp_path,
        webhook_secret="test-webhook-secret",  # type: ignore[arg-type]
        config=tmp_path / "absent.toml",
    )
    assert cli_ledger.cmd_ledger(argparse.Namespace(repo=None, json=True), settings) == 0
    assert json.loads(capsys.readouterr().out) == rendered


def test_brain_lessons_are_the_recall_lessons_cut_to_their_fields(
    engine: Engine, secret: str, tmp_path: Path
) -> None:
    headers = {"authorization": f"Bearer {secret}"}
    with api(engine, tmp_path, CLOCK) as url:
        brain = httpx.get(f"{url}/v1/review-ledger?brain=true", headers=headers).json()
        recalled = httpx.get(f"{url}/v1/recall", headers=headers).json()["lessons"]
    app = brain["repositories"][0]
    assert len(app["lessons"]) == 2 and brain["repositories"][1]["lessons"] == []
    assert sorted(app["lessons"], key=lambda x: x["id"]) == sorted(
        ({name: x[name] for name in BRAIN_LESSON_FIELDS} for x in recalled),
        key=lambda x: x["id"],
    )
