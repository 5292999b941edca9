"""A review after a back-fill is handed the repository's history facts, cited, for its files,
and the lessons a discovery seat found in them."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import Engine

from ghsim import addition_patch
from ghsim.history import seed_history
from tests.support.discover_seat import discovery_seat
from tests.support.history import ask_backfill, run_of
from tests.support.review import harness, lenses_toml, requests_of, seat_toml
from tests.support.simulator import REPO


@pytest.mark.parametrize("discovering", [False, True])
def test_the_next_review_is_handed_the_history_facts_of_its_files(
    engine: Engine, tmp_path: Path, discovering: bool
) -> None:
    logs = tmp_path / "requests"
    logs.mkdir()
    toml = seat_toml(tmp_path, "alpha", log_dir=str(logs)) + lenses_toml("correctness")
    if discovering:
        toml += discovery_seat(tmp_path / "finder").toml()
    with harness(engine, tmp_path, toml, memory=True) as h:  # history facts are memory
        history = seed_history(h.sim.world, REPO, pulls_count=2, comments_per_pull=4)
        ask_backfill(engine)
        h.run()
        run = run_of(engine)
        assert run is not None and run.facts == history.addressed > 0
        first = history.pulls[0]
        lines = [f"value = compute({n})" for n in range(12)]
        h.sim.open_pull(REPO, files={first.path: addition_patch(lines)})
        h.run()
    (request,) = requests_of(logs)
    # The lesson is handed as a lesson, in the header, never again as memory.
    assert "when opening" not in request["cross_session"]
    lesson = [line for line in request["header"].splitlines() if "when opening" in line]
    taught = [item for item in request["lessons"] if item["id"].startswith("history-lesson:")]
    if discovering:  # one lesson resting on both pull requests: active, handed with its sources
        assert len(lesson) == 1 and len(taught) == 1
        assert all(f"#{p.number}" in lesson[0] for p in history.pulls), request["header"]
    else:
        assert lesson == [] and taught == []
    handed = request["cross_session"]
    assert handed.startswith("Recalled from earlier sessions:\n")
    cited = [line for line in handed.splitlines() if f"on `{first.path}`" in line]
    assert len(cited) == len(first.addressed)
    assert all(f"asked in #{first.number}" in line for line in cited)
    assert all("(from the repository's review history; session history-" in line for line in cited)
    assert "Unverified claim" not in "\n".join(cited)
