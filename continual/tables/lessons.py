"""Tables of a lesson's provenance (the commit it was learned at, its anchors) and its maintenance."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class LessonProvenance(Base):
    """Where an entry's outcome happened and what it names, proven against a commit.

    ``basis`` is the newest commit the anchors are known to hold at: the pull request's head at
    first, the merge commit once merged, then each default-branch commit maintenance proved.
    """

    __tablename__ = "lesson_provenance"
    __table_args__ = (Index("ix_lesson_provenance_repository", "repository_id", "basis_sha"),)

    entry_id: Mapped[str] = mapped_column(
        ForeignKey("entries.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    pr: Mapped[int] = mapped_column(Integer)
    head_sha: Mapped[str] = mapped_column(String(40))
    merge_sha: Mapped[str | None] = mapped_column(String(40))
    basis_sha: Mapped[str] = mapped_column(String(40))
    anchors: Mapped[str] = mapped_column(Text, default="{}")  # JSON, continual.maintenance.Anchors
    updated_ms: Mapped[int] = mapped_column(BigInteger)


class LessonEvent(Base):
    """One change maintenance or a person made to a lesson: retired, adapted or restored, why, by
    which commit, and the text before and after (so a retired lesson stays explainable)."""

    __tablename__ = "lesson_events"
    __table_args__ = (Index("ix_lesson_events_repository", "repository_id", "at_ms"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    entry_id: Mapped[str] = mapped_column(ForeignKey("entries.id", ondelete="CASCADE"), index=True)
    action: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str] = mapped_column(Text)
    commit_sha: Mapped[str | None] = mapped_column(String(40))
    revision: Mapped[int] = mapped_column(Integer)  # the entry's revision after the change
    before_text: Mapped[str] = mapped_column(Text, default="")
    after_text: Mapped[str | None] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(100))
    at_ms: Mapped[int] = mapped_column(BigInteger)
