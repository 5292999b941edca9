"""Seats: command seats as real subprocesses, HTTP seats against loopback provider servers."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import textwrap
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from review.config import ConfigError, SeatConfig, SeatKind, SeatSandbox, loads_config
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
from review.sandbox import Isolation, Sandbox, detect_sandbox
from review.sandbox.seat import seat_view
from review.seats import CommandSeat, Seat, make_seat
from review.shards import PullFile, cut_shards
from tests.support.processes import running_with
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


needs_bwrap = pytest.mark.skipif(
    detect_sandbox().isolation is not Isolation.BWRAP, reason="bubblewrap does not run here"
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
seen = sorted(name for name in os.environ if name != "PWD")
print(json.dumps({
    "findings": [{"path": files[0]["path"], "line": 2, "title": "Seen " + request["lens"]["name"],
                  "body": "ok", "extra": "ignored"}],
    "facts": [{"kind": "environment", "text": ",".join(seen)}],
}))
"""


def test_command_seat_sees_only_the_names_it_declares(tmp_path: Path) -> None:
    command = script(tmp_path, "good.py", GOOD_SEAT)
    environ = {
        "PATH": os.environ["PATH"],
        "MY_API_TOKEN": "secret-1",
        "ALLOWED_KEY": "secret-2",
        "HINDSIGHT_WEBHOOK_SECRET": "secret-3",
        "PLAIN_SETTING": "not declared",
        "REDIS_URL": "redis://:hunter2@127.0.0.1:6379/0",
        "MYSQL_PWD": "hunter2",
        "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0/B0/XXXX",
    }
    config = SeatConfig(
        name="alpha", lab="acme", kind=SeatKind.COMMAND, command=command, pass_env=("ALLOWED_KEY",)
    )
    seat = make_seat(config, environ=environ)
    result = asyncio.run(seat.call(make_request(lens="security"), timeout_s=30))
    assert [(f.path, f.line, f.title) for f in result.findings] == [
        ("src/app.py", 2, "Seen security")
    ]
    assert result.facts[0].text == "ALLOWED_KEY,HOME,LANG,PATH"


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


def wait_until_gone(marker: str, bound_s: float = 10.0) -> list[int]:
    deadline = time.monotonic() + bound_s
    while (left := running_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.02)
    return left


def test_command_seat_timeout_kills_its_whole_process_tree(tmp_path: Path) -> None:
    marker = f"seat-child-{uuid.uuid4().hex}"
    command = script(
        tmp_path,
        "hang.py",
        f"""\
        import subprocess, sys, time
        subprocess.Popen(["sh", "-c", "sleep 300", {marker!r}])
        sys.stdin.read()
        time.sleep(300)
        """,
    )
    seat = make_seat(SeatConfig("alpha", "acme", SeatKind.COMMAND, command=command))
    started = time.monotonic()
    error = failure(lambda: seat.call(make_request(), timeout_s=2.0))
    assert error.reason is FailureReason.TIMEOUT
    assert time.monotonic() - started < 10
    assert wait_until_gone(marker) == []


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


def test_command_seat_output_over_its_cap_fails_the_call_named(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "chatty.py",
        """\
        import sys
        sys.stdin.read()
        sys.stdout.write('{"findings": []}' + " " * int(sys.argv[1]))
        """,
    )
    capped = SeatConfig("alpha", "acme", SeatKind.COMMAND, max_output_bytes=1000)
    within = make_seat(replace(capped, command=(*command, str(1000 - 16))))
    assert asyncio.run(within.call(make_request(), timeout_s=30)).findings == ()
    over = make_seat(replace(capped, command=(*command, str(1000 - 15))))
    error = failure(lambda: over.call(make_request(), timeout_s=30))
    assert error.reason is FailureReason.OUTPUT_TOO_LARGE
    assert "more than 1000 bytes" in str(error) and "max_output_bytes" in str(error)


