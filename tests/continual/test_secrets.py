"""The curated secret rules: each kind is found, near misses are not, and clean text is cheap."""

from __future__ import annotations

import json
import time

import pytest

from continual.secrets import RULE_IDS, find_secret, redact, redact_json, shannon_entropy

# Built from pieces so that no literal credential-shaped string sits in the source.
AWS_ID = "AKIA" + "IOSFODNN7EXAMPL" + "Q"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfi" + "CYEXAMPLEKEY"
GCP_KEY = "AIza" + "SyD-9tSrke72PouQMnMX" + "-a7eZSW0jkFMBWY"
GH_TOKEN = "ghp_" + "16C7e42F292c6912E7710c838347Ae178B4a"
GH_PAT = "github_pat_" + "11ABCDEFG0123456789abc" + "_" + "a" * 20 + "B" * 20 + "c9" * 9 + "d"
GITLAB = "glpat-" + "xY7zQ2mN9pL4kR8tV1wB"
SLACK = "xoxb-" + "2637485910" + "-" + "4859372615" + "-" + "aB3dE5fG7hJ9kL1mN3pQ5rS7"
SLACK_HOOK = (
    "https://hooks.slack.com/services/" + "T0A1B2C3D" + "/" + "B4E5F6G7H" + "/" + "x" * 8 + "Y7z"
    "Q2mN9pL4kR8tV1wB"
)
STRIPE = "sk_" + "live_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_RESTRICTED = "rk_" + "live_" + "51HxYzAbCdEfGhIjKlMnOpQr"
PEM = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi0\n-----END RSA PRIVATE KEY-----"
)
PEM_ESCAPED = '"-----BEGIN ' + 'PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n"'
JWT = (
    "eyJ" + "hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
GCP_SERVICE_ACCOUNT = '{"type": "service_' + 'account", "project_id": "demo"}'


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        (f"export AWS_ACCESS_KEY_ID={AWS_ID}", "aws-access-key-id"),
        (f"aws_secret_access_key = {AWS_SECRET}", "aws-secret-access-key"),
        (f"maps key {GCP_KEY} in client.py", "gcp-api-key"),
        (GCP_SERVICE_ACCOUNT, "gcp-service-account-key"),
        (f"use {GH_TOKEN} for the API", "github-token"),
        ("token gho_" + "x" * 36, "github-token"),
        ("ghs_" + "Ab1" * 12, "github-token"),
        (f"pat {GH_PAT}", "github-fine-grained-token"),
        (f"clone with {GITLAB}", "gitlab-token"),
        (f"bot {SLACK}", "slack-token"),
        (f"post to {SLACK_HOOK}", "slack-webhook"),
        (f"charge with {STRIPE}", "stripe-key"),
        (f"report with {STRIPE_RESTRICTED}", "stripe-key"),
        (PEM, "private-key"),
        (PEM_ESCAPED, "private-key"),
        (f"Authorization: Bearer {JWT}", "jwt"),
        ("DB_PASSWORD=Xk29fjQ8vLz0pR7mWq3T", "generic-assignment"),
        ('"api_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"', "generic-assignment"),
        ("client_secret := 'u8Qz3LmP0vK7sR2wX9yB'", "generic-assignment"),
    ],
)
def test_each_rule_finds_its_kind(text: str, rule: str) -> None:
    hit = find_secret(f"Before. {text} After.")
    assert hit is not None
    assert hit.rule == rule
    assert hit.start >= len("Before. ")
    assert hit.end > hit.start


def test_every_rule_is_exercised() -> None:
    assert set(RULE_IDS) == {
        "aws-access-key-id",
        "aws-secret-access-key",
        "gcp-api-key",
        "gcp-service-account-key",
        "github-token",
        "github-fine-grained-token",
        "gitlab-token",
        "slack-token",
        "slack-webhook",
        "stripe-key",
        "private-key",
        "jwt",
        "generic-assignment",
    }


