"""Webhook signatures against GitHub's documented test vector."""

from __future__ import annotations

from ghapp.signature import sign, verify

# https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries#testing-the-webhook-payload-validation
SECRET = b"It's a Secret to Everybody"
BODY = b"Hello, World!"
EXPECTED = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


def test_githubs_documented_vector() -> None:
    assert sign(SECRET, BODY) == EXPECTED
    assert verify(SECRET, BODY, EXPECTED)


def test_wrong_secret_body_or_form_is_refused() -> None:
    assert not verify(b"another secret", BODY, EXPECTED)
    assert not verify(SECRET, BODY + b" ", EXPECTED)
    assert not verify(SECRET, BODY, None)
    assert not verify(SECRET, BODY, "")
    assert not verify(SECRET, BODY, EXPECTED.removeprefix("sha256="))
    assert not verify(SECRET, BODY, "sha1=" + EXPECTED.removeprefix("sha256=")[:40])
    assert not verify(SECRET, BODY, EXPECTED.upper())
