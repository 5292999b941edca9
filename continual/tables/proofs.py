"""The proofs table: what running a posted suggestion's proof showed, stored beside it."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class ProofRow(Base):
    """One proof run of one posted suggestion."""

    __tablename__ = "proofs"

    suggestion_id: Mapped[str] = mapped_column(
        ForeignKey("suggestions.id", ondelete="CASCADE"), primary_key=True
    )
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    repository_id: Mapped[int] = mapped_column(
        ForeignKey("repositories.id", ondelete="CASCADE"), index=True
    )
    review_id: Mapped[str | None] = mapped_column(String(64), index=True)
    test: Mapped[str] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(32))
    reason: Mapped[str] = mapped_column(Text, default="")
    head_sha: Mapped[str] = mapped_column(String(40))
    sandbox: Mapped[str] = mapped_column(String(16))
    created_ms: Mapped[int] = mapped_column(BigInteger)
    # The proven fix's patch, shown with a finding that has no replacement block: what its fix
    # PR applies (continual.fix_patches); None when it was not proven or may not be applied.
    fix_patch: Mapped[str | None] = mapped_column(Text)
