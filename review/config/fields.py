"""Reading ``hindsight.toml``'s fields, and the problems found on the way (all reported at once)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class ConfigError(ValueError):
    """``hindsight.toml`` is missing, unreadable or invalid; ``problems`` lists every finding."""

    def __init__(self, source: str, problems: list[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__("\n".join(f"{source}: {problem}" for problem in problems))


class _Problems:
    """Collects validation problems so one run reports all of them."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, text: str) -> None:
        self.items.append(text)


def _tables(value: Any, where: str, problems: _Problems) -> list[Mapping[str, Any]] | None:
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        problems.add(f"{where} must be an array of tables ([[{where}]])")
        return None
    return value


def _text(
    table: Mapping[str, Any], key: str, where: str, problems: _Problems, *, required: bool
) -> str | None:
    value = table.get(key)
    if value is None:
        if required:
            problems.add(f"{where}.{key} is required")
        return None
    if not isinstance(value, str) or not value.strip():
        problems.add(f"{where}.{key} must be a non-empty string")
        return None
    return value.strip()


def _string_list(
    table: Mapping[str, Any], key: str, where: str, problems: _Problems
) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or not value
        or not all(isinstance(item, str) and item for item in value)
    ):
        problems.add(f"{where}.{key} must be a non-empty list of non-empty strings")
        return None
    return tuple(value)


def _positive_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value > 0


def _table(value: Any, name: str, keys: frozenset[str], problems: _Problems) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.add(f"{name} must be a table ([{name}])")
        return {}
    for key in sorted(set(value) - keys):
        problems.add(f"{name}: unknown key {key!r}")
    return value
