"""A confirmed history refusal suppresses, end to end with memory off: back-fill → a person
confirms the candidate on `/ledger` → it is listed under Suppressions and the next review's
header says not to raise it → a person lifts it there → the review after that is not told; a
decided, unknown or foreign candidate answers 404 and changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import Engine, insert, select

from continual.suppression import DISMISSED_HEADER, Suppression, suppressions
from continual.tables import Account, HistoryRefusal, Repository
from ghapp.jobs import now_ms
from ghsim import addition_patch
from ghsim.history import seed_history
from tests.support.history import ask_backfill
from tests.support.ledger_page import sign_in
from tests.support.recall import token
from tests.support.review import Harness, harness, lenses_toml, requests_of, seat_toml
from tests.support.simulator import ORG, REPO

BOT_SAID = "Consider renaming this variable."  # what the simulated bot suggests
LINE = f"- {BOT_SAID} (lens ci-helper[bot]; anywhere in the repository (first at src/module_"
FOREIGN = "elsewhere-org/gadgets"


def repository(engine: Engine, full_name: str = REPO) -> Any:
    with engine.connect() as conn:
        return conn.execute(select(Repository).where(Repository.full_name == full_name)).one()


def standing(engine: Engine) -> tuple[Suppression, ...]:
    with engine.connect() as conn:
        return suppressions(conn, repository(engine).id, now_ms=now_ms())


def states(engine: Engine) -> dict[int, str]:
    with engine.connect() as conn:
        return dict(conn.execute(select(HistoryRefusal.id, HistoryRefusal.state)).all())


def header_of_next_review(h: Harness, logs: Path, path: str) -> str:
    for logged in logs.glob("*.json"):
        logged.unlink()
    h.sim.open_pull(REPO, files={path: addition_patch([f"value = compute({n})" for n in range(6)])})
    h.run()
    (request,) = requests_of(logs)
    return str(request["header"])


def test_a_confirmed_refusal_is_a_suppression_until_a_person_lifts_it(
    engine: Engine, tmp_path: Path
) -> None:
    logs = tmp_path / "requests"
    logs.mkdir()
    toml = seat_toml(tmp_path, "alpha", log_dir=str(logs)) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:  # memory stays off
        history = seed_history(
            h.sim.world, REPO, pulls_count=2, comments_per_pull=4, refuse_bots=True
        )
        h.run()
        ask_backfill(engine)
        with engine.begin() as conn:
            conn.execute(insert(Account).values(id=987, login="elsewhere-org", created_ms=0))
            conn.execute(insert(Repository).values(id=9870, account_id=987, full_name=FOREIGN))
        h.run()
        refused = sorted(i for p in history.pulls for i in p.refused)
        assert len(refused) == 2 and set(states(engine).values()) == {"candidate"}
        assert DISMISSED_HEADER not in header_of_next_review(h, logs, "src/first.py")

        with httpx.Client(base_url=h.url) as web:
            csrf = sign_in(web, token(engine, ORG, "octocat"))

            def post(item: int, action: str = "confirm", repo: str = REPO) -> httpx.Response:
                form = {"csrf": csrf, "repo": repo, "action": action}
                return web.post(f"/ledger/history/refusals/{item}", data=form)

            assert post(refused[0]).status_code == 303
            assert post(refused[0]).status_code == 404  # decided already
            assert post(refused[0], "reject").status_code == 404
            assert post(10**12).status_code == 404  # no such candidate
            assert post(refused[1], repo=FOREIGN).status_code == 404  # not the caller's
            assert states(engine) == {refused[0]: "confirmed", refused[1]: "candidate"}
            (found,) = standing(engine)
            with engine.connect() as conn:
                who = conn.execute(
                    select(HistoryRefusal.maintainer).where(HistoryRefusal.id == refused[0])
                ).scalar_one()
            assert (found.lens, found.title, found.actor) == ("ci-helper[bot]", BOT_SAID, who)
            page = web.get("/ledger", params={"repo": REPO}).text
            listed = page.split('id="suppressions"', 1)[1].split("</section>", 1)[0]
            assert f'id="suppression-{found.entry_id}-1"' in listed and BOT_SAID in listed
            assert "until a person lifts it" in listed and 'data-action="lift"' in listed

            header = header_of_next_review(h, logs, "src/second.py")
            assert f"{DISMISSED_HEADER}\n{LINE}" in header

            lift = {
                "csrf": csrf,
                "repo": REPO,
                "action": "lift",
                "expected_revision": str(found.revision),
            }
            assert web.post(f"/ledger/lessons/{found.entry_id}", data=lift).status_code == 303
            assert standing(engine) == ()
            page = web.get("/ledger", params={"repo": REPO}).text
            assert "Nothing is suppressed." in page

        assert DISMISSED_HEADER not in header_of_next_review(h, logs, "src/third.py")
