"""Webhook signatures: HMAC-SHA256 of the raw body with the webhook secret, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac

SIGNATURE_PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The `X-Hub-Signature-256` header value GitHub sends for `body`."""
    return SIGNATURE_PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, header: str | None) -> bool:
    """True only for a well-formed sha256 signature of exactly this body."""
    if not header or not header.startswith(SIGNATURE_PREFIX):
        return False
    return hmac.compare_digest(sign(secret, body).encode(), header.strip().encode())
