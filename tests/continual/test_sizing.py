"""The size estimate behind the snapshot cache's bound: what it counts, once, and how it samples."""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from enum import Enum

import numpy as np
import pytest

from continual.recall.sizing import SMALL, estimated_bytes


class Colour(Enum):
    RED = "red"


class Slotted:
    __slots__ = ("name", "unset")

    def __init__(self, name: str) -> None:
        self.name = name


@dataclass
class Plain:
    name: str
    numbers: list[int]


def test_every_object_reached_is_counted_once() -> None:
    shared = "a name two containers hold" * 2
    first, second = [shared, 70_000], (shared, 70_001)
    expected = sum(map(sys.getsizeof, (first, second, shared, first[1], second[1])))
    assert estimated_bytes(first, second) == expected
    outer = [first, first, second]
    assert estimated_bytes(outer) == expected + sys.getsizeof(outer)
    deeper = [shared, [[shared]]]  # reached again two levels further down
    assert estimated_bytes(deeper) == sys.getsizeof(shared) + sum(
        map(sys.getsizeof, (deeper, deeper[1], deeper[1][0]))
    )


def test_a_dict_counts_its_keys_and_values() -> None:
    held = {"key" * 3: "value" * 5, 1_000_001: b"bytes"}
    parts = (held, "key" * 3, "value" * 5, 1_000_001, b"bytes")
    assert estimated_bytes(held) == sum(map(sys.getsizeof, parts))


def test_slots_and_instance_dicts_are_followed() -> None:
    slotted = Slotted("slotted name" * 4)  # `unset` was never set: nothing to follow
    plain = Plain("plain name" * 4, [100_000, 100_001])
    parts = (slotted, slotted.name, plain, vars(plain), plain.numbers, *plain.numbers)
    parts += tuple(vars(plain))  # the attribute names, keys of its __dict__
    assert estimated_bytes(slotted, plain) == sum(map(sys.getsizeof, parts)) + sys.getsizeof(
        plain.name
    )


def test_an_array_counts_its_buffer_once_however_many_views_share_it() -> None:
    array = np.zeros(10_000, dtype=np.int64)
    view = array[10:20]
    alone = estimated_bytes(array)
    assert alone == sys.getsizeof(array)  # numpy reports the buffer it owns
    assert estimated_bytes(view) == sys.getsizeof(view) + array.nbytes
    both = [array, view]
    assert estimated_bytes(both) == sys.getsizeof(both) + sys.getsizeof(array) + sys.getsizeof(view)


def test_enum_members_are_shared_and_not_counted() -> None:
    held = [Colour.RED]
    assert estimated_bytes(held) == sys.getsizeof(held)


@pytest.mark.parametrize("rate", [0.5, 0.25, 0.1])
def test_a_sample_of_a_large_container_scales_to_about_its_size(rate: float) -> None:
    texts = [f"a lesson's text, number {n}, " * (1 + n % 7) for n in range(20_000)]
    exact = estimated_bytes(texts)
    assert exact == sys.getsizeof(texts) + sum(map(sys.getsizeof, texts))
    assert 0.9 * exact <= estimated_bytes(texts, rate=rate) <= 1.1 * exact


def test_a_sample_counts_what_two_large_containers_share_about_once() -> None:
    names = [f"src/module_{n}.py" for n in range(20_000)]
    table = {name: n for n, name in enumerate(random.Random(7).sample(names, len(names)))}
    exact = estimated_bytes(names, table)
    sampled = estimated_bytes(names, table, rate=0.2)
    assert 0.85 * exact <= sampled <= 1.15 * exact


def test_small_containers_are_measured_whole_at_any_rate() -> None:
    small = [f"name {n}" * 3 for n in range(SMALL)]
    assert estimated_bytes(small, rate=0.01) == estimated_bytes(small)


def test_below_a_sampled_container_nothing_is_sampled_again() -> None:
    # Each inner list is large, but reached through a sampled outer one: measured whole, so the
    # scale is applied once (a second sample would scale by the square of the rate).
    inner = [[f"{outer}:{n}" for n in range(SMALL * 2)] for outer in range(SMALL * 8)]
    exact = estimated_bytes(inner)
    assert 0.8 * exact <= estimated_bytes(inner, rate=0.25) <= 1.2 * exact
