"""The recall facade: each public name is its module's own, the type checker sees the same list,
and a caller pays only for the modules behind the names it takes."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import continual.recall as recall

ROOT = Path(__file__).resolve().parents[2]


def test_each_public_name_is_the_one_its_module_defines() -> None:
    for name, home in recall.HOMES.items():
        module = importlib.import_module(f"continual.recall.{home}")
        assert getattr(recall, name) is getattr(module, name), name
    assert set(recall.HOMES) <= set(dir(recall))


def test_the_type_checker_sees_the_same_names_from_the_same_modules() -> None:
    tree = ast.parse(Path(recall.__file__).read_text())
    guarded = next(node for node in tree.body if isinstance(node, ast.If))
    seen = {
        alias.asname: node.module
        for node in guarded.body
        if isinstance(node, ast.ImportFrom) and node.module != "typing"
        for alias in node.names
    }
    assert seen == {name: f"continual.recall.{home}" for name, home in recall.HOMES.items()}


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'index_of'"):
        recall.index_of  # noqa: B018


def loaded_after(statement: str) -> set[str]:
    probe = (
        f"import json, sys; {statement}; "
        "print(json.dumps([m for m in sys.modules if m.startswith('continual.') or m == 'numpy']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(json.loads(result.stdout))


def test_a_caller_loads_only_the_modules_behind_the_names_it_takes() -> None:
    assert loaded_after("import continual.recall") == {"continual.recall"}
    cards = loaded_after("from continual.recall import Card, Scored")
    assert "continual.recall.cards" in cards
    assert not {"numpy", "continual.recall.snapshot", "continual.recall.lessons"} & cards
    snapshot = loaded_after("from continual.recall import SnapshotCache")
    assert {"numpy", "continual.recall.snapshot", "continual.recall.index"} <= snapshot
