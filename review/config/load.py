"""Loading ``hindsight.toml``: the file, its TOML, and the validation of every table."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from review.config.fields import ConfigError, _Problems, _table, _tables, _text
from review.config.seats import _parse_seats
from review.config.values import (
    Acknowledge,
    DecisionSettings,
    FixSettings,
    HistorySettings,
    MaintenanceSettings,
    ProofPolicy,
    ReviewConfig,
    ReviewSettings,
    WritebackSettings,
)
from review.lenses import BUILTIN_LENS_INSTRUCTIONS, DEFAULT_LENSES, Lens

_TOP_KEYS = frozenset(
    {"seats", "lenses", "review", "writeback", "decisions", "maintenance", "fixes", "history"}
)
_LENS_KEYS = frozenset({"name", "instructions"})


def load_config(path: str | Path) -> ReviewConfig:
    """Read and validate the file at ``path`` (the caller resolves ``HINDSIGHT_CONFIG``)."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError(
            source, ["file not found; create it or point HINDSIGHT_CONFIG at one"]
        ) from None
    except OSError as exc:
        raise ConfigError(source, [f"cannot be read: {exc.strerror}"]) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(source, ["is not UTF-8 text"]) from None
    return loads_config(text, source=source)


def loads_config(text: str, *, source: str = "hindsight.toml") -> ReviewConfig:
    """Parse and validate TOML text; ``source`` names it in error messages."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, [f"is not valid TOML: {exc}"]) from None
    return parse_config(data, source=source)


def parse_config(data: Mapping[str, Any], *, source: str = "hindsight.toml") -> ReviewConfig:
    """Validate an already-parsed TOML document."""
    problems = _Problems()
    for key in sorted(set(data) - _TOP_KEYS):
        problems.add(
            f"unknown key {key!r} (expected [[seats]], [[lenses]], [review], [writeback], "
            "[decisions], [maintenance], [fixes] or [history])"
        )

    seats = _parse_seats(data.get("seats"), problems)
    lenses = _parse_lenses(data.get("lenses"), problems)
    review = _parse_review(data.get("review"), problems)
    writeback = _parse_writeback(data.get("writeback"), problems)
    names = {seat.name for seat in seats}
    decisions = _parse_decisions(data.get("decisions"), names, problems)
    maintenance = _parse_maintenance(data.get("maintenance"), names, problems)
    fixes = _parse_fixes(data.get("fixes"), problems)
    history = _parse_history(data.get("history"), names, problems)
    if problems.items:
        raise ConfigError(source, problems.items)
    return ReviewConfig(
        seats=seats,
        lenses=lenses,
        review=review,
        source=source,
        writeback=writeback,
        decisions=decisions,
        maintenance=maintenance,
        fixes=fixes,
        history=history,
    )


def _parse_lenses(value: Any, problems: _Problems) -> tuple[Lens, ...]:
    if value is None:
        return DEFAULT_LENSES
    tables = _tables(value, "lenses", problems)
    if tables is None:
        return DEFAULT_LENSES
    if not tables:
        problems.add("lenses must hold at least one [[lenses]] table when present")
    lenses: list[Lens] = []
    seen: set[str] = set()
    for index, table in enumerate(tables):
        where = f"lenses[{index}]"
        for key in sorted(set(table) - _LENS_KEYS):
            problems.add(f"{where}: unknown key {key!r}")
        name = _text(table, "name", where, problems, required=True)
        instructions = _text(table, "instructions", where, problems, required=False)
        if name is None:
            continue
        if instructions is None:
            if "instructions" in table:
                continue
            if name not in BUILTIN_LENS_INSTRUCTIONS:
                problems.add(
                    f"{where}.instructions is required (only the built-in lenses "
                    f"{', '.join(BUILTIN_LENS_INSTRUCTIONS)} have default instructions)"
                )
                continue
            instructions = BUILTIN_LENS_INSTRUCTIONS[name]
        if name in seen:
            problems.add(f"{where}.name {name!r} is used by an earlier lens")
            continue
        seen.add(name)
        lenses.append(Lens(name=name, instructions=instructions))
    return tuple(lenses)


def _parse_review(value: Any, problems: _Problems) -> ReviewSettings:
    defaults = ReviewSettings()
    if value is None:
        return defaults
    if not isinstance(value, Mapping):
        problems.add("review must be a table ([review])")
        return defaults
    fields = ReviewSettings.__dataclass_fields__
    for key in sorted(set(value) - set(fields)):
        problems.add(f"review: unknown key {key!r}")
    numbers: dict[str, int] = {}
    for key in fields:
        if key not in value or key == "proofs":
            continue
        number = value[key]
        if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
            problems.add(f"review.{key} must be a positive integer")
            continue
        numbers[key] = number
    proofs = value.get("proofs", defaults.proofs.value)
    if not isinstance(proofs, str) or proofs not in {policy.value for policy in ProofPolicy}:
        problems.add('review.proofs must be "sandboxed" or "unsandboxed"')
        proofs = defaults.proofs.value
    return ReviewSettings(**numbers, proofs=ProofPolicy(proofs))


def _parse_writeback(value: Any, problems: _Problems) -> WritebackSettings:
    table = _table(value, "writeback", frozenset({"acknowledge", "suppress_days"}), problems)
    defaults = WritebackSettings()
    acknowledge = table.get("acknowledge", defaults.acknowledge.value)
    if acknowledge not in {item.value for item in Acknowledge}:
        problems.add('writeback.acknowledge must be "comment", "reaction" or "off"')
        acknowledge = defaults.acknowledge.value
    days = table.get("suppress_days", defaults.suppress_days)
    if not isinstance(days, int) or isinstance(days, bool) or days <= 0:
        problems.add("writeback.suppress_days must be a positive integer")
        days = defaults.suppress_days
    return WritebackSettings(acknowledge=Acknowledge(acknowledge), suppress_days=days)


def _parse_decisions(value: Any, seats: set[str], problems: _Problems) -> DecisionSettings:
    table = _table(value, "decisions", frozenset({"judge"}), problems)
    judge = table.get("judge")
    if judge is None:
        return DecisionSettings()
    if not isinstance(judge, str) or judge not in seats:
        problems.add(f"decisions.judge must name a configured seat, got {judge!r}")
        return DecisionSettings()
    return DecisionSettings(judge=judge)


def _parse_maintenance(value: Any, seats: set[str], problems: _Problems) -> MaintenanceSettings:
    seat = _table(value, "maintenance", frozenset({"seat"}), problems).get("seat")
    if seat is not None and (not isinstance(seat, str) or seat not in seats):
        problems.add(f"maintenance.seat must name a configured seat, got {seat!r}")
        return MaintenanceSettings()
    return MaintenanceSettings(seat=seat)


def _parse_history(value: Any, seats: set[str], problems: _Problems) -> HistorySettings:
    seat = _table(value, "history", frozenset({"seat"}), problems).get("seat")
    if seat is not None and (not isinstance(seat, str) or seat not in seats):
        problems.add(f"history.seat must name a configured seat, got {seat!r}")
        return HistorySettings()
    return HistorySettings(seat=seat)


def _parse_fixes(value: Any, problems: _Problems) -> FixSettings:
    enabled = _table(value, "fixes", frozenset({"enabled"}), problems).get("enabled", False)
    if not isinstance(enabled, bool):
        problems.add("fixes.enabled must be true or false")
        return FixSettings()
    return FixSettings(enabled=enabled)
