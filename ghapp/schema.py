"""The schema page: every table of ``ghapp.tables.METADATA`` rendered as Markdown.

``python -m ghapp.schema > docs/schema.md`` writes the page; the migration tests check that the
committed page is what the metadata renders, so a schema change comes with its page.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Iterator

from sqlalchemy import Column, Table, UniqueConstraint

from continual.tables import Base
from ghapp.tables import METADATA

INTRO = """\
# Schema

Every table the app keeps, generated from the table classes (`continual/tables/<family>.py`, and
the door's in `ghapp/tables.py`) by `python -m ghapp.schema > docs/schema.md`; the migration tests
fail when this page is not what the classes render. Migrations (`ghapp/migrations/versions/`) build
exactly this schema on SQLite and PostgreSQL. Times are integer milliseconds since the epoch
(`*_ms`); JSON is stored as text."""


def _first_paragraph(doc: str | None) -> str:
    return " ".join(inspect.cleandoc(doc or "").split("\n\n")[0].split())


def _families() -> Iterator[tuple[str, str, list[tuple[Table, str, str]]]]:
    """(module, its summary, [(table, its class, the class's summary)]): the core's families, each after the
    families it refers to (the store's first), then the door's; a family's tables in the order its
    module defines them."""
    classes = {mapper.class_.__table__.name: mapper.class_ for mapper in Base.registry.mappers}
    families: dict[str, list[tuple[Table, str, str]]] = {}
    for table in METADATA.tables.values():
        cls = classes[table.name]
        families.setdefault(cls.__module__, []).append(
            (table, cls.__name__, _first_paragraph(cls.__doc__))
        )
    place = {table.name: n for n, table in enumerate(METADATA.sorted_tables)}
    ordered = sorted(
        families.items(),
        key=lambda item: (item[0].startswith("ghapp."), min(place[t.name] for t, _, _ in item[1])),
    )
    for module, tables in ordered:
        yield module, _first_paragraph(sys.modules[module].__doc__), tables


def _column(column: Column[object]) -> str:
    keys = []
    if column.primary_key:
        keys.append("primary key")
    for fk in sorted(column.foreign_keys, key=lambda fk: fk.target_fullname):
        cascade = f", on delete {fk.ondelete.lower()}" if fk.ondelete else ""
        keys.append(f"→ `{fk.target_fullname}`{cascade}")
    default = ""
    if column.server_default is not None:
        default = f"`{column.server_default.arg}`"  # type: ignore[attr-defined]
    null = "null" if column.nullable else "not null"
    return f"| `{column.name}` | {column.type} | {null} | {default} | {'; '.join(keys)} |"


def _indexes(table: Table) -> list[str]:
    lines = []
    for index in sorted(table.indexes, key=lambda index: str(index.name)):
        columns = ", ".join(f"`{c.name}`" for c in index.columns)
        kind = "unique index" if index.unique else "index"
        where = index.dialect_options["postgresql"].get("where")
        only = f" where `{where}`" if where is not None else ""
        lines.append(f"- {kind} `{index.name}` on {columns}{only}")
    for constraint in sorted(table.constraints, key=lambda c: str(c.name)):
        if isinstance(constraint, UniqueConstraint):
            columns = ", ".join(f"`{c.name}`" for c in constraint.columns)
            lines.append(f"- unique `{constraint.name}` on {columns}")
    return lines


def render() -> str:
    """The whole page."""
    out = [INTRO]
    for module, summary, tables in _families():
        out += ["", f"## `{module}`", "", summary]
        for table, name, doc in tables:
            out += ["", f"### `{table.name}` (`{name}`)", ""]
            if doc:
                out += [doc, ""]
            out += [
                "| column | type | null | server default | key |",
                "| --- | --- | --- | --- | --- |",
            ]
            out += [_column(column) for column in table.columns]
            indexes = _indexes(table)
            if indexes:
                out += ["", *indexes]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
