"""What an engine's events hand their listeners while a test watches."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, event


@contextmanager
def heard(engine: Engine, name: str) -> Iterator[list[tuple[object, ...]]]:
    """The arguments of each `name` event of `engine` (a commit, a checkout, a statement about
    to run, ...) while inside, in order."""
    calls: list[tuple[object, ...]] = []

    def listener(*args: object) -> None:
        calls.append(args)

    event.listen(engine, name, listener)
    try:
        yield calls
    finally:
        event.remove(engine, name, listener)
