"""What `serve` and `worker` check before they start: a review configuration that can run, and a
private key that is the app's."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from ghapp.github.errors import Forbidden, GitHubError
from ghapp.settings import Settings, SettingsError
from review.config import ConfigError, ReviewConfig, SeatKind, SeatSandbox, load_config
from review.sandbox import Isolation, Sandbox, detect_sandbox

log = logging.getLogger(__name__)

# How long the start check waits for GitHub's answer to `GET /app`.
APP_CHECK_TIMEOUT_S = 10.0
NO_REVIEW_HINT = "(`hindsight init` writes one; `--no-review` starts with reviews off on purpose)"
# Arguments with these endings name a script the program is to run: it must exist.
SCRIPT_SUFFIXES = (".py", ".sh", ".js", ".mjs", ".rb", ".pl")


def missing_keys(config: ReviewConfig, environ: Mapping[str, str]) -> list[str]:
    """One problem per HTTP seat whose ``api_key_env`` variable is unset or empty."""
    problems = []
    for index, seat in enumerate(config.seats):
        if seat.kind is SeatKind.COMMAND or seat.api_key_env is None:
            continue
        if not environ.get(seat.api_key_env, "").strip():
            problems.append(
                f"seats[{index}] ({seat.name}): the environment variable {seat.api_key_env} "
                "(its api_key_env) is not set; set it to the seat's key or remove the seat"
            )
    return problems


def missing_programs(config: ReviewConfig, cwd: Path) -> list[str]:
    """One problem per command seat whose program is not found, or whose script argument (a
    path relative to the working directory, such as the template's example seat) is missing."""
    problems = []
    for index, seat in enumerate(config.seats):
        if seat.kind is not SeatKind.COMMAND or not seat.command:
            continue
        program, *arguments = seat.command
        if not _runnable(program, cwd):
            problems.append(
                f"seats[{index}] ({seat.name}): the program {program!r} is not found "
                "(not on PATH, or not an executable file)"
            )
            continue
        for argument in arguments:
            if argument.endswith(SCRIPT_SUFFIXES) and not (cwd / argument).is_file():
                problems.append(
                    f"seats[{index}] ({seat.name}): {argument} does not exist in {cwd}; "
                    "give its full path"
                )
    return problems


def _runnable(program: str, cwd: Path) -> bool:
    """Whether a seat's argv[0] can be started from ``cwd``, where seats run."""
    if "/" not in program:
        return shutil.which(program) is not None
    path = cwd / program  # an absolute program stays itself
    return path.is_file() and os.access(path, os.X_OK)


def unsandboxed_seats(config: ReviewConfig, found: Sandbox | None = None) -> list[str]:
    """One problem per command seat with ``sandbox = "required"`` where no sandbox works; a
    warning is logged for each ``"auto"`` seat that will run without one, and for each ``"off"``.
    ``found`` replaces the sandbox this machine offers (probed once, only when a seat needs it)."""
    problems = []
    for index, seat in enumerate(config.seats):
        if seat.kind is not SeatKind.COMMAND:
            continue
        if seat.sandbox is SeatSandbox.OFF:
            log.warning("command seat sandbox off by configuration", extra={"seat": seat.name})
            continue
        found = found or detect_sandbox()
        if found.isolation is Isolation.BWRAP:
            continue
        if seat.sandbox is SeatSandbox.REQUIRED:
            problems.append(
                f'seats[{index}] ({seat.name}): sandbox = "required" but no sandbox works here '
                f'({found.detail}); install bubblewrap, or set sandbox = "auto" to run it '
                'without one (docs/security.md, "Command seats")'
            )
        else:
            log.warning(
                "command seat will run without a sandbox",
                extra={"seat": seat.name, "detail": found.detail},
            )
    return problems


def usable_config(
    path: Path,
    environ: Mapping[str, str],
    *,
    cwd: Path | None = None,
    sandbox: Sandbox | None = None,
) -> ReviewConfig:
    """The configuration at ``path``, checked as `serve` needs it from ``cwd`` (default: here);
    ConfigError names the file and every problem (missing file, TOML syntax with its line,
    unknown seat, unset key variable, a command seat's missing program or script, a seat that
    requires the sandbox where none works); ``sandbox`` replaces the one this machine offers."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        raise ConfigError(
            exc.source, [*exc.problems[:-1], f"{exc.problems[-1]} {NO_REVIEW_HINT}"]
        ) from None
    problems = [
        *missing_keys(config, environ),
        *missing_programs(config, cwd or Path.cwd()),
        *unsandboxed_seats(config, sandbox),
    ]
    if problems:
        raise ConfigError(config.source, problems)
    return config


def check_app_key(settings: Settings, *, timeout_s: float = APP_CHECK_TIMEOUT_S) -> int | None:
    """Ask GitHub `GET /app` with the app's JWT: the key must belong to HINDSIGHT_GITHUB_APP_ID.

    A refused JWT (401) or an answer naming another app is a SettingsError naming the id and the
    key's fingerprint. When GitHub cannot be asked (unreachable, 5xx, rate-limited) the check is
    logged as skipped and None returned: the process starts, and its first call to GitHub will say
    the same. Returns the id GitHub confirmed.
    """
    from ghapp.github.client import GitHubClient  # githubkit: only for the commands that start

    app_id = settings.github_app_id
    fingerprint = settings.key_fingerprint()
    client = GitHubClient.from_settings(settings, timeout_s=timeout_s)
    try:
        app = asyncio.run(client.get_app())
    except Forbidden:
        raise SettingsError(
            f"GitHub refused the app's JWT at {settings.github_api_url}: the key "
            f"{fingerprint} ({settings.key_setting()}) is not a key of app {app_id} "
            "(HINDSIGHT_GITHUB_APP_ID); use the .pem GitHub generated for that app"
        ) from None
    except GitHubError as exc:
        log.warning(
            "app key not checked: GitHub could not be asked",
            extra={"app": app_id, "key": fingerprint, "reason": str(exc)},
        )
        return None
    if app.id != app_id:
        raise SettingsError(
            f"the key {fingerprint} ({settings.key_setting()}) belongs to app {app.id} "
            f"({app.slug}), not to app {app_id} (HINDSIGHT_GITHUB_APP_ID): set the app's own id "
            "and key"
        )
    return app.id
