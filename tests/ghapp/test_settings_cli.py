"""Settings fail naming what is wrong; secrets stay out of reprs and logs; CLI commands work."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine, func, insert, select

from continual.tables import Account, Repository
from ghapp.cli import main as cli_main
from ghapp.db import NotMigrated, check_migrated, make_engine
from ghapp.settings import Settings, SettingsError, load_settings
from ghapp.tables import Delivery, Installation, Job
from tests.conftest import FIXTURES, WEBHOOK_SECRET
from tests.support.simulator import app_key
from tests.support.web import serve

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def quiet_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)


def test_missing_settings_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "HINDSIGHT_GITHUB_APP_ID",
        "HINDSIGHT_WEBHOOK_SECRET",
        "HINDSIGHT_GITHUB_PRIVATE_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SettingsError) as failure:
        load_settings().require_github()
    message = str(failure.value)
    for name in (
        "HINDSIGHT_GITHUB_APP_ID",
        "HINDSIGHT_GITHUB_PRIVATE_KEY",
        "HINDSIGHT_WEBHOOK_SECRET",
    ):
        assert name in message


@pytest.mark.parametrize("secret", ["", "fifteen-bytes!!"], ids=["empty", "short"])
@pytest.mark.parametrize("command", [["serve"], ["worker", "--until-idle"]])
def test_a_weak_webhook_secret_stops_serve_and_worker(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    secret: str,
    command: list[str],
) -> None:
    """Anyone could sign deliveries with an empty or guessable secret: refused before the start."""
    monkeypatch.setenv("HINDSIGHT_GITHUB_APP_ID", "1")
    monkeypatch.setenv("HINDSIGHT_GITHUB_PRIVATE_KEY", app_key().private_pem)
    monkeypatch.setenv("HINDSIGHT_WEBHOOK_SECRET", secret)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", f"sqlite:///{tmp_path / 'h.db'}")
    assert cli_main([*command, "--no-review"]) == 2
    err = capsys.readouterr().err
    assert "HINDSIGHT_WEBHOOK_SECRET is " + ("empty" if not secret else "15 bytes") in err
    assert "at least 16" in err
    assert not (tmp_path / "h.db").exists(), "refused before touching the database"


def test_a_secret_of_16_bytes_passes() -> None:
    settings = Settings(
        github_app_id=1, github_private_key=app_key().private_pem, webhook_secret="s" * 16
    )  # type: ignore[arg-type]
    settings.require_github()


def test_invalid_settings_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HINDSIGHT_PORT", "not-a-port")
    with pytest.raises(SettingsError, match="HINDSIGHT_PORT"):
        load_settings()


def test_unreadable_private_key_is_refused() -> None:
    settings = Settings(github_app_id=1, github_private_key="not a key", webhook_secret="s")  # type: ignore[arg-type]
    with pytest.raises(SettingsError, match="PEM"):
        settings.require_github()


def test_secrets_never_show_in_reprs() -> None:
    key = app_key().private_pem
    settings = Settings(github_app_id=1, github_private_key=key, webhook_secret="hush-hush")  # type: ignore[arg-type]
    shown = repr(settings) + str(settings) + json.dumps(settings.model_dump(mode="json"))
    assert "hush-hush" not in shown
    assert "PRIVATE KEY" not in shown and key.splitlines()[1] not in shown
    assert settings.key_fingerprint().startswith("SHA256:")


def test_serve_refuses_without_credentials(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("HINDSIGHT_GITHUB_APP_ID", raising=False)
    assert cli_main(["serve"]) == 2
    assert "HINDSIGHT_GITHUB_APP_ID" in capsys.readouterr().err


def test_unmigrated_database_is_refused_then_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    engine = make_engine(url)
    with pytest.raises(NotMigrated, match="hindsight migrate"):
        check_migrated(engine)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", url)
    assert cli_main(["migrate"]) == 0
    assert "up to date" in capsys.readouterr().out
    check_migrated(engine)
    engine.dispose()


def test_replay_signs_a_recorded_delivery(
    engine: Engine,
    database_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from ghapp.app import build_deps, create_app

    settings = Settings(database_url=database_url, webhook_secret=WEBHOOK_SECRET)  # type: ignore[arg-type]
    app = create_app(settings, deps=build_deps(settings, engine=engine), run_worker=False)
    monkeypatch.setenv("HINDSIGHT_WEBHOOK_SECRET", WEBHOOK_SECRET)
    fixture = FIXTURES / "pull_request" / "opened.payload.json"
    with serve(app) as url:
        assert (
            cli_main(
                ["replay", str(fixture), "--event", "pull_request", "--url", f"{url}/webhooks"]
            )
            == 0
        )
        assert capsys.readouterr().out.startswith("202")
        monkeypatch.setenv("HINDSIGHT_WEBHOOK_SECRET", "wrong secret")
        assert (
            cli_main(
                ["replay", str(fixture), "--event", "pull_request", "--url", f"{url}/webhooks"]
            )
            == 1
        )
        assert capsys.readouterr().out.startswith("401")
    with engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(Delivery)).scalar_one() == 1


def test_purge_deletes_everything_of_one_account(
    engine: Engine,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with engine.begin() as conn:
        for account_id, login in ((1, "doomed"), (2, "kept")):
            conn.execute(
                insert(Account).values(id=account_id, login=login, type="User", created_ms=0)
            )
            conn.execute(
                insert(Installation).values(id=account_id * 10, account_id=account_id, created_ms=0)
            )
            conn.execute(
                insert(Repository).values(
                    id=account_id * 100, account_id=account_id, full_name=f"{login}/r"
                )
            )
            conn.execute(
                insert(Delivery).values(
                    id=f"d{account_id}",
                    body_sha256=str(account_id) * 64,
                    event="x",
                    installation_id=account_id * 10,
                    received_ms=0,
                    body="{}",
                )
            )
            conn.execute(
                insert(Job).values(
                    kind="x",
                    delivery_id=f"d{account_id}",
                    state="done",
                    attempts=0,
                    run_after_ms=0,
                    created_ms=0,
                )
            )
    store_dir = tmp_path / "store"
    (store_dir / "doomed" / "r").mkdir(parents=True)
    (store_dir / "doomed" / "r" / "injections.jsonl").write_text("{}\n")
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", database_url)
    monkeypatch.setenv("HINDSIGHT_STORE_DIR", str(store_dir))
    assert cli_main(["purge", "--account", "doomed"]) == 1, "no terminal, no --yes: refused"
    assert "pass --yes" in capsys.readouterr().err
    with engine.connect() as conn:
        assert len(conn.execute(select(Account.login)).scalars().all()) == 2, "nothing deleted"
    assert cli_main(["purge", "--account", "doomed", "--yes"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["accounts"] == 1 and counts["delivery bodies"] == 1 and counts["files"] == 1
    with engine.connect() as conn:
        assert conn.execute(select(Account.login)).scalars().all() == ["kept"]
        assert conn.execute(select(Repository.full_name)).scalars().all() == ["kept/r"]
        assert conn.execute(select(Job.delivery_id)).scalars().all() == ["d2"]
        kept = dict(conn.execute(select(Delivery.id, Delivery.body)).all())
        assert kept == {"d1": "", "d2": "{}"}, "the purged account's key stays, not its body"
        assert conn.execute(select(Installation.id)).scalars().all() == [20]
    assert not (store_dir / "doomed").exists()
    assert cli_main(["purge", "--account", "nobody", "--yes"]) == 1


def test_hindsight_command_is_installed() -> None:
    result = subprocess.run(["hindsight", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0
    for command in ("serve", "worker", "migrate", "jobs", "replay", "purge"):
        assert command in result.stdout
    assert sys.executable
