"""What a review asks of GitHub: the few calls it makes, the values they answer, two errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from review.compose import DraftItem
from review.contract import PullRequestInfo
from review.shards import PullFile


@dataclass(frozen=True)
class PullSnapshot:
    """The pull request as GitHub shows it now: its text, head and base, open or not, draft or not."""

    number: int
    title: str
    body: str
    head_sha: str
    base_sha: str
    open: bool
    draft: bool

    def info(self) -> PullRequestInfo:
        return PullRequestInfo(self.number, self.title, self.body, self.head_sha, self.base_sha)


@dataclass(frozen=True)
class PostedReview:
    """A review on the pull request; ``ours`` when the app's own bot posted it."""

    id: int
    body: str
    ours: bool


@dataclass(frozen=True)
class PostedComment:
    """One comment of a posted review."""

    id: int
    body: str


class PlacementRefused(Exception):
    """GitHub refused to place the review's comments on the diff (422); the review was not created."""


class ReviewGone(Exception):
    """The posted review, or its comments, no longer exist (404)."""


class ReviewGitHub(Protocol):
    """The calls one review makes; repositories are named ``owner/name``.

    Any other failure is the caller's to handle and passes through unchanged.
    """

    async def get_pull(self, repository: str, number: int) -> PullSnapshot: ...

    async def list_pull_files(self, repository: str, number: int) -> list[PullFile]: ...

    async def list_reviews(self, repository: str, number: int) -> list[PostedReview]: ...

    async def create_review(
        self,
        repository: str,
        number: int,
        *,
        commit_id: str,
        body: str,
        comments: Sequence[DraftItem] = (),
    ) -> PostedReview:
        """ONE request for the review and all its comments (event COMMENT).

        Raises ``PlacementRefused`` when GitHub will not place the comments.
        """
        ...

    async def list_review_comments(
        self, repository: str, number: int, review_id: int
    ) -> list[PostedComment]:
        """The comments of one posted review; raises ``ReviewGone`` when it no longer exists."""
        ...
