"""The tables of the store: tenants, suggestions, entries (lesson records) and their receipts."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class Account(Base):
    """A GitHub user or organisation: the tenant boundary."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    login: Mapped[str] = mapped_column(String(100), unique=True)
    type: Mapped[str] = mapped_column(String(20), default="User")
    created_ms: Mapped[int] = mapped_column(BigInteger)
    # Bumped with every change of one of the account's entries: a recall snapshot built at one
    # generation is current while the generation is unchanged.
    store_generation: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")


class Repository(Base):
    """`owner/name` inside an account; the default scope of everything."""

    __tablename__ = "repositories"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    installation_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    full_name: Mapped[str] = mapped_column(String(200), unique=True)
    removed_ms: Mapped[int | None] = mapped_column(BigInteger)


class Suggestion(Base):
    """One finding posted as a review comment carrying the hidden marker."""

    __tablename__ = "suggestions"
    __table_args__ = (Index("ix_suggestions_pull", "repository_id", "pr"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    pr: Mapped[int] = mapped_column(Integer)
    head_sha: Mapped[str] = mapped_column(String(40))
    review_id: Mapped[str | None] = mapped_column(String(64), index=True)
    path: Mapped[str] = mapped_column(Text)
    line: Mapped[int | None] = mapped_column(Integer)
    seat: Mapped[str] = mapped_column(String(100))
    lab: Mapped[str | None] = mapped_column(String(100))
    lens: Mapped[str] = mapped_column(String(100))
    title: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text, default="")
    lesson: Mapped[str] = mapped_column(Text, default="")
    replacement: Mapped[str | None] = mapped_column(Text)
    entry_key: Mapped[str] = mapped_column(String(80))
    set_sha256: Mapped[str | None] = mapped_column(String(64))
    comment_id: Mapped[int | None] = mapped_column(BigInteger, index=True)
    proven: Mapped[bool] = mapped_column(Boolean, default=False)
    created_ms: Mapped[int] = mapped_column(BigInteger)
    # The suggestion whose comment carries this finding too: the same finding raised under
    # another lens at the same line is posted once, and a reply to that comment decides both.
    comment_of: Mapped[str | None] = mapped_column(String(64), index=True)
    # Who resolved the suggestion's thread on GitHub, and when it was seen: evidence, never a decision.
    resolved_by: Mapped[str | None] = mapped_column(String(100))
    resolved_ms: Mapped[int | None] = mapped_column(BigInteger)
    # JSON: the paths and identifiers the lesson names that its context at the head holds.
    anchors: Mapped[str | None] = mapped_column(Text)
    # JSON: a maintainer's reply on its thread that decided nothing yet — claimed, argued,
    # deferred or dropped (continual.writeback.binding.Claim); None when there is none.
    claim: Mapped[str | None] = mapped_column(Text)


class Entry(Base):
    """One mechanism in one repository: the lesson record. A deleted entry stays as a tombstone."""

    __tablename__ = "entries"
    __table_args__ = (
        # One live entry per key per repository; tombstones (deleted_ms set) do not count.
        Index(
            "uq_entries_live_key",
            "repository_id",
            "key",
            unique=True,
            sqlite_where=text("deleted_ms IS NULL"),
            postgresql_where=text("deleted_ms IS NULL"),
        ),
        # A repository's demoted entries, read on every hand-out (suppression), without a scan.
        Index("ix_entries_repository_demoted", "repository_id", "demoted_ms"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(80), index=True)
    scope: Mapped[str] = mapped_column(String(16), default="repository")
    lens: Mapped[str] = mapped_column(String(100), default="")
    title: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text, default="")
    admission: Mapped[str | None] = mapped_column(String(32))  # None: admitted; else the stage
    associations: Mapped[str] = mapped_column(Text, default="{}")  # JSON, for the recall index
    # The associations' posting numbers (``LinkName``), little-endian int32, written with them.
    link_numbers: Mapped[bytes | None] = mapped_column(LargeBinary)
    revision: Mapped[int] = mapped_column(Integer, default=1)
    demoted_ms: Mapped[int | None] = mapped_column(BigInteger)
    demoted_by: Mapped[str | None] = mapped_column(String(100))
    # A person's restore lifts the suppression of the dismissals made up to this moment.
    suppression_lifted_ms: Mapped[int | None] = mapped_column(BigInteger)
    suppression_lifted_by: Mapped[str | None] = mapped_column(String(100))
    last_confirmed_ms: Mapped[int | None] = mapped_column(BigInteger)
    expires_ms: Mapped[int | None] = mapped_column(BigInteger)
    # The current (not superseded) receipts, counted by the refresh that follows every change
    # of them, as last_confirmed_ms is: a recall build reads them with the row.
    accepted_count: Mapped[int] = mapped_column(Integer, server_default="0")
    dismissed_count: Mapped[int] = mapped_column(Integer, server_default="0")
    labelled_count: Mapped[int] = mapped_column(Integer, server_default="0")
    created_ms: Mapped[int] = mapped_column(BigInteger)
    deleted_ms: Mapped[int | None] = mapped_column(BigInteger)
    tombstone_sources: Mapped[str | None] = mapped_column(Text)  # JSON list of suggestion ids
    # Consolidated into another entry of the repository: retired (deleted_ms set, text kept), its
    # receipts moved to that entry, and decisions on its key go there from now on.
    replaced_by: Mapped[str | None] = mapped_column(String(64), index=True)


class TombstonedSource(Base):
    """A suggestion whose entry was deleted: it never decides anything again, whatever entry
    its key holds later."""

    __tablename__ = "tombstoned_sources"

    suggestion_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    entry_id: Mapped[str] = mapped_column(String(64))
    created_ms: Mapped[int] = mapped_column(BigInteger)


class Receipt(Base):
    """One decision on one suggestion, with where it came from and under which guidance."""

    __tablename__ = "receipts"
    __table_args__ = (
        UniqueConstraint("suggestion_id", "decision", "source"),
        # An account's dismissals, read on every hand-out (suppression), without a scan.
        Index("ix_receipts_account_decision", "account_id", "decision", "entry_id"),
        # Merged fix PRs (widening), read by every recall snapshot's build.
        Index("ix_receipts_account_source", "account_id", "source", "decision"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    entry_id: Mapped[str] = mapped_column(ForeignKey("entries.id", ondelete="CASCADE"), index=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    suggestion_id: Mapped[str] = mapped_column(ForeignKey("suggestions.id", ondelete="CASCADE"))
    decision: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(String(32))
    rule: Mapped[str | None] = mapped_column(String(128))
    span: Mapped[str | None] = mapped_column(Text)
    seat: Mapped[str] = mapped_column(String(100))
    lab: Mapped[str | None] = mapped_column(String(100))
    set_sha256: Mapped[str | None] = mapped_column(String(64))
    pr: Mapped[int] = mapped_column(Integer)
    head_sha: Mapped[str] = mapped_column(String(40))
    actor: Mapped[str | None] = mapped_column(String(100))
    at_ms: Mapped[int] = mapped_column(BigInteger)
    superseded: Mapped[bool] = mapped_column(Boolean, default=False)
    # The evidence that bound a reply's decision (lines-changed, replacement-landed, lines-kept)
    # and the commit that shows it; None for a decision that binds at once.
    evidence: Mapped[str | None] = mapped_column(String(32))
    evidence_commit: Mapped[str | None] = mapped_column(String(40))
