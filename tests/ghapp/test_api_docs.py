"""docs/api.md is true to the server: every curl example in it is run with curl against the app on
loopback (after a real review and a maintainer's reply), and its answer has the documented shape."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from continual.tables import Entry, ReviewRow
from ghsim.history import seed_history
from tests.support.discover_seat import discovery_seat
from tests.support.history import ask_backfill
from tests.support.recall import token
from tests.support.review import ORG, REPO, bug_files, harness, seat_toml

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "api.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
DOC_KEY = re.compile(r'"([a-z_0-9]+)":')
SESSION_EXPORT = re.compile(r"^export SESSION_ID=(\S+)", re.MULTILINE)


def blocks() -> list[tuple[str, str]]:
    return [(match[1], match[2]) for match in FENCE.finditer(DOC.read_text())]


def commands(script: str) -> list[str]:
    """The curl commands of a shell block, continuation lines joined."""
    joined = script.replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip().startswith("curl ")]


def keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for item in value.values() for k in keys(item)}
    if isinstance(value, list):
        return {k for item in value for k in keys(item)}
    return set()


def nulls(value: Any) -> set[str]:
    """Keys the server answered null for (anywhere in the answer)."""
    if isinstance(value, dict):
        return {k for k, v in value.items() if v is None} | {
            k for item in value.values() for k in nulls(item)
        }
    if isinstance(value, list):
        return {k for item in value for k in nulls(item)}
    return set()


def documented_keys(block: str, absent: set[str]) -> set[str]:
    """The keys a documented answer shows, leaving out the inside of an object the docs show for
    a key the server answered null for (a proof that did not run here, say)."""
    for name in absent:
        start = block.find(f'"{name}": {{')
        while start != -1:
            depth, opening = 0, block.index("{", start)
            end = opening
            for end in range(opening, len(block)):
                depth += {"{": 1, "}": -1}.get(block[end], 0)
                if depth == 0:
                    break
            block = block[:start] + f'"{name}": null' + block[end + 1 :]
            start = block.find(f'"{name}": {{')
    return set(DOC_KEY.findall(block))


def run_curl(command: str, env: dict[str, str], values: dict[str, str]) -> tuple[int, Any]:
    for placeholder, real in values.items():
        command = command.replace(placeholder, real)
    result = subprocess.run(
        ["bash", "-c", f"{command} -w '\\n%{{http_code}}'"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    body, _, status = result.stdout.rpartition("\n")
    return int(status), json.loads(body) if body.strip() else None


@pytest.fixture
def live(engine: Engine, tmp_path: Path) -> Any:
    toml = seat_toml(tmp_path, "alpha") + seat_toml(tmp_path, "beta", lab="other", mode="fail")
    toml += discovery_seat(tmp_path / "finder").toml()  # the history's lessons
    with harness(engine, tmp_path, toml, memory=True) as h:
        h.sim.open_pull(REPO, title="Parse the config", files=bug_files(1))
        h.run()
        (comment, *_) = h.sim.review_comments(REPO, 1)
        h.sim.reply(REPO, 1, comment["id"], "accepted", author="octocat")
        h.run()
        h.sim.open_pull(REPO, title="Parse it again", files=bug_files(1, prefix="src/mod"))
        h.run()
        # Its past: a lesson two pull requests ask for, and another bot's refused suggestions.
        seed_history(h.sim.world, REPO, pulls_count=2, comments_per_pull=6, refuse_bots=True)
        ask_backfill(engine)
        h.run()
        yield h


def test_every_curl_example_answers_as_documented(live: Any, engine: Engine) -> None:
    with engine.connect() as conn:
        # One comment carried the finding of every lens, and the one reply decided them all.
        live_rows = conn.execute(select(Entry).where(Entry.deleted_ms.is_(None))).all()
        (entry,) = [row for row in live_rows if row.lens == "correctness"]
        first_review = (
            conn.execute(select(ReviewRow.id).order_by(ReviewRow.created_ms)).scalars().first()
        )
    assert first_review is not None
    secret = token(engine, ORG, "mona")
    (session,) = SESSION_EXPORT.findall(DOC.read_text())
    env = {
        "PATH": "/usr/bin:/bin",
        "HINDSIGHT_URL": live.url,
        "HINDSIGHT_TOKEN": secret,
        "SESSION_ID": session,
        # What the docs read from the API first (test_api_docs_demo.py runs those lines).
        "LESSON_ID": entry.id,
        "LESSON_REVISION": str(entry.revision),
        "REVIEW_ID": first_review,
    }
    values = {"demo-org/payments": REPO, "src/payments/charge.py": "src/app.py"}

    found = blocks()
    ran: list[str] = []
    answers: dict[str, Any] = {}
    for index, (language, text) in enumerate(found):
        if language != "sh":
            continue
        documented = found[index + 1][1] if index + 1 < len(found) else ""
        shown = found[index + 1][0] == "json" if index + 1 < len(found) else False
        for command in commands(text):
            status, body = run_curl(command, env, values)
            ran.append(command)
            assert status in (200, 204), f"{command} answered {status}: {body}"
            answers[command] = body
            if "/v1/brief" in command:
                # The memory summary holds what earlier reviews found out (docs/api.md).
                assert "Memory is a heuristic" in body["text"] and body["lessons"]
                status, again = run_curl(command, env, values)
                assert status == 200 and again["text"] == "", (
                    f"a second brief hands only news: first {body['text']!r}"
                )
            if shown and body is not None:
                missing = documented_keys(documented, nulls(body)) - keys(body)
                assert not missing, f"{command}: the docs show {missing}, the server does not"
                undocumented = set(body) - set(DOC_KEY.findall(documented))
                assert not undocumented, f"{command}: the server gives {undocumented} undocumented"
    assert len(ran) == 13, ran

    switched = next(body for command, body in answers.items() if "/v1/memory?" in command)
    assert switched["enabled"] and switched["changed_by"] == "mona", "the switch as documented"
    recall = next(body for command, body in answers.items() if command.endswith('/v1/recall"'))
    (receipt,) = recall["lessons"][0]["sources"]
    assert receipt["actor"] == "octocat", "the actor is the maintainer's login"

    forget = next(c for c in ran if "/v1/sessions/" in c)
    status, twice = run_curl(forget, env, values)
    assert status == 200 and set(twice["deleted"].values()) == {0}, "a review's session: zeros"
    agent = forget.replace("$REVIEW_ID", session)
    status, gone = run_curl(agent, env, values)
    assert status == 200 and gone["deleted"]["injections"] >= 1
    status, unknown = run_curl(agent, env, values)
    assert status == 404 and unknown["error"]["code"] == "not_found"
