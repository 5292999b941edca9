"""The whole door on loopback: the GitHub simulator, the app with its worker, and the store."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, select

from continual import store
from continual.entry_keys import entry_key
from continual.maintenance.anchors import head_side, verify_anchors
from continual.markers import with_suggestion_marker
from continual.tables import Repository
from ghapp.app import build_deps, create_app
from ghapp.db import reading
from ghapp.jobs import due_count
from ghapp.settings import Settings
from ghsim import GitHubSimulator
from tests.conftest import WEBHOOK_SECRET
from tests.support.simulator import APP_ID, ORG, REPO, app_key, app_settings, make_client
from tests.support.web import serve, wait_for

INSTALLATION_ID = 77
_sids = itertools.count(1)


@dataclass
class Harness:
    sim: GitHubSimulator
    url: str
    engine: Engine
    settings: Settings

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until every job that is due has run (rescheduled ones may wait for later)."""

        wait_for(
            lambda: due_count(self.engine) == 0,
            timeout=timeout,
            what="the worker to run every due job",
        )

    def repository_id(self, full_name: str = REPO) -> int:
        with reading(self.engine) as conn:
            return int(
                conn.execute(
                    select(Repository.id).where(Repository.full_name == full_name)
                ).scalar_one()
            )

    def account_id(self, full_name: str = REPO) -> int:
        with reading(self.engine) as conn:
            return int(
                conn.execute(
                    select(Repository.account_id).where(Repository.full_name == full_name)
                ).scalar_one()
            )

    def plant_suggestion(
        self,
        number: int,
        *,
        title: str = "Unchecked parse_config result",
        lesson: str = "Check the result of `parse_config` in src/app.py before using it.",
        lens: str = "correctness",
        lab: str | None = "acme-labs",
        path: str = "src/app.py",
        line: int = 2,
        repo: str = REPO,
        replacement: str | None = None,
    ) -> tuple[str, int]:
        """A suggestion as a review would leave it: in the store and as the bot's comment."""
        sid = f"s{next(_sids)}x{number}"
        key = entry_key(lens, title)
        comment = self.sim.add_review_comment(
            repo,
            number,
            body=with_suggestion_marker(f"**{title}**\n\n{lesson}", sid, key),
            path=path,
            line=line,
            author=self.sim.bot_login,
            author_association="NONE",
            user_type="Bot",
        )
        self.settle()
        pull = self.sim.pull(repo, number)
        # The review checks a lesson's anchors against the diff's head side; so does this.
        context = {f.filename: head_side(f.patch or "") for f in self.sim.pull_files(repo, number)}
        anchors = verify_anchors(path=path, title=title, lesson=lesson, files=context)
        with self.engine.begin() as conn:
            store.record_suggestion(
                conn,
                store.NewSuggestion(
                    id=sid,
                    account_id=self.account_id(repo),
                    repository_id=self.repository_id(repo),
                    pr=number,
                    head_sha=pull["head"]["sha"],
                    path=path,
                    line=line,
                    seat="alpha",
                    lab=lab,
                    lens=lens,
                    title=title,
                    entry_key=key,
                    body=title,
                    lesson=lesson,
                    replacement=replacement,
                    set_sha256="e" * 64,
                    anchors=anchors.to_json(),
                ),
                now=0,
            )
            store.set_comment_id(conn, sid, comment["id"])
        return sid, int(comment["id"])


@contextmanager
def running_app(
    engine: Engine, database_url: str, tmp_path: Path, **settings: Any
) -> Iterator[Harness]:
    """The simulator and the app (web + worker) talking over real HTTP, the app installed on
    `octo-org/widgets` (installation 77)."""
    key = app_key()
    with GitHubSimulator(app_id=APP_ID, public_key_pem=key.public_pem) as sim:
        config = app_settings(sim, database_url, tmp_path, **settings)
        deps = build_deps(config, engine=engine, github=make_client(sim))
        with serve(create_app(config, deps=deps)) as url:
            sim.configure_webhooks(f"{url}/webhooks", WEBHOOK_SECRET)
            sim.add_installation(ORG, repositories=[REPO], installation_id=INSTALLATION_ID)
            harness = Harness(sim=sim, url=url, engine=engine, settings=config)
            harness.settle()
            yield harness
