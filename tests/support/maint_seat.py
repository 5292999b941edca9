"""A maintenance seat for tests: a real command process answering `hindsight.maint/1` as told.

The mode file beside the script says how: `keep`, `retire` or `adapt` every supplied id (adapt
with the text in `text`), or a hostile answer: `missing` (drops an id), `duplicate`, `foreign`
(adds an id it was not given), `bad-action`, `not-json`.
"""

from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from review.config import SeatConfig, SeatKind

SCRIPT = """
import json, pathlib, sys

here = pathlib.Path(__file__).parent
request = json.load(sys.stdin)
if request.get("schema") != "hindsight.maint/1":  # a review call: nothing to report
    print(json.dumps({"findings": []}))
    sys.exit(0)
with open(here / "calls.jsonl", "a") as log:
    log.write(json.dumps(request) + "\\n")
mode = (here / "mode").read_text().strip()
text = (here / "text").read_text() if (here / "text").exists() else ""
ids = [lesson["id"] for lesson in request["lessons"]]
action = mode if mode in ("keep", "retire", "adapt", "defer") else "keep"
decisions = [{"id": i, "action": action, "reason": f"the seat says {action}", "text": text}
             for i in ids]
if mode == "missing":
    decisions = decisions[1:]
elif mode == "duplicate":
    decisions.append(decisions[0])
elif mode == "foreign":
    decisions.append({"id": "e_someone_else", "action": "retire", "reason": "x"})
elif mode == "bad-action":
    decisions[0]["action"] = "delete"
if mode == "not-json":
    print("I think these lessons are fine.")
else:
    print(json.dumps({"decisions": decisions}))
"""


@dataclass
class MaintenanceSeat:
    directory: Path

    @property
    def script(self) -> Path:
        return self.directory / "maint.py"

    def mode(self, mode: str, text: str = "") -> None:
        (self.directory / "mode").write_text(mode)
        (self.directory / "text").write_text(text)

    def config(self) -> SeatConfig:
        return SeatConfig(
            name="keeper",
            lab="keeper-labs",
            kind=SeatKind.COMMAND,
            command=(sys.executable, str(self.script)),
            write=(str(self.directory),),
            timeout_s=20,
        )

    def toml(self) -> str:
        return textwrap.dedent(
            f"""\
            [[seats]]
            name = "keeper"
            lab = "keeper-labs"
            kind = "command"
            command = [{json.dumps(sys.executable)}, {json.dumps(str(self.script))}]
            write = [{json.dumps(str(self.directory))}]
            timeout_s = 20

            [maintenance]
            seat = "keeper"
            """
        )

    def calls(self) -> list[dict[str, Any]]:
        log = self.directory / "calls.jsonl"
        return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


def maintenance_seat(directory: Path, mode: str = "keep") -> MaintenanceSeat:
    directory.mkdir(parents=True, exist_ok=True)
    seat = MaintenanceSeat(directory)
    seat.script.write_text(SCRIPT)
    seat.mode(mode)
    return seat
