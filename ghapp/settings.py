"""The one settings object: HINDSIGHT_* environment variables and `.env`, validated at start."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

if TYPE_CHECKING:  # cryptography is imported when the key is read, not by every command
    from cryptography.hazmat.primitives.asymmetric import rsa

DEFAULT_DATABASE_URL = "sqlite:///hindsight.db"
# The password of a URL's user part: `scheme://user:PASSWORD@host`.
_URL_PASSWORD = re.compile(r"(?<=://)([^/@:\s]*):[^/@\s]*@")


def redact_url(text: str) -> str:
    """`text` with the password of any URL in it replaced by `***`."""
    return _URL_PASSWORD.sub(r"\1:***@", text)


# A webhook secret shorter than this is refused at start: anyone could guess it and sign deliveries.
MIN_WEBHOOK_SECRET_BYTES = 16

DATABASE_URL_HELP = (
    "use sqlite:///path/to/hindsight.db or postgresql+psycopg://user:password@host/database"
)
# The drivers this package installs: SQLite (standard library) and psycopg 3.
SUPPORTED_DRIVERS = {"sqlite": "sqlite", "postgresql": "postgresql+psycopg"}


class LogFormat(StrEnum):
    """How log lines are written: plain `key=value` text, or one JSON object a line."""

    TEXT = "text"
    JSON = "json"


class SettingsError(Exception):
    """A setting is missing or invalid; the message names it and says what to do."""


def _kind_of(key: object) -> str:
    """`an EC`, `a DSA`: the key's kind with its article."""
    kind = type(key).__name__.removesuffix("PrivateKey").lstrip("_")
    return f"{'an' if kind[:1] in 'AEFHILMNORSX' else 'a'} {kind}"


def _secret_text(value: SecretStr | None) -> str:
    return "" if value is None else value.get_secret_value()


