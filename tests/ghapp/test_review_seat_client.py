"""The HTTP client a review's seats share: opened once when a seat speaks HTTP, never for
command seats alone (opening one costs a TLS context before the first call)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, select

from continual.tables import Repository
from ghapp.github.reviewing import InstallationReviewGitHub
from review.pipeline import ReviewEnd, review_pull
from review.records import ReviewTarget
from tests.support.review import Harness, bug_files, harness, lenses_toml, seat_toml
from tests.support.simulator import REPO

KEY_ENV = "REVIEW_SEAT_CLIENT_KEY"


class Opened:
    """An ``http`` factory that counts the clients it opens and the requests they carry."""

    def __init__(self) -> None:
        self.clients = 0
        self.requests: list[httpx.Request] = []

    def _answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return httpx.Response(503, text="provider down")

    def __call__(self) -> httpx.AsyncClient:
        self.clients += 1
        return httpx.AsyncClient(transport=httpx.MockTransport(self._answer))


def _review(h: Harness, http: Opened) -> ReviewEnd:
    """Review the simulator's pull request #1 through ``review_pull``, as the handler does."""
    with h.engine.connect() as conn:
        account_id, repository_id = conn.execute(select(Repository.account_id, Repository.id)).one()
    pull = h.sim.pull(REPO, 1)
    target = ReviewTarget(account_id, repository_id, REPO, 1, pull["head"]["sha"])
    assert h.deps.github is not None and h.deps.review_config is not None

    async def review() -> ReviewEnd:
        assert h.deps.github is not None and h.deps.review_config is not None
        installation = await h.deps.github.get_repo_installation(REPO)
        github = InstallationReviewGitHub(
            h.deps.github.installation(installation.id), bot_login="hindsight[bot]"
        )
        return await review_pull(
            target,
            github=github,
            engine=h.engine,
            store_dir=h.store_dir,
            config=h.deps.review_config,
            clock=h.clock,
            snapshots=h.deps.snapshots,
            http=http,
            sandbox=h.deps.sandbox,
        )

    return asyncio.run(review())


def test_command_seats_alone_open_no_client(engine: Engine, tmp_path: Path) -> None:
    toml = seat_toml(tmp_path, "alpha") + seat_toml(tmp_path, "beta") + lenses_toml("correctness")
    http = Opened()
    with harness(engine, tmp_path, toml) as h:
        h.run()  # the installation: its repository is known from here
        h.sim.open_pull(REPO, files=bug_files(2))
        end = _review(h, http)
        comments = h.sim.review_comments(REPO, 1)

    assert end is ReviewEnd.POSTED and len(comments) == 2
    assert http.clients == 0


def test_an_http_seat_shares_one_client_for_the_review(
    engine: Engine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "key")
    remote = (
        '[[seats]]\nname = "remote"\nlab = "openai"\nkind = "openai"\nmodel = "m"\n'
        f'base_url = "http://seat.invalid/v1"\napi_key_env = "{KEY_ENV}"\ntimeout_s = 5\n'
    )
    toml = seat_toml(tmp_path, "alpha") + remote + lenses_toml("correctness", "security")
    http = Opened()
    with harness(engine, tmp_path, toml) as h:
        h.run()
        h.sim.open_pull(REPO, files=bug_files(2))
        end = _review(h, http)
        comments = h.sim.review_comments(REPO, 1)

    assert end is ReviewEnd.POSTED and len(comments) == 2, "alpha's findings; the remote failed"
    assert http.clients == 1
    assert [r.url.host for r in http.requests] == ["seat.invalid", "seat.invalid"]
