"""`hindsight jobs list|retry`: the job queue as an operator sees it, and dead jobs requeued."""

from __future__ import annotations

import argparse
import sys

from continual.times import from_ms
from ghapp.cli.common import Subparsers, open_engine
from ghapp.jobs import JobQueue
from ghapp.settings import Settings
from ghapp.tables import JobState


def _ms(value: int) -> str:
    return from_ms(value).strftime("%Y-%m-%d %H:%M:%S")


def cmd_jobs(args: argparse.Namespace, settings: Settings) -> int:
    with open_engine(settings) as engine:
        return _jobs(args, JobQueue.from_settings(engine, settings))


def _jobs(args: argparse.Namespace, queue: JobQueue) -> int:
    if args.jobs_command == "retry":
        if not args.ids and not args.all_dead:
            print("hindsight jobs retry: name job ids or pass --all-dead", file=sys.stderr)
            return 2
        count = queue.retry(args.ids, all_dead=args.all_dead)
        print(f"requeued {count} dead job(s)")
        return 0
    counts = queue.counts()
    print("  ".join(f"{state}: {count}" for state, count in sorted(counts.items())) or "no jobs")
    rows = queue.list(states=args.state or (), limit=args.limit)
    if rows:
        print(f"{'id':>7}  {'state':<9} {'kind':<26} {'tries':>5}  {'run after':<19}  error")
    for row in rows:
        error = (row.last_error or "").splitlines()[0][:60] if row.last_error else ""
        print(
            f"{row.id:>7}  {row.state:<9} {row.kind:<26} {row.attempts:>5}  "
            f"{_ms(row.run_after_ms):<19}  {error}"
        )
    return 0


def add_jobs(commands: Subparsers) -> None:
    jobs = commands.add_parser("jobs", help="list jobs or retry dead ones")
    jobs_sub = jobs.add_subparsers(dest="jobs_command", metavar="list|retry")
    jobs_list = jobs_sub.add_parser("list", help="list recent jobs")
    jobs_list.add_argument(
        "--state",
        action="append",
        choices=[state.value for state in JobState],
        help="only jobs in this state (repeat for several)",
    )
    jobs_list.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    jobs_retry = jobs_sub.add_parser("retry", help="requeue dead jobs")
    jobs_retry.add_argument("ids", type=int, nargs="*", help="the ids of dead jobs to requeue")
    jobs_retry.add_argument("--all-dead", action="store_true", help="requeue every dead job")
    jobs.set_defaults(run=cmd_jobs, jobs_command="list", state=None, limit=50)