class Settings(BaseSettings):
    """Everything the process reads from its environment, read once at start and passed down."""

    model_config = SettingsConfigDict(
        env_prefix="HINDSIGHT_", env_file=".env", extra="ignore", frozen=True
    )

    database_url: str = DEFAULT_DATABASE_URL
    github_app_id: int | None = None
    github_private_key: SecretStr | None = None
    github_private_key_file: Path | None = None
    webhook_secret: SecretStr | None = None
    github_api_url: str = "https://api.github.com"
    app_slug: str | None = None
    # The app's OAuth client (from the manifest flow): with both, `/ledger` offers
    # "Sign in with GitHub"; without, the ledger's sign-in is by API token only.
    github_client_id: str | None = None
    github_client_secret: SecretStr | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=3000, ge=1, le=65535)
    store_dir: Path = Path(".hindsight")
    config: Path = Path("hindsight.toml")
    worker_concurrency: int = Field(default=4, ge=1, le=256)
    job_lease_s: float = Field(default=300.0, gt=0)
    job_max_attempts: int = Field(default=8, ge=1, le=100)
    # How long a write-back caused by a reply or a review waits, so a burst becomes one run.
    writeback_coalesce_ms: int = Field(default=2_000, ge=0, le=600_000)
    # The history back-fill: whether an install asks for one, the share of an installation's hourly GitHub budget it may spend,
    # and how many cited facts of a repository's review history it publishes at most.
    history_on_install: bool = True
    history_budget_share: float = Field(default=0.25, gt=0, le=1)
    history_fact_cap: int = Field(default=200, ge=0, le=10_000)
    log_level: str = "INFO"
    # The door: requests in flight (also bounded by the descriptor limit), how long a body may
    # take to arrive, and how large a request's line and headers may be.
    max_in_flight: int = Field(default=512, ge=1, le=100_000)
    body_timeout_s: float = Field(default=10.0, gt=0, le=3_600)
    max_header_bytes: int = Field(default=64 * 1024, ge=4 * 1024, le=16 * 1024 * 1024)
    # Connections one remote address may hold open at once (behind a reverse proxy every
    # connection comes from the proxy: raise it there), and how long a connection may stay open
    # without starting a request (a new one before its first byte, a kept-alive one between two).
    max_connections_per_client: int = Field(default=64, ge=1, le=100_000)
    idle_timeout_s: float = Field(default=5.0, gt=0, le=3_600)
    # Delivery bodies older than this are pruned; their dedupe keys stay.
    delivery_retention_days: int = Field(default=14, ge=1, le=3_650)
    # The injection budgets, in approximate tokens (4 UTF-8 bytes each, framing included): a brief
    # (one call, at a session's start) and a context push (one hook, before a tool call).
    call_injection_tokens: int = Field(default=8_000, ge=1, le=64_000)
    hook_injection_tokens: int = Field(default=8_000, ge=1, le=64_000)
    # How long the agent hooks' warm helper waits for the next ask before it stops (0: the hooks
    # answer from the store themselves and never start one).
    hook_helper_idle_s: int = Field(default=900, ge=0, le=86_400)
    log_format: LogFormat = LogFormat.TEXT
    # The recall snapshots a process keeps, in MiB of their estimated size: the least recently
    # asked about accounts are evicted beyond it (default: half of a 2 GiB worker).
    snapshot_cache_mb: int = Field(default=1024, ge=16, le=1_048_576)
    # A bearer token `/metrics` asks for; without it `/metrics` answers loopback clients only.
    metrics_token: SecretStr | None = None

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, value: str) -> str:
        try:
            url = make_url(value)
        except ArgumentError:
            raise ValueError(f"not a database URL: {DATABASE_URL_HELP}") from None
        backend = url.get_backend_name()
        if backend not in SUPPORTED_DRIVERS:
            raise ValueError(f"{backend} databases are not supported: {DATABASE_URL_HELP}")
        if backend == "sqlite" and url.database in (None, "", ":memory:"):
            raise ValueError(f"SQLite needs a file: {DATABASE_URL_HELP}")
        if url.drivername == backend:
            url = url.set(drivername=SUPPORTED_DRIVERS[backend])
        elif url.drivername != SUPPORTED_DRIVERS[backend]:
            raise ValueError(f"the driver {url.drivername!r} is not installed: {DATABASE_URL_HELP}")
        return url.render_as_string(hide_password=False)

    @field_validator("log_level")
    @classmethod
    def _known_level(cls, value: str) -> str:
        if value.upper() not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
            raise ValueError("must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
        return value.upper()

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        """Every field as repr shows it: secrets masked by `SecretStr`, URL passwords redacted."""
        for name, value in super().__repr_args__():
            yield name, redact_url(value) if isinstance(value, str) else value

    @model_validator(mode="after")
    def _key_file_exists(self) -> Self:
        if self.github_private_key_file is not None and not self.github_private_key_file.is_file():
            raise ValueError(
                f"HINDSIGHT_GITHUB_PRIVATE_KEY_FILE: no file at {self.github_private_key_file}"
            )
        return self

    def private_key_pem(self) -> str:
        """The app's private key as PEM text, from the variable or the file."""
        if self.github_private_key is not None:
            return self.github_private_key.get_secret_value().replace("\\n", "\n")
        if self.github_private_key_file is not None:
            return self.github_private_key_file.read_text()
        raise SettingsError(
            "HINDSIGHT_GITHUB_PRIVATE_KEY or HINDSIGHT_GITHUB_PRIVATE_KEY_FILE is required: "
            "set one to the app's PEM private key"
        )

    def secret_bytes(self) -> bytes:
        if self.webhook_secret is None:
            raise SettingsError(
                "HINDSIGHT_WEBHOOK_SECRET is required: set it to the app's webhook secret"
            )
        return self.webhook_secret.get_secret_value().encode()

    def key_setting(self) -> str:
        """The name of the variable the private key comes from."""
        if self.github_private_key is None and self.github_private_key_file is not None:
            return "HINDSIGHT_GITHUB_PRIVATE_KEY_FILE"
        return "HINDSIGHT_GITHUB_PRIVATE_KEY"

    def private_key(self) -> rsa.RSAPrivateKey:
        """The app's RSA private key; a key of another kind or no PEM at all is a SettingsError."""
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        name = self.key_setting()
        try:
            key = serialization.load_pem_private_key(self.private_key_pem().encode(), password=None)
        except (ValueError, TypeError):
            raise SettingsError(
                f"{name} is not a readable PEM private key (without a passphrase): use the key "
                "file GitHub generated for the app"
            ) from None
        if not isinstance(key, rsa.RSAPrivateKey):
            raise SettingsError(
                f"{name} is {_kind_of(key)} key, not an RSA "
                "key: GitHub Apps sign with RSA keys; use the .pem file GitHub generated"
            )
        return key

    def key_fingerprint(self) -> str:
        """The private key shown the only way it may be: a sha256 fingerprint of its public half."""
        from cryptography.hazmat.primitives import serialization

        der = (
            self.private_key()
            .public_key()
            .public_bytes(
                serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
            )
        )
        return "SHA256:" + hashlib.sha256(der).hexdigest()[:16]

    def github_oauth(self) -> tuple[str, str] | None:
        """The app's OAuth client id and secret, or None when either is unset or empty."""
        secret = _secret_text(self.github_client_secret)
        if not self.github_client_id or not secret:
            return None
        return self.github_client_id, secret

    def require_github(self) -> None:
        """Fail with a message naming what is missing before `serve` or `worker` start."""
        missing = []
        if self.github_app_id is None:
            missing.append("HINDSIGHT_GITHUB_APP_ID")
        if self.github_private_key is None and self.github_private_key_file is None:
            missing.append("HINDSIGHT_GITHUB_PRIVATE_KEY (or HINDSIGHT_GITHUB_PRIVATE_KEY_FILE)")
        if self.webhook_secret is None:
            missing.append("HINDSIGHT_WEBHOOK_SECRET")
        if missing:
            raise SettingsError("missing settings: " + ", ".join(missing))
        self.private_key()
        self.require_strong_secret()

    def require_strong_secret(self) -> None:
        """Refuse a webhook secret anyone could sign with: empty, or under 16 bytes."""
        size = len(self.secret_bytes())
        if size < MIN_WEBHOOK_SECRET_BYTES:
            raise SettingsError(
                f"HINDSIGHT_WEBHOOK_SECRET is {'empty' if size == 0 else f'{size} bytes'}: "
                f"use at least {MIN_WEBHOOK_SECRET_BYTES} random bytes, the same secret as the "
                "app's webhook on GitHub (`python -c 'import secrets; print(secrets.token_hex(32))'`)"
            )


def load_settings(**overrides: object) -> Settings:
    """Build the settings, turning pydantic's error into one that names the variables."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            message = err["msg"].removeprefix("Value error, ")
            # A check of the whole object (no field) names its variables in its own message.
            if err["loc"]:
                message = f"HINDSIGHT_{str(err['loc'][0]).upper()}: {message}"
            problems.append(message)
        raise SettingsError("invalid settings: " + "; ".join(problems)) from None
