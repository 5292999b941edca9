"""The guard's body deadline, driven in one event loop: bodies are timed by a sweep, not a timer
for each request, so what a sweep must and must not cut is checked here directly."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from starlette.types import Message, Receive, Scope, Send

from ghapp.guard import Guard

TIMEOUT_S = 0.2


def scope() -> Scope:
    return {"type": "http", "path": "/webhooks", "method": "POST", "headers": []}


async def echo_length(scope: Scope, receive: Receive, send: Send) -> None:
    """An app that reads the whole body, then answers 200 with its length."""
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(size).encode()})


def parts(*steps: tuple[float, bytes, bool]) -> Callable[[], Awaitable[Message]]:
    """A receive that hands each part after its pause; past the last part it waits for good."""
    queue = list(steps)

    async def receive() -> Message:
        if not queue:
            await asyncio.Event().wait()
        pause, body, more = queue.pop(0)
        await asyncio.sleep(pause)
        return {"type": "http.request", "body": body, "more_body": more}

    return receive


async def run(guard: Guard, receive: Callable[[], Awaitable[Message]]) -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    # A guard that never cuts the body would leave this waiting for good: fail instead.
    await asyncio.wait_for(guard(scope(), receive, send), timeout=5)
    return sent


def status(sent: list[Message]) -> int:
    return int(sent[0]["status"])


def test_a_body_arriving_in_slow_parts_before_its_deadline_is_answered_by_the_app() -> None:
    guard = Guard(echo_length, max_in_flight=8, body_timeout_s=TIMEOUT_S)
    # Three pauses of a little over a tick each: sweeps run between them, the deadline is not met.
    pause = guard.tick_s * 1.5
    receive = parts((pause, b"ab", True), (pause, b"cd", True), (pause, b"e", False))

    sent = asyncio.run(run(guard, receive))

    assert status(sent) == 200
    assert sent[1]["body"] == b"5"
    assert guard._waiting == {}


def test_a_body_that_stops_arriving_is_answered_408_within_a_tick_of_its_deadline() -> None:
    guard = Guard(echo_length, max_in_flight=8, body_timeout_s=TIMEOUT_S)
    receive = parts((0.0, b"ab", True))  # then nothing

    async def timed() -> tuple[list[Message], float]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        sent = await run(guard, receive)
        return sent, loop.time() - started

    sent, took = asyncio.run(timed())

    assert status(sent) == 408
    assert b"body_timeout" in sent[1]["body"]
    assert TIMEOUT_S <= took < TIMEOUT_S + guard.tick_s + 1.0  # a tick late at most, and slack
    assert guard._waiting == {}


def test_many_late_bodies_are_all_cut_by_the_same_sweeps_and_prompt_ones_pass() -> None:
    guard = Guard(echo_length, max_in_flight=64, body_timeout_s=TIMEOUT_S)

    async def together() -> list[list[Message]]:
        late = [run(guard, parts((0.0, b"x", True))) for _ in range(20)]
        prompt = [run(guard, parts((0.0, b"xy", False))) for _ in range(20)]
        return await asyncio.gather(*late, *prompt)

    answers = asyncio.run(together())

    assert [status(sent) for sent in answers[:20]] == [408] * 20
    assert [status(sent) for sent in answers[20:]] == [200] * 20
    assert guard._waiting == {}


def test_a_request_cancelled_by_anything_else_stays_cancelled_and_is_not_a_408() -> None:
    guard = Guard(echo_length, max_in_flight=8, body_timeout_s=30.0)
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def cancelled_by_the_server() -> None:
        task = asyncio.ensure_future(guard(scope(), parts((0.0, b"x", True)), send))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancelled_by_the_server())

    assert sent == []
    assert guard._waiting == {}
    assert guard.in_flight == 0


def test_a_guard_serving_one_loop_after_another_still_cuts_a_late_body() -> None:
    # The first loop ends with a sweep still armed (its request was prompt); that sweep never
    # runs, and the next loop's late body must be cut all the same.
    guard = Guard(echo_length, max_in_flight=8, body_timeout_s=TIMEOUT_S)

    first = asyncio.run(run(guard, parts((0.0, b"xy", False))))
    second = asyncio.run(run(guard, parts((0.0, b"x", True))))

    assert status(first) == 200
    assert status(second) == 408
