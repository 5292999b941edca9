"""Helpers for maintenance tests: a repository with files, a merged lesson about them, its rows."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update

from continual.tables import Entry, LessonEvent, LessonProvenance
from ghapp.db import reading
from ghsim import trees
from ghsim.patches import addition_patch
from tests.support.app_harness import INSTALLATION_ID, Harness
from tests.support.simulator import REPO

APP_PY = "import os\n\n\ndef parse_config(path):\n    return None\n\n\nprint(parse_config('x'))\n"
UTIL_PY = "def helper():\n    return 1\n"
LESSON = "Check the result of `parse_config` in src/app.py before using it."
TITLE = "Unchecked parse_config result"


@dataclass(frozen=True)
class Learned:
    entry_id: str
    pr: int
    merge_sha: str


def compares(app: Harness) -> int:
    return app.sim.count("GET", f"/repos/{REPO}/compare/")


def github_reads(app: Harness) -> int:
    """The requests maintenance may make: compare, git trees and contents."""
    return sum(
        app.sim.count("GET", f"/repos/{REPO}/{kind}/")
        for kind in ("compare", "git/trees", "contents")
    )


def learn(
    app: Harness,
    *,
    files: dict[str, str] | None = None,
    lesson: str = LESSON,
    title: str = TITLE,
    path: str = "src/app.py",
) -> Learned:
    """The default branch holds ``files``; a pull request adds a line to ``path``, a maintainer
    accepts the bot's suggestion there, and the pull request merges."""
    app.sim.push(REPO, files or {"src/app.py": APP_PY, "src/util.py": UTIL_PY})
    app.settle()
    patch = addition_patch(["config = parse_config('y')"], start=9, context_before=1)
    number = int(app.sim.open_pull(REPO, files={path: patch})["number"])
    app.settle()
    _, comment_id = app.plant_suggestion(number, title=title, lesson=lesson, path=path, line=9)
    app.sim.reply(
        REPO, number, comment_id, "accepted", author="octocat", author_association="OWNER"
    )
    app.settle()
    merged = app.sim.close(REPO, number, merged=True, by="octocat")
    app.settle()
    with reading(app.engine) as conn:
        entry_id = conn.execute(select(Entry.id).where(Entry.title == title)).scalar_one()
    return Learned(entry_id, number, str(merged["merge_commit_sha"]))


def entry_row(app: Harness, entry_id: str) -> Entry:
    with reading(app.engine) as conn:
        return conn.execute(select(Entry).where(Entry.id == entry_id)).one()  # type: ignore[return-value]


def provenance(app: Harness, entry_id: str) -> LessonProvenance:
    with reading(app.engine) as conn:
        return conn.execute(  # type: ignore[return-value]
            select(LessonProvenance).where(LessonProvenance.entry_id == entry_id)
        ).one()


def events(app: Harness, entry_id: str) -> list[LessonEvent]:
    with reading(app.engine) as conn:
        return list(
            conn.execute(  # type: ignore[arg-type]
                select(LessonEvent).where(LessonEvent.entry_id == entry_id).order_by(LessonEvent.id)
            ).all()
        )


def set_basis(app: Harness, entry_id: str, sha: str) -> None:
    """Pretend the lesson was last proven at ``sha`` (a commit GitHub may not know)."""
    with app.engine.begin() as conn:
        conn.execute(
            update(LessonProvenance)
            .where(LessonProvenance.entry_id == entry_id)
            .values(basis_sha=sha)
        )


def push_payload(app: Harness) -> dict[str, object]:
    """A push deleting the lesson's file, built while the repository is still installed."""
    repo = app.sim.world.repo(REPO)
    before = repo.branches[repo.default_branch]
    _, _, after = trees.push(
        app.sim.world,
        REPO,
        files={"src/app.py": None},
        renames={},
        branch=None,
        parent=None,
        message="Drop the app",
    )
    payload = app.sim.payloads.push(
        REPO, ref=f"refs/heads/{repo.default_branch}", before=before, after=after
    )
    payload["installation"] = {"id": INSTALLATION_ID}
    return payload
