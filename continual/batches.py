"""How many values one `IN (…)` list of a query holds, and the lists a longer sequence is cut into.

SQLite binds at most 32,766 variables a statement and PostgreSQL 65,535; lists of 500 stay far
below both and keep each statement's plan simple.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

IN_LIST = 500

T = TypeVar("T")


def in_lists(values: Sequence[T]) -> Iterator[Sequence[T]]:
    """``values`` in consecutive slices of at most IN_LIST, in order."""
    for start in range(0, len(values), IN_LIST):
        yield values[start : start + IN_LIST]
