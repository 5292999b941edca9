"""Loopback model providers for seat tests: an OpenAI-compatible and an Anthropic-style server."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

API_KEY = "sk-test-loopback-key"
MODEL = "loopback-model-1"

DEFAULT_ANSWER: dict[str, Any] = {
    "findings": [
        {
            "path": "src/app.py",
            "line": 3,
            "title": "Unchecked parse_config result",
            "body": "parse_config may return None.",
            "lesson": "Check the result of `parse_config` in src/app.py before using it.",
        }
    ],
    "tool_receipts": [{"id": "t1", "command": "pytest -q", "status": "passed"}],
}


@dataclass
class Provider:
    """What a loopback provider answers and what it was asked.

    ``mode``: ``ok`` (the answer as JSON text), ``fenced`` (inside a code fence), ``garbage``
    (prose that is not JSON), ``error`` (HTTP 500), ``hang`` (no answer until the server stops).
    """

    mode: str = "ok"
    answer: dict[str, Any] = field(default_factory=lambda: dict(DEFAULT_ANSWER))
    requests: list[dict[str, Any]] = field(default_factory=list)
    release: asyncio.Event = field(default_factory=asyncio.Event)
    # Answers from the user prompt instead of ``mode``/``answer`` when set (a judge, for one).
    respond: Callable[[str], Awaitable[str]] | None = None

    async def reply(self, body: dict[str, Any]) -> str:
        if self.respond is not None:
            return await self.respond(user_text({"json": body}))
        return self.content()

    def content(self) -> str:
        if self.mode == "fenced":
            return "Here is my review:\n```json\n" + json.dumps(self.answer) + "\n```\n"
        if self.mode == "garbage":
            return "I could not find anything worth saying, sorry."
        return json.dumps(self.answer)

    async def record(self, request: Request) -> dict[str, Any]:
        body = await request.json()
        self.requests.append({"headers": dict(request.headers), "json": body})
        return body  # type: ignore[no-any-return]

    async def trouble(self) -> Response | None:
        if self.mode == "hang":
            await self.release.wait()
            return PlainTextResponse("released", status_code=503)
        if self.mode == "error":
            return JSONResponse({"error": {"message": "overloaded"}}, status_code=500)
        return None


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message}}, status_code=status)


def openai_app(provider: Provider) -> Starlette:
    """``POST /v1/chat/completions`` in the OpenAI wire format, checking key, model and shape."""

    async def chat(request: Request) -> Response:
        body = await provider.record(request)
        if request.headers.get("authorization") != f"Bearer {API_KEY}":
            return _error(401, "invalid api key")
        if body.get("model") != MODEL:
            return _error(404, "unknown model")
        if body.get("response_format") != {"type": "json_object"}:
            return _error(400, "response_format json_object expected")
        roles = [message.get("role") for message in body.get("messages", [])]
        if roles != ["system", "user"]:
            return _error(400, f"unexpected roles {roles}")
        trouble = await provider.trouble()
        if trouble is not None:
            return trouble
        return JSONResponse(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": MODEL,
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": await provider.reply(body)},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
            }
        )

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"])])


def anthropic_app(provider: Provider) -> Starlette:
    """``POST /v1/messages`` in the Anthropic wire format, checking key, version and shape."""

    async def messages(request: Request) -> Response:
        body = await provider.record(request)
        if request.headers.get("x-api-key") != API_KEY:
            return _error(401, "invalid x-api-key")
        if request.headers.get("anthropic-version") != "2023-06-01":
            return _error(400, "anthropic-version header required")
        if body.get("model") != MODEL:
            return _error(404, "unknown model")
        if not isinstance(body.get("max_tokens"), int):
            return _error(400, "max_tokens required")
        if [m.get("role") for m in body.get("messages", [])] != ["user"]:
            return _error(400, "one user message expected")
        trouble = await provider.trouble()
        if trouble is not None:
            return trouble
        text = await provider.reply(body)
        middle = len(text) // 2
        return JSONResponse(
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": MODEL,
                "content": [
                    {"type": "text", "text": text[:middle]},
                    {"type": "tool_use", "id": "tu_1", "name": "noop", "input": {}},
                    {"type": "text", "text": text[middle:]},
                ],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": 10, "output_tokens": 10},
            }
        )

    return Starlette(routes=[Route("/v1/messages", messages, methods=["POST"])])


def user_text(provider_request: dict[str, Any]) -> str:
    """The user prompt a recorded request carried, whichever wire format it used."""
    messages = provider_request["json"]["messages"]
    content = messages[-1]["content"]
    if isinstance(content, str):
        return content
    return "".join(block["text"] for block in content if block.get("type") == "text")


@asynccontextmanager
async def serve(app: Starlette, provider: Provider) -> AsyncIterator[str]:
    """Serve ``app`` on 127.0.0.1 (ephemeral port) in the running loop; yield its base URL.

    The socket is bound and listening before the URL is handed out, so no wait is needed.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, lifespan="off", log_config=None, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        provider.release.set()
        server.should_exit = True
        await task
        sock.close()
