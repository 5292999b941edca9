"""The one explicit router: which webhook events make which jobs, and which handler runs each job."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ghapp.envelopes import Envelope, Shape, parse
from ghapp.jobs import ClaimedJob, JobSpec

if TYPE_CHECKING:
    from ghapp.deps import Deps

Payload = Mapping[str, Any]
# A handler receives its route's shape, parsed from the delivery (an `Envelope` subclass).
Handler = Callable[["Deps", ClaimedJob, Any], Awaitable[None]]
SerialKey = Callable[[Payload], str | None]


def pull_request_key(payload: Payload) -> str | None:
    """Jobs of one pull request share this key, so they run one at a time."""
    repo = payload.get("repository") or {}
    pull = payload.get("pull_request") or payload.get("issue") or {}
    if "id" not in repo or "number" not in pull:
        return None
    return f"pr:{repo['id']}:{pull['number']}"


def installation_key(payload: Payload) -> str | None:
    installation = payload.get("installation") or {}
    return f"installation:{installation['id']}" if "id" in installation else None


@dataclass(frozen=True, slots=True)
class Route:
    """`event` (with one of `actions`, or any action when None) makes a `kind` job run by `handler`.

    `shape` is what the handler reads from the payload: a delivery without it is refused before
    any job is made, and the handler (and `when`) receive the payload parsed as it. `lifecycle` routes run even while their installation is suspended or deleted. A route with
    `coalesce_with` makes no job while one of those kinds is pending on the same pull request, and
    waits `delay_ms` before it runs (see `JobSpec`).
    """

    event: str
    actions: frozenset[str] | None
    kind: str
    handler: Handler
    shape: type[Shape] = Envelope
    serial_key: SerialKey = pull_request_key
    lifecycle: bool = False
    when: Callable[[Any], bool] | None = None
    coalesce_with: frozenset[str] = frozenset()
    delay_ms: int = 0

    def parse(self, payload: Payload) -> Shape:
        """The payload as the handler reads it; raises `BadPayload` when it lacks the shape."""
        return parse(self.event, self.shape, payload)


class UnknownJobKind(LookupError):
    def __init__(self, kind: str) -> None:
        super().__init__(f"no handler is registered for job kind {kind!r}")


class Router:
    def __init__(self, *route_groups: Iterable[Route]) -> None:
        self._by_event: dict[str, list[Route]] = {}
        self._by_kind: dict[str, Route] = {}
        for group in route_groups:
            for route in group:
                if route.kind in self._by_kind:
                    raise ValueError(f"job kind {route.kind!r} is registered twice")
                self._by_kind[route.kind] = route
                self._by_event.setdefault(route.event, []).append(route)

    @property
    def events(self) -> frozenset[str]:
        return frozenset(self._by_event)

    def jobs_for(self, event: str, payload: Payload) -> list[JobSpec]:
        """The jobs a delivery creates; an event nobody handles creates none.

        Raises `BadPayload` when the payload lacks the shape of its event or of a matching route.
        """
        action = payload.get("action")
        routes = [
            route
            for route in self._by_event.get(event, ())
            if route.actions is None or (isinstance(action, str) and action in route.actions)
        ]
        # Every route's shape holds the envelope's fields too: the first route's shape is read
        # first and stands for the envelope, so a common delivery is validated once.
        first = routes[0].shape if routes and issubclass(routes[0].shape, Envelope) else Envelope
        envelope = parse(event, first, payload)
        parsed: dict[type[Shape], Shape] = {first: envelope}
        installation_id = envelope.installation.id if envelope.installation else None
        specs = []
        for route in routes:
            if route.shape not in parsed:
                parsed[route.shape] = route.parse(payload)
            if route.when is not None and not route.when(parsed[route.shape]):
                continue
            specs.append(
                JobSpec(
                    kind=route.kind,
                    serial_key=route.serial_key(payload),
                    installation_id=installation_id,
                    coalesce_with=route.coalesce_with,
                    delay_ms=route.delay_ms,
                )
            )
        return specs

    def route(self, kind: str) -> Route:
        try:
            return self._by_kind[kind]
        except KeyError:
            raise UnknownJobKind(kind) from None
