"""Whole items in order, cut into batches whose serialised size stays within a bound: how the
maintenance and discovery seats are handed their cases."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def batched(items: Sequence[T], shown: Callable[[T], Any], max_bytes: int) -> list[list[T]]:
    """``items`` in order, each batch's items within ``max_bytes`` once ``shown`` as JSON (an item
    larger than that goes alone)."""
    found: list[list[T]] = []
    current: list[T] = []
    size = 0
    for item in items:
        weight = len(json.dumps(shown(item)).encode())
        if current and size + weight > max_bytes:
            found.append(current)
            current, size = [], 0
        current.append(item)
        size += weight
    if current:
        found.append(current)
    return found
