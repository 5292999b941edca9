"""``[[seats]]``: each configured reviewer backend, validated."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from review.config.fields import _positive_number, _Problems, _string_list, _tables, _text
from review.config.values import (
    DEFAULT_BASE_URLS,
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT_S,
    SeatConfig,
    SeatKind,
    SeatSandbox,
)

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