@pytest.mark.parametrize(
    "text",
    [
        "Check the result of `parse_config` in src/app.py before using it.",
        "Use AKIA as a prefix check only in aws.py.",  # the prefix alone
        "AKIAIOSFODNN7",  # too short for an access key id
        "Read the ghp_ prefix list in tokens.py.",
        "ghp_" + "a" * 20,  # too short
        "glpat-short",
        "Call xoxb-handler in slack.py.",
        "pk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",  # a publishable Stripe key is public
        "sk_live_short",
        "Reject blocks starting with -----BEGIN PRIVATE KEY----- in pem.py.",  # header only
        "eyJhbGciOiJIUzI1NiJ9 alone is just a header",
        "token = settings.webhook_secret",  # a name, not a value
        "password = os.environ.get('DB_PASSWORD')",
        "api_key = compute_sha256_digest",
        "secret = aaaaaaaaaaaaaaaaaaaaaa1",  # low entropy
        "password = hunter2",  # short
        "key = ValueError",
        "See https://hooks.slack.com/services for the docs.",
        "",
    ],
)
def test_near_misses_are_not_flagged(text: str) -> None:
    assert find_secret(text) is None


def test_the_earliest_secret_is_reported() -> None:
    text = f"first {GITLAB} then {GH_TOKEN}"
    hit = find_secret(text)
    assert hit is not None
    assert hit.rule == "gitlab-token"
    assert text[hit.start : hit.end] == GITLAB


def test_a_hit_carries_no_text() -> None:
    hit = find_secret(f"use {GH_TOKEN}")
    assert hit is not None
    assert GH_TOKEN not in repr(hit)
    assert "ghp_" not in repr(hit)


def test_entropy() -> None:
    assert shannon_entropy("") == 0.0
    assert shannon_entropy("aaaa") == 0.0
    assert shannon_entropy("abcd") == pytest.approx(2.0)


def test_clean_text_costs_microseconds() -> None:
    text = (
        "Check the result of `parse_config` in src/app.py before using it. "
        "An empty file makes it return None and the loader crashes later."
    )
    rounds = 2000
    started = time.perf_counter()
    for _ in range(rounds):
        find_secret(text)
    per_call = (time.perf_counter() - started) / rounds
    assert per_call < 100e-6  # generous for slow CI machines; typically a few microseconds


@pytest.mark.parametrize(
    ("secret", "placeholder"),
    [
        (AWS_ID, "[redacted aws-access-key]"),
        (GH_TOKEN, "[redacted github-token]"),
        (PEM, "[redacted private-key]"),
        (SLACK, "[redacted slack-token]"),
        (JWT, "[redacted jwt]"),
        (STRIPE, "[redacted stripe-key]"),
    ],
)
def test_redact_replaces_each_secret_with_its_typed_placeholder(
    secret: str, placeholder: str
) -> None:
    text = f"Before {secret} after."
    assert redact(text) == f"Before {placeholder} after."
    assert redact(redact(text)) == redact(text)


def test_redact_keeps_an_assignment_and_replaces_only_its_value() -> None:
    assert redact("DB_PASSWORD=Xk29fjQ8vLz0pR7mWq3T ok") == "DB_PASSWORD=[redacted secret] ok"


def test_a_pem_block_is_redacted_whole_with_its_end_line() -> None:
    text = f"key:\n{PEM}\nthen the rest"
    assert redact(text) == "key:\n[redacted private-key]\nthen the rest"


def test_clean_text_comes_back_unchanged() -> None:
    text = "Use `settings.webhook_secret` through `hmac.compare_digest`."
    assert redact(text) is text


def test_a_placeholder_still_counts_as_a_secret_so_the_lesson_stays_flagged() -> None:
    hit = find_secret(redact(f"Never commit {GH_TOKEN} in `config.py`."))
    assert hit is not None and hit.rule == "redacted"


def test_json_values_are_redacted_and_the_json_stays_valid() -> None:
    text = json.dumps({"body": f"leaked {PEM_ESCAPED} and {AWS_ID}", "n": 1}, sort_keys=True)
    cleaned = redact_json(text)
    assert cleaned is not None
    parsed = json.loads(cleaned)
    assert parsed["body"] == 'leaked "[redacted private-key]" and [redacted aws-access-key]'
    assert parsed["n"] == 1
