"""The dismissed mechanisms as a review's shared header hands them, one line each."""

from __future__ import annotations

from collections.abc import Sequence

from continual.suppression.rules import Suppression

DISMISSED_HEADER = "Dismissed here before (do not raise again):"
DISMISSED_LINE = "- {title} (lens {lens}; {where}; reason {reason}; dismissed by {who})"
WHERE_PATH = "at {path}"
WHERE_REPOSITORY = "anywhere in the repository (first at {path})"
WHERE_ANYWHERE = "anywhere in the repository"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def dismissed_line(suppression: Suppression) -> str:
    path = _one_line(suppression.path)
    if not suppression.repository_wide:
        where = WHERE_PATH.format(path=path)
    else:
        where = WHERE_REPOSITORY.format(path=path) if path else WHERE_ANYWHERE
    return DISMISSED_LINE.format(
        title=_one_line(suppression.title) or suppression.key,
        lens=_one_line(suppression.lens),
        where=where,
        reason=suppression.reason,
        who=_one_line(suppression.actor or "a maintainer"),
    )


def render_dismissed(suppressions: Sequence[Suppression]) -> str:
    """The header block, or "" when nothing is suppressed (the header then has no such part)."""
    if not suppressions:
        return ""
    return "\n".join([DISMISSED_HEADER, *(dismissed_line(s) for s in suppressions)])
