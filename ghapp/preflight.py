"""What `serve` and `worker` check before they start: a review configuration that can run."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from review.config import ConfigError, ReviewConfig, SeatKind, load_config

NO_REVIEW_HINT = "(`hindsight init` writes one; `--no-review` starts with reviews off on purpose)"


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


def usable_config(path: Path, environ: Mapping[str, str]) -> ReviewConfig:
    """The configuration at ``path``, checked as `serve` needs it; ConfigError names the file and
    every problem (missing file, TOML syntax with its line, unknown seat, unset key variable)."""
    try:
        config = load_config(path)
    except ConfigError as exc:
        raise ConfigError(
            exc.source, [*exc.problems[:-1], f"{exc.problems[-1]} {NO_REVIEW_HINT}"]
        ) from None
    problems = missing_keys(config, environ)
    if problems:
        raise ConfigError(config.source, problems)
    return config
