"""The tables' facade: each public name is its family's own, the type checker sees the same list,
``Base`` always carries the whole schema, and a caller of a few tables maps only their families."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import continual.tables as tables

ROOT = Path(__file__).resolve().parents[2]


def _fresh(code: str) -> object:
    """What ``code`` prints as JSON, run in a new interpreter (nothing imported before it)."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    )
    return json.loads(result.stdout)


def test_each_public_name_is_the_one_its_family_defines() -> None:
    for name, home in tables.HOMES.items():
        module = importlib.import_module(f"continual.tables.{home}")
        assert getattr(tables, name) is getattr(module, name), name
    assert set(tables.HOMES) == set(tables.__all__)
    assert set(tables.HOMES.values()) == set(tables.FAMILIES)


def test_the_type_checker_sees_the_same_names_from_the_same_modules() -> None:
    tree = ast.parse(Path(tables.__file__).read_text())
    guarded = next(node for node in tree.body if isinstance(node, ast.If))
    seen = {
        alias.name: node.module
        for node in guarded.body
        if isinstance(node, ast.ImportFrom) and node.module != "typing"
        for alias in node.names
    }
    assert seen == {name: f"continual.tables.{home}" for name, home in tables.HOMES.items()}


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Entries'"):
        tables.Entries  # noqa: B018


def test_base_carries_every_table_even_when_taken_first() -> None:
    every = _fresh(
        "import json, importlib\n"
        "from continual.tables import Base\n"
        "print(json.dumps(sorted(Base.metadata.tables)))\n"
    )
    assert isinstance(every, list)
    assert {"entries", "fix_pulls", "history_runs", "judge_verdicts", "lesson_events"} <= set(
        every
    ), every
    after_one = _fresh(
        "import json\n"
        "from continual.tables import Entry\n"
        "from continual.tables import Base\n"
        "print(json.dumps(sorted(Base.metadata.tables)))\n"
    )
    assert after_one == every


def test_a_caller_of_the_store_maps_only_the_store() -> None:
    loaded = _fresh(
        "import json, sys\n"
        "from continual.tables import Entry, Repository\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('continual.tables.'))))\n"
    )
    assert loaded == ["continual.tables.base", "continual.tables.store"]
