"""Catching up after downtime: ask GitHub to redeliver the webhooks the app failed to take."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from ghapp.github.client import GitHubClient
from ghapp.github.values import HookDelivery

DURATION = re.compile(r"^\s*(\d+)\s*([smhd])\s*$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def parse_duration(text: str) -> timedelta:
    """``90s``, ``30m``, ``6h`` or ``3d`` as a timedelta; ValueError says what is expected."""
    found = DURATION.match(text)
    if found is None or int(found[1]) == 0:
        raise ValueError(f"{text!r} is not a duration: give a number and s, m, h or d, e.g. 6h")
    return timedelta(**{UNITS[found[2]]: int(found[1])})


def still_failed(attempts: Iterable[HookDelivery]) -> list[HookDelivery]:
    """The newest attempt of every delivery (guid) none of whose attempts succeeded, oldest first.

    A delivery redelivered with success since is left alone, so running the catch-up twice asks
    for nothing the second time; were it asked anyway, the app drops the repeated
    ``X-GitHub-Delivery`` as a duplicate.
    """
    newest: dict[str, HookDelivery] = {}
    succeeded: set[str] = set()
    for attempt in attempts:
        if attempt.ok:
            succeeded.add(attempt.guid)
        kept = newest.get(attempt.guid)
        if kept is None or attempt.id > kept.id:
            newest[attempt.guid] = attempt
    failed = [a for guid, a in newest.items() if guid not in succeeded]
    return sorted(failed, key=lambda a: a.id)


@dataclass(frozen=True)
class CatchUp:
    """What one catch-up saw and asked for."""

    attempts: int
    failed: tuple[HookDelivery, ...]
    redelivered: tuple[HookDelivery, ...]


async def catch_up(github: GitHubClient, *, since: datetime, dry_run: bool = False) -> CatchUp:
    """List the deliveries since ``since``, and ask GitHub to redeliver each one still failed."""
    attempts = await github.hook_deliveries(since)
    failed = still_failed(attempts)
    redelivered: list[HookDelivery] = []
    if not dry_run:
        for attempt in failed:
            await github.redeliver(attempt.id)
            redelivered.append(attempt)
    return CatchUp(len(attempts), tuple(failed), tuple(redelivered))
