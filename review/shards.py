"""Cutting a pull request's files into shards of bounded patch size."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from continual.patches import hunk_texts


@dataclass(frozen=True)
class PullFile:
    """One file of a pull request as GitHub lists it."""

    path: str
    status: str
    patch: str = ""


@dataclass(frozen=True)
class ShardFile:
    """A file, or one labelled part of a file too big for a shard on its own."""

    path: str
    status: str
    patch: str
    part: int = 1
    parts: int = 1

    @property
    def label(self) -> str:
        """The path, with ``(part i/n)`` when the file was split."""
        if self.parts == 1:
            return self.path
        return f"{self.path} (part {self.part}/{self.parts})"


@dataclass(frozen=True)
class Shard:
    """A slice of the diff; ``index`` counts from 0 among ``count`` shards."""

    index: int
    count: int
    files: tuple[ShardFile, ...]

    @property
    def chars(self) -> int:
        """Characters of patch text in this shard."""
        return sum(len(item.patch) for item in self.files)

    @property
    def paths(self) -> tuple[str, ...]:
        """The distinct paths in this shard, in shard order."""
        return tuple(dict.fromkeys(item.path for item in self.files))


def cut_shards(files: Iterable[PullFile], shard_chars: int) -> tuple[Shard, ...]:
    """Pack files in path order into shards of at most ``shard_chars`` characters of patch.

    A file stays whole unless it alone exceeds the limit; then it is cut on hunk boundaries
    (and, for a single oversized hunk, on line boundaries) into labelled parts.
    """
    if shard_chars <= 0:
        raise ValueError(f"shard_chars must be positive, got {shard_chars}")
    pieces: list[ShardFile] = []
    for item in sorted(files, key=lambda f: (f.path, f.status, f.patch)):
        pieces.extend(_pieces(item, shard_chars))

    groups: list[list[ShardFile]] = []
    size = 0
    for piece in pieces:
        if not groups or size + len(piece.patch) > shard_chars:
            groups.append([])
            size = 0
        groups[-1].append(piece)
        size += len(piece.patch)
    return tuple(
        Shard(index=index, count=len(groups), files=tuple(group))
        for index, group in enumerate(groups)
    )


def _pieces(item: PullFile, limit: int) -> list[ShardFile]:
    if len(item.patch) <= limit:
        return [ShardFile(item.path, item.status, item.patch)]
    chunks = _pack(_split_units(item.patch, limit), limit)
    return [
        ShardFile(item.path, item.status, chunk, part=number, parts=len(chunks))
        for number, chunk in enumerate(chunks, start=1)
    ]


def _split_units(patch: str, limit: int) -> list[str]:
    """Hunks of the patch; any hunk over ``limit`` is cut into line runs, any line into slices."""
    units: list[str] = []
    for hunk in hunk_texts(patch):
        if len(hunk) <= limit:
            units.append(hunk)
            continue
        for line in hunk.splitlines(keepends=True):
            units.extend(line[start : start + limit] for start in range(0, len(line), limit))
    return units


def _pack(units: Sequence[str], limit: int) -> list[str]:
    chunks: list[str] = []
    for unit in units:
        if chunks and len(chunks[-1]) + len(unit) <= limit:
            chunks[-1] += unit
        else:
            chunks.append(unit)
    return chunks
