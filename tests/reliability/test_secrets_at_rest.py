"""Secrets in untrusted text are never stored: redacted at every store write, in linear time."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from sqlalchemy import Engine, select

from continual import persons, store
from continual.tables import Entry, LinkName, Receipt, ReviewRow, Suggestion
from continual.writeback.apply import apply_decisions
from ghsim import addition_patch
from review.contract import parse_result_object
from tests.support.review import harness, lenses_toml, seat_toml
from tests.support.simulator import ORG, REPO
from tests.support.store import ACCOUNT_ID, REPO_ID, decision, seed_tenant

NOW = 1_700_000_000_000
LIMIT = 65_536
# Built from pieces so that no literal credential-shaped string sits in the source.
AWS_ID = "AKIA" + "IOSFODNN7EXAMPL" + "Q"
GH_TOKEN = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
SLACK = "xoxb-" + "2637485910" + "-" + "4859372615" + "-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7"
PEM = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi0\n-----END RSA PRIVATE KEY-----"
)
SECRETS = (AWS_ID, GH_TOKEN, SLACK, PEM)
PLACEHOLDERS = (
    "[redacted aws-access-key]",
    "[redacted github-token]",
    "[redacted slack-token]",
    "[redacted private-key]",
)

# Shapes that made a rule try every start and scan the rest of the text from each.
ADVERSARIAL = {
    "assignment names": "token" * (LIMIT // 5),
    "assignment values": ("key=" * (LIMIT // 4))[: LIMIT - 1] + "(",
    "jwt segments": "eyJ-" * (LIMIT // 4),
    "pem headers": (("-----BEGIN PRIVATE KEY-----" + "a:" * 20 + "\\n") * (LIMIT // 68))[:LIMIT],
    "slack digits": "xoxb-" + "1" * (LIMIT - 5),
    "aws secret spacing": "aws_secret_key" + " " * (LIMIT - 15) + "=",
}
SCRIPT = """
import sys
from continual.secrets import redact, find_secret
text = sys.stdin.read()
assert len(text) <= {limit}, len(text)
redact(text)
find_secret(text)
print("done")
"""


@pytest.mark.parametrize("shape", sorted(ADVERSARIAL))
def test_adversarial_65536_characters_are_scanned_in_linear_time(shape: str) -> None:
    text = ADVERSARIAL[shape]
    assert len(text) <= LIMIT
    # A bound, not a measurement: quadratic patterns took minutes on these inputs.
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(limit=LIMIT)],
        input=text,
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )
    assert done.stdout.strip() == "done"


def _seat_answer() -> dict[str, object]:
    words = " ".join(SECRETS)
    return {
        "findings": [
            {
                "path": "src/app.py",
                "line": 12,
                "title": f"Hard-coded credential {AWS_ID}",
                "body": f"The PR commits {words} in `load_config`.",
                "lesson": f"Never commit {GH_TOKEN} to `load_config`; read it from settings.",
                "suggestion": f'TOKEN = "{GH_TOKEN}"',
            }
        ]
    }


def test_a_seat_finding_is_parsed_redacted_and_its_secret_code_dropped() -> None:
    finding = parse_result_object(_seat_answer()).findings[0]
    text = " ".join([finding.title, finding.body, finding.lesson or ""])
    assert not any(secret in text for secret in SECRETS)
    assert all(placeholder in finding.body for placeholder in PLACEHOLDERS)
    assert finding.title == "Hard-coded credential [redacted aws-access-key]"
    assert finding.suggestion is None  # a placeholder applied would break the code


def test_every_store_write_keeps_only_placeholders(engine: Engine) -> None:
    seed_tenant(engine)
    words = " ".join(SECRETS)
    with engine.begin() as conn:
        store.record_suggestion(
            conn,
            store.NewSuggestion(
                id="s_secret",
                account_id=ACCOUNT_ID,
                repository_id=REPO_ID,
                pr=7,
                head_sha="a" * 40,
                path="src/app.py",
                line=12,
                seat="alpha",
                lab="acme",
                lens="security",
                title=f"Hard-coded {AWS_ID}",
                entry_key="lesson/security-hard-coded-0123456789",
                body=f"The PR commits {words}.",
                lesson=f"Never commit {GH_TOKEN} in `load_config`.",
                replacement=f'TOKEN = "{GH_TOKEN}"',
                anchors=json.dumps({"identifiers": [SLACK]}),
            ),
            now=NOW,
        )
    reply = decision("s_secret")
    apply_decisions(engine, [reply.__class__(**{**reply.__dict__, "span": f"ok {SLACK}"})], now=NOW)
    with engine.connect() as conn:
        stored = [
            *conn.execute(
                select(Suggestion.title, Suggestion.body, Suggestion.lesson, Suggestion.anchors)
            ).one(),
            *conn.execute(select(Entry.title, Entry.text, Entry.associations)).one(),
            *conn.execute(select(Receipt.span)).scalars(),
            *conn.execute(select(LinkName.name)).scalars(),
        ]
        replacement = conn.execute(select(Suggestion.replacement)).scalar_one()
    everything = "\n".join(str(value) for value in stored)
    for secret in SECRETS:
        assert secret not in everything
        assert secret.lower() not in everything.lower()
    assert "[redacted aws-access-key]" in everything
    assert "[redacted slack-token]" in everything
    assert replacement is None


def test_a_review_and_its_writeback_keep_and_return_only_placeholders(
    engine: Engine, tmp_path: Path
) -> None:
    words = " ".join(SECRETS)
    extra = {
        "path": "src/app.py",
        "line": 2,
        "title": f"Hard-coded credential {AWS_ID}",
        "body": f"The change commits {words}.",
        "lesson": f"Never commit {GH_TOKEN} in `parse_config` in src/app.py.",
        "suggestion": f'TOKEN = "{GH_TOKEN}"',
    }
    toml = seat_toml(tmp_path, "alpha", findings=[extra]) + lenses_toml("correctness")
    with harness(engine, tmp_path, toml) as h:
        patch = addition_patch(["raw = read()", "config = parse_config(raw)"])
        number = int(h.sim.open_pull(REPO, files={"src/app.py": patch})["number"])
        h.run()
        (comment,) = [
            c
            for c in h.sim.review_comments(REPO, number)
            if c["user"]["login"] == h.sim.bot_login and "hindsight:suggestion" in c["body"]
        ]
        h.sim.advance_clock(2)
        h.sim.reply(
            REPO, number, comment["id"], f"Good catch, fixed. {SLACK}", author="olivia",
            author_association="OWNER",
        )  # fmt: skip
        h.run()
        # The change the reply claims: the commented line's neighbourhood changes, so it binds.
        h.sim.advance_clock(2)
        fix = "@@ -1,2 +1,3 @@\n raw = read()\n config = parse_config(raw)\n+assert config"
        h.sim.synchronize(REPO, number, files={"src/app.py": fix})
        h.run()
        with engine.begin() as conn:
            token = persons.create_token(conn, ORG, "mona", now=h.clock()).secret
        headers = {"authorization": f"Bearer {token}"}
        answers = [
            httpx.get(f"{h.url}/v1/recall", headers=headers, timeout=30).text,
            httpx.get(
                f"{h.url}/v1/brief",
                headers=headers,
                params={"repo": REPO, "session": "s1"},
                timeout=30,
            ).text,
        ]
    with engine.connect() as conn:
        stored = [
            *(
                v
                for row in conn.execute(
                    select(Suggestion.title, Suggestion.body, Suggestion.lesson)
                )
                for v in row
            ),
            *conn.execute(select(Entry.title, Entry.text, Entry.associations)).one(),
            *conn.execute(select(ReviewRow.draft)).scalars(),
            *conn.execute(select(LinkName.name)).scalars(),
            *conn.execute(select(Receipt.span)).scalars(),
        ]
    everything = "\n".join([comment["body"], *answers, *(str(value) for value in stored)])
    for secret in SECRETS:
        assert secret not in everything
        assert secret.lower() not in everything.lower()
    assert "[redacted aws-access-key]" in answers[0]
    assert "```suggestion" not in comment["body"]  # the suggested code held a token
    assert "redacted private-key" in comment["body"]  # posted escaped: \\[redacted …\\]
