"""Seats: the reviewer backends a review calls, behind one async protocol."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import httpx

from review.config import SeatConfig, SeatKind
from review.contract import CallResult, SeatAnswer
from review.sandbox.detect import Sandbox
from review.seats.command import CommandSeat
from review.seats.http import AnthropicSeat, OpenAISeat, extract_json_text

__all__ = [
    "AnthropicSeat",
    "CommandSeat",
    "OpenAISeat",
    "Seat",
    "TextSeat",
    "extract_json_text",
    "make_seat",
]


class Seat(Protocol):
    """A reviewer backend: one ``call`` per seat × lens × shard."""

    config: SeatConfig

    async def call(self, request: dict[str, Any], *, timeout_s: float) -> CallResult:
        """Answer one ``hindsight.call/1`` request or raise ``CallFailed``."""
        ...


class TextSeat(Protocol):
    """A seat asked under a contract other than ``hindsight.call/1``: it answers the raw text."""

    config: SeatConfig

    async def exchange(
        self, request: dict[str, Any], *, timeout_s: float, system: str | None = None
    ) -> SeatAnswer:
        """Answer one request's text or raise ``CallFailed``."""
        ...


def make_seat(
    config: SeatConfig,
    *,
    client: httpx.AsyncClient | None = None,
    environ: Mapping[str, str] | None = None,
    sandbox: Sandbox | None = None,
) -> CommandSeat | OpenAISeat | AnthropicSeat:
    """The seat for ``config``; ``client`` is shared by HTTP seats, ``environ`` replaces
    os.environ, ``sandbox`` replaces the one command seats find on this machine."""
    if config.kind is SeatKind.COMMAND:
        return CommandSeat(config, environ=environ, sandbox=sandbox)
    if config.kind is SeatKind.OPENAI:
        return OpenAISeat(config, client=client, environ=environ)
    return AnthropicSeat(config, client=client, environ=environ)
