"""What a registration leaves behind: the `.env` settings and the private key, both mode 0600."""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ghapp.registration.manifest import GITHUB_API_URL, RegistrationError

PRIVATE_MODE = 0o600
ENV_HEADER = "# Written by `hindsight setup` for the GitHub App {name} ({url})."


@dataclass(frozen=True, slots=True)
class Credentials:
    """What GitHub answered for the registered app; the secrets stay out of the repr."""

    app_id: int
    slug: str
    name: str
    html_url: str
    api_url: str
    webhook_secret: str = field(repr=False)
    pem: str = field(repr=False)
    # The app's OAuth client, for "Sign in with GitHub" on `/ledger`.
    client_id: str = ""
    client_secret: str = field(default="", repr=False)


def refuse_overwrite(paths: list[Path], *, force: bool) -> None:
    """Stop before registering anything if a file would be replaced without ``force``."""
    existing = [str(p) for p in paths if p.exists()]
    if existing and not force:
        raise RegistrationError(
            f"{' and '.join(existing)} already exist(s): pass --force to replace them "
            "(other settings in the .env file are kept), or --env-file/--key-file elsewhere"
        )


def _settings(credentials: Credentials, key_file: Path) -> dict[str, str]:
    values = {
        "HINDSIGHT_GITHUB_APP_ID": str(credentials.app_id),
        "HINDSIGHT_APP_SLUG": credentials.slug,
        "HINDSIGHT_WEBHOOK_SECRET": credentials.webhook_secret,
        "HINDSIGHT_GITHUB_PRIVATE_KEY_FILE": str(key_file.resolve()),
    }
    if credentials.api_url != GITHUB_API_URL:
        values["HINDSIGHT_GITHUB_API_URL"] = credentials.api_url
    if credentials.client_id and credentials.client_secret:
        values["HINDSIGHT_GITHUB_CLIENT_ID"] = credentials.client_id
        values["HINDSIGHT_GITHUB_CLIENT_SECRET"] = credentials.client_secret
    return values


def env_text(credentials: Credentials, key_file: Path, existing: str = "") -> str:
    """The `.env` text: the app's settings, after any other lines ``existing`` had."""
    values = _settings(credentials, key_file)
    kept = [
        line
        for line in existing.splitlines()
        if line.partition("=")[0].strip() not in values
        and not line.startswith(ENV_HEADER.partition("{")[0])
    ]
    header = ENV_HEADER.format(name=credentials.name, url=credentials.html_url)
    ours = [header, *(f"{name}={value}" for name, value in values.items())]
    return "\n".join([*kept, *ours]) + "\n"


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only, replacing it in one step."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, PRIVATE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_credentials(
    credentials: Credentials, *, env_file: Path, key_file: Path, force: bool
) -> None:
    """The private key to ``key_file`` and the settings to ``env_file``, both 0600."""
    refuse_overwrite([env_file, key_file], force=force)
    existing = env_file.read_text(encoding="utf-8") if env_file.exists() else ""
    _write_private(key_file, credentials.pem)
    _write_private(env_file, env_text(credentials, key_file, existing))
