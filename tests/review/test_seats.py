"""Seats: command seats as real subprocesses, HTTP seats against loopback provider servers."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from review.config import SeatConfig, SeatKind
from review.contract import (
    CallFailed,
    CallResult,
    FailureReason,
    PullRequestInfo,
    build_request,
)
from review.demo_seat import PASSING_TEST
from review.lenses import Lens
from review.prompt import render_call_prompt, render_header
from review.seats import Seat, child_environment, is_credential_name, make_seat
from review.shards import PullFile, cut_shards
from tests.support.seat_servers import (
    API_KEY,
    MODEL,
    Provider,
    anthropic_app,
    openai_app,
    serve,
    user_text,
)

PATCH = textwrap.dedent(
    """\
    @@ -1,3 +1,12 @@ def load(path):
     import json
    +def parse(text):
    +    try:
    +        return eval(text)
    +    except:
    +        return None
    +
    +def read(path):
    +    handle = open(path)
    +    # TODO close the handle
    +    return handle.read()
    """
)


def make_request(
    *, lens: str = "correctness", memory: str = "", patch: str = PATCH
) -> dict[str, Any]:
    pull = PullRequestInfo(7, "Add parser", "Parses things.", "a" * 40, "b" * 40)
    shard = cut_shards([PullFile("src/app.py", "modified", patch)], 40_000)[0]
    header = render_header(repository="octo/repo", pull=pull, lessons=[])
    the_lens = Lens(lens, f"Review for {lens}.")
    prompt = render_call_prompt(header, the_lens, shard, memory, "")
    return build_request(
        review_id="r1",
        call_id="c1",
        repository="octo/repo",
        pull=pull,
        seat_name="alpha",
        seat_lab="acme",
        lens=the_lens,
        shard=shard,
        header=header,
        prompt=prompt,
        lessons=[],
        memory=memory,
        cross_session="",
    )


def script(tmp_path: Path, name: str, body: str) -> tuple[str, ...]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return (sys.executable, str(path))


def failure(call: Callable[[], Awaitable[CallResult]]) -> CallFailed:
    with pytest.raises(CallFailed) as info:
        asyncio.run(_await(call))
    return info.value


async def _await(call: Callable[[], Awaitable[CallResult]]) -> CallResult:
    return await call()


# --- command seats -----------------------------------------------------------------------------

GOOD_SEAT = """\
import json, os, sys
request = json.load(sys.stdin)
files = request["shard"]["files"]
seen = sorted(name for name in ("MY_API_TOKEN", "ALLOWED_KEY", "HINDSIGHT_WEBHOOK_SECRET",
                                "PLAIN_SETTING") if name in os.environ)
