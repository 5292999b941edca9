"""The review's GitHub calls (``review.github.ReviewGitHub``) made as one installation of the app."""

from __future__ import annotations

from collections.abc import Sequence

from ghapp.github.errors import Gone, Rejected
from ghapp.github.installation import InstallationClient
from ghapp.github.values import DraftComment, Review
from review.compose import DraftItem
from review.github import PlacementRefused, PostedComment, PostedReview, PullSnapshot, ReviewGone
from review.shards import PullFile

UNPROCESSABLE = 422
# How GitHub words a 422 for a body over its limit (65,536 characters): not a placement, so the
# comments are not folded into the body for it.
TOO_LONG = "too long"


def _too_long(exc: Rejected) -> bool:
    return TOO_LONG in str(exc).lower()


class InstallationReviewGitHub:
    """``ReviewGitHub`` on an installation client: GitHub's values mapped to the review's.

    Only the two answers the review acts on are translated (a 422 to placed comments, unless it
    says a body is too long, and a 404 on a posted review's comments); every other error keeps
    its type for the job runner.
    """

    def __init__(self, client: InstallationClient, *, bot_login: str) -> None:
        self.client = client
        self.bot_login = bot_login.lower()

    def _posted(self, review: Review) -> PostedReview:
        ours = review.user.is_bot and review.user.login.lower() == self.bot_login
        return PostedReview(id=review.id, body=review.body, ours=ours)

    def __repr__(self) -> str:
        return f"InstallationReviewGitHub({self.client!r})"

    async def get_pull(self, repository: str, number: int) -> PullSnapshot:
        pull = await self.client.get_pull(repository, number)
        return PullSnapshot(
            number=pull.number,
            title=pull.title,
            body=pull.body,
            head_sha=pull.head_sha,
            base_sha=pull.base_sha,
            open=pull.state == "open",
            draft=pull.draft,
        )

    async def list_pull_files(self, repository: str, number: int) -> list[PullFile]:
        return [
            PullFile(path=item.filename, status=item.status, patch=item.patch or "")
            for item in await self.client.list_pull_files(repository, number)
        ]

    async def list_reviews(self, repository: str, number: int) -> list[PostedReview]:
        return [
            self._posted(review) for review in await self.client.list_reviews(repository, number)
        ]

    async def create_review(
        self,
        repository: str,
        number: int,
        *,
        commit_id: str,
        body: str,
        comments: Sequence[DraftItem] = (),
    ) -> PostedReview:
        try:
            review = await self.client.create_review(
                repository,
                number,
                commit_id=commit_id,
                body=body,
                comments=[DraftComment(item.path, item.line, item.body) for item in comments],
            )
        except Rejected as exc:
            if exc.status != UNPROCESSABLE or not comments or _too_long(exc):
                raise
            raise PlacementRefused(str(exc)) from exc
        return self._posted(review)

    async def list_review_comments(
        self, repository: str, number: int, review_id: int
    ) -> list[PostedComment]:
        try:
            found = await self.client.list_review_comments_of_review(repository, number, review_id)
        except Gone as exc:
            raise ReviewGone(str(exc)) from exc
        return [PostedComment(id=comment.id, body=comment.body) for comment in found]
