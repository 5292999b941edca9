"""The judge's kept answers: one row per reply revision, seat and contract, so each is asked about
once under the contract in force."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class JudgeVerdictRow(Base):
    """What the judge seat answered about one revision of one reply, under which contract
    (`hindsight.judge/2`; rows of an older contract are kept but never read as answers)."""

    __tablename__ = "judge_verdicts"
    __table_args__ = (
        UniqueConstraint(
            "repository_id",
            "reply_id",
            "reply_updated_ms",
            "body_sha256",
            "seat",
            "contract",
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    reply_id: Mapped[int] = mapped_column(BigInteger)
    reply_updated_ms: Mapped[int] = mapped_column(BigInteger)
    body_sha256: Mapped[str] = mapped_column(String(64))
    seat: Mapped[str] = mapped_column(String(100))
    contract: Mapped[str] = mapped_column(String(40))
    outcome: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str | None] = mapped_column(String(40))
    quote: Mapped[str | None] = mapped_column(Text)
    detail: Mapped[str | None] = mapped_column(Text)
    asked_ms: Mapped[int] = mapped_column(BigInteger)
