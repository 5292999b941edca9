"""A throwaway RSA key pair for a simulated app: the private half signs JWTs, the public verifies."""

from __future__ import annotations

from dataclasses import dataclass, field

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


@dataclass(frozen=True)
class AppKeyPair:
    private_pem: str = field(repr=False)
    public_pem: str


def generate_app_key() -> AppKeyPair:
    """A fresh 2048-bit RSA key pair as PEM text (PKCS#8 private, SubjectPublicKeyInfo public)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return AppKeyPair(private, public.decode())
