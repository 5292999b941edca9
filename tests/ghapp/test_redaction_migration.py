"""Migration 0022: secrets stored before redaction are replaced by their placeholders, in batches."""

from __future__ import annotations

import json

from sqlalchemy import Engine, insert, select

from continual.tables import Account, Entry, LinkName, Receipt, Repository, ReviewRow, Suggestion
from tests.support.migrations import NOW, entry, receipt, suggestion, upgrade

REVISION = "0022_redact_stored_secrets"
# Built from pieces so that no literal credential-shaped string sits in the source.
AWS_ID = "AKIA" + "IOSFODNN7EXAMPL" + "Q"
GH_TOKEN = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
SLACK = "xoxb-" + "2637485910" + "-" + "4859372615" + "-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7"
PEM = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi0\n-----END RSA PRIVATE KEY-----"
)
SECRETS = (AWS_ID, GH_TOKEN, SLACK, PEM)
ROWS = 1_201  # more than two batches


def test_stored_secrets_are_redacted(engine_before: Engine) -> None:
    engine = engine_before
    words = " ".join(SECRETS)
    with engine.begin() as conn:
        conn.execute(insert(Account).values(id=1, login="octo", created_ms=NOW))
        conn.execute(insert(Repository).values(id=10, account_id=1, full_name="octo/app"))
        conn.execute(
            insert(Suggestion),
            [
                {
                    **suggestion(f"s{n:05}", "lesson/k-1", body=f"leaks {words}"),
                    "replacement": f'TOKEN = "{GH_TOKEN}"' if n % 2 else "x = 1",
                }
                for n in range(ROWS)
            ],
        )
        conn.execute(
            insert(Entry),
            {
                **entry("e1", "lesson/k-1", confirmed=NOW),
                "text": f"Never commit {GH_TOKEN} in `load`.",
                "associations": json.dumps({"identifiers": [AWS_ID, "load"]}),
            },
        )
        conn.execute(
            insert(Receipt),
            {**receipt("e1", "s00001", "reply", NOW, "octo"), "span": f"ok {SLACK}"},
        )
        conn.execute(
            insert(LinkName),
            {"account_id": 1, "number": 0, "kind": 2, "name": AWS_ID, "digest": "d" * 32},
        )
        draft = {"review_id": "r_1", "commit_id": "a" * 40, "body": words, "comments": []}
        conn.execute(
            insert(ReviewRow).values(
                id="r_1", account_id=1, repository_id=10, pr=1, head_sha="a" * 40,
                state="posted", draft=json.dumps(draft), created_ms=NOW,
            )
        )  # fmt: skip

    upgrade(engine, REVISION)

    with engine.connect() as conn:
        bodies = conn.execute(select(Suggestion.body, Suggestion.replacement)).all()
        stored = [
            *conn.execute(select(Entry.text, Entry.associations)).one(),
            conn.execute(select(Receipt.span)).scalar_one(),
            conn.execute(select(LinkName.name)).scalar_one(),
            conn.execute(select(ReviewRow.draft)).scalar_one(),
        ]
    assert len(bodies) == ROWS
    expected = (
        "leaks [redacted aws-access-key] [redacted github-token] [redacted slack-token] "
        "[redacted private-key]"
    )
    assert all(body == expected for body, _code in bodies)
    assert sorted({code for _body, code in bodies}, key=str) == [None, "x = 1"]
    everything = "\n".join(str(value) for value in stored)
    assert not any(secret in everything for secret in SECRETS)
    assert json.loads(str(stored[1])) == {"identifiers": ["[redacted aws-access-key]", "load"]}
    assert stored[2] == "ok [redacted slack-token]"
    assert json.loads(str(stored[4]))["body"] == expected.removeprefix("leaks ")
