"""The HTTP seats: an OpenAI-compatible chat-completions endpoint and the Anthropic Messages API."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from typing import Any

import httpx

from review.config import SeatConfig
from review.contract import CallFailed, CallResult, FailureReason, SeatAnswer, parse_result

SYSTEM_PROMPT = (
    "You are a code reviewer. Follow the output contract in the user message and answer with "
    "exactly one JSON object."
)
ANTHROPIC_VERSION = "2023-06-01"
ERROR_BODY_CHARS = 300
JSON_FENCE = "```"

log = logging.getLogger(__name__)


def extract_json_text(text: str) -> str:
    """The JSON object in a model's answer, tolerating a code fence or words around it."""
    stripped = text.strip()
    if stripped.startswith(JSON_FENCE):
        first_newline = stripped.find("\n")
        closing = stripped.rfind(JSON_FENCE)
        if first_newline != -1 and closing > first_newline:
            return stripped[first_newline + 1 : closing].strip()
    if not stripped.startswith("{"):
        start, end = stripped.find("{"), stripped.rfind("}")
        if start != -1 and end > start:
            return stripped[start : end + 1]
    return stripped


class _HttpSeat:
    """What both HTTP seats share: the key lookup, the request and its failures."""

    provider = "http"

    def __init__(
        self,
        config: SeatConfig,
        *,
        client: httpx.AsyncClient | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if not config.model or not config.base_url:
            raise ValueError(f"seat {config.name!r} needs a model and a base_url")
        self.config = config
        self._client = client
        self._environ = environ

    def _api_key(self) -> str | None:
        name = self.config.api_key_env
        if name is None:
            return None
        source = os.environ if self._environ is None else self._environ
        value = source.get(name, "")
        if not value:
            raise CallFailed(
                FailureReason.CONFIGURATION,
                f"seat {self.config.name!r}: the environment variable {name} "
                "(its api_key_env) is not set",
            )
        return value

    async def _post(
        self, url: str, headers: dict[str, str], body: dict[str, Any], timeout_s: float
    ) -> Any:
        try:
            if self._client is not None:
                # A redirect is never followed, whatever the shared client's default: the seat
                # calls only the endpoint the operator configured.
                response = await self._client.post(
                    url, headers=headers, json=body, timeout=timeout_s, follow_redirects=False
                )
            else:
                async with httpx.AsyncClient(timeout=timeout_s) as client:
                    response = await client.post(
                        url, headers=headers, json=body, follow_redirects=False
                    )
        except httpx.TimeoutException:
            raise self._timed_out(timeout_s) from None
        except httpx.HTTPError as exc:
            raise CallFailed(
                FailureReason.TRANSPORT,
                f"seat {self.config.name!r}: request to {url} failed ({type(exc).__name__})",
            ) from None
        if response.status_code >= 300:  # a redirect too: never followed
            log.warning(
                "seat http error",
                extra={"seat": self.config.name, "status": response.status_code},
            )
            raise CallFailed(
                FailureReason.HTTP_STATUS,
                f"seat {self.config.name!r}: {self.provider} answered HTTP "
                f"{response.status_code}: {response.text[:ERROR_BODY_CHARS]}",
            )
        try:
            return response.json()
        except ValueError:
            raise CallFailed(
                FailureReason.BAD_SHAPE,
                f"seat {self.config.name!r}: {self.provider} answered with a body that is not JSON",
            ) from None

    async def call(self, request: dict[str, Any], *, timeout_s: float) -> CallResult:
        """One request to the provider, bounded by ``timeout_s`` overall."""
        answer = await self.exchange(request, timeout_s=timeout_s)
        return self._parse_text(answer.text, answer.note)

    async def exchange(
        self, request: dict[str, Any], *, timeout_s: float, system: str | None = None
    ) -> SeatAnswer:
        """Send the request's ``prompt`` (with ``system``, or the reviewer's system prompt) and
        answer the model's text, bounded by ``timeout_s`` overall."""
        prompt = request.get("prompt")
        if not isinstance(prompt, str) or not prompt:
            raise CallFailed(
                FailureReason.CONFIGURATION,
                f"seat {self.config.name!r}: the request carries no prompt",
            )
        try:
            async with asyncio.timeout(timeout_s):
                return await self._exchange(request, prompt, system or SYSTEM_PROMPT, timeout_s)
        except TimeoutError:
            raise self._timed_out(timeout_s) from None

    async def _exchange(
        self, request: dict[str, Any], prompt: str, system: str, timeout_s: float
    ) -> SeatAnswer:
        raise NotImplementedError

    def _timed_out(self, timeout_s: float) -> CallFailed:
        return CallFailed(
            FailureReason.TIMEOUT,
            f"seat {self.config.name!r}: {self.provider} did not answer within {timeout_s:g} s",
        )

    def _parse_text(self, text: str, hint: str = "") -> CallResult:
        try:
            return parse_result(extract_json_text(text))
        except CallFailed as exc:
            raise CallFailed(
                exc.reason, f"seat {self.config.name!r}: {exc.message}{hint}"
            ) from None


class OpenAISeat(_HttpSeat):
    """Any OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint, in JSON mode."""

    provider = "openai"

    async def _exchange(
        self, request: dict[str, Any], prompt: str, system: str, timeout_s: float
    ) -> SeatAnswer:
        headers = {"content-type": "application/json"}
        key = self._api_key()
        if key is not None:
            headers["authorization"] = f"Bearer {key}"
        body = {
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": prompt},
            ],
            "response_format": {"type": "json_object"},
        }
        data = await self._post(
            f"{self.config.base_url}/chat/completions", headers, body, timeout_s
        )
        try:
            choice = data["choices"][0]
            content = choice["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise self._bad_shape("no choices[0].message.content in the response") from None
        if not isinstance(content, str):
            raise self._bad_shape("choices[0].message.content is not text")
        note = (
            " (the answer was cut at the length limit)"
            if choice.get("finish_reason") == "length"
            else ""
        )
        return SeatAnswer(content, note)

    def _bad_shape(self, what: str) -> CallFailed:
        return CallFailed(FailureReason.BAD_SHAPE, f"seat {self.config.name!r}: {what}")


class AnthropicSeat(_HttpSeat):
    """The Anthropic Messages API, ``POST {base_url}/v1/messages``.

    The shared header goes in its own content block marked for prompt caching.
    """

    provider = "anthropic"

    async def _exchange(
        self, request: dict[str, Any], prompt: str, system: str, timeout_s: float
    ) -> SeatAnswer:
        headers = {"content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION}
        key = self._api_key()
        if key is not None:
            headers["x-api-key"] = key
        header = request.get("header")
        content: list[dict[str, Any]]
        if isinstance(header, str) and header and prompt.startswith(header) and prompt != header:
            content = [
                {"type": "text", "text": header, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": prompt[len(header) :]},
            ]
        else:
            content = [{"type": "text", "text": prompt}]
        body = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens,
            "system": system,
            "messages": [{"role": "user", "content": content}],
        }
        data = await self._post(f"{self.config.base_url}/v1/messages", headers, body, timeout_s)
        blocks = data.get("content") if isinstance(data, dict) else None
        if not isinstance(blocks, list):
            raise CallFailed(
                FailureReason.BAD_SHAPE, f"seat {self.config.name!r}: no content in the response"
            )
        text = "".join(
            block["text"]
            for block in blocks
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        )
        note = (
            " (the answer was cut at max_tokens)" if data.get("stop_reason") == "max_tokens" else ""
        )
        return SeatAnswer(text, note)
