"""`hindsight ledger`: per repository, the reviews, calls, suggestions and their outcomes."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from dataclasses import asdict

from sqlalchemy import Engine, select

from continual.ledger import Counts, RepositoryLedger, review_ledger
from continual.tables import Account
from ghapp.api.shapes import ledger_json
from ghapp.cli.common import Subparsers, open_engine
from ghapp.db import reading
from ghapp.jobs import now_ms
from ghapp.settings import Settings


def _rate(counts: Counts) -> str:
    rate = counts.acceptance_rate
    value = "n/a" if rate is None else f"{rate:.0%}"
    return (
        f"{value} ({counts.accepted} accepted, {counts.dismissed} dismissed, "
        f"{counts.pending} pending)"
    )


def _states(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items()) if v) or "none"


def print_ledger(ledger: RepositoryLedger) -> None:
    """One repository of the ledger, for people."""
    calls = ledger.calls
    print(f"{ledger.repository}")
    print(f"  reviews: {ledger.reviews} ({ledger.posted} posted)")
    print(f"  calls: {calls.ok} ok, {calls.failed} failed, {calls.skipped} skipped")
    for failure in calls.failures:
        print(f"    failed: seat {failure.seat}, {failure.reason}: {failure.count}")
    print(f"  acceptance with lessons handed: {_rate(ledger.acceptance.with_lessons)}")
    print(f"  acceptance without lessons: {_rate(ledger.acceptance.without_lessons)}")
    print(f"  memory hits: {ledger.hits}")
    print(f"  findings not posted (dismissed here before): {ledger.suppressed}")
    print(f"  threads resolved on GitHub (evidence, not a decision): {ledger.resolved}")
    print(f"  session memory: {_states(ledger.memory)}")
    print(f"  proofs (evidence, never a decision): {_states(ledger.proofs)}")
    print(f"  lesson entries: {_states(asdict(ledger.entries))}")
    signals = [
        f"{s.signal} {s.accepted}/{s.dismissed}"
        for s in ledger.decisions_by_signal
        if s.accepted or s.dismissed
    ]
    print(f"  decisions by signal (accepted/dismissed): {', '.join(signals) or 'none yet'}")
    waiting = [
        f"{s.signal}: {s.bound} bound by evidence, {s.claimed} claimed, {s.argued} argued, "
        f"{s.deferred} deferred, {s.dropped} dropped"
        for s in ledger.decisions_by_signal
        if s.bound or s.claimed or s.argued or s.deferred or s.dropped
    ]
    for line in waiting:
        print(f"  replies and evidence, {line}")
    for bound in ledger.bound_by_evidence:
        commit = f" in {bound.commit[:12]}" if bound.commit else ""
        print(f"  {bound.decision} {bound.suggestion} ({bound.path}): {bound.evidence}{commit}")
    for rule in ledger.decisions_by_rule:
        print(f"  decided by {rule.rule} ({rule.source}): {rule.count} {rule.decision}")
    if ledger.by_seat_and_lens:
        print(
            f"  {'seat':<16} {'lens':<14} {'sugg':>5} {'acc':>5} {'dis':>5} {'pend':>5} "
            f"{'proven':>6} {'agreed':>6}"
        )
    for row in ledger.by_seat_and_lens:
        counts = row.counts
        print(
            f"  {row.seat:<16} {row.lens:<14} {counts.total:>5} {counts.accepted:>5} "
            f"{counts.dismissed:>5} {counts.pending:>5} {row.proven:>6} {row.agreements:>6}"
        )


def ledgers(engine: Engine, *, now: int, repository: str | None = None) -> list[RepositoryLedger]:
    """The ledger of every account's repositories (or of one repository)."""
    with reading(engine) as conn:
        accounts = conn.execute(select(Account.id).order_by(Account.login)).scalars().all()
        found = [
            ledger
            for account_id in accounts
            for ledger in review_ledger(conn, account_id, now=now, brain=False)
        ]
    return [x for x in found if repository is None or x.repository == repository]


def cmd_ledger(args: argparse.Namespace, settings: Settings) -> int:
    with open_engine(settings) as engine:
        found = ledgers(engine, now=now_ms(), repository=args.repo)
    if args.json:
        print(json.dumps([ledger_json(x) for x in found], sort_keys=True, indent=2))
        return 0
    if not found:
        print("no repositories yet")
        return 0
    for ledger in found:
        print_ledger(ledger)
    return 0


def add_ledger(commands: Subparsers) -> None:
    ledger = commands.add_parser("ledger", help="reviews, calls, suggestions and outcomes")
    ledger.add_argument("--repo", help="only this repository (owner/name)")
    ledger.add_argument("--json", action="store_true", help="print the ledger as JSON")
    ledger.set_defaults(run=cmd_ledger)
