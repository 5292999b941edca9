"""The ``command`` seat: one process per call, in the sandbox, the request on stdin and the result
on stdout."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from review.config import SeatConfig, SeatSandbox
from review.contract import CallFailed, CallResult, FailureReason, SeatAnswer, parse_result
from review.sandbox.cgroup import Bound, bounded_group
from review.sandbox.detect import Isolation, Sandbox, detect_sandbox
from review.sandbox.seat import (
    declared_names,
    for_seats,
    inside_environment,
    kill_process_group,
    outside_environment,
    seat_argv,
    seat_limits,
    seat_view,
)

STDERR_TAIL_BYTES = 4096
STDERR_TAIL_CHARS = 600
READ_CHUNK = 1 << 16

log = logging.getLogger(__name__)

__all__ = ["CommandSeat", "kill_process_group"]


class _OutputTooLarge(Exception):
    """The seat wrote more to stdout than its ``max_output_bytes``."""


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return text[-STDERR_TAIL_CHARS:]


async def _feed(stream: asyncio.StreamWriter | None, payload: bytes) -> None:
    """Write the request and close stdin; a seat that stops reading early is not an error here."""
    if stream is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.write(payload)
        await stream.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        stream.close()


async def _read_capped(stream: asyncio.StreamReader | None, cap: int) -> bytes:
    """All of ``stream`` up to ``cap`` bytes; one byte more raises ``_OutputTooLarge``."""
    chunks: list[bytes] = []
    size = 0
    while stream is not None and (chunk := await stream.read(READ_CHUNK)):
        size += len(chunk)
        if size > cap:
            raise _OutputTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


async def _read_tail(stream: asyncio.StreamReader | None) -> bytes:
    """The last ``STDERR_TAIL_BYTES`` of ``stream``; the rest is read and dropped."""
    tail = bytearray()
    while stream is not None and (chunk := await stream.read(READ_CHUNK)):
        tail += chunk
        del tail[:-STDERR_TAIL_BYTES]
    return bytes(tail)


class CommandSeat:
    """Runs the configured program once per call, in the seat sandbox (docs/security.md)."""

    def __init__(
        self,
        config: SeatConfig,
        *,
        environ: Mapping[str, str] | None = None,
        sandbox: Sandbox | None = None,
        cwd: Path | None = None,
    ) -> None:
        """``environ`` replaces os.environ, ``sandbox`` the one this machine offers (found once
        per process), ``cwd`` the working directory relative paths of the command start from."""
        if not config.command:
            raise ValueError(f"seat {config.name!r} has no command")
        self.config = config
        self._environ = environ
        self._sandbox = sandbox
        self._cwd = cwd
        self._warned = False

    async def _isolation(self) -> Sandbox | None:
        """The sandbox this seat runs in, or None to run it outside one (its configuration's
        ``sandbox = "off"``, or ``"auto"`` where none works); ``"required"`` without one fails."""
        if self.config.sandbox is SeatSandbox.OFF:
            return None
        found = self._sandbox
        if found is None:
            found = await asyncio.to_thread(detect_sandbox)
        if found.isolation is Isolation.BWRAP:
            return for_seats(found)
        if self.config.sandbox is SeatSandbox.REQUIRED:
            raise CallFailed(
                FailureReason.CONFIGURATION,
                f'seat {self.config.name!r} has sandbox = "required" and no sandbox works '
                f"here ({found.detail})",
            )
        if not self._warned:
            self._warned = True
            log.warning(
                "command seat runs without a sandbox",
                extra={"seat": self.config.name, "detail": found.detail},
            )
        return None

    def _process(self, sandbox: Sandbox | None) -> tuple[list[str], dict[str, str], Path]:
        """argv, environment and working directory of the process the app starts."""
        source = dict(os.environ if self._environ is None else self._environ)
        names = declared_names(self.config)
        cwd = self._cwd or Path.cwd()
        if sandbox is None:
            return list(self.config.command), outside_environment(source, names), cwd
        view = seat_view(self.config, cwd=cwd, path=source.get("PATH", os.defpath))
        if view is None or sandbox.binary is None:
            raise CallFailed(
                FailureReason.START,
                f"seat {self.config.name!r} could not start {self.config.command[0]!r}: "
                "the program is not found (not on PATH, or not a file)",
            )
        argv = seat_argv(
            sandbox.binary, view, network=self.config.network, limits=seat_limits(self.config)
        )
        # bubblewrap hands its own environment on: exactly the seat's.
        return argv, inside_environment(view, source, names), cwd

    async def call(self, request: dict[str, Any], *, timeout_s: float) -> CallResult:
        """Run one call; any failure raises ``CallFailed`` with the reason."""
        answer = await self.exchange(request, timeout_s=timeout_s)
        try:
            return parse_result(answer.text)
        except CallFailed as exc:
            raise CallFailed(exc.reason, f"seat {self.config.name!r}: {exc.message}") from None

    async def exchange(
        self, request: dict[str, Any], *, timeout_s: float, system: str | None = None
    ) -> SeatAnswer:
        """Run the program once with ``request`` on stdin and answer its stdout as text.

        ``system`` is for HTTP seats; a command reads everything it needs from the request.
        """
        argv, environment, cwd = self._process(await self._isolation())
        limits = seat_limits(self.config)
        bound = Bound(memory_bytes=limits.total_memory_bytes, processes=limits.processes)
        # Sandboxed or not, every process of the call is in a cgroup of its own where one can
        # be made: held to a total, and ended with the call however it forked.
        group = await asyncio.to_thread(bounded_group, bound)
        try:
            stdout, stderr, status = await self._run(
                group.wrap(argv), environment, cwd, json.dumps(request).encode(), timeout_s
            )
            hits = group.hits()
        finally:
            await asyncio.to_thread(group.close)
        if status != 0:
            detail = _tail(stderr)
            reached = f" (its {' and '.join(hits)} bound was reached)" if hits else ""
            raise CallFailed(
                FailureReason.EXIT,
                f"seat {self.config.name!r} exited with status {status}{reached}"
                + (f": {detail}" if detail else ""),
            )
        try:
            return SeatAnswer(stdout.decode("utf-8"))
        except UnicodeDecodeError:
            raise CallFailed(
                FailureReason.INVALID_JSON,
                f"seat {self.config.name!r}: the result is not valid JSON (not UTF-8 text)",
            ) from None

    async def _run(
        self,
        argv: list[str],
        environment: dict[str, str],
        cwd: Path,
        payload: bytes,
        timeout_s: float,
    ) -> tuple[bytes, bytes, int | None]:
        """One process: ``payload`` on stdin; stdout (capped), stderr's tail and the exit status."""
        name = self.config.name
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=environment,
                cwd=cwd,
                start_new_session=True,
            )
        except OSError as exc:
            raise CallFailed(
                FailureReason.START,
                f"seat {name!r} could not start {self.config.command[0]!r}: {exc.strerror or exc}",
            ) from None
        cap = self.config.max_output_bytes
        out = asyncio.ensure_future(_read_capped(process.stdout, cap))
        err = asyncio.ensure_future(_read_tail(process.stderr))
        feed = asyncio.ensure_future(_feed(process.stdin, payload))
        tasks: list[asyncio.Future[Any]] = [out, err, feed]
        try:
            async with asyncio.timeout(timeout_s):
                stdout, stderr, _ = await asyncio.gather(out, err, feed)
                await process.wait()
        except TimeoutError:
            log.warning("seat call timed out", extra={"seat": name, "timeout_s": timeout_s})
            raise CallFailed(
                FailureReason.TIMEOUT,
                f"seat {name!r} did not answer within {timeout_s:g} s; its processes were killed",
            ) from None
        except _OutputTooLarge:
            log.warning("seat output too large", extra={"seat": name, "max_output_bytes": cap})
            raise CallFailed(
                FailureReason.OUTPUT_TOO_LARGE,
                f"seat {name!r} wrote more than {cap} bytes to stdout (its max_output_bytes); "
                "its processes were killed",
            ) from None
        finally:
            # Sandboxed, this ends the namespace and all in it; outside, the seat's session.
            await kill_process_group(process)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        return stdout, stderr, process.returncode
