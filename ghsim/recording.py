"""Every request the simulator answered, and the faults a test asked it to inject."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

RECORDED_HEADERS = ("accept", "user-agent", "content-type", "x-github-api-version")


@dataclass(frozen=True)
class LoggedRequest:
    """One answered request. ``auth`` is the kind of credential (jwt, token, none), never its value."""

    method: str
    path: str
    query: Mapping[str, str]
    status: int
    headers: Mapping[str, str]
    auth: str
    body: Any
    at: datetime


class RequestLog:
    """A thread-safe, append-only list of answered requests, and how many are being answered."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._entries: list[LoggedRequest] = []
        self._answering = 0

    @contextmanager
    def answering(self) -> Iterator[None]:
        """Count a request as being answered while the block runs (`wait_quiet`)."""
        with self._lock:
            self._answering += 1
        try:
            yield
        finally:
            with self._lock:
                self._answering -= 1
                self._changed.notify_all()

    def record(self, entry: LoggedRequest) -> None:
        with self._lock:
            self._entries.append(entry)

    def wait_quiet(self, timeout_s: float) -> bool:
        """Wait until no request is being answered (a client that went away leaves its request
        to be answered and logged later); False if one still is after ``timeout_s``."""
        with self._lock:
            return self._changed.wait_for(lambda: self._answering == 0, timeout=timeout_s)

    def entries(self, method: str | None = None, path: str | None = None) -> list[LoggedRequest]:
        """Requests in arrival order, optionally of ``method`` whose path matches regex ``path``."""
        pattern = re.compile(path) if path is not None else None
        with self._lock:
            found = list(self._entries)
        return [
            entry
            for entry in found
            if (method is None or entry.method == method.upper())
            and (pattern is None or pattern.search(entry.path))
        ]

    def count(self, method: str | None = None, path: str | None = None) -> int:
        return len(self.entries(method, path))

    def reset(self) -> None:
        with self._lock:
            self._entries.clear()


@dataclass
class Fault:
    """An injected answer: for requests of ``method`` whose path matches ``pattern``.

    ``status`` None only delays (``latency_s``) and then answers normally. ``remaining`` None means
    every matching request, forever; ``hits`` counts the requests it applied to.
    """

    method: str | None
    pattern: re.Pattern[str]
    status: int | None
    headers: dict[str, str]
    body: Any
    latency_s: float
    remaining: int | None
    hits: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def take(self, method: str, path: str) -> bool:
        """Whether this fault applies to the request, counting it down if so."""
        if self.method not in (None, "*", method) or not self.pattern.search(path):
            return False
        with self._lock:
            if self.remaining is not None:
                if self.remaining <= 0:
                    return False
                self.remaining -= 1
            self.hits += 1
            return True


class Faults:
    """Injected faults, first match wins, in the order they were added."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._faults: list[Fault] = []

    def add(self, fault: Fault) -> Fault:
        with self._lock:
            self._faults.append(fault)
        return fault

    def match(self, method: str, path: str) -> Fault | None:
        with self._lock:
            faults = list(self._faults)
        for fault in faults:
            if fault.take(method, path):
                return fault
        return None

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
