"""A judge seat for tests: answers `hindsight.judge/2` from a table the test writes, as a command
(a Python script run as a real process) or as an OpenAI/Anthropic-speaking server on loopback."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.seat_servers import API_KEY, MODEL, Provider, anthropic_app, openai_app
from tests.support.web import serve

KEY_ENV = "JUDGE_LOOPBACK_KEY"
SCHEMA = "hindsight.judge/2"
# The prompt quotes the reply as one JSON string on its own line.
_PROMPT_REPLY = re.compile(
    r"The reply to judge, id (?P<id>\d+) by [^\n]*:\n(?P<body>\"[^\n]*\")\n\nAnswer with exactly one"
)


def pick(reply_id: int, body: str, answers: dict[str, Any]) -> tuple[float, str]:
    """The delay and the text to answer about one reply: the first entry whose key its body holds.

    An entry is the answer object, with `reply_id` filled in (`"other"` names the next id), or
    `{"raw": text}` answered as it is; `"sleep"` delays it. No entry: category "other".
    """
    for key, entry in answers.items():
        if key in body:
            answer = dict(entry)
            delay = float(answer.pop("sleep", 0))
            if "raw" in answer:
                return delay, str(answer["raw"])
            if answer.get("reply_id") == "other":
                answer["reply_id"] = reply_id + 1
            answer.setdefault("reply_id", reply_id)
            return delay, json.dumps(answer)
    return 0.0, json.dumps({"reply_id": reply_id, "category": "other", "reason": "", "quote": ""})


_MAIN = """
import json, pathlib, sys, time

here = pathlib.Path(__file__).parent
request = json.load(sys.stdin)
if request.get("schema") != "hindsight.judge/2":  # a review call: nothing to report
    print(json.dumps({"findings": []}))
    sys.exit(0)
with open(here / "calls.jsonl", "a") as log:
    log.write(json.dumps(request) + "\\n")
delay, text = pick(request["reply"]["id"], request["reply"]["body"], json.loads(
    (here / "answers.json").read_text()))
time.sleep(delay)
print(text)
"""


@dataclass
class JudgeSeat:
    """The seat's `[[seats]]` table, the answers it gives and the requests it was sent."""

    directory: Path
    seat_toml: str
    http_calls: list[dict[str, Any]] | None = None

    def answer(self, answers: dict[str, Any]) -> None:
        (self.directory / "answers.json").write_text(json.dumps(answers))

    def config(self) -> str:
        return f'{self.seat_toml}\n[decisions]\njudge = "judge"\n'

    def calls(self) -> list[dict[str, Any]]:
        """Each judge request as `{"id": reply id, "body": reply body, "request": …}`."""
        if self.http_calls is not None:
            return list(self.http_calls)
        log = self.directory / "calls.jsonl"
        if not log.exists():
            return []
        requests = [json.loads(line) for line in log.read_text().splitlines()]
        return [{**r["reply"], "request": r} for r in requests]


def command_judge(directory: Path, *, timeout_s: float) -> JudgeSeat:
    """A command judge: a script that logs each request beside itself and answers from the table."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "judge.py"
    script.write_text(inspect.getsource(pick).replace("dict[str, Any]", "dict") + _MAIN)
    seat = textwrap.dedent(
        f"""\
        [[seats]]
        name = "judge"
        lab = "judge-labs"
        kind = "command"
        command = [{json.dumps(sys.executable)}, {json.dumps(str(script))}]
        write = [{json.dumps(str(directory))}]
        timeout_s = {timeout_s}
        """
    )
    judge = JudgeSeat(directory, seat)
    judge.answer({})
    return judge


@contextmanager
def http_judge(directory: Path, kind: str, *, timeout_s: float) -> Iterator[JudgeSeat]:
    """An HTTP judge (`openai` or `anthropic`) on loopback; its key is read from `KEY_ENV`."""
    directory.mkdir(parents=True, exist_ok=True)
    calls: list[dict[str, Any]] = []
    released = threading.Event()
    judge = JudgeSeat(directory, "", calls)
    judge.answer({})

    async def respond(prompt: str) -> str:
        found = _PROMPT_REPLY.search(prompt)
        if SCHEMA not in prompt or found is None:
            return json.dumps({"findings": []})
        reply_id, body = int(found.group("id")), json.loads(found.group("body"))
        calls.append({"id": reply_id, "body": body, "request": {"prompt": prompt}})
        answers = json.loads((directory / "answers.json").read_text())
        delay, text = pick(reply_id, body, answers)
        for _ in range(int(delay * 20)):  # a slow answer, cut short when the server stops
            if released.is_set():
                break
            await asyncio.sleep(0.05)
        return text

    provider = Provider(respond=respond)
    app = openai_app(provider) if kind == "openai" else anthropic_app(provider)
    with serve(app) as url:
        base = f"{url}/v1" if kind == "openai" else url
        judge.seat_toml = textwrap.dedent(
            f"""\
            [[seats]]
            name = "judge"
            lab = "judge-labs"
            kind = "{kind}"
            model = "{MODEL}"
            base_url = "{base}"
            api_key_env = "{KEY_ENV}"
            timeout_s = {timeout_s}
            """
        )
        try:
            yield judge
        finally:
            released.set()


__all__ = ["API_KEY", "KEY_ENV", "JudgeSeat", "command_judge", "http_judge", "pick"]
