"""The history back-fill end to end: install → back-fill → facts handed with their citations."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, select

from continual.history.runs import RunState
from continual.tables import HistoryComment, MemoryItemRow
from ghapp.db import reading
from tests.support.history import app_with_history, run_of
from tests.support.simulator import REPO


def test_an_install_back_fills_the_merged_pull_requests(
    engine: Engine, database_url: str, tmp_path: Path
) -> None:
    with app_with_history(engine, database_url, tmp_path, pulls=6, comments=8) as (app, history):
        run = run_of(engine)
        assert run is not None and run.state is RunState.DONE, run
        assert run.prs_read == 6
        with reading(engine) as conn:
            kept = conn.execute(select(*HistoryComment.__table__.c)).all()
            facts = conn.execute(select(*MemoryItemRow.__table__.c)).all()
        addressed = {c.id for c in kept if c.outcome == "addressed"}
        assert addressed == {i for p in history.pulls for i in p.addressed}
        assert {c.id for c in kept if c.outcome == "unchanged"} == {
            i for p in history.pulls for i in p.unaddressed
        }
        assert len(facts) == len(addressed) == run.facts
        assert all(f.source == "history" and f.state == "active" for f in facts)
        print(facts[0].text, run, app.sim.count("GET", f"/repos/{REPO}/pulls"))
