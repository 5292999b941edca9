"""What a back-fill keeps: the pull requests it read, the maintainers' comments with their
evidence, and the one publication that turns the addressed ones into cited memory facts."""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import Connection, delete, func, insert, select, update

from continual.history.evidence import Kept, Outcome, PastPull, Receipt, fact_text, ranked
from continual.history.lessons import RefusalState
from continual.history.runs import Run, read_run
from continual.memory.items import ItemKind
from continual.memory.provenance import Source
from continual.secrets import redact, redact_optional
from continual.tables import HistoryComment, HistoryPull, HistoryRefusal, MemoryItemRow
from continual.times import from_ms, to_ms
from continual.values import EntryState

DEFAULT_FACT_CAP = 200
FACT_TTL = timedelta(days=365)
HISTORY_SEAT = "history"


def session_of(repository_id: int) -> str:
    """The session id a repository's history facts are kept under (one per repository)."""
    return f"history-{repository_id}"


def pulls_read(conn: Connection, repository_id: int, numbers: Collection[int]) -> set[int]:
    """Which of ``numbers`` a back-fill of the repository already read."""
    if not numbers:
        return set()
    return set(
        conn.execute(
            select(HistoryPull.number).where(
                HistoryPull.repository_id == repository_id,
                HistoryPull.number.in_(sorted(numbers)),
            )
        ).scalars()
    )


def save_pull(
    conn: Connection,
    *,
    account_id: int,
    repository_id: int,
    generation: int,
    pull: PastPull,
    kept: Sequence[Kept],
    requests: int,
    evidence_missing: str | None,
    now_ms: int,
) -> int:
    """Keep one pull request and its counted comments (a comment already kept is left as it
    was); answers how many of them were addressed."""
    conn.execute(
        insert(HistoryPull).values(
            repository_id=repository_id,
            number=pull.number,
            account_id=account_id,
            generation=generation,
            merged_ms=to_ms(pull.merged_at),
            merged_by=pull.merged_by,
            comments=len(kept),
            requests=requests,
            evidence_missing=evidence_missing,
            read_ms=now_ms,
        )
    )
    ids = [item.comment.id for item in kept]
    held = (
        set(conn.execute(select(HistoryComment.id).where(HistoryComment.id.in_(ids))).scalars())
        if ids
        else set()
    )
    rows = [
        {
            "id": item.comment.id,
            "account_id": account_id,
            "repository_id": repository_id,
            "pr": pull.number,
            "generation": generation,
            "author": item.comment.author.login,
            "association": item.comment.author.association,
            "path": item.comment.path,
            "line": item.comment.line,
            "commit_sha": item.comment.commit_sha,
            "body": redact(item.comment.body),
            "outcome": item.outcome.value,
            "addressed_sha": item.addressed_sha,
            "merged_by": pull.merged_by,
            "author_reply": redact_optional(item.author_reply),
            "url": item.comment.url,
            "published": False,
            "created_ms": to_ms(item.comment.created_at),
        }
        for item in kept
        if item.comment.id not in held
    ]
    if rows:
        conn.execute(insert(HistoryComment), rows)
    return sum(item.outcome is Outcome.ADDRESSED for item in kept)


def discard_generation(conn: Connection, repository_id: int, generation: int) -> int:
    """Forget what an unpublished generation read (a run stopped half-way); answers the pulls."""
    conn.execute(
        delete(HistoryComment).where(
            HistoryComment.repository_id == repository_id,
            HistoryComment.generation == generation,
            HistoryComment.published.is_(False),
        )
    )
    conn.execute(
        delete(HistoryRefusal).where(
            HistoryRefusal.repository_id == repository_id,
            HistoryRefusal.generation == generation,
            HistoryRefusal.state == RefusalState.SEEDED.value,
        )
    )
    return conn.execute(
        delete(HistoryPull).where(
            HistoryPull.repository_id == repository_id, HistoryPull.generation == generation
        )
    ).rowcount


