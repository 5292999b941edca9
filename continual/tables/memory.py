"""Tables of session memory: the items a review kept, the hits its subjects scored later, and each
repository's memory summary with the fingerprint of what it was built from."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class MemoryItemRow(Base):
    """What a review learned and kept: active for 90 days once the app observed it or seats of
    two labs reported it (``source``), else a candidate (a seat's claim) for 30."""

    __tablename__ = "memory_items"
    __table_args__ = (Index("ix_memory_items_recall", "repository_id", "expires_ms"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    review_id: Mapped[str] = mapped_column(String(64), index=True)  # the session
    kind: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    seat: Mapped[str] = mapped_column(String(100))
    lens: Mapped[str] = mapped_column(String(100), default="")
    commit: Mapped[str] = mapped_column(String(40))
    files: Mapped[str] = mapped_column(Text, default="[]")  # JSON list of paths
    state: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(String(16), server_default="reported")
    reporters: Mapped[str] = mapped_column(Text, server_default="[]")  # JSON [[seat, lab], …]
    expires_ms: Mapped[int] = mapped_column(BigInteger)
    created_ms: Mapped[int] = mapped_column(BigInteger)


class MemoryHitRow(Base):
    """A recalled subject that came up again in a later review."""

    __tablename__ = "memory_hits"
    __table_args__ = (UniqueConstraint("review_id", "subject_sha256"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), index=True
    )
    review_id: Mapped[str] = mapped_column(String(64), index=True)  # the review it came up in
    recalled_review_id: Mapped[str] = mapped_column(String(64))  # the session that learned it
    kind: Mapped[str] = mapped_column(String(16))
    subject: Mapped[str] = mapped_column(Text)
    subject_sha256: Mapped[str] = mapped_column(String(64))
    seat: Mapped[str] = mapped_column(String(100))
    call_id: Mapped[str] = mapped_column(String(200))
    created_ms: Mapped[int] = mapped_column(BigInteger)


class MemorySummaryRow(Base):
    """A repository's compact memory summary; rebuilt when its sources' fingerprint changes.

    A cleared summary keeps its row with empty text and the fingerprint it was cleared at, so it
    stays withdrawn until what it is built from changes or a person rebuilds it.
    """

    __tablename__ = "memory_summaries"

    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    text: Mapped[str] = mapped_column(Text, default="")
    fingerprint: Mapped[str] = mapped_column(String(64))
    revision: Mapped[int] = mapped_column(Integer, default=1)
    lessons: Mapped[int] = mapped_column(Integer, default=0)
    memories: Mapped[int] = mapped_column(Integer, default=0)
    omitted: Mapped[int] = mapped_column(Integer, default=0)
    built_ms: Mapped[int] = mapped_column(BigInteger)
    cleared_ms: Mapped[int | None] = mapped_column(BigInteger)
    cleared_by: Mapped[str | None] = mapped_column(String(100))


class MemorySettingRow(Base):
    """Whether a repository keeps and hands memory (its items, hits, summary and session files).

    No row is off: memory is disabled until a person of the account turns it on."""

    __tablename__ = "memory_settings"

    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    changed_ms: Mapped[int] = mapped_column(BigInteger)
    changed_by: Mapped[str] = mapped_column(String(100))
