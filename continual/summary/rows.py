"""The stored memory summary: one row per repository, with the fingerprint of what it was built from."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from continual.orm import Base


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
