"""Tables of the history back-fill: one run per repository (its cursor and budget), the merged
pull requests it read, and the maintainers' review comments it kept with their evidence."""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class HistoryRun(Base):
    """A repository's back-fill: what it was asked, where it stands, and who holds it now.

    One row per repository; a new request starts a new ``generation`` of it. ``page`` is the
    cursor (the next page of the merged pull requests to read); ``lease_token`` and
    ``lease_expires_ms`` let one runner at a time hold it; ``window_*`` is what it spent of the
    installation's current rate-limit window."""

    __tablename__ = "history_runs"

    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    installation_id: Mapped[int] = mapped_column(BigInteger)
    generation: Mapped[int] = mapped_column(Integer, default=1)
    state: Mapped[str] = mapped_column(String(16))
    days: Mapped[int] = mapped_column(Integer)
    max_prs: Mapped[int] = mapped_column(Integer)
    since_ms: Mapped[int] = mapped_column(BigInteger)
    page: Mapped[int] = mapped_column(Integer, default=1)
    prs_read: Mapped[int] = mapped_column(Integer, default=0)
    prs_seen: Mapped[int] = mapped_column(Integer, default=0)
    comments_kept: Mapped[int] = mapped_column(Integer, default=0)
    addressed: Mapped[int] = mapped_column(Integer, default=0)
    facts: Mapped[int] = mapped_column(Integer, default=0)
    requests: Mapped[int] = mapped_column(Integer, default=0)
    pauses: Mapped[int] = mapped_column(Integer, default=0)
    paused_until_ms: Mapped[int | None] = mapped_column(BigInteger)
    window_reset_ms: Mapped[int | None] = mapped_column(BigInteger)
    window_spent: Mapped[int] = mapped_column(Integer, default=0)
    lease_token: Mapped[str | None] = mapped_column(String(32))
    lease_expires_ms: Mapped[int | None] = mapped_column(BigInteger)
    last_error: Mapped[str | None] = mapped_column(Text)
    requested_ms: Mapped[int] = mapped_column(BigInteger)
    started_ms: Mapped[int | None] = mapped_column(BigInteger)
    updated_ms: Mapped[int] = mapped_column(BigInteger)
    finished_ms: Mapped[int | None] = mapped_column(BigInteger)


class HistoryPull(Base):
    """A merged pull request a back-fill read (a later run of the repository skips it)."""

    __tablename__ = "history_pulls"

    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    generation: Mapped[int] = mapped_column(Integer)
    merged_ms: Mapped[int] = mapped_column(BigInteger)
    merged_by: Mapped[str | None] = mapped_column(String(100))
    comments: Mapped[int] = mapped_column(Integer, default=0)
    requests: Mapped[int] = mapped_column(Integer, default=0)
    # None: compared; else why the evidence is missing (``force-pushed``, ``no-head``).
    evidence_missing: Mapped[str | None] = mapped_column(String(32))
    read_ms: Mapped[int] = mapped_column(BigInteger)


class HistoryComment(Base):
    """A maintainer's review comment on a merged pull request, with its evidence.

    ``outcome`` is ``addressed`` (the commented lines changed after it, before the merge: a
    history receipt), ``unchanged`` (kept as context, never a verdict) or ``no-evidence`` (the
    commented commit is gone)."""

    __tablename__ = "history_comments"
    __table_args__ = (Index("ix_history_comments_repository", "repository_id", "outcome"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    pr: Mapped[int] = mapped_column(Integer)
    generation: Mapped[int] = mapped_column(Integer)
    author: Mapped[str] = mapped_column(String(100))
    association: Mapped[str] = mapped_column(String(32))
    path: Mapped[str] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer)
    commit_sha: Mapped[str] = mapped_column(String(40))
    body: Mapped[str] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(16))
    addressed_sha: Mapped[str | None] = mapped_column(String(40))
    merged_by: Mapped[str | None] = mapped_column(String(100))
    author_reply: Mapped[str | None] = mapped_column(Text)
    url: Mapped[str] = mapped_column(Text, default="")
    published: Mapped[bool] = mapped_column(Boolean, default=False)
    created_ms: Mapped[int] = mapped_column(BigInteger)


class HistoryLesson(Base):
    """A lesson a discovery seat proposed from addressed maintainer comments, kept after its
    checks: active when they come from two or more pull requests, else a candidate. ``key``
    names its set of comments (the same comments never make a second one); a person's deletion
    erases its words and keeps the row, so the same comments never re-create it."""

    __tablename__ = "history_lessons"
    __table_args__ = (Index("uq_history_lessons_key", "repository_id", "key", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    state: Mapped[str] = mapped_column(String(16))  # active, candidate
    comment_ids: Mapped[str] = mapped_column(Text)  # JSON list of history_comments ids
    prs: Mapped[str] = mapped_column(Text)  # JSON list of pull request numbers
    quotes: Mapped[str] = mapped_column(Text)  # JSON {comment id: verbatim quote}
    seat: Mapped[str] = mapped_column(String(100))
    publication_id: Mapped[int] = mapped_column(Integer)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    deleted_ms: Mapped[int | None] = mapped_column(BigInteger)
    deleted_by: Mapped[str | None] = mapped_column(String(100))


class HistoryRefusal(Base):
    """Another review bot's past suggestion a maintainer refused: a suppression candidate that
    only a person's confirmation on `/ledger` turns into something handed to reviews."""

    __tablename__ = "history_refusals"
    __table_args__ = (Index("ix_history_refusals_repository", "repository_id", "state"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    pr: Mapped[int] = mapped_column(Integer)
    generation: Mapped[int] = mapped_column(Integer)
    bot: Mapped[str] = mapped_column(String(100))
    path: Mapped[str] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    url: Mapped[str] = mapped_column(Text, default="")
    maintainer: Mapped[str] = mapped_column(String(100))
    association: Mapped[str] = mapped_column(String(32))  # the maintainer's, when they replied
    reply_id: Mapped[int] = mapped_column(BigInteger)
    reply_url: Mapped[str] = mapped_column(Text, default="")
    quote: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(String(32))
    rule: Mapped[str] = mapped_column(String(128))
    evidence: Mapped[str] = mapped_column(String(16))
    # seeded (unpublished), candidate, confirmed or rejected
    state: Mapped[str] = mapped_column(String(16))
    decided_by: Mapped[str | None] = mapped_column(String(100))
    decided_ms: Mapped[int | None] = mapped_column(BigInteger)
    created_ms: Mapped[int] = mapped_column(BigInteger)


class HistoryPublication(Base):
    """The receipt of one publication of a repository's history: what it published, in one
    transaction, and what its discovery seat said."""

    __tablename__ = "history_publications"
    __table_args__ = (Index("ix_history_publications_repository", "repository_id", "at_ms"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    generation: Mapped[int] = mapped_column(Integer)
    facts: Mapped[int] = mapped_column(Integer)
    lessons_active: Mapped[int] = mapped_column(Integer)
    lessons_candidate: Mapped[int] = mapped_column(Integer)
    refusals: Mapped[int] = mapped_column(Integer)
    seat: Mapped[str | None] = mapped_column(String(100))
    proposals: Mapped[int] = mapped_column(Integer)
    rejected: Mapped[str] = mapped_column(Text, default="{}")  # JSON {why: count}
    seat_failure: Mapped[str | None] = mapped_column(Text)
    at_ms: Mapped[int] = mapped_column(BigInteger)
