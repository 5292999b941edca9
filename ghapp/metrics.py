"""`/metrics` in the Prometheus text format: this process's counters and the database's counts.

Counts that live in the database (jobs by state, lessons by state, decisions by signal, review
calls by seat and status) are read at scrape time, so every process answers the same totals
however many `serve` and `worker` processes run. What only one process sees (deliveries it took,
jobs it ran and how long they took, its GitHub requests and the rate limit GitHub last reported
to it) is counted per process: scrape each process and sum.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import logging
from collections.abc import Awaitable, Callable, Iterable

import httpx
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import Engine, func, select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from continual.ledger.totals import store_totals
from ghapp.db import reading
from ghapp.jobs import now_ms
from ghapp.loopback import LoopbackServer, bind
from ghapp.tables import Job, JobState

log = logging.getLogger(__name__)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
JOB_SECONDS_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)


class StoreCollector(Collector):
    """Reads the database's counts at every scrape."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterable[Metric]:
        with reading(self.engine) as conn:
            jobs = dict(conn.execute(select(Job.state, func.count()).group_by(Job.state)).all())
            totals = store_totals(conn, now=now_ms())
        by_state = GaugeMetricFamily(
            "hindsight_jobs", "Jobs in the queue by state", labels=["state"]
        )
        for state in JobState:
            by_state.add_metric([state.value], jobs.get(state.value, 0))
        yield by_state
        lessons = GaugeMetricFamily(
            "hindsight_lessons", "Live lesson entries by state", labels=["state"]
        )
        for name, count in sorted(totals.lessons.items()):
            lessons.add_metric([name], count)
        yield lessons
        decisions = GaugeMetricFamily(
            "hindsight_decisions",
            "Maintainers' current decisions on suggestions by signal and decision",
            labels=["signal", "decision"],
        )
        for (signal, decision), count in sorted(totals.decisions.items()):
            decisions.add_metric([signal, decision], count)
        yield decisions
        calls = GaugeMetricFamily(
            "hindsight_review_calls",
            "Review calls recorded, by seat and status (ok, failed, skipped)",
            labels=["seat", "status"],
        )
        for (seat, status), count in sorted(totals.calls.items()):
            calls.add_metric([seat, status], count)
        yield calls


class Metrics:
    """One registry per app: the process's counters, and the store's counts when given an engine."""

    def __init__(self, engine: Engine | None = None) -> None:
        self.registry = CollectorRegistry()
        self.deliveries = Counter(
            "hindsight_webhook_deliveries",
            "Webhook deliveries this process answered, by event and outcome",
            ["event", "outcome"],
            registry=self.registry,
        )
        self.jobs_run = Counter(
            "hindsight_jobs_run",
            "Jobs this process ran, by kind and outcome (done, retry, rescheduled, gone, dead)",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.job_seconds = Histogram(
            "hindsight_job_duration_seconds",
            "How long jobs this process ran took, by kind",
            ["kind"],
            buckets=JOB_SECONDS_BUCKETS,
            registry=self.registry,
        )
        self.github_requests = Counter(
            "hindsight_github_requests",
            "Requests this process made to GitHub, by method and status (0: no answer)",
            ["method", "status"],
            registry=self.registry,
        )
        self.rate_limit_remaining = Gauge(
            "hindsight_github_rate_limit_remaining",
            "GitHub's x-ratelimit-remaining in its last answer to this process, by resource",
            ["resource"],
            registry=self.registry,
        )
        if engine is not None:
            self.registry.register(StoreCollector(engine))

    def github_answered(self, method: str, response: httpx.Response | None) -> None:
        """Count one GitHub request (None: no answer) and note the rate limit it reported."""
        status = 0 if response is None else response.status_code
        self.github_requests.labels(method, str(status)).inc()
        if response is None:
            return
        remaining = response.headers.get("x-ratelimit-remaining")
        if remaining is not None and remaining.isdigit():
            resource = response.headers.get("x-ratelimit-resource", "core")
            self.rate_limit_remaining.labels(resource).set(int(remaining))

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def serve_loopback(self, port: int) -> None:
        """Answer ``/metrics`` on 127.0.0.1:``port`` from a thread (for `hindsight worker`,
        which serves no HTTP of its own); loopback only, as `/metrics` is without a token."""
        sock, url = bind("127.0.0.1", port)
        app = Starlette(routes=[Route("/metrics", metrics_endpoint(self, None), methods=["GET"])])
        LoopbackServer(app, sock, "hindsight-metrics").start()
        log.info("metrics served", extra={"url": f"{url}/metrics"})


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def metrics_endpoint(
    metrics: Metrics, token: str | None
) -> Callable[[Request], Awaitable[Response]]:
    """`GET /metrics`: with a token configured, `Authorization: Bearer <token>` is required;
    without one, only loopback clients are answered."""
    expected = f"Bearer {token}".encode() if token else None

    async def endpoint(request: Request) -> Response:
        if expected is not None:
            given = request.headers.get("authorization", "").encode()
            if not hmac.compare_digest(given, expected):
                return JSONResponse(
                    {"error": {"code": "unauthorized", "message": "a metrics token is required"}},
                    status_code=401,
                )
        elif not _loopback(request):
            message = "/metrics answers loopback clients only: set HINDSIGHT_METRICS_TOKEN"
            return JSONResponse({"error": {"code": "forbidden", "message": message}}, 403)
        body = await asyncio.to_thread(metrics.render)
        return Response(body, media_type=CONTENT_TYPE)

    return endpoint
