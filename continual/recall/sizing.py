"""An estimate of the memory a recall snapshot holds, cheap enough to take at every build."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from enum import Enum
from itertools import chain, compress

import numpy as np

SMALL = 64  # a container of at most this many members is measured member by member
ATOMS = (str, bytes, int, float, bool, type(None))
_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing of addresses: a spread sample


def estimated_bytes(*roots: object, rate: float = 1.0) -> int:
    """The bytes ``roots`` reach, each object counted once, a numpy array by its buffer and
    enum members not at all (they are shared by every snapshot).

    With ``rate`` below 1, a container of more than SMALL members is measured on the members
    whose address falls in a ``rate`` share of a hash of addresses, and scaled by ``1 / rate``:
    an object two containers share (a name in a table and in a list) is in both samples or in
    neither, so it is counted once however the containers are walked."""
    seen: set[int] = set()
    threshold = int(min(1.0, max(rate, 0.0)) * 2**32)
    return sum(_size(root, seen, threshold) for root in roots)


def _size(obj: object, seen: set[int], threshold: int) -> int:
    if id(obj) in seen or isinstance(obj, Enum):
        return 0
    seen.add(id(obj))
    if isinstance(obj, ATOMS):
        return sys.getsizeof(obj)
    if isinstance(obj, np.ndarray):
        held = obj if obj.base is None else obj.base
        return sys.getsizeof(obj) + (int(held.nbytes) if id(held) not in seen else 0)
    own = sys.getsizeof(obj)
    if isinstance(obj, dict):
        return own + _members(list(chain.from_iterable(obj.items())), seen, threshold)
    if isinstance(obj, list | tuple | set | frozenset):
        return own + _members(list(obj), seen, threshold)
    if isinstance(obj, bytearray | memoryview):
        return own
    members: list[object] = [getattr(obj, name) for name in _slots(type(obj)) if hasattr(obj, name)]
    if hasattr(obj, "__dict__"):
        members.append(obj.__dict__)
    return own + _members(members, seen, threshold)


def _members(members: list[object], seen: set[int], threshold: int) -> int:
    if len(members) <= SMALL or threshold >= 2**32:
        return sum(_size(member, seen, threshold) for member in members)
    addresses = np.fromiter(map(id, members), dtype=np.uint64, count=len(members))
    with np.errstate(over="ignore"):
        chosen = ((addresses >> np.uint64(4)) * _SPREAD >> np.uint64(32)) < threshold
    measured = sum(_size(member, seen, threshold) for member in compress(members, chosen))
    return measured * 2**32 // max(threshold, 1)


def _slots(cls: type) -> Iterator[str]:
    for klass in cls.__mro__:
        names = klass.__dict__.get("__slots__", ())
        yield from (names,) if isinstance(names, str) else names