def test_command_seat_stderr_is_kept_only_as_a_short_tail(tmp_path: Path) -> None:
    command = script(
        tmp_path,
        "noisy.py",
        """\
        import sys
        sys.stdin.read()
        for _ in range(20_000):
            sys.stderr.write("x" * 999 + "\\n")
        sys.stderr.write("the last words\\n")
        sys.exit(2)
        """,
    )
    seat = make_seat(SeatConfig("alpha", "acme", SeatKind.COMMAND, command=command))
    error = failure(lambda: seat.call(make_request(), timeout_s=30))
    assert error.reason is FailureReason.EXIT
    assert str(error).endswith("the last words") and len(str(error)) < 700


def no_sandbox() -> Sandbox:
    return Sandbox(Isolation.NONE, "'bwrap' not found: install bubblewrap")


WHERE_SEAT = """\
import json, os, sys
sys.stdin.read()
names = sorted(name for name in os.environ if name != "PWD")
print(json.dumps({"facts": [{"kind": "where", "text": json.dumps(
    {"pid": os.getpid(), "cwd": os.getcwd(), "listing": sorted(os.listdir(".")), "env": names})}]}))
"""


def where(seat: Seat) -> dict[str, Any]:
    result = asyncio.run(seat.call(make_request(), timeout_s=30))
    return dict(json.loads(result.facts[0].text))


def test_a_seat_that_requires_the_sandbox_refuses_to_run_without_one(tmp_path: Path) -> None:
    config = SeatConfig(
        "alpha",
        "acme",
        SeatKind.COMMAND,
        command=script(tmp_path, "where.py", WHERE_SEAT),
        sandbox=SeatSandbox.REQUIRED,
    )
    error = failure(
        lambda: make_seat(config, sandbox=no_sandbox()).call(make_request(), timeout_s=30)
    )
    assert error.reason is FailureReason.CONFIGURATION
    assert 'sandbox = "required"' in str(error) and "install bubblewrap" in str(error)


def test_without_a_sandbox_a_seat_runs_with_the_fallbacks_bounds_and_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "planted.txt").write_text("the app's folder")
    config = SeatConfig(
        "alpha",
        "acme",
        SeatKind.COMMAND,
        command=script(tmp_path, "where.py", WHERE_SEAT),
        pass_env=("DECLARED",),
    )
    environ = {"PATH": os.environ["PATH"], "DECLARED": "1", "MYSQL_PWD": "hunter2"}
    seat = CommandSeat(config, environ=environ, sandbox=no_sandbox(), cwd=tmp_path)
    with caplog.at_level(logging.WARNING, logger="review.seats.command"):
        seen = where(seat)
    assert seen["env"] == ["DECLARED", "HOME", "LANG", "PATH"]
    assert seen["cwd"] == str(tmp_path) and "planted.txt" in seen["listing"]
    assert [r.message for r in caplog.records] == ["command seat runs without a sandbox"]


@needs_bwrap
def test_in_the_sandbox_the_working_directory_is_empty_and_off_opts_out(tmp_path: Path) -> None:
    (tmp_path / "planted.txt").write_text("the app's folder")
    command = script(tmp_path, "where.py", WHERE_SEAT)
    config = SeatConfig("alpha", "acme", SeatKind.COMMAND, command=command)
    inside = where(CommandSeat(config, cwd=tmp_path))
    assert inside["cwd"] == str(tmp_path) and inside["listing"] == ["where.py"]
    assert inside["pid"] < 10  # a PID namespace of its own
    outside = where(CommandSeat(replace(config, sandbox=SeatSandbox.OFF), cwd=tmp_path))
    assert "planted.txt" in outside["listing"] and outside["pid"] > 10


