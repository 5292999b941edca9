"""`history.backfill`: the durable job of a repository's back-fill. It is made by an install
(`installation` created, `installation_repositories` added) and by `hindsight backfill`, never
by a delivery of its own; a paused run comes back at its reset, a run another runner holds is
looked at again once that runner's lease would have lapsed."""

from __future__ import annotations

import logging
from datetime import timedelta

from continual.times import from_ms
from ghapp.deps import Deps
from ghapp.envelopes import Envelope
from ghapp.github.errors import RetryAt
from ghapp.history import JOB_KIND, LEASE_MS, Backfill, Options, repository_of
from ghapp.jobs import ClaimedJob
from ghapp.router import Route
from review.seats import TextSeat, make_seat

log = logging.getLogger(__name__)


def discovery_seat(deps: Deps) -> TextSeat | None:
    """The `[history] seat` of hindsight.toml, if one is configured."""
    config = deps.review_config
    name = config.history.seat if config is not None else None
    return make_seat(config.seat(name)) if config is not None and name is not None else None


def options_of(deps: Deps) -> Options:
    return Options(
        budget_share=deps.settings.history_budget_share,
        fact_cap=deps.settings.history_fact_cap,
        app_slug=deps.settings.app_slug,
        seat=discovery_seat(deps),
    )


async def on_backfill(deps: Deps, job: ClaimedJob, event: Envelope) -> None:
    repository_id = repository_of(job.serial_key)
    if deps.github is None or repository_id is None or job.installation_id is None:
        log.warning("back-fill job without GitHub or its repository", extra={"job": job.id})
        return
    backfill = Backfill(
        deps.github.installation(job.installation_id),
        deps.engine,
        repository_id,
        options=options_of(deps),
        clock=deps.clock,
    )
    outcome = await backfill.run()
    if outcome.resume_at is not None:
        raise RetryAt(outcome.resume_at, "the history back-fill waits for its rate-limit budget")
    if outcome.held_elsewhere:
        at = from_ms(deps.clock()) + timedelta(milliseconds=LEASE_MS)
        raise RetryAt(at, "another runner holds the history back-fill")
    run = outcome.run
    log.info(
        "history back-fill turn ended",
        extra={
            "job": job.id,
            "repository": repository_id,
            "state": run.state.value if run is not None else None,
            "prs": run.prs_read if run is not None else 0,
        },
    )


ROUTES = [
    # No delivery makes this job (no action matches): `ghapp.history.schedule` enqueues it.
    Route(
        event="installation",
        actions=frozenset(),
        kind=JOB_KIND,
        handler=on_backfill,
        shape=Envelope,
        serial_key=lambda payload: None,
    ),
]
