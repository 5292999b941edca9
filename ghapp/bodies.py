"""Request bodies: read under a cap while they stream, and parsed as JSON with a depth bound."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request


class GuardAnswers(Exception):
    """A body the door's guard (ghapp/guard.py) stopped while it streamed: the guard answers it
    (413, 408), so an endpoint lets it pass instead of answering it as its own fault."""


class Refused(Exception):
    """A request body the door will not take: the status, a stable code and a message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


async def read_capped(request: Request, limit: int) -> bytes:
    """Read the body, refusing (413) as soon as it is known to be over `limit` bytes.

    A declared `Content-Length` over the cap is refused before any of the body is read; without one
    the body is counted as it streams and reading stops at the first chunk past the cap.
    """
    declared = request.headers.get("content-length")
    if declared is not None:
        if not (declared.isascii() and declared.isdigit()):
            raise Refused(400, "bad_request", "Content-Length is not a number")
        if int(declared) > limit:
            raise Refused(413, "too_large", f"the body is over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise Refused(413, "too_large", f"the body is over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def parse_json(body: bytes) -> Any:
    """The JSON value of `body`; `ValueError` for invalid UTF-8, invalid JSON or nesting past 1024."""
    return orjson.loads(body)
