"""The review's configuration: seats, lenses and budgets read from ``hindsight.toml``."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from review.lenses import BUILTIN_LENS_INSTRUCTIONS, DEFAULT_LENSES, Lens

DEFAULT_TIMEOUT_S = 120.0
DEFAULT_MAX_TOKENS = 4096
DEFAULT_MAX_OUTPUT_BYTES = 4 << 20  # a command seat's stdout, per call
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}

_TOP_KEYS = frozenset({"seats", "lenses", "review", "writeback", "decisions", "maintenance"})
_SEAT_KEYS = frozenset(
    {
        "name",
        "lab",
        "kind",
        "command",
        "model",
        "base_url",
        "api_key_env",
        "timeout_s",
        "max_tokens",
        "pass_env",
        "sandbox",
        "network",
        "read",
        "write",
        "max_output_bytes",
    }
)
_HTTP_ONLY_KEYS = ("model", "base_url", "max_tokens")
_COMMAND_ONLY_KEYS = ("sandbox", "network", "read", "write", "max_output_bytes")
_LENS_KEYS = frozenset({"name", "instructions"})


class SeatKind(StrEnum):
    """How a seat is reached."""

    COMMAND = "command"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"


class SeatSandbox(StrEnum):
    """Where a command seat may run (docs/security.md, "Command seats")."""

    AUTO = "auto"  # in the sandbox where one works, else with the fallback's bounds and a warning
    REQUIRED = "required"  # only in the sandbox: without one, `serve` refuses and calls fail
    OFF = "off"  # the operator's opt-out: never in the sandbox


@dataclass(frozen=True)
class SeatConfig:
    """One configured reviewer backend; the last five fields are for command seats only."""

    name: str
    lab: str
    kind: SeatKind
    command: tuple[str, ...] = ()
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_tokens: int = DEFAULT_MAX_TOKENS
    pass_env: tuple[str, ...] = ()
    sandbox: SeatSandbox = SeatSandbox.AUTO
    network: bool = False  # share the host's network namespace (nothing else of the host)
    read: tuple[str, ...] = ()  # absolute paths the seat sees read-only
    write: tuple[str, ...] = ()  # absolute paths the seat sees read-write
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES


class ProofPolicy(StrEnum):
    """Where proofs may run: only in a sandbox (skipped where none works), or anyway."""

    SANDBOXED = "sandboxed"
    UNSANDBOXED = "unsandboxed"  # the operator's opt-in where no sandbox works (docs/security.md)


@dataclass(frozen=True)
class ReviewSettings:
    """Size and budget limits of one review, and where its proofs may run."""

    shard_chars: int = 40_000
    parallel_calls: int = 4
    memory_chars: int = 12_000
    cross_session_chars: int = 24_000
    lesson_cap: int = 20
    max_calls: int = 64
    proofs: ProofPolicy = ProofPolicy.SANDBOXED
    proof_memory_mib: int = 2048  # all processes of one proof run together, its copy included
    proof_processes: int = 256  # processes of one proof run together
    proof_copy_mib: int = 1024  # the copy of the head a proof runs on (a tmpfs)
    proof_files: int = 100_000  # entries of the head's tree a proof may copy


class Acknowledge(StrEnum):
    """How the app shows a maintainer what it recorded from their signal."""

    COMMENT = "comment"  # a status block at the end of its own suggestion comment
    REACTION = "reaction"  # 👀 on the reply that decided
    OFF = "off"


@dataclass(frozen=True)
class WritebackSettings:
    """``[writeback]``: how decisions are acknowledged, and how long a dismissal suppresses."""

    acknowledge: Acknowledge = Acknowledge.COMMENT
    suppress_days: int = 180


@dataclass(frozen=True)
class DecisionSettings:
    """``[decisions]``: the optional judge, a configured seat that reads replies the rules leave
    undecided."""

    judge: str | None = None


@dataclass(frozen=True)
class MaintenanceSettings:
    """``[maintenance]``: the optional seat that decides what the maintenance rules cannot."""

    seat: str | None = None


@dataclass(frozen=True)
class ReviewConfig:
    """Everything ``hindsight.toml`` says, validated."""

    seats: tuple[SeatConfig, ...]
    lenses: tuple[Lens, ...]
    review: ReviewSettings
    source: str = "hindsight.toml"
    writeback: WritebackSettings = WritebackSettings()
    decisions: DecisionSettings = DecisionSettings()
    maintenance: MaintenanceSettings = MaintenanceSettings()

    def seat(self, name: str) -> SeatConfig:
        """The seat called ``name``; ``KeyError`` if none is configured."""
        for seat in self.seats:
            if seat.name == name:
                return seat
        raise KeyError(name)


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
            "[decisions] or [maintenance])"
        )

    seats = _parse_seats(data.get("seats"), problems)
    lenses = _parse_lenses(data.get("lenses"), problems)
    review = _parse_review(data.get("review"), problems)
    writeback = _parse_writeback(data.get("writeback"), problems)
    names = {seat.name for seat in seats}
    decisions = _parse_decisions(data.get("decisions"), names, problems)
    maintenance = _parse_maintenance(data.get("maintenance"), names, problems)
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
    )


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


def _parse_seats(value: Any, problems: _Problems) -> tuple[SeatConfig, ...]:
    if value is None:
        problems.add("at least one [[seats]] table is required")
        return ()
    tables = _tables(value, "seats", problems)
    if tables is None:
        return ()
    if not tables:
        problems.add("at least one [[seats]] table is required")
    seats: list[SeatConfig] = []
    seen: set[str] = set()
    for index, table in enumerate(tables):
        seat = _parse_seat(table, f"seats[{index}]", problems)
        if seat is None:
            continue
        if seat.name in seen:
            problems.add(f"seats[{index}].name {seat.name!r} is used by an earlier seat")
            continue
        seen.add(seat.name)
        seats.append(seat)
    return tuple(seats)


def _parse_seat(table: Mapping[str, Any], where: str, problems: _Problems) -> SeatConfig | None:
    before = len(problems.items)
    for key in sorted(set(table) - _SEAT_KEYS):
        problems.add(f"{where}: unknown key {key!r}")
    name = _text(table, "name", where, problems, required=True)
    lab = _text(table, "lab", where, problems, required=True)
    kind_text = _text(table, "kind", where, problems, required=True)
    kind: SeatKind | None = None
    if kind_text is not None:
        try:
            kind = SeatKind(kind_text)
        except ValueError:
            problems.add(
                f"{where}.kind must be one of command, openai, anthropic, not {kind_text!r}"
            )

    timeout = table.get("timeout_s", DEFAULT_TIMEOUT_S)
    if not _positive_number(timeout):
        problems.add(f"{where}.timeout_s must be a positive number of seconds")
        timeout = DEFAULT_TIMEOUT_S
    max_tokens = table.get("max_tokens", DEFAULT_MAX_TOKENS)
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens <= 0:
        problems.add(f"{where}.max_tokens must be a positive integer")
        max_tokens = DEFAULT_MAX_TOKENS

    command = _string_list(table, "command", where, problems)
    pass_env = _string_list(table, "pass_env", where, problems) or ()
    model = _text(
        table, "model", where, problems, required=kind in (SeatKind.OPENAI, SeatKind.ANTHROPIC)
    )
    base_url = _text(table, "base_url", where, problems, required=False)
    api_key_env = _text(table, "api_key_env", where, problems, required=False)

    sandbox = _choice(table, "sandbox", SeatSandbox, where, problems)
    network = table.get("network", False)
    if not isinstance(network, bool):
        problems.add(f"{where}.network must be true or false")
        network = False
    read = _absolute_paths(table, "read", where, problems)
    write = _absolute_paths(table, "write", where, problems)
    max_output = table.get("max_output_bytes", DEFAULT_MAX_OUTPUT_BYTES)
    if not isinstance(max_output, int) or isinstance(max_output, bool) or max_output <= 0:
        problems.add(f"{where}.max_output_bytes must be a positive integer")
        max_output = DEFAULT_MAX_OUTPUT_BYTES

    if kind is SeatKind.COMMAND:
        if "command" not in table:
            problems.add(f'{where}.command is required for kind = "command"')
        for key in _HTTP_ONLY_KEYS:
            if key in table:
                problems.add(f'{where}.{key} is only for kind = "openai" or "anthropic"')
    elif kind is not None:
        for key in ("command", *_COMMAND_ONLY_KEYS):
            if key in table:
                problems.add(f'{where}.{key} is only for kind = "command"')
        if base_url is not None and not base_url.startswith(("http://", "https://")):
            problems.add(f"{where}.base_url must start with http:// or https://")
    if kind is SeatKind.OPENAI and "max_tokens" in table:
        problems.add(f'{where}.max_tokens is only for kind = "anthropic"')

    if len(problems.items) > before or name is None or lab is None or kind is None:
        return None
    if kind is not SeatKind.COMMAND and base_url is None:
        base_url = DEFAULT_BASE_URLS[kind.value]
    return SeatConfig(
        name=name,
        lab=lab,
        kind=kind,
        command=command or (),
        model=model,
        base_url=base_url.rstrip("/") if base_url else None,
        api_key_env=api_key_env,
        timeout_s=float(timeout),
        max_tokens=max_tokens,
        pass_env=pass_env,
        sandbox=sandbox or SeatSandbox.AUTO,
        network=network,
        read=read,
        write=write,
        max_output_bytes=max_output,
    )


def _choice(
    table: Mapping[str, Any], key: str, kind: type[SeatSandbox], where: str, problems: _Problems
) -> SeatSandbox | None:
    value = table.get(key)
    if value is None:
        return None
    allowed = [item.value for item in kind]
    if value not in allowed:
        quoted = ", ".join(f'"{item}"' for item in allowed)
        problems.add(f"{where}.{key} must be one of {quoted}, not {value!r}")
        return None
    return kind(value)


def _absolute_paths(
    table: Mapping[str, Any], key: str, where: str, problems: _Problems
) -> tuple[str, ...]:
    paths = _string_list(table, key, where, problems) or ()
    for path in paths:
        if not path.startswith("/") or path.rstrip("/") == "" or ".." in path.split("/"):
            problems.add(f"{where}.{key}: {path!r} must be an absolute path other than / (no '..')")
            return ()
    return tuple(path.rstrip("/") for path in paths)


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


def _table(value: Any, name: str, keys: frozenset[str], problems: _Problems) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.add(f"{name} must be a table ([{name}])")
        return {}
    for key in sorted(set(value) - keys):
        problems.add(f"{name}: unknown key {key!r}")
    return value


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
