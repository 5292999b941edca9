"""The migrations build exactly the schema the tables describe, on SQLite and PostgreSQL; the tables
live in one place, import nothing of the product, and render the schema page."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine

from continual.tables import Base
from ghapp import schema
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


def test_no_migration_imports_the_product() -> None:
    """A migration is frozen: it carries the code its data steps need, so a later change to the
    product never changes what an old migration does."""
    versions = Path(__file__).resolve().parents[2] / "ghapp" / "migrations" / "versions"
    rooms = {"continual", "review", "ghapp", "ghsim"}
    reached = {}
    for path in sorted(versions.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else ["(relative)"]
            else:
                continue
            for name in names:
                if name.split(".")[0] in rooms or name == "(relative)":
                    reached[path.name] = name
    assert len(list(versions.glob("*.py"))) >= 20
    assert reached == {}


def test_the_tables_load_only_the_tables() -> None:
    """Importing the schema loads SQLAlchemy and the table modules, none of the product's logic."""
    probe = (
        "import sys, ghapp.tables; "
        "print(' '.join(m for m in sys.modules if m.split('.')[0] in "
        "('continual', 'review', 'ghapp', 'ghsim')))"
    )
    root = Path(__file__).resolve().parents[2]
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    ).stdout.split()
    assert "continual.tables.store" in loaded
    allowed = {"continual", "continual.tables", "ghapp", "ghapp.tables"}
    assert [m for m in loaded if m not in allowed and not m.startswith("continual.tables.")] == []


def test_the_tables_import_only_sqlalchemy_and_the_stdlib() -> None:
    root = Path(__file__).resolve().parents[2]
    modules = [*sorted((root / "continual" / "tables").glob("*.py")), root / "ghapp" / "tables.py"]
    found = set()
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    others = {
        name
        for name in found
        if name.split(".")[0] not in (*sys.stdlib_module_names, "sqlalchemy")
        and not name.startswith("continual.tables")
    }
    assert "sqlalchemy" in found
    assert others == set()


def test_every_table_class_lives_with_the_schema() -> None:
    homes = {mapper.class_.__module__ for mapper in Base.registry.mappers}
    assert len(Base.registry.mappers) == len(METADATA.tables)
    assert {
        h for h in homes if not h.startswith("continual.tables.") and h != "ghapp.tables"
    } == set()


def _singular_class(table: str) -> str:
    """``link_names`` → ``LinkName``, ``entries`` → ``Entry``, ``lesson_provenance`` kept."""
    words = table.split("_")
    last = words[-1]
    words[-1] = last[:-3] + "y" if last.endswith("ies") else last.removesuffix("s")
    return "".join(word.capitalize() for word in words)


def test_table_classes_are_named_for_their_tables() -> None:
    """The naming convention of continual/tables/__init__.py: the class is the table's noun,
    singular, with ``Row`` where a value class holds the same thing."""
    names = {
        mapper.class_.__table__.name: mapper.class_.__name__ for mapper in Base.registry.mappers
    }
    assert names["link_names"] == "LinkName" and names["memory_items"] == "MemoryItemRow"
    misnamed = {
        table: name
        for table, name in names.items()
        if name not in (_singular_class(table), _singular_class(table) + "Row")
    }
    assert misnamed == {}


def test_the_schema_page_is_what_the_tables_render() -> None:
    """docs/schema.md is generated (``python -m ghapp.schema > docs/schema.md``): a change of a table
    comes with its page."""
    page = Path(__file__).resolve().parents[2] / "docs" / "schema.md"
    assert page.read_text() == schema.render(), "run: python -m ghapp.schema > docs/schema.md"
