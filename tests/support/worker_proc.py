"""A worker process for crash tests: runs `test.block` jobs that log to a file and hold a while."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from ghapp.app import build_deps
from ghapp.deps import Deps
from ghapp.jobs import ClaimedJob
from ghapp.router import Payload, Route, Router
from ghapp.settings import Settings
from ghapp.worker import Worker


def main() -> None:
    database_url, log_path, hold_s = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])

    async def block(deps: Deps, job: ClaimedJob, payload: Payload) -> None:
        with log_path.open("a") as log:
            log.write(f"start {job.id} {os.getpid()}\n")
        await asyncio.sleep(hold_s)
        with log_path.open("a") as log:
            log.write(f"done {job.id} {os.getpid()}\n")

    router = Router([Route(event="test", actions=None, kind="test.block", handler=block)])
    settings = Settings(database_url=database_url, job_lease_s=1.0)
    worker = Worker(build_deps(settings), router, concurrency=2)
    asyncio.run(worker.run_until_idle() if hold_s == 0 else worker.run())


if __name__ == "__main__":
    main()
