"""The ``command`` seat: one process per call, the request on stdin and the result on stdout."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
from collections.abc import Iterable, Mapping
from typing import Any

from review.config import SeatConfig
from review.contract import CallFailed, CallResult, FailureReason, SeatAnswer, parse_result

STDERR_TAIL_CHARS = 600
REAP_GRACE_S = 5.0
CREDENTIAL_PREFIXES = ("HINDSIGHT_", "GITHUB_", "GH_", "ACTIONS_")
CREDENTIAL_NAMES = frozenset({"SSH_AUTH_SOCK", "DATABASE_URL", "NETRC", "DOCKER_AUTH_CONFIG"})
CREDENTIAL_PATTERN = re.compile(
    r"(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|APIKEY|API_KEY|PRIVATE_KEY|ACCESS_KEY|"
    r"_KEY$|_PAT$|_DSN$|_AUTH$|_COOKIE$|_SESSION$)"
)

log = logging.getLogger(__name__)


def is_credential_name(name: str) -> bool:
    """Whether an environment variable name looks like it carries a credential."""
    upper = name.upper()
    return (
        upper.startswith(CREDENTIAL_PREFIXES)
        or upper in CREDENTIAL_NAMES
        or CREDENTIAL_PATTERN.search(upper) is not None
    )


def child_environment(environ: Mapping[str, str], keep: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` without credential-looking variables, except the names in ``keep``."""
    kept = set(keep)
    return {
        name: value
        for name, value in environ.items()
        if name in kept or not is_credential_name(name)
    }


def _tail(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace").strip()
    return text[-STDERR_TAIL_CHARS:]


async def kill_process_group(process: asyncio.subprocess.Process) -> None:
    """Kill a process started with ``start_new_session=True`` and everything in its group.

    Waiting for it is bounded: a descendant that left the group could hold its pipes open.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    try:
        async with asyncio.timeout(REAP_GRACE_S):
            await process.wait()
    except TimeoutError:
        log.warning("killed process still holds its pipes", extra={"pid": process.pid})


class CommandSeat:
    """Runs the configured program once per call, in its own process group."""

    def __init__(self, config: SeatConfig, *, environ: Mapping[str, str] | None = None) -> None:
        if not config.command:
            raise ValueError(f"seat {config.name!r} has no command")
        self.config = config
        self._environ = environ

    def _environment(self) -> dict[str, str]:
        source = os.environ if self._environ is None else self._environ
        keep = list(self.config.pass_env)
        if self.config.api_key_env:
            keep.append(self.config.api_key_env)
        return child_environment(source, keep)

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
        payload = json.dumps(request).encode()
        program = self.config.command[0]
        try:
            process = await asyncio.create_subprocess_exec(
                *self.config.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=self._environment(),
                start_new_session=True,
            )
        except OSError as exc:
            raise CallFailed(
                FailureReason.START,
                f"seat {self.config.name!r} could not start {program!r}: {exc.strerror or exc}",
            ) from None
        try:
            async with asyncio.timeout(timeout_s):
                stdout, stderr = await process.communicate(payload)
        except TimeoutError:
            await kill_process_group(process)
            log.warning(
                "seat call timed out", extra={"seat": self.config.name, "timeout_s": timeout_s}
            )
            raise CallFailed(
                FailureReason.TIMEOUT,
                f"seat {self.config.name!r} did not answer within {timeout_s:g} s; "
                "its process group was killed",
            ) from None
        except BaseException:
            await kill_process_group(process)
            raise
        if process.returncode != 0:
            detail = _tail(stderr)
            raise CallFailed(
                FailureReason.EXIT,
                f"seat {self.config.name!r} exited with status {process.returncode}"
                + (f": {detail}" if detail else ""),
            )
        try:
            return SeatAnswer(stdout.decode("utf-8"))
        except UnicodeDecodeError:
            raise CallFailed(
                FailureReason.INVALID_JSON,
                f"seat {self.config.name!r}: the result is not valid JSON (not UTF-8 text)",
            ) from None
