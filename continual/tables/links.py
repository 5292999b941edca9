"""The names an account's entries link to, each numbered once when an entry is written."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, SmallInteger, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from continual.tables.base import Base


class LinkName(Base):
    """A file, folder, identifier or keyword group (``kind``) some entry of the account links
    to, in normal form, under its posting ``number``. An entry keeps its links' numbers
    (``Entry.link_numbers``), so a recall build reads numbers instead of looking up every name
    of every entry. ``digest`` (of kind and name) is what writers look a name up by: a name may
    be too long for an index of its own."""

    __tablename__ = "link_names"
    __table_args__ = (UniqueConstraint("account_id", "digest"),)

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    kind: Mapped[int] = mapped_column(SmallInteger)
    name: Mapped[str] = mapped_column(Text)  # a keyword group as a JSON list of its terms
    digest: Mapped[str] = mapped_column(String(32))
