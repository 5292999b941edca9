"""Maintenance on push, end to end: simulator pushes → signed webhooks → worker → lessons kept true."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine

from ghsim import trees
from tests.support.app_harness import INSTALLATION_ID, Harness, running_app
from tests.support.maintenance import (
    APP_PY,
    UTIL_PY,
    compares,
    entry_row,
    events,
    github_reads,
    learn,
    provenance,
    push_payload,
    set_basis,
)
from tests.support.simulator import REPO


@pytest.fixture
def app(engine: Engine, database_url: str, tmp_path: Path) -> Iterator[Harness]:
    with running_app(engine, database_url, tmp_path) as harness:
        yield harness


def test_a_lesson_records_its_pull_request_head_merge_and_anchors(app: Harness) -> None:
    learned = learn(app)
    row = provenance(app, learned.entry_id)
    assert row.pr == learned.pr
    assert row.merge_sha == learned.merge_sha == row.basis_sha
    assert row.head_sha != row.merge_sha
    assert '"parse_config", "src/app.py"' in row.anchors
    assert entry_row(app, learned.entry_id).admission is None


def test_deleting_the_file_retires_the_lesson_with_reason_and_commit(app: Harness) -> None:
    learned = learn(app)
    app.sim.reset_log()
    head = app.sim.push(REPO, {"src/app.py": None}, message="Drop the app")
    app.settle()
    row = entry_row(app, learned.entry_id)
    assert row.deleted_ms is not None
    assert row.text  # retired, not erased: it stays explainable
    [event] = events(app, learned.entry_id)
    assert (event.action, event.commit_sha, event.revision) == ("retired", head, row.revision)
    assert event.reason == "src/app.py was deleted"
    assert github_reads(app) == compares(app) == 1


def test_a_renamed_file_adapts_the_text_as_a_new_revision(app: Harness) -> None:
    learned = learn(app)
    before = entry_row(app, learned.entry_id)
    head = app.sim.push(REPO, renames={"src/app.py": "src/config_app.py"})
    app.settle()
    after = entry_row(app, learned.entry_id)
    assert after.deleted_ms is None and after.revision == before.revision + 1
    assert after.text == "Check the result of `parse_config` in src/config_app.py before using it."
    assert after.admission is None
    [event] = events(app, learned.entry_id)
    assert (event.action, event.commit_sha) == ("adapted", head)
    assert event.before_text == before.text and event.after_text == after.text
    row = provenance(app, learned.entry_id)
    assert row.basis_sha == head and "src/config_app.py" in row.anchors


def test_removing_the_identifier_retires_and_keeping_it_keeps(app: Harness) -> None:
    learned = learn(app)
    kept_at = app.sim.push(REPO, {"src/app.py": APP_PY + "\nprint('more')\n"})
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None
    assert provenance(app, learned.entry_id).basis_sha == kept_at
    app.sim.reset_log()
    app.sim.push(REPO, {"src/app.py": "import os\n\n\ndef load(path):\n    return None\n"})
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is not None
    [event] = events(app, learned.entry_id)
    assert event.reason == "`parse_config` is no longer in src/app.py"
    # The diff removed lines naming it, so the file was read once to be sure.
    assert app.sim.count("GET", f"/repos/{REPO}/contents/") == 1


def test_pushes_elsewhere_and_untouched_files_cost_nothing(app: Harness) -> None:
    learned = learn(app)
    app.sim.reset_log()
    app.sim.push(REPO, {"src/app.py": None}, branch="feature")
    app.settle()
    assert github_reads(app) == 0
    app.sim.push(REPO, {"docs/readme.md": "hello\n"})
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None
    assert events(app, learned.entry_id) == []
    assert github_reads(app) == 1


def test_a_force_push_defers_and_destroys_nothing(app: Harness) -> None:
    learned = learn(app)
    # Rewind past the merge: the branch's new history no longer holds the lesson's basis.
    older = app.sim.world.commits[learned.merge_sha].parents[0]
    app.sim.reset_log()
    app.sim.push(REPO, {"src/app.py": None}, parent=older)
    app.settle()
    row = entry_row(app, learned.entry_id)
    assert row.deleted_ms is None and events(app, learned.entry_id) == []
    assert provenance(app, learned.entry_id).basis_sha == learned.merge_sha
    assert github_reads(app) == 0


@pytest.mark.parametrize("basis", ["unknown", "diverged"])
def test_an_unknown_or_divergent_basis_defers(app: Harness, basis: str) -> None:
    learned = learn(app)
    if basis == "unknown":
        sha = "0123456789abcdef0123456789abcdef01234567"
    else:
        sha = app.sim.push(REPO, {"src/side.py": "y = 1\n"}, branch="side")
    set_basis(app, learned.entry_id, sha)
    app.sim.push(REPO, {"src/app.py": None})
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None
    assert provenance(app, learned.entry_id).basis_sha == sha


def test_two_thousand_files_fall_back_to_trees(app: Harness) -> None:
    learned = learn(app)
    many: dict[str, str | None] = {f"gen/file_{i}.py": f"x = {i}\n" for i in range(2_000)}
    many["src/app.py"] = None
    app.sim.reset_log()
    app.sim.push(REPO, many)
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is not None
    assert app.sim.count("GET", f"/repos/{REPO}/git/trees/") == 2
    assert github_reads(app) == 3


def test_a_truncated_tree_defers(app: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    learned = learn(app)
    monkeypatch.setattr(trees, "TREE_LIMIT", 100)
    many: dict[str, str | None] = {f"gen/file_{i}.py": f"x = {i}\n" for i in range(400)}
    many["src/app.py"] = None
    app.sim.push(REPO, many)
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None
    assert provenance(app, learned.entry_id).basis_sha == learned.merge_sha


def test_util_untouched_by_the_lesson(app: Harness) -> None:
    learned = learn(app, files={"src/app.py": APP_PY, "src/util.py": UTIL_PY})
    app.sim.push(REPO, {"src/util.py": None})
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None


def test_a_repository_github_no_longer_has_defers(app: Harness) -> None:
    learned = learn(app)
    app.sim.inject("GET", "/compare/", status=404, times=None)
    app.sim.push(REPO, {"src/app.py": None})
    app.settle()
    assert entry_row(app, learned.entry_id).deleted_ms is None
    assert provenance(app, learned.entry_id).basis_sha == learned.merge_sha


def test_a_removed_repository_is_not_maintained(app: Harness) -> None:
    learned = learn(app)
    app.sim.remove_repositories_from_installation(INSTALLATION_ID, [REPO])
    app.settle()
    app.sim.reset_log()
    app.sim.deliver("push", push_payload(app))
    app.settle()
    assert github_reads(app) == 0
    assert entry_row(app, learned.entry_id).deleted_ms is None
