"""An estimate of the memory a recall snapshot holds, cheap enough to take at every build."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sized
from enum import Enum
from functools import partial
from itertools import chain, compress
from operator import is_
from typing import Any, cast

import numpy as np

SMALL = 64  # a container of at most this many members is measured member by member
ATOMS = frozenset((str, bytes, int, float, bool, type(None)))  # by exact type
CONTAINERS = frozenset((dict, list, tuple, set, frozenset))
FLAT = frozenset((bytearray, memoryview))  # measured by their own size
_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing of addresses: a spread sample
_MISSING = object()


def estimated_bytes(*roots: object, rate: float = 1.0) -> int:
    """The bytes ``roots`` reach, each object counted once, a numpy array by its buffer and
    enum members not at all (they are shared by every snapshot).

    The objects are measured a level at a time, each level's objects grouped by type, so that
    Python's own loops do the counting rather than a call per object (a snapshot of 200 lessons
    holds tens of thousands). With ``rate`` below 1, a container of more than SMALL members
    reached in full is measured on the members whose address falls in a ``rate`` share of a
    hash of addresses, with all they reach, and that share is scaled by ``1 / rate``; below a
    sampled container nothing is sampled again. An object two containers share (a name in a
    table and in a list) is in both samples or in neither, and is counted once."""
    seen: set[int] = set()
    threshold = int(min(1.0, max(rate, 0.0)) * 2**32)
    whole: list[object] = list(roots)
    sampled: list[object] = []
    whole_bytes = sampled_bytes = 0
    while whole or sampled:
        size, members, large = _level(whole, seen, split=threshold < 2**32)
        whole_bytes += size
        for container in large:
            sampled += _chosen(_members_of(container), threshold)
        size, below, _ = _level(sampled, seen, split=False)
        sampled_bytes += size
        whole, sampled = members, below
    return whole_bytes + sampled_bytes * 2**32 // max(threshold, 1)


def _level(
    objects: list[object], seen: set[int], *, split: bool
) -> tuple[int, list[object], list[object]]:
    """The bytes of those of ``objects`` not seen before (marking them seen), what they hold,
    and (with ``split``) the containers too large to follow whole, whose members are left out."""
    if not objects:
        return 0, [], []
    by_id = dict(zip(map(id, objects), objects, strict=True))
    fresh = list(map(by_id.__getitem__, by_id.keys() - seen))
    seen.update(map(id, fresh))
    types = list(map(type, fresh))
    size = 0
    members: list[object] = []
    large: list[object] = []
    kinds = set(types)
    for kind in kinds:
        these = fresh if len(kinds) == 1 else list(compress(fresh, map(partial(is_, kind), types)))
        if issubclass(kind, Enum):
            continue
        size += sum(map(sys.getsizeof, these))
        if kind in ATOMS or kind in FLAT:
            continue
        if kind is np.ndarray:
            size += _buffers(these, seen)
        elif kind in CONTAINERS:
            if split:
                sized = cast(list[Sized], these)
                lengths = np.fromiter(map(len, sized), dtype=np.int64, count=len(these))
                if (lengths > SMALL).any():
                    large += compress(these, lengths > SMALL)
                    these = list(compress(these, lengths <= SMALL))
            members += chain.from_iterable(map(_members_of, these))
        else:
            members += _attributes(kind, these)
    return size, members, large


def _members_of(container: object) -> Iterable[object]:
    if isinstance(container, dict):
        return chain(container, container.values())
    return container  # type: ignore[return-value]


def _chosen(members: Iterable[object], threshold: int) -> list[object]:
    """The members whose address falls in the sample."""
    held = list(members)
    addresses = np.fromiter(map(id, held), dtype=np.uint64, count=len(held))
    with np.errstate(over="ignore"):
        chosen = ((addresses >> np.uint64(4)) * _SPREAD >> np.uint64(32)) < threshold
    return list(compress(held, chosen))


def _buffers(arrays: list[Any], seen: set[int]) -> int:
    """The bytes of the buffers ``arrays`` hold that were not counted before."""
    size = 0
    for array in arrays:
        held = array if array.base is None else array.base
        if id(held) not in seen:
            seen.add(id(held))
            size += int(held.nbytes)
    return size


def _attributes(kind: type, objects: list[object]) -> list[object]:
    """What instances of ``kind`` hold in their slots and ``__dict__``."""
    held: list[object] = []
    for name in _slot_names(kind):
        held += (value for value in map(partial(_get, name), objects) if value is not _MISSING)
    if kind.__dictoffset__:  # instances may have a __dict__
        held += (obj.__dict__ for obj in objects if hasattr(obj, "__dict__"))
    return held


def _get(name: str, obj: object) -> object:
    return getattr(obj, name, _MISSING)


def _slot_names(kind: type) -> list[str]:
    names: list[str] = []
    for klass in kind.__mro__:
        held = klass.__dict__.get("__slots__", ())
        names += [held] if isinstance(held, str) else held
    return [name for name in names if name not in ("__dict__", "__weakref__")]
