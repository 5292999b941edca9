"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL."""

from __future__ import annotations

import ast
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine

from ghapp.db import check_migrated
from ghapp.tables import METADATA

# Migrations up to this place kept the revision ids they shipped with (0016_resolved_threads is the
# tenth file, 0010_proofs_as_evidence the eleventh): databases store those ids.
LAST_OLD_STYLE = 20


def test_migrated_schema_matches_the_models(engine: Engine) -> None:
    check_migrated(engine)
    with engine.connect() as conn:
        differences = compare_metadata(MigrationContext.configure(conn), METADATA)
    assert differences == []


def chain() -> list[tuple[str, str]]:
    """(file name, revision id) of every migration, in the order Alembic applies them."""
    versions = Path(__file__).resolve().parents[2] / "ghapp" / "migrations" / "versions"
    found: dict[str | None, tuple[str, str]] = {}
    for path in versions.glob("*.py"):
        values = {}
        for node in ast.parse(path.read_text()).body:
            target = node.targets[0] if isinstance(node, ast.Assign) else None
            if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
                values[target.id] = ast.literal_eval(node.value)
        assert values["down_revision"] not in found, f"{path.name} branches the chain"
        found[values["down_revision"]] = (path.name, values["revision"])
    ordered, parent = [], None
    while parent in found:
        ordered.append(found[parent])
        parent = found[parent][1]
    assert len(ordered) == len(found), "a migration is not on the chain from the first one"
    return ordered


def test_migration_files_sort_in_the_order_they_apply() -> None:
    ordered = chain()
    assert [name for name, _ in ordered] == sorted(name for name, _ in ordered)
    for place, (name, _) in enumerate(ordered, start=1):
        assert name.startswith(f"{place:04d}_"), f"{name} is migration number {place}"


def test_new_migrations_are_named_by_their_file() -> None:
    """Revision ids stay as deployed databases recorded them; from here on the id is the file's stem."""
    for name, revision in chain()[LAST_OLD_STYLE:]:
        assert revision == name.removesuffix(".py"), name
