"""No secret reaches a log: the private key, the webhook secret, installation tokens and API tokens
stay out of every record (DEBUG, every logger), worker stderr and the demo's output. And no value
forges a log line: control characters are escaped in text and JSON lines alike."""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine

from ghapp import demo
from ghapp.app import build_deps
from ghapp.handlers import build_router
from ghapp.logs import FieldsFormatter, JsonFormatter
from ghapp.settings import Settings
from ghapp.worker import Worker
from ghsim import GitHubSimulator
from tests.support.reliability import (
    api_token,
    maintainer_says,
    receipts,
    stage,
    suggestions_match_comments,
)
from tests.support.review import bug_files, lenses_toml, seat_toml
from tests.support.simulator import REPO, app_key, make_client
from tests.support.web import deliver


def pem_lines(pem: str) -> list[str]:
    """The body lines of a PEM key (the armour lines are no secret)."""
    return [line for line in pem.strip().splitlines() if line and not line.startswith("-----")]


def rendered(records: list[logging.LogRecord]) -> str:
    """Every record as the app's formatter writes it: message, fields and any traceback."""
    formatter = FieldsFormatter("%(asctime)s %(levelname)s %(name)s %(message)s")
    return "\n".join(formatter.format(record) for record in records)


def leaks(text: str, named: dict[str, list[str]]) -> list[str]:
    return [
        f"{what}: …{value[:6]}…"
        for what, values in named.items()
        for value in values
        if value in text
    ]


def test_a_full_loop_logs_no_secret(
    engine: Engine, database_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    webhook_secret = secrets.token_hex(20)
    toml = seat_toml(tmp_path, "alpha") + lenses_toml("correctness")
    with stage(
        engine, database_url, tmp_path, toml, secret=webhook_secret, log_level="DEBUG"
    ) as st:
        sim = st.sim
        # The review, in a worker process logging at DEBUG.
        number = int(sim.open_pull(REPO, files=bug_files(3))["number"])
        assert st.worker(until_idle=True).wait(timeout=120) == 0
        on_github = suggestions_match_comments(sim, engine, [number])
        (first, second, third) = sorted(on_github.values())
        maintainer_says(sim, number, first[1], "accept")
        maintainer_says(sim, number, second[1], "dismiss false-positive")
        sim.reply(REPO, number, third[1], "accept", author="drive-by", author_association="NONE")
        sim.close(REPO, number)
        # The write-back, in this process.
        deps = build_deps(st.settings, engine=engine, github=make_client(sim))
        assert asyncio.run(Worker(deps, build_router(), concurrency=1).run_until_idle()) > 0
        assert len(receipts(engine)) == 2

        # `/v1` with a good token, a revoked-looking one, and a forged webhook.
        token = api_token(engine)
        with httpx.Client(base_url=st.url, timeout=30) as client:
            good = {"authorization": f"Bearer {token}"}
            for path in (
                "/v1/recall",
                f"/v1/recall/active?repo={REPO}&session=s-1",
                f"/v1/brief?repo={REPO}&session=s-1",
                "/v1/review-ledger?brain=true",
            ):
                assert client.get(path, headers=good).status_code == 200, path
            assert client.put("/v1/persons/preference", json={"surfacing": 2}, headers=good)
            assert client.put("/v1/persons/preference", json={"surfacing": 9}, headers=good)
            wrong = {"authorization": f"Bearer {token[:-2]}xx"}
            assert client.get("/v1/recall", headers=wrong).status_code == 401
            forged = deliver(client, st.url, "not-the-secret", "pull_request", {"action": "x"})
            assert forged.status_code == 401
        minted = list(sim.world.tokens)
        output = rendered(caplog.records) + "\n" + st.worker_output()

    assert minted, "installation tokens were minted and used"
    for expected in ("review posted", "write-back done", "job done"):
        assert expected in output, f"the logs were not captured: no {expected!r}"
    assert not leaks(
        output,
        {
            "private key": pem_lines(app_key().private_pem),
            "webhook secret": [webhook_secret],
            "installation token": minted,
            "API token": [token],
        },
    )


def test_the_demo_logs_and_prints_no_secret(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    made: dict[str, Any] = {}

    class Recorded(GitHubSimulator):
        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            made["sim"] = self

    def settings(**values: Any) -> Settings:
        built = Settings(**values)
        made["settings"] = built
        return built

    monkeypatch.setattr(demo, "GitHubSimulator", Recorded)
    monkeypatch.setattr(demo, "Settings", settings)
    echoed: list[str] = []
    assert demo.run_demo(tmp_path, keep=False, echo=echoed.append) == 0, "\n".join(echoed)

    config: Settings = made["settings"]
    sim: GitHubSimulator = made["sim"]
    minted = list(sim.world.tokens)
    assert minted and config.webhook_secret is not None
    output = "\n".join([rendered(caplog.records), *echoed, capsys.readouterr().out])
    assert "review posted" in output and "[11/11]" in output
    assert not leaks(
        output,
        {
            "private key": pem_lines(config.private_key_pem()),
            "webhook secret": [config.webhook_secret.get_secret_value()],
            "installation token": minted,
        },
    )


FORGED = (
    "/ledger\n2026-12-01 12:00:00,000 ERROR ghapp.ingress delivery forged\r\x1b[2K\x85\u2028x\x00"
)
CONTROLS = ["\n", "\r", "\x1b", "\x85", "\u2028", "\x00"]


def _record(message: str, *args: object, **extra: object) -> logging.LogRecord:
    record = logging.getLogger("ghapp.guard").makeRecord(
        "ghapp.guard", logging.WARNING, __file__, 1, message, args, None, extra=extra
    )
    return record


@pytest.mark.parametrize(
    "record",
    [
        pytest.param(lambda: _record("request body too slow", path=FORGED), id="field"),
        pytest.param(
            lambda: _record("request body too slow", path=FORGED.replace(" ", "")),
            id="field-without-spaces",
        ),
        pytest.param(lambda: _record("path %s", FORGED), id="message"),
        pytest.param(lambda: _record("request", **{FORGED: 1}), id="field-name"),
    ],
)
def test_text_lines_escape_control_characters(record: Any) -> None:
    line = FieldsFormatter("%(asctime)s %(levelname)s %(name)s %(message)s").format(record())
    assert len(line.splitlines()) == 1, line
    assert not any(char in line for char in CONTROLS), line
    assert "\\n2026-12-01" in line and "\\x1b[2K" in line  # shown, escaped


def test_json_lines_escape_control_characters() -> None:
    record = _record("path %s", FORGED, path=FORGED)
    line = JsonFormatter().format(record)
    assert len(line.splitlines()) == 1, line
    assert not any(char in line for char in CONTROLS), line
    parsed = json.loads(line)
    assert parsed["message"] == f"path {FORGED}" and parsed["path"] == FORGED  # nothing lost
