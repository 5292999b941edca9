"""The fix PRs table: the one fix PR of a suggestion, where it was opened and how it stands."""

from __future__ import annotations

from enum import StrEnum

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class FixState(StrEnum):
    OPENING = "opening"  # claimed; the commit, branch and pull request are being written
    OPEN = "open"
    MERGED = "merged"
    CLOSED = "closed"
    REFUSED = "refused"  # the latest `/fix` opened nothing; the thread was told why


class FixPullRow(Base):
    """The fix PR the app opened for one suggestion (at most one per suggestion)."""

    __tablename__ = "fix_pulls"
    __table_args__ = (Index("ix_fix_pulls_number", "repository_id", "number"),)

    suggestion_id: Mapped[str] = mapped_column(
        ForeignKey("suggestions.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    pr: Mapped[int] = mapped_column(Integer)  # the pull request the suggestion was posted on
    number: Mapped[int | None] = mapped_column(Integer)  # the fix PR, once opened
    branch: Mapped[str] = mapped_column(String(255))
    base_ref: Mapped[str] = mapped_column(String(255))
    commit_sha: Mapped[str | None] = mapped_column(String(40))  # the app's commit on the branch
    state: Mapped[str] = mapped_column(String(16))
    asked_by: Mapped[str] = mapped_column(String(64))
    asked_comment_id: Mapped[int] = mapped_column(BigInteger)  # the latest `/fix` answered
    created_ms: Mapped[int] = mapped_column(BigInteger)
    updated_ms: Mapped[int] = mapped_column(BigInteger)