print(json.dumps({
    "findings": [{"path": files[0]["path"], "line": 2, "title": "Seen " + request["lens"]["name"],
                  "body": "ok", "extra": "ignored"}],
    "facts": [{"kind": "environment", "text": ",".join(seen)}],
}))
"""


def test_command_seat_answers_through_stdin_and_stdout(tmp_path: Path) -> None:
    command = script(tmp_path, "good.py", GOOD_SEAT)
    environ = {
        "PATH": os.environ["PATH"],
        "MY_API_TOKEN": "secret-1",
        "ALLOWED_KEY": "secret-2",
        "HINDSIGHT_WEBHOOK_SECRET": "secret-3",
        "PLAIN_SETTING": "visible",
    }
    config = SeatConfig(
        name="alpha", lab="acme", kind=SeatKind.COMMAND, command=command, pass_env=("ALLOWED_KEY",)
    )
    seat = make_seat(config, environ=environ)
    result = asyncio.run(seat.call(make_request(lens="security"), timeout_s=30))
    assert [(f.path, f.line, f.title) for f in result.findings] == [
        ("src/app.py", 2, "Seen security")
    ]
    assert result.facts[0].text == "ALLOWED_KEY,PLAIN_SETTING"


def test_command_seat_exit_status_fails_the_call_with_stderr(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "fail.py",
        """\
        import sys
        sys.stdin.read()
        sys.stderr.write("cannot reach the model\\n")
        sys.exit(1)
        """,
    )
    seat = make_seat(SeatConfig("alpha", "acme", SeatKind.COMMAND, command=command))
    error = failure(lambda: seat.call(make_request(), timeout_s=30))
    assert error.reason is FailureReason.EXIT
    assert "status 1" in str(error)
    assert "cannot reach the model" in str(error)


def _process_gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_command_seat_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    command = script(
        tmp_path,
        "hang.py",
        f"""\
        import subprocess, sys, time
        child = subprocess.Popen(["sleep", "300"])
        with open({str(pid_file)!r}, "w") as handle:
            handle.write(str(child.pid))
        sys.stdin.read()
        time.sleep(300)
        """,
    )
    seat = make_seat(SeatConfig("alpha", "acme", SeatKind.COMMAND, command=command))
    started = time.monotonic()
    error = failure(lambda: seat.call(make_request(), timeout_s=1.0))
    assert error.reason is FailureReason.TIMEOUT
    assert time.monotonic() - started < 10
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while not _process_gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _process_gone(grandchild)


def test_command_seat_garbage_output_fails_the_call(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "garbage.py",
        """\
        import sys
        sys.stdin.read()
        print("Looks good to me!")
        """,
    )
    seat = make_seat(SeatConfig("alpha", "acme", SeatKind.COMMAND, command=command))
    error = failure(lambda: seat.call(make_request(), timeout_s=30))
    assert error.reason is FailureReason.INVALID_JSON
    assert "alpha" in str(error)


def test_command_seat_json_of_the_wrong_shape_fails_the_call(tmp_path: Path) -> None:
    command = script(tmp_path, "list.py", "import sys\nsys.stdin.read()\nprint('[1, 2]')\n")
    seat = make_seat(SeatConfig("alpha", "acme", SeatKind.COMMAND, command=command))
    error = failure(lambda: seat.call(make_request(), timeout_s=30))
    assert error.reason is FailureReason.BAD_SHAPE


def test_command_seat_missing_program_fails_the_call(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-seat")
    seat = make_seat(SeatConfig("alpha", "acme", SeatKind.COMMAND, command=(missing,)))
    error = failure(lambda: seat.call(make_request(), timeout_s=30))
    assert error.reason is FailureReason.START
    assert "no-such-seat" in str(error)


def test_credential_names_are_recognised() -> None:
    for name in (
        "GITHUB_TOKEN",
        "HINDSIGHT_DATABASE_URL",
        "OPENAI_API_KEY",
        "AWS_SECRET_ACCESS_KEY",
        "NPM_TOKEN",
        "DB_PASSWORD",
        "SSH_AUTH_SOCK",
        "GH_HOST",
    ):
        assert is_credential_name(name), name
    for name in ("PATH", "HOME", "LANG", "PYTHONPATH", "KEYBOARD_LAYOUT", "TERM"):
        assert not is_credential_name(name), name
    assert child_environment({"A_TOKEN": "x", "PATH": "/bin"}, keep=["A_TOKEN"]) == {
        "A_TOKEN": "x",
        "PATH": "/bin",
    }


def test_demo_seat_reports_patterns_for_its_lens_and_a_tool_path() -> None:
    seat = make_seat(
        SeatConfig(
            "demo",
            "hindsight",
            SeatKind.COMMAND,
            command=(sys.executable, "-m", "review.demo_seat"),
        )
    )
    correctness = asyncio.run(seat.call(make_request(lens="correctness"), timeout_s=30))
    security = asyncio.run(seat.call(make_request(lens="security"), timeout_s=30))
    tests = asyncio.run(seat.call(make_request(lens="tests"), timeout_s=30))

    by_title = {f.title: f for f in correctness.findings}
    assert set(by_title) == {
        "Bare except swallows every error",
        "File opened without a context manager",
    }
    bare = by_title["Bare except swallows every error"]
    assert (bare.path, bare.line) == ("src/app.py", 5)
    assert bare.suggestion == "    except Exception:"
    assert bare.lesson is not None and "`parse`" in bare.lesson and "src/app.py" in bare.lesson
    assert by_title["File opened without a context manager"].line == 9
    assert "`read`" in (by_title["File opened without a context manager"].lesson or "")

    assert [(f.title, f.line) for f in security.findings] == [("eval of dynamic input", 4)]
    assert security.findings[0].suggestion == "        return ast.literal_eval(text)"
    assert [(f.title, f.line) for f in tests.findings] == [("TODO left in the change", 10)]

    assert [(r.command, r.status.value, r.corrects) for r in correctness.tool_receipts] == [
        ("pytest -q", "failed", None),
        (PASSING_TEST, "passed", "t1"),
    ]
    informed = asyncio.run(
        seat.call(make_request(memory=f"- Tool path: `{PASSING_TEST}` passed"), timeout_s=30)
    )
    assert [(r.command, r.status.value) for r in informed.tool_receipts] == [
        (PASSING_TEST, "passed")
    ]


# --- HTTP seats --------------------------------------------------------------------------------

KEY_ENV = {"LOOPBACK_KEY": API_KEY}


def http_seat(kind: SeatKind, base_url: str) -> Seat:
    config = SeatConfig(
        name="remote",
        lab="loopback-labs",
        kind=kind,
        model=MODEL,
        base_url=base_url,
        api_key_env="LOOPBACK_KEY",
    )
    return make_seat(config, environ=KEY_ENV)


async def _openai(provider: Provider, request: dict[str, Any], timeout_s: float = 30) -> CallResult:
    async with serve(openai_app(provider), provider) as url:
        seat = http_seat(SeatKind.OPENAI, f"{url}/v1")
        return await seat.call(request, timeout_s=timeout_s)


async def _anthropic(
    provider: Provider, request: dict[str, Any], timeout_s: float = 30
) -> CallResult:
    async with serve(anthropic_app(provider), provider) as url:
        seat = http_seat(SeatKind.ANTHROPIC, url)
        return await seat.call(request, timeout_s=timeout_s)


def test_openai_seat_speaks_chat_completions() -> None:
    provider = Provider()
    request = make_request()
    result = asyncio.run(_openai(provider, request))
    assert [f.title for f in result.findings] == ["Unchecked parse_config result"]
    assert [r.command for r in result.tool_receipts] == ["pytest -q"]
    (sent,) = provider.requests
    assert sent["headers"]["authorization"] == f"Bearer {API_KEY}"
    assert sent["json"]["model"] == MODEL
    assert sent["json"]["response_format"] == {"type": "json_object"}
    assert user_text(sent) == request["prompt"]
    assert sent["json"]["messages"][0]["role"] == "system"


def test_openai_seat_accepts_a_fenced_answer() -> None:
    result = asyncio.run(_openai(Provider(mode="fenced"), make_request()))
    assert [f.title for f in result.findings] == ["Unchecked parse_config result"]


def test_openai_seat_prose_answer_fails_the_call() -> None:
    error = failure(lambda: _openai(Provider(mode="garbage"), make_request()))
    assert error.reason is FailureReason.INVALID_JSON


def test_openai_seat_server_error_fails_the_call() -> None:
    error = failure(lambda: _openai(Provider(mode="error"), make_request()))
    assert error.reason is FailureReason.HTTP_STATUS
    assert "500" in str(error)


def test_openai_seat_timeout_fails_the_call() -> None:
    started = time.monotonic()
    error = failure(lambda: _openai(Provider(mode="hang"), make_request(), timeout_s=0.5))
    assert error.reason is FailureReason.TIMEOUT
    assert time.monotonic() - started < 10


def test_openai_seat_wrong_key_is_rejected_by_the_server() -> None:
    provider = Provider()

    async def run() -> CallResult:
        async with serve(openai_app(provider), provider) as url:
            config = SeatConfig(
                "remote",
                "lab",
                SeatKind.OPENAI,
                model=MODEL,
                base_url=f"{url}/v1",
                api_key_env="LOOPBACK_KEY",
            )
            seat = make_seat(config, environ={"LOOPBACK_KEY": "wrong"})
            return await seat.call(make_request(), timeout_s=30)

    error = failure(run)
    assert error.reason is FailureReason.HTTP_STATUS
    assert "401" in str(error)
    assert "wrong" not in str(error)


def test_http_seat_without_its_key_fails_before_sending() -> None:
    provider = Provider()

    async def run() -> CallResult:
        async with serve(openai_app(provider), provider) as url:
            config = SeatConfig(
                "remote",
                "lab",
                SeatKind.OPENAI,
                model=MODEL,
                base_url=f"{url}/v1",
                api_key_env="LOOPBACK_KEY",
            )
            return await make_seat(config, environ={}).call(make_request(), timeout_s=30)

    error = failure(run)
    assert error.reason is FailureReason.CONFIGURATION
    assert "LOOPBACK_KEY" in str(error)
    assert provider.requests == []


def test_http_seat_unreachable_server_fails_the_call() -> None:
    async def run() -> CallResult:
        provider = Provider()
        async with serve(openai_app(provider), provider) as url:
            pass
        seat = http_seat(SeatKind.OPENAI, f"{url}/v1")
        return await seat.call(make_request(), timeout_s=30)

    error = failure(run)
    assert error.reason is FailureReason.TRANSPORT


def test_anthropic_seat_speaks_the_messages_api() -> None:
    provider = Provider()
    request = make_request()
    result = asyncio.run(_anthropic(provider, request))
    assert [f.title for f in result.findings] == ["Unchecked parse_config result"]
    (sent,) = provider.requests
    assert sent["headers"]["x-api-key"] == API_KEY
    assert sent["headers"]["anthropic-version"] == "2023-06-01"
    assert sent["json"]["model"] == MODEL
    assert sent["json"]["max_tokens"] == 4096
    assert isinstance(sent["json"]["system"], str)
    assert user_text(sent) == request["prompt"]
    first_block = sent["json"]["messages"][0]["content"][0]
    assert first_block["text"] == request["header"]
    assert first_block["cache_control"] == {"type": "ephemeral"}


def test_anthropic_seat_failures_fail_the_call() -> None:
    error = failure(lambda: _anthropic(Provider(mode="error"), make_request()))
    assert error.reason is FailureReason.HTTP_STATUS
    error = failure(lambda: _anthropic(Provider(mode="garbage"), make_request()))
    assert error.reason is FailureReason.INVALID_JSON
    error = failure(lambda: _anthropic(Provider(mode="hang"), make_request(), timeout_s=0.5))
    assert error.reason is FailureReason.TIMEOUT


def test_http_seats_share_an_injected_client() -> None:
    provider = Provider()

    async def run() -> list[CallResult]:
        async with serve(openai_app(provider), provider) as url, httpx.AsyncClient() as client:
            config = SeatConfig(
                "remote",
                "lab",
                SeatKind.OPENAI,
                model=MODEL,
                base_url=f"{url}/v1",
                api_key_env="LOOPBACK_KEY",
            )
            seat = make_seat(config, client=client, environ=KEY_ENV)
            return list(
                await asyncio.gather(*(seat.call(make_request(), timeout_s=30) for _ in range(3)))
            )

    results = asyncio.run(run())
    assert len(results) == 3 and all(r.findings for r in results)
    assert len(provider.requests) == 3


def test_documented_example_seat_runs_as_a_command_seat() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "seat_example.py"
    seat = make_seat(
        SeatConfig("printer", "local", SeatKind.COMMAND, command=(sys.executable, str(example)))
    )
    patch = "@@ -1,2 +1,3 @@\n import os\n+print(os.getcwd())\n x = 1\n"
    result = asyncio.run(seat.call(make_request(patch=patch), timeout_s=30))
    assert [(f.path, f.line, f.title) for f in result.findings] == [
        ("src/app.py", 2, "Debugging print left in the change")
    ]
