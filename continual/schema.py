"""The declarative base every table of the project shares, and the tenant tables the store hangs off."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, MetaData, String
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Account(Base):
    """A GitHub user or organisation: the tenant boundary."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    login: Mapped[str] = mapped_column(String(100), unique=True)
    type: Mapped[str] = mapped_column(String(20), default="User")
    created_ms: Mapped[int] = mapped_column(BigInteger)


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
