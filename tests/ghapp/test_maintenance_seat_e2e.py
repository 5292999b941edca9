"""Maintenance with a seat and from the command line, against the simulator over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ghapp.cli import main as cli
from tests.conftest import WEBHOOK_SECRET
from tests.support.app_harness import Harness, running_app
from tests.support.maint_seat import MaintenanceSeat, maintenance_seat
from tests.support.maintenance import APP_PY, UTIL_PY, entry_row, events, learn, provenance
from tests.support.simulator import APP_ID, REPO, app_key

GONE = "import os\n\n\ndef load(path):\n    return None\n"


@pytest.fixture
def seat(tmp_path: Path) -> MaintenanceSeat:
    return maintenance_seat(tmp_path / "seat", "keep")


@pytest.fixture
def app(
    engine: Engine, database_url: str, tmp_path: Path, seat: MaintenanceSeat
) -> Iterator[Harness]:
    (tmp_path / "hindsight.toml").write_text(seat.toml())
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def test_the_seat_settles_what_the_rules_cannot(app: Harness, seat: MaintenanceSeat) -> None:
    learned = learn(app)
    kept_at = app.sim.push(REPO, {"src/app.py": GONE})  # `parse_config` gone: moved, or gone?
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None  # the seat said keep
    assert provenance(app, learned.entry_id).basis_sha == kept_at
    [call] = seat.calls()
    [item] = call["lessons"]
    assert item["id"] == learned.entry_id and item["rule"]["action"] == "retire"
    assert item["excerpts"][0]["text"] == GONE
    app.sim.push(REPO, {"src/app.py": GONE + "\n# parse_config was here\n"})
    app.settle()  # nothing naming it was removed: kept, the seat is not asked
    assert len(seat.calls()) == 1
    seat.mode("retire")
    app.sim.push(REPO, {"src/app.py": GONE})
    app.settle()
    assert len(seat.calls()) == 2
    assert entry_row(app, learned.entry_id).deleted_ms is not None
    [event] = events(app, learned.entry_id)
    assert event.actor == "seat:keeper" and event.reason == "the seat says retire"


def test_a_hostile_seat_publishes_nothing(app: Harness, seat: MaintenanceSeat) -> None:
    learned = learn(app)
    seat.mode("foreign")
    app.sim.push(REPO, {"src/app.py": GONE})
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None
    assert events(app, learned.entry_id) == []
    assert provenance(app, learned.entry_id).basis_sha == learned.merge_sha


def test_maintain_on_the_command_line(
    app: Harness,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    learned = learn(app, files={"src/app.py": APP_PY, "src/util.py": UTIL_PY})
    app.sim.configure_webhooks(f"{app.url}/webhooks", WEBHOOK_SECRET, emit=False)
    app.sim.push(REPO, {"src/app.py": None})
    env = {
        "HINDSIGHT_DATABASE_URL": app.settings.database_url,
        "HINDSIGHT_GITHUB_APP_ID": str(APP_ID),
        "HINDSIGHT_GITHUB_PRIVATE_KEY": app_key().private_pem,
        "HINDSIGHT_GITHUB_API_URL": app.sim.base_url,
        "HINDSIGHT_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "HINDSIGHT_CONFIG": str(tmp_path / "absent.toml"),
        "HINDSIGHT_STORE_DIR": str(tmp_path / "store"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("ghapp.cli.commands.configure_logging", lambda *args: None)
    assert cli(["maintain", "--repo", REPO, "--dry-run"]) == 0
    out = capsys.readouterr()
    assert f"retire {learned.entry_id}" in out.out and "src/app.py was deleted" in out.out
    assert "dry run: nothing written" in out.err
    assert entry_row(app, learned.entry_id).deleted_ms is None
    assert cli(["maintain", "--repo", REPO]) == 0
    assert entry_row(app, learned.entry_id).deleted_ms is not None
    capsys.readouterr()
    assert cli(["maintain", "--repo", REPO]) == 0  # unchanged: nothing left to decide
    assert "nothing to decide" in capsys.readouterr().err
    assert len(events(app, learned.entry_id)) == 1
    assert cli(["maintain", "--repo", "octo-org/nowhere"]) == 1
