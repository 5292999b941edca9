"""`hindsight consolidate` and `hindsight memory summary` on a real database."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import Engine, select

from continual.tables import Entry
from ghapp.cli import main
from ghapp.jobs import now_ms
from tests.support.store import add_suggestion, entry_without_writeback, seed_tenant

REPO = "octo-org/app"
PARAPHRASE = "Result of parse_config is not checked"


@pytest.fixture
def db(engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch) -> Engine:
    seed_tenant(engine)
    monkeypatch.setenv("HINDSIGHT_DATABASE_URL", database_url)
    return engine


def live(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        return list(conn.execute(select(Entry.title).where(Entry.deleted_ms.is_(None))).scalars())


def test_consolidate_dry_run_then_for_real_then_nothing_left(
    db: Engine, capsys: pytest.CaptureFixture[str]
) -> None:
    now = now_ms()
    entry_without_writeback(db, add_suggestion(db, pr=1), now=now)
    entry_without_writeback(db, add_suggestion(db, pr=2, title=PARAPHRASE), now=now + 1)
    assert main(["consolidate", "--repo", REPO, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would merge: " in out and PARAPHRASE in out and "1 lesson(s) would merge into 1" in out
    assert len(live(db)) == 2, "a dry run changes nothing"
    assert main(["consolidate", "--repo", REPO]) == 0
    assert "1 lesson(s) merged into 1" in capsys.readouterr().out
    assert live(db) == ["Unchecked parse_config result"]
    assert main(["consolidate", "--repo", REPO]) == 0
    assert "nothing to consolidate" in capsys.readouterr().out


def test_memory_summary_view_clear_rebuild(db: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    entry_without_writeback(db, add_suggestion(db, pr=1), now=now_ms())
    assert main(["memory", "summary", "--repo", REPO]) == 0
    out = capsys.readouterr().out
    assert "revision 1" in out and "Memory is a heuristic: check it against the code." in out
    assert "Unchecked parse_config result (correctness; lesson " in out
    assert main(["memory", "summary", "--repo", REPO, "--clear"]) == 0
    assert "cleared" in (out := capsys.readouterr().out) and "(nothing is handed)" in out
    assert main(["memory", "summary", "--repo", REPO, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["cleared"] and shown["cleared_by"] == "cli" and shown["text"] == ""
    assert main(["memory", "summary", "--repo", REPO, "--rebuild", "--json"]) == 0
    rebuilt = json.loads(capsys.readouterr().out)
    assert not rebuilt["cleared"] and rebuilt["lessons"] == 1 and rebuilt["revision"] == 3


@pytest.mark.parametrize(
    "argv",
    [
        ["memory", "summary", "--repo", "nobody/nothing"],
        ["consolidate", "--repo", "nobody/nothing"],
    ],
)
def test_an_unknown_repository_is_a_clear_error(
    db: Engine, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main(argv) == 1
    assert "no repository named 'nobody/nothing'" in capsys.readouterr().err


def test_clear_and_rebuild_together_are_refused(db: Engine) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["memory", "summary", "--repo", REPO, "--clear", "--rebuild"])
    assert exited.value.code == 2
