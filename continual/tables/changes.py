"""The entry change log: one row per change of an entry's row, numbered by the account's generation."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class EntryChange(Base):
    """Entry ``entry_id`` changed at the account's store generation ``generation``.

    Generations are handed out by the row lock on the account, so they are contiguous and in
    commit order per account: a reader that knows generation G reads the changes after G as a
    delta. Old rows are pruned; a reader that finds a gap rebuilds instead.
    """

    __tablename__ = "entry_changes"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    generation: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    entry_id: Mapped[str] = mapped_column(String(64))