def test_the_demo_seat_is_given_its_package_never_the_project_folder() -> None:
    root = Path(__file__).resolve().parents[2]
    config = SeatConfig(
        "demo", "hindsight", SeatKind.COMMAND, command=(sys.executable, "-m", "review.demo_seat")
    )
    view = seat_view(config, cwd=root, path=os.environ["PATH"])
    assert view is not None
    assert str(root / "review") in view.read
    assert not any(Path(item) in (root, *root.parents) for item in view.read)
    assert not any(Path(item).parent == root and Path(item).is_file() for item in view.read)


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ('sandbox = "maybe"', 'seats[0].sandbox must be one of "auto", "required", "off"'),
        ("network = 1", "seats[0].network must be true or false"),
        ('read = ["opt/seat"]', "seats[0].read: 'opt/seat' must be an absolute path"),
        ('write = ["/"]', "seats[0].write: '/' must be an absolute path other than /"),
        ('read = ["/opt/../etc"]', "seats[0].read: '/opt/../etc' must be an absolute path"),
        ("max_output_bytes = 0", "seats[0].max_output_bytes must be a positive integer"),
    ],
)
def test_a_command_seats_sandbox_keys_are_checked(table: str, problem: str) -> None:
    text = f'[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n{table}\n'
    with pytest.raises(ConfigError) as info:
        loads_config(text)
    assert any(item.startswith(problem) for item in info.value.problems), info.value.problems


def test_a_command_seats_sandbox_keys_are_read_and_refused_on_http_seats() -> None:
    text = (
        '[[seats]]\nname = "a"\nlab = "l"\nkind = "command"\ncommand = ["x"]\n'
        'sandbox = "required"\nnetwork = true\nread = ["/opt/seat/"]\nwrite = ["/var/cache/seat"]\n'
        "max_output_bytes = 65536\n"
    )
    (seat,) = loads_config(text).seats
    assert (seat.sandbox, seat.network, seat.read, seat.write, seat.max_output_bytes) == (
        SeatSandbox.REQUIRED,
        True,
        ("/opt/seat",),
        ("/var/cache/seat",),
        65536,
    )
    assert loads_config(text.replace("network = true\n", "")).seats[0].network is False
    http = '[[seats]]\nname = "b"\nlab = "l"\nkind = "openai"\nmodel = "m"\nnetwork = true\n'
    with pytest.raises(ConfigError) as info:
        loads_config(http)
    assert info.value.problems == ('seats[0].network is only for kind = "command"',)


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
    seat = make_seat(
        SeatConfig(
            "printer",
            "local",
            SeatKind.COMMAND,
            command=(sys.executable, "-m", "review.example_seat"),
        )
    )
    patch = "@@ -1,2 +1,3 @@\n import os\n+print(os.getcwd())\n x = 1\n"
    result = asyncio.run(seat.call(make_request(patch=patch), timeout_s=30))
    assert [(f.path, f.line, f.title) for f in result.findings] == [
        ("src/app.py", 2, "Debugging print left in the change")
    ]


def test_http_seat_follows_no_redirect_to_another_host() -> None:
    elsewhere = Provider()
    target = ""

    async def moved(request: Request) -> Response:
        return Response(status_code=307, headers={"location": target + "/v1/chat/completions"})

    mover = Starlette(routes=[Route("/v1/chat/completions", moved, methods=["POST"])])

    async def run(client: httpx.AsyncClient | None) -> CallResult:
        nonlocal target
        async with (
            serve(openai_app(elsewhere), elsewhere) as target,
            serve(mover, Provider()) as url,
        ):
            config = SeatConfig("remote", "lab", SeatKind.OPENAI, model=MODEL, base_url=f"{url}/v1")
            return await make_seat(config, client=client).call(make_request(), timeout_s=30)

    async def shared() -> CallResult:
        async with httpx.AsyncClient(follow_redirects=True) as client:
            return await run(client)

    for call in (lambda: run(None), shared):
        error = failure(call)
        assert error.reason is FailureReason.HTTP_STATUS
        assert "HTTP 307" in str(error)
    assert elsewhere.requests == []
