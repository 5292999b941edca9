"""A discovery seat for tests: a real command process answering `hindsight.discover/1` as told.

The mode file beside the script says how: `recur` (one lesson per mechanism citing its first 20
comments, the most a lesson may cite, and one citing the first comment of the first two
mechanisms: two pull requests), `cite` (one lesson citing the ids in the `ids` file), or a hostile
answer: `forged` (a quote the comment does not hold), `unknown` (an id it was not given),
`not-json`, `oversized`, `crash` (exit 3), `sleep` (past its timeout), `lecture` (a lesson that
is not an instruction). Review calls are answered with no findings, so the same seat can sit in a
review."""

from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review.config import SeatConfig, SeatKind

SCRIPT = """
import json, pathlib, sys, time

here = pathlib.Path(__file__).parent
request = json.load(sys.stdin)
if request.get("schema") != "hindsight.discover/1":
    print(json.dumps({"findings": []}))
    sys.exit(0)
with open(here / "calls.jsonl", "a") as log:
    log.write(json.dumps(request) + "\\n")
mode = (here / "mode").read_text().strip()
TEXT = "Use `pool.acquire` instead of `connect` when opening connections."

def cite(comments):
    return [{"comment_id": c["id"], "quote": "use `pool.acquire`"} for c in comments]

groups = request["mechanisms"]
lessons = [{"title": "Pool in " + g["key"], "text": TEXT + " See `" + g["key"] + "`.",
            "citations": cite(g["comments"][:20])} for g in groups]
if len(groups) >= 2:
    lessons.append({"title": "Pool connections", "text": TEXT,
                    "citations": cite([groups[0]["comments"][0], groups[1]["comments"][0]])})
if mode == "cite":
    ids = json.loads((here / "ids").read_text())
    lessons = [{"title": "Pool again", "text": TEXT,
                "citations": [{"comment_id": i, "quote": "use `pool.acquire`"} for i in ids]}]
elif mode == "forged":
    for lesson in lessons:
        lesson["citations"][0]["quote"] = "never use `pool.acquire`"
elif mode == "unknown":
    for lesson in lessons:
        lesson["citations"].append({"comment_id": 1, "quote": "use"})
elif mode == "lecture":
    for lesson in lessons:
        lesson["text"] = "Pools are how this project talks to `pool.acquire`."
elif mode == "crash":
    sys.stderr.write("Traceback: the seat fell over\\n")
    sys.exit(3)
elif mode == "sleep":
    time.sleep(30)
if mode == "not-json":
    print("Here are some lessons I found: use pools.")
elif mode == "oversized":
    print(json.dumps({"lessons": lessons, "padding": "x" * 60000}))
else:
    print(json.dumps({"lessons": lessons}))
"""


@dataclass
class DiscoverySeat:
    directory: Path

    @property
    def script(self) -> Path:
        return self.directory / "discover.py"

    def mode(self, mode: str, ids: list[int] | None = None) -> None:
        (self.directory / "mode").write_text(mode)
        (self.directory / "ids").write_text(json.dumps(ids or []))

    def config(self) -> SeatConfig:
        return SeatConfig(
            name="finder",
            lab="finder-labs",
            kind=SeatKind.COMMAND,
            command=(sys.executable, str(self.script)),
            write=(str(self.directory),),
            timeout_s=20,
        )

    def toml(self, *, timeout_s: float = 20) -> str:
        return textwrap.dedent(
            f"""\
            [[seats]]
            name = "finder"
            lab = "finder-labs"
            kind = "command"
            command = [{json.dumps(sys.executable)}, {json.dumps(str(self.script))}]
            write = [{json.dumps(str(self.directory))}]
            timeout_s = {timeout_s}

            [history]
            seat = "finder"
            """
        )

    def calls(self) -> list[dict[str, Any]]:
        log = self.directory / "calls.jsonl"
        return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def discovery_seat(directory: Path, mode: str = "recur") -> DiscoverySeat:
    directory.mkdir(parents=True, exist_ok=True)
    seat = DiscoverySeat(directory)
    seat.script.write_text(SCRIPT)
    seat.mode(mode)
    return seat