def receipts(conn: Connection, account_id: int, repository_id: int) -> list[Receipt]:
    """The repository's history receipts (its addressed maintainer comments), newest first."""
    rows = conn.execute(
        select(*HistoryComment.__table__.c)
        .where(
            HistoryComment.account_id == account_id,
            HistoryComment.repository_id == repository_id,
            HistoryComment.outcome == Outcome.ADDRESSED.value,
        )
        .order_by(HistoryComment.created_ms.desc(), HistoryComment.id.desc())
    ).all()
    return [
        Receipt(
            comment_id=row.id,
            pr=row.pr,
            author=row.author,
            path=row.path,
            body=row.body,
            addressed_sha=row.addressed_sha or "",
            merged_by=row.merged_by,
            created_at=from_ms(row.created_ms),
            url=row.url,
        )
        for row in rows
    ]


def outcomes(conn: Connection, account_id: int, repository_id: int) -> dict[str, int]:
    """The repository's kept comments counted by outcome."""
    rows = conn.execute(
        select(HistoryComment.outcome, func.count())
        .where(
            HistoryComment.account_id == account_id,
            HistoryComment.repository_id == repository_id,
        )
        .group_by(HistoryComment.outcome)
    ).all()
    return {str(outcome): int(count) for outcome, count in rows}


def publish(conn: Connection, *, account_id: int, repository_id: int, cap: int, now_ms: int) -> int:
    """Publish the repository's history facts in the caller's transaction: at most ``cap``
    addressed comments (the most recurrent, then the most recent), each a memory fact tied to
    its file, replacing the facts published before. Answers how many are published."""
    chosen = ranked(receipts(conn, account_id, repository_id), cap)
    session = session_of(repository_id)
    conn.execute(
        delete(MemoryItemRow).where(
            MemoryItemRow.account_id == account_id,
            MemoryItemRow.repository_id == repository_id,
            MemoryItemRow.review_id == session,
        )
    )
    rows = [
        _memory_row(
            account_id,
            repository_id,
            subject=f"history:{receipt.comment_id}",
            text=fact_text(receipt),
            files=(receipt.path,),
            commit=receipt.addressed_sha,
            created_ms=to_ms(receipt.created_at),
            now_ms=now_ms,
        )
        for receipt in chosen
    ]
    if rows:
        conn.execute(insert(MemoryItemRow), rows)
    conn.execute(
        update(HistoryComment)
        .where(
            HistoryComment.account_id == account_id,
            HistoryComment.repository_id == repository_id,
        )
        .values(published=True)
    )
    return len(chosen)


def _memory_row(
    account_id: int,
    repository_id: int,
    *,
    subject: str,
    text: str,
    files: Sequence[str],
    commit: str,
    created_ms: int,
    now_ms: int,
) -> dict[str, object]:
    """One history memory item: active (the code's evidence or a person vouches for it)."""
    return {
        "account_id": account_id,
        "repository_id": repository_id,
        "review_id": session_of(repository_id),
        "kind": ItemKind.FACT.value,
        "subject": subject,
        "text": redact(text),
        "seat": HISTORY_SEAT,
        "lens": "",
        "commit": commit,
        "files": json.dumps(list(files)),
        "state": EntryState.ACTIVE.value,
        "source": Source.HISTORY.value,
        "reporters": json.dumps([[HISTORY_SEAT, ""]]),
        "expires_ms": to_ms(from_ms(now_ms) + FACT_TTL),
        "created_ms": created_ms,
    }


@dataclass(frozen=True, slots=True)
class Progress:
    """A repository's back-fill as it is shown: the run, its kept comments by outcome, and its
    newest history receipts (at most ``RECEIPTS_SHOWN``)."""

    repository: str
    run: Run
    outcomes: dict[str, int]
    receipts: tuple[Receipt, ...]
    receipts_total: int


RECEIPTS_SHOWN = 50


def progress(
    conn: Connection, *, account_id: int, repository_id: int, repository: str
) -> Progress | None:
    """The repository's back-fill, or None when none was ever asked for."""
    run = read_run(conn, repository_id)
    if run is None or run.account_id != account_id:
        return None
    found = receipts(conn, account_id, repository_id)
    return Progress(
        repository=repository,
        run=run,
        outcomes=outcomes(conn, account_id, repository_id),
        receipts=tuple(found[:RECEIPTS_SHOWN]),
        receipts_total=len(found),
    )
