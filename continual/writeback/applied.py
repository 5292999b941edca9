"""Suggestions applied with GitHub's "Commit suggestion": their replacement lines landed verbatim."""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping
from dataclasses import dataclass

from continual.patches import added_runs

RULE = "applied.suggestion-block"


@dataclass(frozen=True, slots=True)
class Replacement:
    """A posted suggestion whose comment carried a ```suggestion block."""

    suggestion_id: str
    path: str
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Applied:
    suggestion_id: str
    actor: str
    span: str


def replacement_lines(code: str) -> tuple[str, ...]:
    """The lines of a suggestion block as they would land in the file."""
    return tuple(code.rstrip("\n").split("\n")) if code.strip() else ()


def _contains_block(run: tuple[str, ...], block: tuple[str, ...]) -> bool:
    width = len(block)
    return any(run[i : i + width] == block for i in range(len(run) - width + 1))


def applied_suggestions(
    replacements: Iterable[Replacement],
    *,
    patches: Mapping[str, str],
    commit_authors: Iterable[str],
    maintainers: Container[str],
) -> list[Applied]:
    """Suggestions whose exact replacement lines were added, as one block, at their path by a
    commit a maintainer authored. Precision first: no maintainer among the authors, no verdict."""
    authors = [login for login in commit_authors if login in maintainers]
    if not authors:
        return []
    found = []
    for replacement in replacements:
        patch = patches.get(replacement.path)
        if not replacement.lines or patch is None:
            continue
        if any(_contains_block(run, replacement.lines) for run in added_runs(patch)):
            span = replacement.lines[0][:80]
            found.append(Applied(replacement.suggestion_id, authors[-1], span))
    return found
